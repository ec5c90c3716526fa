"""What prefix reuse saves when the embedded model scores Xu et al.'s fault arms.

At one retail decision point (the first task with all four arms C, F, Ns, Nm at a
``get_order_details`` site), with :class:`toolprism.probes._llama.LlamaScorer`:

- S1 of one arm from a cold cache (what each arm costs without reuse), then S1 of the other three
  arms (the shared ~3,500-token prefix reused);
- then the surprisal channels (S0 and S1) of the four arms in a row (S0's short prompt new);
- one legal-action distribution (17 continuations: the call opener and 16 tool names) vs one
  continuation, both after the context is cached.

Figures: wall seconds, CPU seconds of the process (all llama.cpp threads) and tokens decoded.
They depend on the machine and its load; the token counts do not.

    PYTHONPATH=src python benchmarks/probe_prefix.py [--model smollm2] [--tool get_order_details]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from toolprism.backends._embedded import EmbeddedBackend
from toolprism.domains import get_domain
from toolprism.perturb._arms import fault_arms
from toolprism.probes import action_distribution, surprisal, turn_span
from toolprism.probes._llama import LlamaScorer
from toolprism.run._episode import EpisodeSpec, initial_messages
from toolprism.shaping import Variant


def _call(i: int, action: dict[str, Any]) -> dict[str, Any]:
    arguments = json.dumps(action["args"], ensure_ascii=False)
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": action["op"], "arguments": arguments}}
        ],
    }


def _reply(i: int, name: str, reply: Any) -> dict[str, Any]:
    content = json.dumps(reply, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"role": "tool", "tool_call_id": f"call_{i}", "name": name, "content": content}


def retail_sites(tool: str = "get_order_details", *, arms: int = 4, limit: int = 1) -> list[tuple[list, dict]]:
    """``(tools, {arm: messages})`` for the first ``limit`` retail tasks whose site has
    ``arms`` arms: each arm's messages end with the site's return (native variant, messages
    built as an episode builds them)."""
    domain = get_domain("retail")
    variant = Variant.build("native", domain.action_space())
    tools = variant.openai_tools
    out = []
    for task in domain.tasks(0):
        site = fault_arms(domain, task, tool)
        if site is None or len(site.arms) < arms:
            continue
        messages = initial_messages(EpisodeSpec(domain, task, variant, 0))
        for i, step in enumerate(site.prefix, start=1):
            messages += [_call(i, step["action"]), _reply(i, step["action"]["op"], step["reply"])]
        n = len(site.prefix) + 1
        per_arm = {
            name: [*messages, _call(n, site.call), _reply(n, site.call["op"], arm.payload)]
            for name, arm in site.arms.items()
        }
        out.append((tools, per_arm))
        if len(out) == limit:
            break
    return out


def _measure(scorer: LlamaScorer, fn: Callable[[], object]) -> tuple[float, float, int]:
    decoded = scorer.decoded
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu, scorer.decoded - decoded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--tool", default="get_order_details")
    args = parser.parse_args()
    scorer = LlamaScorer(EmbeddedBackend(args.model))
    ((tools, arms),) = retail_sites(args.tool)
    index = {name: len(m) - 1 for name, m in arms.items()}

    def s1(name: str) -> object:
        context, text = turn_span(scorer, arms[name], tools, index[name], arms[name][index[name]]["content"])
        return scorer.score(context, [text])

    prompt = len(scorer.tokenize(scorer.render(arms["C"], tools)))
    print(f"model {scorer.name}, retail site {args.tool}, prompt {prompt} tokens, arms {', '.join(arms)}")
    print(f"{'measurement':<62} {'wall s':>8} {'cpu s':>8} {'decoded':>8}", flush=True)
    rows = {}

    def report(label: str, figures: tuple[float, float, int]) -> None:
        rows[label] = figures
        print(f"{label:<62} {figures[0]:8.2f} {figures[1]:8.2f} {figures[2]:8d}", flush=True)

    scorer.close()
    report("S1, arm C, cold cache (= one arm without reuse)", _measure(scorer, lambda: s1("C")))
    rest = [a for a in arms if a != "C"]
    report(f"S1, arms {', '.join(rest)} after C (prefix reused)", _measure(scorer, lambda: [s1(a) for a in rest]))
    report(
        "S0+S1 (surprisal), 4 arms in a row after that",
        _measure(scorer, lambda: [surprisal(scorer, m, tools, index[a]) for a, m in arms.items()]),
    )
    context = scorer.render(arms["C"], tools)
    scorer.score(context, ['{"name": "'])  # the context is cached from here on
    report("1 continuation, context cached", _measure(scorer, lambda: scorer.score(context, ['{"name": "'])))
    report(
        f"action distribution ({len(tools) + 1} continuations), context cached",
        _measure(scorer, lambda: action_distribution(scorer, arms["C"], tools)),
    )
    one = rows["S1, arm C, cold cache (= one arm without reuse)"]
    more = rows[f"S1, arms {', '.join(rest)} after C (prefix reused)"]
    print(
        f"S1 of 4 arms / 1 arm: {(one[1] + more[1]) / one[1]:.2f}x CPU, {(one[2] + more[2]) / one[2]:.2f}x tokens "
        f"decoded (without reuse: 4x)"
    )


if __name__ == "__main__":
    main()
