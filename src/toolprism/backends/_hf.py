"""``hf:<directory>``: a Hugging Face transformers model loaded from a local directory.

The directory is what ``save_pretrained`` writes (``config.json``, the weights, the tokenizer
files with a chat template). Nothing is ever downloaded: every load passes
``local_files_only=True`` (so ``HF_HUB_OFFLINE`` changes nothing) and ``trust_remote_code`` is
off, so the directory's own Python code never runs.

Each turn renders the model's own chat template with the tools
(``apply_chat_template(messages, tools=..., add_generation_prompt=True)``), generates greedily
(by default) in a worker thread, and reads the text with the tool-call parsers of
``toolprism.backends._formats`` (``parse_output(text, style)``, style ``auto`` by default).

One model per (directory, device, dtype) is loaded per process; generation on it is serialised
by a lock. A prompt longer than the model's position limit raises
:class:`~toolprism.errors.ContextOverflow`. Cancelling a turn (Ctrl-C, a budget) stops the
generation at the next token.

Log-probabilities (teacher-forced scoring on the same rendering, with ``past_key_values`` reuse)
are ``toolprism.probes.HFScorer``'s: :meth:`HFBackend.render` and :meth:`HFBackend.token_ids`
are the rendering and tokenisation both share.

Options come from the constructor or, for ``create_backend``, the environment:
``TOOLPRISM_HF_DEVICE`` (``auto``, ``cpu``, ``cuda``, ``cuda:1``...), ``TOOLPRISM_HF_DTYPE``
(``auto``, ``float32``, ``bfloat16``, ``float16``), ``TOOLPRISM_HF_MAX_NEW_TOKENS``,
``TOOLPRISM_HF_TEMPERATURE``, ``TOOLPRISM_HF_TOOL_FORMAT``.

Constrained decoding (``constrain`` ``first`` or ``all``, :data:`~toolprism.backends.Constrain`;
extra ``toolprism[constrain]``, xgrammar): a constrained turn is generated under an xgrammar
logits processor (``_constrain.TextTurnGrammar``) that admits one call of a listed tool, written in
the tool format's syntax with arguments valid under the tool's JSON Schema, or a plain-text answer
holding none of ``{ [ <``. The syntax is ``tool_format``'s, or under ``auto`` the one the chat
template writes earlier calls in (``_constrain.template_style``: ``<tool_call>`` -> hermes...).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolprism.backends._base import (
    Constrain,
    EpisodeContext,
    Message,
    ModelTurn,
    RawCall,
    constrain_problems,
    constrains_turn,
)
from toolprism.backends._formats import parse_output
from toolprism.errors import BackendError, ConfigError, ContextOverflow
from toolprism.schema import JSON

INSTALL_HINT = 'pip install -e ".[hf]"'
DEFAULT_MAX_NEW_TOKENS = 256
DTYPES = ("auto", "float32", "bfloat16", "float16")
PARSE_STYLES = ("auto", "hermes", "json", "llama", "mistral")
"""The styles of ``_formats.parse_output`` (``auto`` tries every convention)."""


def _import_hf() -> tuple[Any, Any]:
    """``(torch, transformers)``, or a ConfigError with the install hint."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ConfigError(
            f"the hf backend needs transformers and torch ({exc}): {INSTALL_HINT}", what="hf backend"
        ) from None
    return torch, transformers


def is_model_dir(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a directory holding a ``config.json`` (a transformers model)."""
    return Path(path).is_dir() and (Path(path) / "config.json").is_file()


# --- loading -------------------------------------------------------------------------------------


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    max_positions: int | None
    eos_ids: frozenset[int]
    lock: threading.Lock = field(default_factory=threading.Lock)


_LOADED: dict[tuple[str, str, str], _Loaded] = {}
_LOAD_LOCK = threading.Lock()


def _resolve_device(torch: Any, device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def _resolve_dtype(torch: Any, dtype: str, device: str) -> Any:
    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    return getattr(torch, dtype)


def _eos_ids(model: Any, tokenizer: Any) -> frozenset[int]:
    ids: set[int] = set()
    for value in (getattr(model.generation_config, "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, list | tuple):
            ids.update(v for v in value if isinstance(v, int))
    return frozenset(ids)


def _max_positions(config: Any) -> int | None:
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _load(path: Path, device: str, dtype: str) -> _Loaded:
    """The process-wide model and tokenizer for ``path`` on ``device`` (loaded once).

    Raises:
        ConfigError: the directory holds no loadable model or tokenizer, or no chat template.
    """
    key = (str(path.resolve()), device, dtype)
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        torch, transformers = _import_hf()
        options: dict[str, Any] = {"local_files_only": True, "trust_remote_code": False}
        version = tuple(int(p) for p in transformers.__version__.split(".")[:2] if p.isdigit())
        dtype_key = "dtype" if version >= (4, 56) else "torch_dtype"
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), **options)
            model = transformers.AutoModelForCausalLM.from_pretrained(
                str(path), **options, **{dtype_key: _resolve_dtype(torch, dtype, device)}
            )
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"could not load a transformers model from {path}: {exc}", what="hf backend") from None
        if not getattr(tokenizer, "chat_template", None):
            raise ConfigError(f"the tokenizer in {path} has no chat template", what="hf backend")
        try:
            model.to(device)
        except (RuntimeError, AssertionError, ValueError) as exc:
            raise ConfigError(f"could not move the model in {path} to {device}: {exc}", what="hf backend") from None
        model.eval()
        loaded = _LOADED[key] = _Loaded(model, tokenizer, _max_positions(model.config), _eos_ids(model, tokenizer))
        return loaded


# --- prompt --------------------------------------------------------------------------------------


def template_messages(messages: Sequence[Message]) -> list[Message]:
    """OpenAI messages as chat templates expect them: tool-call arguments as objects (JSON text
    that does not parse stays text), ``None`` content as ``""``, tool results named after their call."""
    names: dict[str, str] = {}
    out: list[Message] = []
    for message in messages:
        message = dict(message)
        if message.get("content") is None:
            message["content"] = ""
        calls = []
        for call in message.get("tool_calls") or []:
            fn = dict(call.get("function", {}))
            names[call.get("id", "")] = fn.get("name", "")
            try:
                fn["arguments"] = json.loads(fn.get("arguments") or "{}")
            except (json.JSONDecodeError, TypeError):
                pass
            calls.append({**call, "function": fn})
        if calls:
            message["tool_calls"] = calls
        if message.get("role") == "tool" and "name" not in message:
            message["name"] = names.get(message.get("tool_call_id", ""), "tool")
        out.append(message)
    return out


# --- parsing -------------------------------------------------------------------------------------


def _parse(text: str, style: str) -> tuple[str | None, tuple[RawCall, ...], str | None]:
    """``(content, calls, error)`` read from ``text`` by :func:`toolprism.backends._formats.parse_output`."""
    parsed = parse_output(text, style)
    return parsed.content, tuple(parsed.calls), parsed.error


# --- backend -------------------------------------------------------------------------------------


def _style(tool_format: str) -> str:
    """The parser style for a run's ``tool_format``: the chat template renders the tools whatever
    it is, so ``native`` (the default) reads every convention."""
    return "auto" if tool_format == "native" else tool_format


class _StopFlag:
    """A transformers stopping criterion that ends generation once ``event`` is set."""

    def __init__(self, torch: Any, *events: threading.Event) -> None:
        self.torch = torch
        self.events = events

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        stop = any(e.is_set() for e in self.events)
        return self.torch.full((input_ids.shape[0],), stop, dtype=self.torch.bool, device=input_ids.device)


@dataclass
class HFAgent:
    """One episode on the shared model: numbers its calls ``call_1``, ``call_2``..."""

    backend: HFBackend
    seed: int
    issued: int = 0
    turns: int = 0

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        """Generate one turn in a worker thread; cancelling stops the generation.

        Raises:
            ContextOverflow: the prompt does not fit the model's positions.
            BackendError: the chat template or the model failed.
        """
        stop = threading.Event()
        seed = self.seed * 1_000 + self.turns
        self.turns += 1
        try:
            constrained = constrains_turn(self.backend.constrain, messages)
            text, prompt_tokens, completion_tokens = await asyncio.to_thread(
                self.backend.generate, messages, tools, seed=seed, stop=stop, constrained=constrained
            )
        except asyncio.CancelledError:
            stop.set()
            raise
        content, calls, error = _parse(text, self.backend.tool_format)
        numbered = []
        for call in calls:
            self.issued += 1
            numbered.append(replace(call, id=f"call_{self.issued}"))
        return ModelTurn(
            raw=text,
            content=content,
            calls=tuple(numbered),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            error=error,
        )


class HFBackend:
    """Backend ``hf:<directory>``: a local transformers model, its chat template, greedy decoding.

    Args:
        path: the model directory (``config.json``, weights, tokenizer with a chat template).
        device: ``auto`` (CUDA when available, else CPU), ``cpu``, ``cuda`` or ``cuda:<n>``.
        dtype: ``auto`` (float32 on CPU, bfloat16 or float16 on CUDA) or a name in :data:`DTYPES`.
        max_new_tokens: the generation bound per turn (tokens).
        temperature: 0 (the default) decodes greedily; above 0 samples, seeded per episode and turn.
        tool_format: the parser style passed to ``_formats.parse_output`` (``auto`` tries every one).
        constrain: which turns are decoded under the xgrammar constraint (see the module
            docstring): ``none`` (the default), ``first`` (until the episode's first call), ``all``.

    Raises:
        ConfigError: bad options (all listed), not a model directory, a model or tokenizer that
            does not load, no chat template, or transformers/torch (or, to constrain, xgrammar)
            missing (with the install hint).
    """

    name = "hf"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        device: str = "auto",
        dtype: str = "auto",
        max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
        temperature: float = 0.0,
        tool_format: str = "auto",
        constrain: Constrain = "none",
    ) -> None:
        self.path = Path(path).expanduser()
        problems = []
        if not str(path):
            problems.append("no model directory given: use hf:<directory>")
        elif not self.path.is_dir():
            problems.append(f"{str(path)!r} is not a directory")
        elif not is_model_dir(self.path):
            problems.append(f"{str(path)!r} holds no config.json (not a transformers model directory)")
        if dtype not in DTYPES:
            problems.append(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
        if not (device in ("auto", "cpu", "cuda", "mps") or device.startswith("cuda:")):
            problems.append(f"device must be auto, cpu, cuda, cuda:<n> or mps, got {device!r}")
        if max_new_tokens < 1:
            problems.append(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        if temperature < 0:
            problems.append(f"temperature must be >= 0, got {temperature}")
        if tool_format not in PARSE_STYLES:
            problems.append(f"tool_format must be one of {', '.join(PARSE_STYLES)}, got {tool_format!r}")
        problems += constrain_problems(constrain)
        if problems:
            raise ConfigError(problems, what="hf backend")
        torch, _ = _import_hf()
        self.device = _resolve_device(torch, device)
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise ConfigError(f"device {device!r}: torch sees no CUDA device here (use cpu or auto)", what="hf backend")
        self.dtype = dtype
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.tool_format = tool_format
        self._interrupt = threading.Event()
        self._settings: dict[str, JSON] | None = None
        self._loaded = _load(self.path, self.device, dtype)
        self.constrain: Constrain = constrain
        self._grammar = None if constrain == "none" else self._turn_grammar()

    def _turn_grammar(self) -> Any:
        """The xgrammar constraint for this model's tokenizer, in the tool format's call syntax.

        Raises:
            ConfigError: xgrammar is missing.
        """
        from toolprism.backends._constrain import TextTurnGrammar, template_style

        loaded = self._loaded
        style = self.tool_format if self.tool_format != "auto" else template_style(loaded.tokenizer.chat_template)
        width = loaded.model.get_output_embeddings().weight.shape[0]
        return TextTurnGrammar(loaded.tokenizer, vocab_size=width, stop_token_ids=sorted(loaded.eos_ids), style=style)

    @classmethod
    def from_env(cls, path: str, *, tool_format: str | None = None, constrain: Constrain = "none") -> HFBackend:
        """The backend with options from ``TOOLPRISM_HF_*`` (see the module docstring);
        ``tool_format``, when given (``--tool-format``; ``native`` reads as ``auto``), wins over
        ``TOOLPRISM_HF_TOOL_FORMAT``.

        Raises:
            ConfigError: as the constructor, or a number option that is not a number.
        """
        env = os.environ
        try:
            max_new = int(env.get("TOOLPRISM_HF_MAX_NEW_TOKENS", DEFAULT_MAX_NEW_TOKENS))
            temperature = float(env.get("TOOLPRISM_HF_TEMPERATURE", 0.0))
        except ValueError as exc:
            raise ConfigError(f"TOOLPRISM_HF_MAX_NEW_TOKENS/TEMPERATURE: {exc}", what="hf backend") from None
        return cls(
            path,
            device=env.get("TOOLPRISM_HF_DEVICE", "auto"),
            dtype=env.get("TOOLPRISM_HF_DTYPE", "auto"),
            max_new_tokens=max_new,
            temperature=temperature,
            tool_format=_style(tool_format) if tool_format else env.get("TOOLPRISM_HF_TOOL_FORMAT", "auto"),
            constrain=constrain,
        )

    @property
    def model(self) -> Any:
        """The shared ``PreTrainedModel``."""
        return self._loaded.model

    @property
    def tokenizer(self) -> Any:
        """The shared tokenizer."""
        return self._loaded.tokenizer

    def settings(self) -> dict[str, JSON]:
        """What identifies the model and the decoding: directory, architecture, SHA-256 of
        ``config.json`` with the tokenizer files, SHA-256 and sizes of the weight files (hashed
        once per process: about a second per GB), device, dtype, position limit, decoding
        parameters, parser style, ``constrain`` and ``constraint`` (``none``, or
        ``xgrammar-<version>:<call syntax>``)."""
        if self._settings is None:
            self._settings = self._compute_settings()
        return dict(self._settings)

    def _compute_settings(self) -> dict[str, JSON]:
        from toolprism.backends._embedded import file_sha256

        files = sorted(p for p in self.path.iterdir() if p.is_file())
        config_digest = hashlib.sha256()
        weights_digest = hashlib.sha256()
        weights: dict[str, JSON] = {}
        for p in files:
            if p.name == "config.json" or p.name.startswith(("tokenizer", "special_tokens", "chat_template")):
                config_digest.update(p.name.encode() + b"\0" + p.read_bytes())
            elif p.suffix in (".safetensors", ".bin", ".pt", ".pth"):
                weights[p.name] = p.stat().st_size
                weights_digest.update(f"{p.name}\0{file_sha256(p)}\n".encode())
        config = self.model.config
        return {
            "backend": "hf",
            "model": str(self.path.resolve()),
            "model_type": getattr(config, "model_type", None),
            "architectures": list(getattr(config, "architectures", None) or []),
            "config_sha256": config_digest.hexdigest(),
            "weights_sha256": weights_digest.hexdigest(),
            "weights": weights,
            "parameters": sum(p.numel() for p in self.model.parameters()),
            "device": self.device,
            "dtype": str(self.model.dtype).removeprefix("torch."),
            "max_positions": self._loaded.max_positions,
            "max_new_tokens": self.max_new_tokens,
            "temperature": self.temperature,
            "decoding": "greedy" if self.temperature == 0 else "sampling",
            "prompt_format": "chat-template",
            "tool_format": self.tool_format,
            "constrain": self.constrain,
            "constraint": "none"
            if self._grammar is None
            else f"xgrammar-{self._grammar.version}:{self._grammar.style}",
        }

    def agent(self, context: EpisodeContext) -> HFAgent:
        """A fresh agent for one episode (it reads only ``context.seed``)."""
        return HFAgent(self, seed=context.seed)

    def interrupt(self) -> None:
        """Stop every generation in progress at its next token (they raise BackendError)."""
        self._interrupt.set()

    def render(self, messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
        """The prompt text: the model's chat template over :func:`template_messages` with ``tools``
        (none: ``tools=None``), with the open assistant turn when ``generation_prompt`` is true.

        Raises:
            BackendError: the template failed on these messages (e.g. it forbids a role order).
        """
        try:
            return self.tokenizer.apply_chat_template(
                template_messages(messages),
                tools=list(tools) or None,
                add_generation_prompt=generation_prompt,
                tokenize=False,
            )
        except Exception as exc:  # noqa: BLE001 - jinja raises TemplateError and anything a template raises
            raise BackendError(f"the chat template of {self.path} failed: {exc}") from exc

    def token_ids(self, text: str) -> list[int]:
        """``text`` tokenised as a rendered prompt is (no special tokens added: the template writes them)."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    @property
    def max_positions(self) -> int | None:
        """The model's position limit (tokens), or None when its config gives none."""
        return self._loaded.max_positions

    @property
    def lock(self) -> threading.Lock:
        """The lock serialising every use of the shared model (generation, scoring)."""
        return self._loaded.lock

    def prompt_ids(self, messages: Sequence[Message], tools: Sequence[JSON]) -> list[int]:
        """The token ids of :meth:`render` with the generation prompt.

        Raises:
            BackendError: the template failed on these messages (e.g. it forbids a role order).
        """
        return self.token_ids(self.render(messages, tools))

    def _check_fits(self, n_tokens: int) -> None:
        limit = self._loaded.max_positions
        if limit is not None and n_tokens >= limit:
            raise ContextOverflow(f"prompt of {n_tokens} tokens does not fit the model's {limit} positions")

    def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[JSON],
        *,
        seed: int = 0,
        stop: threading.Event | None = None,
        constrained: bool = False,
    ) -> tuple[str, int, int]:
        """One completion (blocking): ``(text, prompt_tokens, completion_tokens)``; ``constrained``
        (ignored under ``constrain="none"``) decodes it under the xgrammar constraint for ``tools``.

        The text is decoded with special tokens kept (tool-call markers such as
        ``<|python_tag|>`` are special in some tokenizers), end-of-sequence tokens removed.
        At most ``min(max_new_tokens, max_positions - prompt_tokens)`` tokens are generated.

        Raises:
            ContextOverflow: the prompt has at least as many tokens as the model has positions.
            BackendError: the template or the model failed, or the generation was interrupted.
        """
        torch, transformers = _import_hf()
        ids = self.prompt_ids(messages, tools)
        self._check_fits(len(ids))
        loaded = self._loaded
        limit = loaded.max_positions
        max_new = self.max_new_tokens if limit is None else min(self.max_new_tokens, limit - len(ids))
        stop = stop or threading.Event()
        sampling = self.temperature > 0
        config = transformers.GenerationConfig(
            max_new_tokens=max_new,
            do_sample=sampling,
            temperature=self.temperature if sampling else 1.0,
            top_k=0 if sampling else None,
            top_p=1.0,
            eos_token_id=sorted(loaded.eos_ids) or None,
            pad_token_id=pad if (pad := loaded.tokenizer.pad_token_id) is not None else min(loaded.eos_ids, default=0),
        )
        criteria = transformers.StoppingCriteriaList([_StopFlag(torch, stop, self._interrupt)])
        processors = transformers.LogitsProcessorList()
        if constrained and self._grammar is not None:
            processors.append(self._grammar.processor(tools))
        with loaded.lock, torch.inference_mode():
            if stop.is_set() or self._interrupt.is_set():
                raise BackendError("generation interrupted")
            if sampling:
                torch.manual_seed(seed)
            input_ids = torch.tensor([ids], device=loaded.model.device)
            try:
                out = loaded.model.generate(
                    input_ids=input_ids,
                    attention_mask=torch.ones_like(input_ids),
                    generation_config=config,
                    stopping_criteria=criteria,
                    logits_processor=processors,
                )
            except Exception as exc:  # noqa: BLE001 - torch/transformers raise many kinds
                raise BackendError(f"generation failed on {self.path}: {exc}") from exc
        if stop.is_set() or self._interrupt.is_set():
            raise BackendError("generation interrupted")
        new = out[0, len(ids) :].tolist()
        while new and new[-1] in loaded.eos_ids:
            new.pop()
        text = loaded.tokenizer.decode(new, skip_special_tokens=False)
        return text, len(ids), len(out[0]) - len(ids)


__all__ = ["HFAgent", "HFBackend", "INSTALL_HINT", "is_model_dir", "template_messages"]
