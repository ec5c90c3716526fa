"""The surprisal channels and the legal-action distribution on a character-level model whose
probabilities are known in closed form (so every number is checked against a hand computation)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import pytest

from toolprism.backends._embedded import render_prompt
from toolprism.probes import (
    REPLY,
    ProbeError,
    TokenLogprobs,
    action_distribution,
    assistant_text,
    call_syntax,
    schema_only_messages,
    scored_tokens,
    surprisal,
    turn_span,
)

ALPHABET = [chr(c) for c in range(32, 127)] + ["\n"]


def char_logprobs(context: str) -> dict[str, float]:
    """log p(next char | context): a softmax of hash-seeded logits keyed by the last 3 chars."""
    seed = hashlib.sha256(context[-3:].encode()).digest()
    logits = [((seed[i % 32] * (i + 7)) % 97) / 20.0 for i in range(len(ALPHABET))]
    top = max(logits)
    log_z = top + math.log(sum(math.exp(x - top) for x in logits))
    return {c: x - log_z for c, x in zip(ALPHABET, logits, strict=True)}


class CharScorer:
    """A LogprobScorer whose tokens are characters (token id = code point)."""

    name = "fake:char"

    def settings(self) -> dict[str, object]:
        return {"backend": "fake"}

    def render(self, messages: Sequence[dict], tools: Sequence[dict], *, generation_prompt: bool = True) -> str:
        return render_prompt(messages, tools, generation_prompt=generation_prompt)

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        out = []
        for cont in continuations:
            text = context
            values = []
            for ch in cont:
                values.append(char_logprobs(text).get(ch, -50.0))
                text += ch
            out.append(TokenLogprobs(tuple(ord(c) for c in cont), tuple(values)))
        return out


def tool(name: str) -> dict:
    return {
        "type": "function",
        "function": {"name": name, "description": f"{name}.", "parameters": {"type": "object", "properties": {}}},
    }


TOOLS = [tool("get_order"), tool("get_order_details"), tool("cancel_order")]
MESSAGES = [
    {"role": "system", "content": "Be helpful."},
    {"role": "user", "content": "Cancel order #W1."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_order_details", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"order_id":"#W1","status":"pending"}'},
]


def by_hand(context: str, continuation: str) -> float:
    total = 0.0
    for ch in continuation:
        total += char_logprobs(context)[ch]
        context += ch
    return total


def test_surprisal_matches_a_hand_computation() -> None:
    scorer = CharScorer()
    payload = MESSAGES[3]["content"]
    full = render_prompt(MESSAGES, TOOLS, generation_prompt=False)
    s1_context = full[: full.rindex(payload)]
    s0_full = render_prompt(schema_only_messages(MESSAGES, 3), [TOOLS[1]], generation_prompt=False)
    s0_context = s0_full[: s0_full.rindex(payload)]
    s = surprisal(scorer, MESSAGES, TOOLS, 3)
    assert s.s1 == pytest.approx(-by_hand(s1_context, payload) / len(payload), abs=1e-12)
    assert s.s0 == pytest.approx(-by_hand(s0_context, payload) / len(payload), abs=1e-12)
    assert s.g == pytest.approx(s.s1 - s.s0)
    assert s.s1_first == pytest.approx(-char_logprobs(s1_context)[payload[0]])
    assert s.n_tokens == len(payload)
    assert s0_context != s1_context and "Be helpful." not in s0_context and "cancel_order" not in s0_context


def test_action_distribution_is_exact_and_sums_to_one() -> None:
    scorer = CharScorer()
    dist = action_distribution(scorer, MESSAGES, TOOLS)
    context = render_prompt(MESSAGES, TOOLS)
    opener = '{"name": "'
    end = '", "arguments":'
    assert call_syntax(scorer, MESSAGES, TOOLS) == (opener, end)
    p_open = math.exp(by_hand(context, opener))
    joint = {t["function"]["name"]: math.exp(by_hand(context, opener + t["function"]["name"] + end)) for t in TOOLS}
    z = sum(joint.values())
    assert set(dist.probs) == {"get_order", "get_order_details", "cancel_order", REPLY}
    assert math.fsum(dist.probs.values()) == pytest.approx(1.0, abs=1e-12)
    assert dist.probs[REPLY] == pytest.approx(1 - p_open, abs=1e-12)
    for name, j in joint.items():
        assert dist.probs[name] == pytest.approx(p_open * j / z, rel=1e-9)
    assert dist.name_mass == pytest.approx(min(1.0, z / p_open), rel=1e-9)
    assert 0 <= dist.entropy <= math.log(4) + 1e-12
    assert dist.leader == max(dist.probs, key=dist.probs.get)
    assert dist.mass(["get_order", "nope"]) == dist.probs["get_order"]


def test_spans_of_an_assistant_turn_and_a_return() -> None:
    scorer = CharScorer()
    context, cont = assistant_text(scorer, MESSAGES[:3], TOOLS)
    assert cont.startswith('{"name": "get_order_details"') and cont.endswith("<|im_end|>\n")
    context, cont = turn_span(scorer, MESSAGES, TOOLS, 3, MESSAGES[3]["content"])
    assert context.endswith("Tool result for get_order_details: ") and cont == MESSAGES[3]["content"]


def test_a_template_that_rewrites_the_text_is_a_probe_error() -> None:
    class Escaping(CharScorer):
        def render(self, messages, tools, *, generation_prompt=True):  # noqa: ANN001, ANN202
            return super().render(messages, tools, generation_prompt=generation_prompt).replace('"', "&quot;")

    with pytest.raises(ProbeError, match="verbatim"):
        surprisal(Escaping(), MESSAGES, TOOLS, 3)


def test_schema_only_messages_needs_a_return_answering_the_call_before_it() -> None:
    with pytest.raises(ProbeError, match="not a tool return"):
        schema_only_messages(MESSAGES, 2)
    broken = [*MESSAGES[:3], {**MESSAGES[3], "tool_call_id": "call_9"}]
    with pytest.raises(ProbeError):
        schema_only_messages(broken, 3)


def test_scored_tokens_is_the_longest_common_prefix() -> None:
    assert scored_tokens([1, 2, 3], [1, 2, 3, 4, 5]) == 3
    assert scored_tokens([1, 2, 3], [1, 2, 9, 4]) == 2  # the boundary merged: token 9 is scored
    with pytest.raises(ProbeError):
        scored_tokens([1], [2, 3])
