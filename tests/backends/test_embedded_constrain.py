"""``constrain`` on the ``embedded`` backend: which grammar each turn is decoded under (a stand-in
for llama.cpp records it), and on SmolLM2 (marked ``embedded``) that constrained turns are calls of
a listed tool with schema-valid arguments or answers, and that ``first`` decodes its first turn as
``all`` does and its turns after a call as ``none`` does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import jsonschema
import pytest
from test_embedded import TOOLS  # the two smart-home tools the embedded tests share

from toolprism.backends import _embedded as emb
from toolprism.backends._embedded import GRAMMAR, EmbeddedBackend, schema_grammar
from toolprism.errors import ConfigError

SYSTEM = {"role": "system", "content": "You control a smart home."}
REQUESTS = ["Turn on the kitchen light.", "Set the bedroom to 19 degrees."]
CALLED = [
    SYSTEM,
    {"role": "user", "content": REQUESTS[0]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "set_light", "arguments": '{"room": "kitchen"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"error": "missing argument power"}'},
]


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


def _recording_backend(constrain: str) -> tuple[EmbeddedBackend, list[str]]:
    """An EmbeddedBackend without a model file whose ``generate`` records the grammar it is given."""
    backend = object.__new__(EmbeddedBackend)
    backend.constrain, backend._grammars = constrain, {}
    grammars: list[str] = []

    def generate(prompt, seed=None, *, stop=None, grammar=GRAMMAR):
        grammars.append(grammar)
        return '{"answer": "ok"}', "stop", 10, 5, None

    backend.generate = generate
    return backend, grammars


@pytest.mark.parametrize(
    ("mode", "expected"), [("none", [False, False]), ("first", [True, False]), ("all", [True, True])]
)
def test_each_turn_gets_the_grammar_of_its_mode(mode, expected):
    backend, grammars = _recording_backend(mode)
    agent = backend.agent(Ctx(seed=0))
    for messages in (CALLED[:2], CALLED):  # before the first call, after it
        asyncio.run(agent.respond(messages, TOOLS))
    assert [g != GRAMMAR for g in grammars] == expected
    assert all(g in (GRAMMAR, schema_grammar(TOOLS)) for g in grammars)


def test_unknown_mode_is_a_config_error_listed_with_the_others():
    with pytest.raises(ConfigError, match=r"unknown constrain mode 'sometimes'[\s\S]*max_tokens must be >= 1"):
        EmbeddedBackend("smollm2", constrain="sometimes", max_tokens=0)


def judge(turn, tools) -> str:
    """``call`` (a listed tool, arguments valid under its schema), ``answer``, or ``invalid``."""
    if turn.error is not None:
        return "invalid"
    if not turn.calls:
        return "answer"
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    (call,) = turn.calls
    if call.name not in schemas:
        return "invalid"
    return (
        "call"
        if jsonschema.Draft202012Validator(schemas[call.name]).is_valid(json.loads(call.arguments))
        else "invalid"
    )


@pytest.mark.embedded
def test_smollm2_constrained_turns_are_valid_and_first_switches_after_the_call():
    if not Path(str(emb.resolve_model_path(emb.MODELS["smollm2"]))).is_file():  # ConfigError when absent
        pytest.skip("SmolLM2 weights absent")
    # 40 tokens hold these constrained calls (25-30); unconstrained replies that run longer are cut (and unreadable)
    backends = {mode: EmbeddedBackend("smollm2", constrain=mode, max_tokens=40) for mode in ("none", "first", "all")}

    def turn(mode, messages):
        return asyncio.run(backends[mode].agent(Ctx(seed=0)).respond(messages, TOOLS))

    firsts = {
        mode: [turn(mode, [SYSTEM, {"role": "user", "content": r}]) for r in REQUESTS] for mode in ("none", "all")
    }
    verdicts = {mode: [judge(t, TOOLS) for t in turns] for mode, turns in firsts.items()}
    print(f"\nSmolLM2 first turns (call / answer / invalid): {verdicts}")
    assert "invalid" not in verdicts["all"]
    assert turn("first", CALLED[:2]) == firsts["all"][0]  # the first turn: the schema grammar (CALLED[:2] is request 0)
    assert turn("first", CALLED) == turn("none", CALLED)  # after the first call: the format grammar
