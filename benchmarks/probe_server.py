"""What ``ServerScorer`` sends per probe at one retail decision point: HTTP requests and scored
tokens (the server's prefill work), against :class:`toolprism.testing.MockOpenAIServer`.

Run: ``PYTHONPATH=src python benchmarks/probe_server.py``. The mock's TinyLM tokenises by bytes
and a few merges, so token counts are about 3x a real BPE tokenizer's; requests are what a vLLM
server gets. Seconds here are the mock's (pure Python), not a GPU's.
"""

from __future__ import annotations

import json
import time

from toolprism.domains import get_domain
from toolprism.probes import action_distribution, surprisal
from toolprism.probes._server import ServerScorer
from toolprism.shaping import Variant
from toolprism.testing import MockOpenAIServer


def main() -> None:
    domain = get_domain("retail")
    tools = Variant.build("native", domain.action_space()).openai_tools
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_order_details", "arguments": '{"order_id":"#W1"}'},
    }
    reply = {"order_id": "#W1", "status": "pending", "items": [{"item_id": "1008292230", "price": 55.1}]}
    messages = [
        {"role": "system", "content": domain.policy.strip()},
        {"role": "user", "content": "Please cancel order #W1, I ordered it by mistake."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(reply, sort_keys=True, separators=(",", ":"))},
    ]
    faults = [{"error": "order not found"}, {}, {**reply, "order_id": "#W9"}]
    arms = [messages] + [[*messages[:3], {**messages[3], "content": json.dumps(f, sort_keys=True)}] for f in faults]
    with MockOpenAIServer() as mock, ServerScorer("mock", base_url=mock.base_url) as scorer:
        scorer.settings()  # the one-time capability check
        rows = []
        for what, probe in [
            ("surprisal (S0, S1)", lambda: surprisal(scorer, messages, tools, 3)),
            ("action distribution (17 actions)", lambda: action_distribution(scorer, messages, tools)),
            ("surprisal again (all cached)", lambda: surprisal(scorer, messages, tools, 3)),
            ("surprisal of 4 arms (3 new returns)", lambda: [surprisal(scorer, m, tools, 3) for m in arms]),
        ]:
            mock.reset_stats()
            before, tokens, t0 = scorer.requests, scorer.prompt_tokens, time.perf_counter()
            probe()
            rows.append((what, scorer.requests - before, scorer.prompt_tokens - tokens, time.perf_counter() - t0))
        prompt = len(mock.lm.tokenize(scorer.render(messages, tools)))
        print(f"retail decision point: {len(tools)} tools, prompt {prompt} TinyLM tokens")
        for what, requests, tokens, seconds in rows:
            print(f"{what:38s} {requests:3d} requests {tokens:7d} scored prompt tokens {seconds:6.2f} s (mock)")


if __name__ == "__main__":
    main()
