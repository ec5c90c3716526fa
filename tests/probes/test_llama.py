"""``LlamaScorer`` on the embedded model: a direct recomputation (the whole sequence evaluated from
scratch, log-softmax by hand) matches to 1e-4 nats, prefix reuse changes no number, a prompt
longer than n_ctx is a ProbeError, generation still works after scoring, and the channels run
on it. Prompts stay short (a made-up two-tool domain) so the model's evaluations take seconds."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from toolprism.probes._llama import chunk_bounds, log_softmax_at

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_lamp",
            "description": "Read a lamp's state.",
            "parameters": {"type": "object", "properties": {"lamp_id": {"type": "string"}}, "required": ["lamp_id"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_lamp",
            "description": "Switch a lamp on or off.",
            "parameters": {
                "type": "object",
                "properties": {"lamp_id": {"type": "string"}, "on": {"type": "boolean"}},
                "required": ["lamp_id", "on"],
            },
        },
    },
]


def _messages(reply: dict) -> list[dict]:
    return [
        {"role": "system", "content": "You control the lamps of a house."},
        {"role": "user", "content": "Is lamp L7 on? If not, switch it on."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_lamp", "arguments": '{"lamp_id": "L7"}'}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "get_lamp",
            "content": json.dumps(reply, sort_keys=True, separators=(",", ":")),
        },
    ]


ARMS = {
    "C": {"lamp_id": "L7", "on": False},
    "F": {"error": "lamp service unavailable"},
    "Ns": {"lamp_id": "L7", "on": "maybe"},
    "Nm": {"lamp_id": "L9", "on": False},
}


def test_log_softmax_at_equals_scipy_in_float64() -> None:
    rng = np.random.default_rng(7)
    logits = (rng.standard_normal((5, 4096)) * 8).astype(np.float32)
    logits[2, 11] = 60.0  # a row dominated by one token
    targets = np.array([0, 4095, 11, 12, 3000])
    rows = logits.astype(np.float64)
    expected = rows[np.arange(5), targets] - logsumexp(rows, axis=1)
    got = log_softmax_at(logits, targets)
    assert got.dtype == np.float64
    assert np.max(np.abs(got - expected)) < 1e-12
    assert np.all(got <= 0.0)


def test_chunk_bounds_never_leave_a_one_token_batch() -> None:
    for start, stop, size in [(0, 513, 512), (0, 1025, 512), (3, 5, 512), (0, 512, 512), (7, 8, 4), (0, 9, 4)]:
        bounds = chunk_bounds(start, stop, size)
        assert bounds[0][0] == start and bounds[-1][1] == stop
        assert all(a < b <= a + size for a, b in bounds)
        assert all(b == c for (_, b), (c, _) in zip(bounds, bounds[1:], strict=False))
        assert all(b - a >= 2 for a, b in bounds) or stop - start == 1


@pytest.fixture(scope="module")
def scorer():  # noqa: ANN201
    from toolprism.backends._embedded import EmbeddedBackend
    from toolprism.probes._llama import LlamaScorer

    s = LlamaScorer(EmbeddedBackend(n_ctx=1024))
    yield s
    s.close()


@pytest.mark.embedded
def test_direct_recomputation_matches(scorer) -> None:  # noqa: ANN001
    """Each continuation's log-probabilities equal a from-scratch evaluation of context +
    continuation (llama.cpp with every position's logits, log-softmax by hand in numpy)."""
    import llama_cpp

    context = scorer.render(_messages(ARMS["C"])[:2], TOOLS)
    continuations = ['{"name": "get_lamp"', '{"answer": "Lamp L7 is on."}']
    got = scorer.score(context, continuations)
    reference = llama_cpp.Llama(
        model_path=str(scorer.backend.path), n_ctx=1024, n_threads=2, logits_all=True, verbose=False
    )
    try:
        for continuation, scored in zip(continuations, got, strict=True):
            context_ids = reference.tokenize(context.encode(), add_bos=False, special=True)
            full_ids = reference.tokenize((context + continuation).encode(), add_bos=False, special=True)
            first = next(
                (i for i, (a, b) in enumerate(zip(context_ids, full_ids, strict=False)) if a != b), len(context_ids)
            )
            reference.reset()
            reference.eval(full_ids)
            logits = np.asarray(reference.scores[: len(full_ids)], dtype=np.float64)
            expected = []
            for pos in range(first, len(full_ids)):
                row = logits[pos - 1]
                expected.append(row[full_ids[pos]] - row.max() - math.log(np.exp(row - row.max()).sum()))
            assert scored.token_ids == tuple(full_ids[first:])
            assert len(scored.logprobs) == len(expected) > 1
            assert np.max(np.abs(np.array(scored.logprobs) - np.array(expected))) < 1e-4
            assert all(lp < 0 for lp in scored.logprobs)
    finally:
        reference.close()


@pytest.mark.embedded
def test_prefix_reuse_changes_no_number(scorer) -> None:  # noqa: ANN001
    """Four arms scored in a row (reusing the shared prefix) give the numbers each gives on a
    fresh cache, and the shared prefix is decoded once."""
    from toolprism.probes import surprisal

    scorer.close()
    fresh = {}
    for arm, reply in ARMS.items():
        scorer.close()
        fresh[arm] = scorer.score(*_span(scorer, _messages(reply)))[0]
        alone = scorer.decoded
    scorer.close()
    start = scorer.decoded
    reused = {arm: scorer.score(*_span(scorer, _messages(reply)))[0] for arm, reply in ARMS.items()}
    # bit-identical on this machine's build; 1e-6 leaves room for other CPU kernels, and still
    # catches a one-token batch (up to 0.07 nats off)
    for arm in ARMS:
        assert reused[arm].token_ids == fresh[arm].token_ids
        assert np.max(np.abs(np.subtract(reused[arm].logprobs, fresh[arm].logprobs))) <= 1e-6
    assert scorer.decoded - start < 2 * alone  # four arms cost well under two evaluations
    # the same through the channel, twice in a row (the second from the cache)
    scorer.close()
    first = surprisal(scorer, _messages(ARMS["Nm"]), TOOLS, 3)
    assert tuple(surprisal(scorer, _messages(ARMS["Nm"]), TOOLS, 3)) == pytest.approx(tuple(first), abs=1e-6)


@pytest.mark.embedded
def test_a_score_does_not_depend_on_what_was_scored_before(scorer) -> None:  # noqa: ANN001
    """The same sequence scores the same whatever the cache held: after an unrelated sequence (it
    goes to another slot), forked from a cached sequence with a long tail, and with every slot
    used. In one KV cache shared by the slots (llama.cpp's ``kv_unified``), the first case was up
    to 0.33 nats off."""
    scorer.close()
    context, (text,) = _span(scorer, _messages(ARMS["F"]))
    fresh = scorer.score(context, [text])[0]
    histories = [
        ["Unrelated notes about the weather and the garden. " * 30],
        [context + text + " and then some more words" * 40],
        ["a b " * 40, "c d e " * 40, "f g h i " * 40, "j " * 120],
    ]
    for history in histories:
        scorer.close()
        for earlier in history:
            scorer.score(earlier, [" x y"])
        got = scorer.score(context, [text])[0]
        assert got.token_ids == fresh.token_ids
        assert np.max(np.abs(np.subtract(got.logprobs, fresh.logprobs))) <= 1e-6, history[0][:40]


def _span(scorer, messages):  # noqa: ANN001, ANN202
    from toolprism.probes import turn_span

    context, text = turn_span(scorer, messages, TOOLS, 3, messages[3]["content"])
    return context, [text]


@pytest.mark.embedded
def test_channels_on_the_embedded_model(scorer) -> None:  # noqa: ANN001
    from toolprism.probes import REPLY, action_distribution, surprisal

    s = surprisal(scorer, _messages(ARMS["C"]), TOOLS, 3)
    assert s.n_tokens > 3 and s.s0 > 0 and s.s1 > 0 and math.isclose(s.g, s.s1 - s.s0)
    dist = action_distribution(scorer, _messages(ARMS["C"]), TOOLS)
    assert set(dist.probs) == {"get_lamp", "set_lamp", REPLY}
    assert math.isclose(sum(dist.probs.values()), 1.0, abs_tol=1e-9)
    assert 0 <= dist.entropy <= math.log(3) + 1e-12


@pytest.mark.embedded
def test_prompt_longer_than_n_ctx_is_a_probe_error() -> None:
    from toolprism.backends._embedded import EmbeddedBackend
    from toolprism.probes import ProbeError
    from toolprism.probes._llama import LlamaScorer

    small = LlamaScorer(EmbeddedBackend(n_ctx=256))
    try:
        with pytest.raises(ProbeError, match=r"context window \(n_ctx 256\)"):
            small.score("lamp " * 400, [" on"])
    finally:
        small.close()


@pytest.mark.embedded
def test_generation_still_works_after_scoring(scorer) -> None:  # noqa: ANN001
    from toolprism.backends._embedded import parse_output

    prompt = scorer.render(_messages(ARMS["C"])[:2], TOOLS)
    scorer.score(prompt, ['{"name": "get_lamp"'])
    text, finish, *_ = scorer.backend.generate(prompt)
    turn = parse_output(text, call_id="call_1")
    assert finish in ("stop", "length") and (turn.calls or turn.content is not None)


@pytest.mark.embedded
def test_factory_and_settings() -> None:
    from toolprism.probes import LogprobScorer, create_scorer
    from toolprism.probes._llama import LlamaScorer

    s = create_scorer("embedded")
    assert isinstance(s, LlamaScorer) and isinstance(s, LogprobScorer)
    assert s.name == "embedded:smollm2"
    settings = s.settings()
    assert settings["scorer"] == "llama.cpp" and settings["model"] == "smollm2" and len(settings["model_sha256"]) == 64
    s.close()
