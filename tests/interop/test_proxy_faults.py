"""The proxy's tool-output perturbations (family C) on a harness's tool results: every available
term changes the first evidence-bearing result, the same way every time, and nothing else."""

from __future__ import annotations

import json

import pytest

from toolprism.errors import ConfigError
from toolprism.interop._proxy_faults import ReplyFaults, proxy_perturbations
from toolprism.perturb import SEVERITIES, SUBTYPES
from toolprism.schema import ActionSpace

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "An order.",
            "parameters": {
                "type": "object",
                "properties": {
                    "order_id": {"type": "string"},
                    "status": {"type": "string", "enum": ["open", "shipped"]},
                },
                "required": ["order_id"],
            },
        },
    }
]
REPLY = {"order_id": "W1234", "status": "open", "items": 3, "lines": ["a", "b"]}
TERMS = [
    f"{s}:{v}" for s in sorted(SUBTYPES.names()) if s.startswith("C") for v in SEVERITIES if f"{s}:{v}" != "C2:heavy"
]


def tool(content: object) -> dict:
    return {"role": "tool", "tool_call_id": "v1", "content": json.dumps(content)}


@pytest.mark.parametrize("term", TERMS)
def test_each_term_changes_the_first_evidence_once_and_deterministically(term: str) -> None:
    space = ActionSpace.from_openai_tools(TOOLS)
    action = space.action("get_order", {"order_id": "W1234"})

    def apply() -> tuple[list[dict], ReplyFaults]:
        faults = ReplyFaults(proxy_perturbations([term]), space, seed=3)
        shown = [
            faults("c0", action, tool({"error": "not found"})),  # an error carries no evidence
            faults("c1", None, tool(REPLY)),  # a result the proxy cannot tie to a native action
            faults("c2", action, tool(REPLY)),  # the target
            faults("c3", action, tool(REPLY)),  # already hit: untouched
        ]
        return shown, faults

    shown, faults = apply()
    assert [json.loads(m["content"]) for m in (shown[0], shown[1], shown[3])] == [{"error": "not found"}, REPLY, REPLY]
    assert json.loads(shown[2]["content"]) != REPLY
    assert [(i.subtype, i.call, i.original) for i in faults.injections] == [(term.split(":")[0], 2, REPLY)]
    again, _ = apply()
    assert again == shown


def test_other_families_and_c2_heavy_are_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        proxy_perturbations(["A1", "C2:heavy"])
    assert "family A" in str(caught.value) and "C2:heavy" in str(caught.value)
    assert proxy_perturbations([]) == []
