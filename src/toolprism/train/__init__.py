"""Mitigations that train on what the suite measures (issue #17; seed 000, "Training repairs what it
sees").

- :func:`export_sft`: gold trajectories encoded in chosen variants as supervised fine-tuning data,
  OpenAI chat fine-tuning JSONL or a Hugging Face dataset directory, with train/test splits by task
  or by domain and optional mixtures of variants; :func:`read_sft` reads an export back and
  :func:`replay_sft` replays its calls through the adapter (the export's round trip).

Names are imported lazily: ``import toolprism.train`` alone loads none of the episode machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolprism.train._sft import (
        DEFAULT_TEST_FRACTION,
        MANIFEST,
        SFT_FORMATS,
        SPLIT_METHODS,
        Replay,
        SftExample,
        SftOptions,
        SftRow,
        SftSummary,
        export_sft,
        parse_mix,
        read_sft,
        replay_sft,
    )

_SFT = "toolprism.train._sft"
_LAZY: dict[str, str] = {
    "DEFAULT_TEST_FRACTION": _SFT,
    "MANIFEST": _SFT,
    "SFT_FORMATS": _SFT,
    "SPLIT_METHODS": _SFT,
    "Replay": _SFT,
    "SftExample": _SFT,
    "SftOptions": _SFT,
    "SftRow": _SFT,
    "SftSummary": _SFT,
    "export_sft": _SFT,
    "parse_mix": _SFT,
    "read_sft": _SFT,
    "replay_sft": _SFT,
}
"""Public name -> the private module that defines it (imported on first use)."""

__all__ = [
    "DEFAULT_TEST_FRACTION",
    "MANIFEST",
    "SFT_FORMATS",
    "SPLIT_METHODS",
    "Replay",
    "SftExample",
    "SftOptions",
    "SftRow",
    "SftSummary",
    "export_sft",
    "parse_mix",
    "read_sft",
    "replay_sft",
]


def __getattr__(name: str) -> Any:
    """Lazy facade: the name's module is imported on first use."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'toolprism.train' has no attribute {name!r}")
