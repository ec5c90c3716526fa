"""``HFScorer`` on a tiny model built here, and the issue's independent check: S0, S1, G (and the
first-token versions) and the legal-action distribution recomputed by one direct forward pass of
the same model over the whole token sequence, log-softmax and sums by hand in numpy, match
``surprisal`` and ``action_distribution`` to 1e-4 nats; the probabilities of every legal action,
the reply included, sum to 1 within 1e-6; scoring with the kept ``past_key_values`` gives the
numbers of scoring from scratch."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from _tiny_hf import build_model  # noqa: E402  (tests/_tiny_hf.py)

from toolprism.backends import HFBackend  # noqa: E402
from toolprism.backends._hf import template_messages  # noqa: E402
from toolprism.errors import BackendError  # noqa: E402
from toolprism.probes import (  # noqa: E402
    REPLY,
    LogprobScorer,
    ProbeError,
    action_distribution,
    call_syntax,
    create_scorer,
    surprisal,
)
from toolprism.probes._hf import HFScorer  # noqa: E402

pytestmark = pytest.mark.hf

TOLERANCE_NATS = 1e-4
"""The issue's bound for the independent check."""


def _tool(name: str, description: str, **properties: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {k: {"type": v} for k, v in properties.items()},
                "required": list(properties),
            },
        },
    }


TOOLS = [
    _tool("get_order", "Read an order.", order_id="string"),
    _tool("cancel_order", "Cancel a pending order.", order_id="string", reason="string"),
]


def _call(call_id: str, name: str, arguments: dict) -> dict:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _return(call_id: str, reply: dict) -> dict:
    content = json.dumps(reply, sort_keys=True, separators=(",", ":"))  # as run/_episode.py shows a reply
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _conversation(order: str, status: str) -> list[dict]:
    """system, user, get_order call, its return (index 3), cancel_order call, its return (index 5)."""
    return [
        {"role": "system", "content": "You help with orders. Read an order before you cancel it."},
        {"role": "user", "content": f"Please cancel order {order}, it is late."},
        _call("call_1", "get_order", {"order_id": order}),
        _return("call_1", {"order_id": order, "status": status, "items": 2}),
        _call("call_2", "cancel_order", {"order_id": order, "reason": "late"}),
        _return("call_2", {"order_id": order, "status": "cancelled"}),
    ]


MESSAGES = _conversation("#W1001", "pending")
ARMS = {  # four returns of the same call after the same prefix, as fault arms are
    "C": {"order_id": "#W1001", "status": "pending", "items": 2},
    "F": {"error": "order service unavailable"},
    "Ns": {"order_id": "#W1001", "status": "delivered", "items": 2},
    "Nm": {"order_id": "#W1777", "status": "pending", "items": 2},
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """The tiny random model, its tokenizer trained on these tools and messages (short prompts)."""
    corpus = [json.dumps(TOOLS), *(json.dumps(m) for m in MESSAGES)]
    return build_model(tmp_path_factory.mktemp("tiny_scorer") / "model", corpus=corpus)


@pytest.fixture(scope="module")
def backend(model_dir):
    return HFBackend(model_dir, device="cpu", max_new_tokens=8)


@pytest.fixture
def scorer(backend):
    return HFScorer(backend)


# --- the direct recomputation: one forward pass, no cache, numpy log-softmax ------------------------


def _direct_logprobs(backend: HFBackend, context: str, continuation: str) -> np.ndarray:
    """Log-probabilities (nats) of the continuation's scored tokens: ``context + continuation``
    tokenised whole, scored from the first token where it parts from the context's own tokens;
    one forward pass over the whole sequence; log-softmax by hand in float64."""
    tokenize = backend.tokenizer
    context_ids = tokenize(context, add_special_tokens=False)["input_ids"]
    full = tokenize(context + continuation, add_special_tokens=False)["input_ids"]
    start = next((i for i, (a, b) in enumerate(zip(context_ids, full, strict=False)) if a != b), len(context_ids))
    with torch.no_grad():
        logits = backend.model(input_ids=torch.tensor([full])).logits[0].double().numpy()
    rows = logits[start - 1 : len(full) - 1]
    log_z = np.log(np.exp(rows - rows.max(axis=1, keepdims=True)).sum(axis=1)) + rows.max(axis=1)
    return rows[np.arange(len(rows)), full[start:]] - log_z


def _template(backend: HFBackend, messages, tools, generation_prompt: bool) -> str:
    return backend.tokenizer.apply_chat_template(
        template_messages(messages), tools=tools, add_generation_prompt=generation_prompt, tokenize=False
    )


def _direct_return_logprobs(backend: HFBackend, messages, tools, index: int) -> np.ndarray:
    """The return ``messages[index]`` located by hand in the template's text of the conversation
    up to it; its log-probabilities after everything before it."""
    text = messages[index]["content"]
    rendered = _template(backend, messages[: index + 1], tools, generation_prompt=False)
    at = rendered.rindex(text)
    return _direct_logprobs(backend, rendered[:at], text)


@pytest.mark.parametrize("index", [3, 5])
def test_surprisal_matches_a_direct_forward_pass(backend, scorer, index):
    messages = MESSAGES[: index + 1]
    name = messages[index - 1]["tool_calls"][0]["function"]["name"]
    s1 = _direct_return_logprobs(backend, messages, TOOLS, index)
    s0_messages = [messages[index - 1], messages[index]]  # the call and its return, that tool only
    s0 = _direct_return_logprobs(backend, s0_messages, [t for t in TOOLS if t["function"]["name"] == name], 1)
    got = surprisal(scorer, messages, TOOLS, index)
    assert got.n_tokens == len(s1) > 3
    assert got.s1 == pytest.approx(-s1.mean(), abs=TOLERANCE_NATS)
    assert got.s0 == pytest.approx(-s0.mean(), abs=TOLERANCE_NATS)
    assert got.g == pytest.approx(-s1.mean() + s0.mean(), abs=TOLERANCE_NATS)
    assert got.s1_first == pytest.approx(-s1[0], abs=TOLERANCE_NATS)
    assert got.s0_first == pytest.approx(-s0[0], abs=TOLERANCE_NATS)
    assert got.g_first == pytest.approx(-s1[0] + s0[0], abs=TOLERANCE_NATS)
    assert abs(got.g) > 1e-3  # the prefix changes the numbers: the check compares two different sums


def test_action_distribution_matches_a_direct_forward_pass(backend, scorer):
    messages = MESSAGES[:4]  # after get_order's return: cancel, read again, or reply
    opener = '<tool_call>{"name": "'  # CHAT_TEMPLATE's call, read off the template by hand
    end = '", "arguments":'
    assert tuple(call_syntax(scorer, messages, TOOLS)) == (opener, end)
    context = _template(backend, messages, TOOLS, generation_prompt=True)
    names = [t["function"]["name"] for t in TOOLS]
    log_joint = np.array([_direct_logprobs(backend, context, f"{opener}{n}{end}").sum() for n in names])

    def tail_ids(continuation: str) -> list[int]:
        n = len(_direct_logprobs(backend, context, continuation))
        return backend.token_ids(context + continuation)[-n:]

    opener_ids = tail_ids(opener)
    shared = min(
        next(
            (i for i, (a, b) in enumerate(zip(opener_ids, tail_ids(f"{opener}{n}{end}"), strict=False)) if a != b),
            len(opener_ids),
        )
        for n in names
    )
    assert shared > 0
    log_open = _direct_logprobs(backend, context, opener)[:shared].sum()
    p_open = math.exp(log_open)
    shares = np.exp(log_joint - log_joint.max()) / np.exp(log_joint - log_joint.max()).sum()
    expected = {REPLY: 1 - p_open, **{n: p_open * s for n, s in zip(names, shares, strict=True)}}

    got = action_distribution(scorer, messages, TOOLS)
    assert set(got.probs) == set(expected)
    for action, p in expected.items():
        assert got.probs[action] == pytest.approx(p, abs=1e-6)
    for name in names:  # a random model puts little mass on calling: compare the tools in log space
        assert math.log(got.probs[name]) == pytest.approx(math.log(expected[name]), abs=TOLERANCE_NATS)
    assert math.fsum(got.probs.values()) == pytest.approx(1.0, abs=1e-6)
    entropy = -sum(p * math.log(p) for p in expected.values())
    assert got.entropy == pytest.approx(entropy, abs=TOLERANCE_NATS)
    assert got.opener_prob == pytest.approx(p_open, abs=1e-6)
    assert got.name_mass == pytest.approx(math.exp(np.logaddexp.reduce(log_joint) - log_open), abs=1e-6)
    assert 0 < got.entropy <= math.log(len(TOOLS) + 1)
    assert abs(log_joint[0] - log_joint[1]) > 1e-2  # the two tools' shares differ: the split is checked


def test_scored_tokens_follow_the_whole_tokenisation_rule(backend, scorer):
    context = _template(backend, MESSAGES[:2], TOOLS, generation_prompt=True)
    for continuation in ["<tool_call>", " hello", "lo there", "\n"]:
        (got,) = scorer.score(context, [continuation])
        full = backend.token_ids(context + continuation)
        expected = _direct_logprobs(backend, context, continuation)
        assert got.token_ids == tuple(full[len(full) - len(expected) :])
        np.testing.assert_allclose(got.logprobs, expected, atol=TOLERANCE_NATS)
    assert scorer.score(context, [""]) == [((), ())]


# --- prefix reuse ---------------------------------------------------------------------------------


def _arm_messages(reply: dict) -> list[dict]:
    return [*MESSAGES[:3], _return("call_1", reply)]


def _score_arms(scorer: LogprobScorer) -> list:
    """S0, S1 and the action distribution at each arm (the study's order: arms consecutively)."""
    out = []
    for reply in ARMS.values():
        messages = _arm_messages(reply)
        dist = action_distribution(scorer, messages, TOOLS)
        out.append((tuple(surprisal(scorer, messages, TOOLS, 3)), sorted(dist.probs.items())))
    return out


def test_prefix_reuse_gives_the_numbers_of_no_reuse_and_evaluates_the_prefix_once(backend):
    reuse, fresh = HFScorer(backend), HFScorer(backend, reuse=False)
    with_reuse, without = _score_arms(reuse), _score_arms(fresh)
    for (s_a, d_a), (s_b, d_b) in zip(with_reuse, without, strict=True):
        np.testing.assert_allclose(s_a, s_b, atol=1e-5)
        assert [a for a, _ in d_a] == [a for a, _ in d_b]
        np.testing.assert_allclose([p for _, p in d_a], [p for _, p in d_b], atol=1e-6)
    assert fresh.stats.reused_tokens == 0 and fresh.stats.sequences == reuse.stats.sequences
    # the arms' S1 contexts share everything up to the return: each arm after the first reuses it
    prefix = len(backend.token_ids(_template(backend, MESSAGES[:3], TOOLS, generation_prompt=False)))
    assert reuse.stats.reused_tokens > 3 * prefix
    assert reuse.stats.evaluated_tokens < fresh.stats.evaluated_tokens / 4


def test_a_cache_that_refuses_to_crop_is_dropped_and_the_numbers_stay(backend, monkeypatch):
    reference = HFScorer(backend, reuse=False)
    expected = _score_arms(reference)
    refused = []

    def refuse(self, tokens_to_remove):
        refused.append(tokens_to_remove)
        raise RuntimeError("this cache cannot be cropped")

    monkeypatch.setattr(transformers.DynamicCache, "crop", refuse)
    scorer = HFScorer(backend)
    got = _score_arms(scorer)
    for (s_a, d_a), (s_b, d_b) in zip(got, expected, strict=True):
        np.testing.assert_allclose(s_a, s_b, atol=1e-5)
        np.testing.assert_allclose([p for _, p in d_a], [p for _, p in d_b], atol=1e-6)
    assert refused  # crops were tried and refused: those sequences ran from their start
    total = scorer.stats.evaluated_tokens + scorer.stats.reused_tokens
    assert total == reference.stats.evaluated_tokens  # every sequence accounted for


def test_known_log_probabilities_are_not_computed_again(backend, scorer):
    context = scorer.render(MESSAGES[:4], TOOLS)
    opener = '<tool_call>{"name": "'
    (first,) = scorer.score(context, [opener])
    evaluated = scorer.stats.evaluated_tokens
    assert scorer.score(context, [opener]) == [first]  # the same sequence: nothing evaluated
    assert scorer.stats.evaluated_tokens == evaluated
    (call,) = scorer.score(context, [opener + 'get_order"'])
    assert call.logprobs[: len(first.logprobs)] == first.logprobs  # the opener's read from the kept sequence
    assert scorer.stats.evaluated_tokens - evaluated <= len(call.logprobs) - len(first.logprobs) + 1
    np.testing.assert_allclose(call.logprobs, _direct_logprobs(backend, context, opener + 'get_order"'), atol=1e-4)


def test_scoring_leaves_generation_unchanged(backend, scorer):
    before = backend.generate(MESSAGES[:4], TOOLS)
    surprisal(scorer, MESSAGES, TOOLS, 5)
    assert backend.generate(MESSAGES[:4], TOOLS) == before


def test_reset_drops_the_cache_and_the_counts(backend, scorer):
    surprisal(scorer, MESSAGES, TOOLS, 3)
    assert scorer.stats.evaluated_tokens > 0
    scorer.reset()
    assert scorer.stats.evaluated_tokens == 0
    surprisal(scorer, MESSAGES, TOOLS, 3)
    assert scorer.stats.reused_tokens < scorer.stats.evaluated_tokens


# --- the scorer's face: render, settings, factory, errors -----------------------------------------


def test_render_is_the_backends_prompt(backend, scorer):
    text = scorer.render(MESSAGES[:4], TOOLS)
    assert backend.token_ids(text) == backend.prompt_ids(MESSAGES[:4], TOOLS)
    assert scorer.render(MESSAGES[:4], TOOLS, generation_prompt=False) == text.removesuffix("<|im_start|>assistant\n")
    assert isinstance(scorer, LogprobScorer)


def test_settings_identify_the_model_and_the_scoring(backend, scorer, model_dir):
    settings = scorer.settings()
    json.dumps(settings)
    assert settings["weights_sha256"] == backend.settings()["weights_sha256"]
    assert (settings["scorer"], settings["logprob_dtype"], settings["prefix_reuse"]) == ("hf", "float32", True)
    assert "temperature" not in settings and "max_new_tokens" not in settings
    assert scorer.name == f"hf:{model_dir.resolve()}"


def test_create_scorer_builds_an_hf_scorer(model_dir, monkeypatch):
    monkeypatch.setenv("TOOLPRISM_HF_DEVICE", "cpu")
    for name in (f"hf:{model_dir}", str(model_dir)):
        scorer = create_scorer(name)
        assert isinstance(scorer, HFScorer) and scorer.name == f"hf:{model_dir.resolve()}"


def test_too_long_for_the_positions_is_a_probe_error(tmp_path):
    small = HFScorer(HFBackend(build_model(tmp_path / "small", max_positions=96), device="cpu"))
    context = small.render(MESSAGES[:2], [])
    n = len(small.backend.token_ids(context))
    assert n < 96
    with pytest.raises(ProbeError, match="96 positions"):
        small.score(context, [" word" * 100])
    (fits,) = small.score(context, ["<|im_end|>"])
    assert len(fits.logprobs) == 1


def test_empty_context_and_template_failures_are_probe_errors(scorer, monkeypatch):
    with pytest.raises(ProbeError, match="context is empty"):
        scorer.score("", ["hello"])

    def broken(*args, **kwargs):
        raise BackendError("the chat template of /x failed: no tool role")

    monkeypatch.setattr(scorer.backend, "render", broken)
    with pytest.raises(ProbeError, match="no tool role"):
        scorer.render(MESSAGES, TOOLS)
