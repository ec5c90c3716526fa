"""Mitigations that train or shape the model: SFT data and an RL environment (issue #17).

The RL environment (:class:`ToolEnv`, :class:`EnvConfig`) needs gymnasium (the extra
``toolprism[rl]``); it is imported on first use, so this package imports without it. The
``verifiers`` adapter (:func:`load_verifiers_environment`) needs the extra ``toolprism[vf]``.
"""

from __future__ import annotations

from typing import Any

_GYM = ("ACTION_CHARSET", "CLEAN", "ENV_ID", "OBSERVATION_CHARSET", "EnvConfig", "Reward", "ToolEnv")
_VF = ("ToolprismVerifiersEnv", "load_verifiers_environment")


def __getattr__(name: str) -> Any:
    if name in _GYM:
        try:
            from toolprism.train import _gym
        except ModuleNotFoundError as e:  # gymnasium absent
            raise ImportError(f"{name} needs gymnasium: pip install 'toolprism[rl]' ({e})") from e
        return getattr(_gym, name)
    if name in _VF:
        try:
            from toolprism.train import _verifiers
        except ModuleNotFoundError as e:  # verifiers absent
            raise ImportError(f"{name} needs verifiers: pip install 'toolprism[vf]' ({e})") from e
        return getattr(_verifiers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [*_GYM, *_VF]
