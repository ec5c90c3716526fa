"""Mitigations that train on what the suite measures (issue #17; seed 000, "Training repairs what it
sees").

- :func:`export_sft`: gold trajectories encoded in chosen variants as supervised fine-tuning data,
  OpenAI chat fine-tuning JSONL or a Hugging Face dataset directory, with train/test splits by task
  or by domain and optional mixtures of variants; :func:`read_sft` reads an export back and
  :func:`replay_sft` replays its calls through the adapter (the export's round trip).

- :class:`ToolEnv` / :class:`EnvConfig`: the episode loop as a gymnasium environment over text
  actions (needs the extra ``toolprism[rl]``); :func:`load_verifiers_environment`: the same for the
  ``verifiers`` library's multi-turn interface (the extra ``toolprism[vf]``).

Names are imported lazily: ``import toolprism.train`` alone loads none of the episode machinery,
and imports without gymnasium or verifiers.
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
_GYM = ("ACTION_CHARSET", "CLEAN", "ENV_ID", "OBSERVATION_CHARSET", "EnvConfig", "Reward", "ToolEnv")
_VF = ("ToolprismVerifiersEnv", "load_verifiers_environment")
_LAZY |= {name: "toolprism.train._gym" for name in _GYM} | {name: "toolprism.train._verifiers" for name in _VF}
_EXTRA = {"toolprism.train._gym": ("gymnasium", "rl"), "toolprism.train._verifiers": ("verifiers", "vf")}
"""Public name -> the private module that defines it (imported on first use)."""

__all__ = [
    *_GYM,
    *_VF,
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
        try:
            module = importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as e:  # an optional extra absent
            package, extra = _EXTRA.get(_LAZY[name], (e.name, ""))
            raise ImportError(f"{name} needs {package}: pip install 'toolprism[{extra}]' ({e})") from e
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'toolprism.train' has no attribute {name!r}")
