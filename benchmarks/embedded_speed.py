"""Speed and sanity of the ``embedded`` backend on this machine.

Prints: model load time; for a ~1,500-token prompt, prefill and generation throughput and the
wall time of one turn cold (empty KV cache) and warm (same system+tools prefix, new query); then
whether the model emits the right tool call on five simple smart-home requests.

    PYTHONPATH=src python benchmarks/embedded_speed.py [--model smollm2] [--max-tokens 256]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time

from toolprism.backends._embedded import EmbeddedBackend, render_prompt

ROOMS = ["kitchen", "bedroom", "living_room", "bathroom", "office", "hallway", "garage"]


def tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


ROOM = {"type": "string", "enum": ROOMS, "description": "The room."}
BASE_TOOLS = [
    tool(
        "set_light",
        "Turn a room's light on or off.",
        {"room": ROOM, "power": {"type": "string", "enum": ["on", "off"]}},
        ["room", "power"],
    ),
    tool(
        "set_thermostat",
        "Set the target temperature of a room in degrees Celsius.",
        {"room": ROOM, "celsius": {"type": "number", "minimum": 10, "maximum": 30}},
        ["room", "celsius"],
    ),
]
FILLER_TOOLS = [
    tool(
        "set_brightness",
        "Set a room's light brightness in percent.",
        {"room": ROOM, "percent": {"type": "integer", "minimum": 0, "maximum": 100}},
        ["room", "percent"],
    ),
    tool(
        "set_color",
        "Set the colour of a room's light.",
        {"room": ROOM, "color": {"type": "string", "enum": ["warm", "cold", "red", "green", "blue"]}},
        ["room", "color"],
    ),
    tool(
        "lock_door",
        "Lock or unlock a door.",
        {"door": {"type": "string", "enum": ["front", "back", "garage"]}, "locked": {"type": "boolean"}},
        ["door", "locked"],
    ),
    tool("get_status", "Read the state of every device in a room.", {"room": ROOM}, ["room"]),
    tool(
        "set_blinds",
        "Open or close the blinds of a room, in percent open.",
        {"room": ROOM, "open_percent": {"type": "integer", "minimum": 0, "maximum": 100}},
        ["room", "open_percent"],
    ),
    tool(
        "play_music",
        "Play a playlist on a room's speaker.",
        {
            "room": ROOM,
            "playlist": {"type": "string", "description": "Playlist name."},
            "volume": {"type": "integer", "minimum": 0, "maximum": 10},
        },
        ["room", "playlist"],
    ),
    tool("stop_music", "Stop the music in a room.", {"room": ROOM}, ["room"]),
    tool(
        "activate_scene",
        "Activate a predefined scene for the whole home.",
        {"scene": {"type": "string", "enum": ["morning", "away", "movie", "night"]}},
        ["scene"],
    ),
    tool(
        "set_fan",
        "Set a ceiling fan's speed.",
        {"room": ROOM, "speed": {"type": "string", "enum": ["off", "low", "medium", "high"]}},
        ["room", "speed"],
    ),
    tool(
        "schedule",
        "Schedule an action for later.",
        {
            "action": {"type": "string", "description": "One of the other tool names."},
            "at": {"type": "string", "description": "Time, HH:MM, 24-hour clock."},
            "arguments": {"type": "object", "description": "The action's arguments."},
        },
        ["action", "at", "arguments"],
    ),
    tool(
        "get_energy_usage",
        "Energy used by the home over a period, in kWh.",
        {"period": {"type": "string", "enum": ["today", "week", "month"]}},
        ["period"],
    ),
    tool(
        "set_alarm",
        "Arm or disarm the alarm system.",
        {
            "mode": {"type": "string", "enum": ["disarmed", "home", "away"]},
            "pin": {"type": "string", "description": "Four-digit PIN."},
        },
        ["mode", "pin"],
    ),
]
POLICY = (
    "You are the home assistant of a smart home. You act only through the tools. Never unlock a "
    "door or disarm the alarm without a PIN given by the user in this conversation. Keep "
    "temperatures between 10 and 30 degrees Celsius. When a request is ambiguous, ask the user. "
    "When the request is done, give a one-sentence answer."
)

REQUESTS = [
    ("Turn on the kitchen light.", "set_light", {"room": "kitchen", "power": "on"}),
    ("Turn off the bedroom light.", "set_light", {"room": "bedroom", "power": "off"}),
    ("Set the living room to 21 degrees.", "set_thermostat", {"room": "living_room", "celsius": 21}),
    ("Switch the office light on.", "set_light", {"room": "office", "power": "on"}),
    ("Make the bedroom 18 degrees.", "set_thermostat", {"room": "bedroom", "celsius": 18}),
]


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--target-tokens", type=int, default=1500)
    args = parser.parse_args()

    backend = EmbeddedBackend(args.model, max_tokens=args.max_tokens)
    prefill_only = EmbeddedBackend(args.model, max_tokens=1)  # shares the same Llama
    print(
        f"model {args.model}  file {backend.path.name}  threads {backend.n_threads} "
        f"(cpu_count {os.cpu_count()})  n_ctx {backend.n_ctx}"
    )
    t = time.perf_counter()
    llama = backend.model()
    print(f"load: {time.perf_counter() - t:.2f} s")

    def n_tokens(text: str) -> int:
        return len(llama.tokenize(text.encode(), add_bos=False, special=True))

    tools = list(BASE_TOOLS)
    for extra in FILLER_TOOLS:
        if (
            n_tokens(
                render_prompt(
                    [{"role": "system", "content": POLICY}, {"role": "user", "content": REQUESTS[0][0]}], tools
                )
            )
            >= args.target_tokens
        ):
            break
        tools.append(extra)

    def prompt(query: str) -> str:
        return render_prompt([{"role": "system", "content": POLICY}, {"role": "user", "content": query}], tools)

    p0 = prompt(REQUESTS[0][0])
    print(f"prompt: {n_tokens(p0)} tokens, {len(tools)} tools")

    # prefill throughput: empty cache, one generated token
    llama.reset()
    t = time.perf_counter()
    prefill_only.generate(p0)
    prefill_s = time.perf_counter() - t
    print(f"prefill (cold, 1 token out): {prefill_s:.2f} s = {n_tokens(p0) / prefill_s:.0f} prompt tok/s")

    # full cold turn
    llama.reset()
    t = time.perf_counter()
    text, finish, pt, ct, _ = backend.generate(p0)
    cold_s = time.perf_counter() - t
    gen_rate = (ct - 1) / max(cold_s - prefill_s, 1e-9)
    print(f"turn cold: {cold_s:.2f} s, {ct} tokens out ({finish}); generation ~{gen_rate:.1f} tok/s")

    # warm: same prefix (system + tools), another query
    for query, *_ in REQUESTS[1:3]:
        p = prompt(query)
        t = time.perf_counter()
        text, finish, pt, ct, _ = backend.generate(p)
        warm_s = time.perf_counter() - t
        print(
            f"turn warm (cached prefix, {pt} prompt tokens): {warm_s:.2f} s, {ct} tokens out "
            f"({finish}) = {ct / warm_s:.1f} tok/s overall"
        )

    # five simple requests, each as a fresh episode
    right = called = 0
    for query, name, expected in REQUESTS:
        agent = backend.agent(Ctx(seed=0))
        t = time.perf_counter()
        turn = asyncio.run(
            agent.respond([{"role": "system", "content": POLICY}, {"role": "user", "content": query}], tools)
        )
        wall = time.perf_counter() - t
        verdict = "no call"
        if turn.calls:
            called += 1
            call = turn.calls[0]
            try:
                got = json.loads(call.arguments)
            except json.JSONDecodeError:
                got = None
            ok = call.name == name and got == expected
            right += ok
            verdict = "RIGHT" if ok else "wrong"
        print(
            f"  [{verdict:7}] {wall:5.2f} s  {query!r} -> {turn.raw.strip()[:110]!r}"
            + (f"  error={turn.error}" if turn.error else "")
        )
    print(f"tool calls parsed: {called}/{len(REQUESTS)}; right (name and arguments): {right}/{len(REQUESTS)}")


if __name__ == "__main__":
    main()
