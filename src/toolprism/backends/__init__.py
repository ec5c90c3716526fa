"""Model backends: the embedded offline model (default), OpenAI-compatible endpoints, and
scripted agents (``oracle``).

``create_backend(model)`` understands:

- ``embedded`` or ``embedded:smollm2`` (default): SmolLM2-135M-Instruct, shipped in a PyPI package;
- ``embedded:qwen2.5-coder-0.5b``: Qwen2.5-Coder-0.5B-Instruct (extra ``toolprism[qwen]``);
- ``oracle``: the scripted agent that drives the encoder (scores 100% by construction);
- ``openai:<model>`` or any other name with ``base_url`` set: an OpenAI-compatible endpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolprism.backends._base import Agent, Backend, EpisodeContext, Message, ModelTurn, RawCall, ScriptedTurns
from toolprism.backends._oracle import OracleAgent, OracleBackend
from toolprism.backends._scripted import ScriptedBackend
from toolprism.errors import ConfigError

DEFAULT_MODEL = "embedded"


def create_backend(
    model: str = DEFAULT_MODEL,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    concurrency: int | None = None,
    cache: bool = False,
    cache_dir: str | Path | None = None,
) -> Backend:
    """Build the backend named by ``model`` (see the module docstring).

    ``concurrency`` sizes an endpoint backend's connection pool; ``cache`` answers its
    temperature-0 requests from a :class:`~toolprism.backends._cache.ResponseCache` in
    ``cache_dir`` (default ``platformdirs.user_cache_dir("toolprism")/responses``). Other
    backends ignore the three.

    Raises:
        ConfigError: unknown model name, or a missing optional dependency (with an install hint).
    """
    kind, _, name = model.partition(":")
    if model == "oracle":
        return OracleBackend()
    if kind == "embedded":
        from toolprism.backends._embedded import EmbeddedBackend

        return EmbeddedBackend(name or "smollm2")
    if kind == "openai" or base_url:
        from toolprism.backends._cache import ResponseCache
        from toolprism.backends._openai import OpenAIBackend

        options: dict[str, Any] = {"api_key_env": api_key_env} if api_key_env else {}
        if concurrency is not None:
            options["max_connections"] = max(1, concurrency)
        if cache:
            options["cache"] = ResponseCache(cache_dir)
        return OpenAIBackend(name if kind == "openai" else model, base_url=base_url, **options)
    raise ConfigError(
        f"unknown model {model!r}: use 'embedded', 'embedded:smollm2', 'embedded:qwen2.5-coder-0.5b', "
        "'oracle', or 'openai:<model>' (with --base-url for a non-OpenAI endpoint)",
        what="model",
    )


__all__ = [
    "DEFAULT_MODEL",
    "Agent",
    "Backend",
    "EpisodeContext",
    "Message",
    "ModelTurn",
    "OracleAgent",
    "OracleBackend",
    "RawCall",
    "ScriptedBackend",
    "ScriptedTurns",
    "create_backend",
]
