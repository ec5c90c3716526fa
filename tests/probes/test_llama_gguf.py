"""The issue's second-implementation check: the embedded model's probe values (llama.cpp) agree
with transformers reading the same GGUF file, on the same token ids, to the tolerance measured
by benchmarks/probe_gguf_check.py (README, "Embedded log-probabilities"). Short prompts (the
made-up lamp domain of test_llama.py) keep it to seconds once the model is loaded."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gguf")
pytest.importorskip("accelerate")

from test_llama import ARMS, TOOLS, _messages  # noqa: E402

pytestmark = [pytest.mark.hf, pytest.mark.embedded]

# Measured on these prompts (4 arms, 47 return tokens): per-token max 0.277 nats (mean 0.061);
# S0, S1, G max 0.054, 0.057, 0.065 nats; entropy max 0.020 nats; action probability max 0.016.
# The tolerances are about 1.5 times those; retail figures in the README.
TOKEN_TOL = 0.4
"""Largest per-token |log p| difference allowed (nats)."""
CHANNEL_TOL = 0.1
"""Largest S0, S1, G (mean nats per token) and entropy (nats) difference allowed."""
PROB_TOL = 0.025
"""Largest difference of one legal action's probability allowed."""


@pytest.fixture(scope="module")
def pair():  # noqa: ANN201
    from toolprism.backends._embedded import EmbeddedBackend
    from toolprism.probes._gguf_reference import GGUFReferenceScorer
    from toolprism.probes._llama import LlamaScorer

    llama = LlamaScorer(EmbeddedBackend(n_ctx=1024))
    yield llama, GGUFReferenceScorer(llama)
    llama.close()


def test_token_logprobs_agree(pair) -> None:  # noqa: ANN001
    from toolprism.probes import turn_span

    llama, reference = pair
    for reply in ARMS.values():
        messages = _messages(reply)
        context, text = turn_span(llama, messages, TOOLS, 3, messages[3]["content"])
        (a,) = llama.score(context, [text])
        (b,) = reference.score(context, [text])
        assert a.token_ids == b.token_ids and len(a.logprobs) > 3
        assert np.max(np.abs(np.array(a.logprobs) - np.array(b.logprobs))) < TOKEN_TOL
        # not the same numbers by accident: the two implementations differ measurably
        assert np.max(np.abs(np.array(a.logprobs) - np.array(b.logprobs))) > 1e-7


def test_channels_agree(pair) -> None:  # noqa: ANN001
    from toolprism.probes import action_distribution, surprisal

    llama, reference = pair
    for reply in ARMS.values():
        messages = _messages(reply)
        a, b = surprisal(llama, messages, TOOLS, 3), surprisal(reference, messages, TOOLS, 3)
        for field in ("s0", "s1", "g"):
            assert abs(getattr(a, field) - getattr(b, field)) < CHANNEL_TOL, field
        da, db = action_distribution(llama, messages, TOOLS), action_distribution(reference, messages, TOOLS)
        assert abs(da.entropy - db.entropy) < CHANNEL_TOL
        assert max(abs(da.probs[k] - db.probs[k]) for k in da.probs) < PROB_TOL
        assert math.isclose(sum(db.probs.values()), 1.0, abs_tol=1e-9)
