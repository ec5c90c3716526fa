"""Test helpers for users and for toolprism's own tests: :class:`MockOpenAIServer`, a
fault-injecting OpenAI-compatible server on 127.0.0.1 (``python -m toolprism.testing`` serves
one from the command line), with vLLM's scoring endpoints driven by :class:`TinyLM`, a tiny
deterministic model whose log-probabilities tests recompute."""

from __future__ import annotations

from toolprism.testing._mock import (
    FAULTS,
    INVALID_ARGUMENTS,
    SCORING_MODES,
    TRANSPORT_FAULTS,
    MockOpenAIServer,
    Script,
    Served,
    example_value,
    scripted_reply,
)
from toolprism.testing._tinylm import TinyLM

__all__ = [
    "FAULTS",
    "INVALID_ARGUMENTS",
    "SCORING_MODES",
    "TRANSPORT_FAULTS",
    "MockOpenAIServer",
    "Script",
    "Served",
    "TinyLM",
    "example_value",
    "scripted_reply",
]
