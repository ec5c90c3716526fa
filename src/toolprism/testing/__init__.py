"""Test helpers for users and for toolprism's own tests: :class:`MockOpenAIServer`, a
fault-injecting OpenAI-compatible server on 127.0.0.1 (``python -m toolprism.testing`` serves
one from the command line)."""

from __future__ import annotations

from toolprism.testing._mock import (
    FAULTS,
    INVALID_ARGUMENTS,
    TRANSPORT_FAULTS,
    MockOpenAIServer,
    Script,
    Served,
    example_value,
    scripted_reply,
)

__all__ = [
    "FAULTS",
    "INVALID_ARGUMENTS",
    "TRANSPORT_FAULTS",
    "MockOpenAIServer",
    "Script",
    "Served",
    "example_value",
    "scripted_reply",
]
