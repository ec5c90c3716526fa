"""``openai``: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server...).

Tools are sent natively (``tools`` + ``tool_choice: "auto"``); the response message is recorded
as sorted JSON text and its tool calls are passed on with their arguments unparsed. With a
prompt-based ``tool_format`` (``hermes``, ``json``, ``llama``, ``mistral``), for servers or models
without native tool calling, the tools go in the system message and the reply text is parsed
(:mod:`toolprism.backends._formats`).

Constrained decoding (``constrain``, :data:`~toolprism.backends.Constrain`) is asked of the server,
which may ignore it (llama-cpp-python's server ignores both fields below, for one): such a server is
not constrained, and the run header still records what was asked.

- Native tools, ``first``: each turn before the episode's first call sends ``tool_choice`` naming
  the function when the variant shows one tool, else ``"required"`` (OpenAI, vLLM, llama.cpp's
  llama-server honour it; vLLM builds the tools' JSON Schemas into its guided decoding). Unlike the
  embedded and hf backends this allows no answer on that turn: the API has no choice meaning "a
  valid call or an answer". ``all`` with native tools is refused (``ConfigError``) for the same
  reason: ``required`` on every turn would forbid the final answer, and ``auto`` constrains nothing.
- The ``json`` tool format, ``first`` or ``all``: a constrained turn sends ``response_format``
  ``{"type": "json_schema", "json_schema": {"name": "toolprism_turn", "schema": ...}}`` holding
  ``_constrain.turn_schema(tools)`` (a call of a listed tool with schema-valid arguments, or
  ``{"answer": <text>}``), the OpenAI structured-outputs field that vLLM (its structured outputs;
  ``guided_json`` before v0.12), llama.cpp's llama-server and SGLang honour; the answer object's
  text becomes the turn's content. OpenAI's own strict mode refuses a ``oneOf`` root; use native
  tools there. The other prompt-based formats (``hermes``, ``llama``, ``mistral``) wrap calls in
  text no JSON Schema describes: constraining them is refused (``ConfigError``).

One set of ``httpx.AsyncClient`` per backend, reused by every request (keep-alive; the pool
sized to the run's concurrency, split over one client per 8 connections because httpcore's pool
costs grow quadratically with its size), created lazily inside the running event loop and
closed by :meth:`OpenAIBackend.aclose`.
Retries (tenacity): 429, 5xx, timeouts, connection errors and truncated or non-JSON 200 bodies,
with exponential backoff and jitter, honouring ``Retry-After``; other 4xx fail at once, a 400
saying the context was exceeded as :class:`~toolprism.errors.ContextOverflow`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlparse

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from toolprism.backends._base import (
    Constrain,
    EpisodeContext,
    Message,
    ModelTurn,
    RawCall,
    constrain_problems,
    constrains_turn,
)
from toolprism.backends._cache import ResponseCache
from toolprism.backends._constrain import turn_schema
from toolprism.backends._formats import TOOL_FORMATS, parse_output, to_text_messages
from toolprism.errors import BackendError, ConfigError, ContextOverflow
from toolprism.schema import JSON

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENV = "TOOLPRISM_BASE_URL"
MAX_ATTEMPTS = 5
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


MAX_CONNECTIONS = 64
"""The connection pool when the run's concurrency is not given."""
SHARD_CONNECTIONS = 8
"""Connections per ``httpx.AsyncClient``; a larger pool is split over several (see ``_http``)."""
MAX_BACKOFF_S = 60.0
"""The longest wait between two tries, ``Retry-After`` included."""
OVERFLOW_TEXT = re.compile(
    r"context[ _]?(length|size|window)|maximum context|too many tokens|prompt is too long|exceed_context",
    re.IGNORECASE,
)
"""What a 400 body says when the prompt outgrew the context (OpenAI ``context_length_exceeded``,
vLLM "maximum context length", llama.cpp "exceeds the available context size")."""


class _Retryable(Exception):
    """A failure worth retrying (connection error, timeout, 429, 5xx, truncated body).

    Attributes:
        retry_after: the server's ``Retry-After`` in seconds, if it sent one.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def retry_after_s(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds (``"2"``, ``"0.5"``) or an
    HTTP date; None when absent or unreadable; never negative."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _is_local(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in _LOCAL_HOSTS or host.endswith(".localhost")


def _arguments_text(arguments: Any) -> str:
    """A native call's ``arguments`` as JSON text: absent or null is ``{}`` (a parameterless tool);
    an object some servers send instead of a string is kept as JSON text."""
    if arguments is None:
        return "{}"
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _message_of(body: Any) -> dict[str, Any]:
    """``choices[0].message`` of a chat-completions body.

    Raises:
        BackendError: the body has no ``choices[0].message`` object.
    """
    try:
        message = body["choices"][0]["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (KeyError, IndexError, TypeError) as exc:
        raise BackendError(f"malformed chat-completions response ({exc}): {body!r:.500}") from None
    return message


def _usage(body: Any) -> tuple[int | None, int | None]:
    """The token counts of ``usage``; a count that is not a whole number >= 0 is unknown (None)."""
    usage = body.get("usage") if isinstance(body, dict) else None
    usage = usage if isinstance(usage, dict) else {}

    def count(key: str) -> int | None:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None

    return count("prompt_tokens"), count("completion_tokens")


def wire_messages(messages: Sequence[Message]) -> list[Message]:
    """The messages as sent natively: ``content: null`` is ``""`` where ``tool_calls`` stand in."""
    return [{**m, "content": ""} if m.get("content") is None and m.get("tool_calls") else m for m in messages]


def _unwrap_answer(content: str | None) -> str | None:
    """The text of a ``{"answer": <text>}`` reply (the structured output of a constrained turn),
    else ``content`` unchanged."""
    try:
        value = json.loads(content) if content else None
    except ValueError:
        return content
    if isinstance(value, dict) and set(value) == {"answer"} and isinstance(value["answer"], str):
        return value["answer"]
    return content


def _turn_from_response(
    body: Any, turn_index: int, tool_format: str = "native", *, answer_object: bool = False
) -> ModelTurn:
    """Map a chat-completions response body to a :class:`ModelTurn`.

    Native: the message's ``tool_calls`` (ids ``call_<turn>_<index>`` where the server gave none;
    absent or null ``arguments`` read as ``{}``); a ``tool_calls`` entry that is not a function
    call object makes the turn unreadable (``error``). Prompt-based formats: the message text,
    read by :func:`toolprism.backends._formats.parse_output` (a server that still answers with
    native ``tool_calls`` is read natively); with ``answer_object`` (a constrained turn under the
    ``json`` format) a ``{"answer": <text>}`` reply is the answer ``<text>``.

    Raises:
        BackendError: the body has no ``choices[0].message``.
    """
    message = _message_of(body)
    prompt_tokens, completion_tokens = _usage(body)
    raw_calls = message.get("tool_calls") or []
    content = message.get("content")
    if tool_format != "native" and not raw_calls:
        text = content if isinstance(content, str) else ""
        parsed = parse_output(text, tool_format, id_prefix=f"call_{turn_index}")
        answer = _unwrap_answer(parsed.content) if answer_object and not parsed.calls else parsed.content
        return ModelTurn(
            raw=text,
            content=answer,
            calls=parsed.calls,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            error=parsed.error,
        )
    calls, error = [], None
    for i, tc in enumerate(raw_calls if isinstance(raw_calls, list) else [raw_calls]):
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):
            calls, error = [], f"tool call {i + 1} is not a function call object: {tc!r:.200}"
            break
        calls.append(
            RawCall(
                id=str(tc.get("id") or f"call_{turn_index}_{i}"),
                name=str(fn.get("name") or ""),
                arguments=_arguments_text(fn.get("arguments")),
            )
        )
    return ModelTurn(
        raw=json.dumps(message, sort_keys=True),
        content=content if isinstance(content, str) else None,
        calls=tuple(calls),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        error=error,
    )


@dataclass
class OpenAIAgent:
    """One episode against the endpoint; the seed is sent with every request."""

    backend: OpenAIBackend
    seed: int | None
    turns: int = 0

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        """POST the conversation and the tools; map the reply."""
        self.turns += 1
        body = await self.backend.complete(messages, tools, seed=self.seed)
        constrained = self.backend.tool_format == "json" and constrains_turn(self.backend.constrain, messages)
        return _turn_from_response(body, self.turns, self.backend.tool_format, answer_object=constrained)


class OpenAIBackend:
    """Backend ``openai``: an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        model: the model name sent in each request.
        base_url: the API root (``.../v1``); default ``$TOOLPRISM_BASE_URL`` or OpenAI's.
        api_key_env: the environment variable holding the API key; it may be unset only for
            a localhost ``base_url``.
        temperature / max_tokens: sampling parameters sent in each request.
        seed: sent in each request; None uses each episode's seed.
        timeout_s: per-request timeout (connect, read, write; waiting for a free pooled
            connection is not limited).
        transport: an ``httpx`` transport (tests use ``httpx.MockTransport``).
        max_attempts: tries per request before :class:`BackendError`.
        backoff_s: the first retry delay (doubling, capped at 30 s).
        tool_format: ``native`` (``tools`` in the request, ``tool_calls`` in the reply) or a
            prompt-based format of :mod:`toolprism.backends._formats` (``hermes``, ``json``,
            ``llama``, ``mistral``): no ``tools`` field; the tools and the calling convention go in
            the system message, the history is plain text, and replies are parsed.
        backoff_s: the first retry delay in seconds (doubling, plus up to ``backoff_s`` of
            random jitter, capped at ``max_backoff_s``).
        max_backoff_s: the longest wait between tries; a larger ``Retry-After`` is cut to it.
        max_connections: the connection pool (set it to the run's concurrency).
        cache: a :class:`~toolprism.backends._cache.ResponseCache` answering temperature-0
            requests it has seen; None (default) for none.
        constrain: ``none`` (default); ``first`` (native tools or the ``json`` format); ``all``
            (the ``json`` format only); see the module docstring.

    Raises:
        ConfigError: no model, the API key variable is unset for a remote endpoint, an unknown
            ``tool_format``, or a ``constrain`` mode the tool format cannot ask for.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 1024,
        seed: int | None = None,
        timeout_s: float = 120.0,
        transport: httpx.AsyncBaseTransport | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        backoff_s: float = 1.0,
        tool_format: str = "native",
        max_backoff_s: float = MAX_BACKOFF_S,
        max_connections: int = MAX_CONNECTIONS,
        cache: ResponseCache | None = None,
        constrain: Constrain = "none",
    ) -> None:
        self.model = model
        self.constrain: Constrain = constrain
        self.base_url = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.timeout_s = timeout_s
        self.transport = transport
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.tool_format = tool_format
        self.max_backoff_s = max_backoff_s
        self.max_connections = max_connections
        self.cache = cache
        self._clients: list[httpx.AsyncClient] = []
        self._ssl: ssl.SSLContext | None = None  # one for every client (loading CA certificates takes ~30 ms)
        self._busy: list[int] = []  # requests in flight per client
        self._sleep = asyncio.sleep  # how retries wait (tests record the waits instead)
        self._client_loop: asyncio.AbstractEventLoop | None = None
        problems = []
        if tool_format not in TOOL_FORMATS:
            problems.append(f"unknown tool format {tool_format!r} (known: {', '.join(TOOL_FORMATS)})")
        if not model:
            problems.append("no model name given")
        if urlparse(self.base_url).scheme not in ("http", "https"):
            problems.append(f"base_url {self.base_url!r} is not an http(s) URL")
        self._api_key = os.environ.get(api_key_env) or None
        if self._api_key is None and not _is_local(self.base_url):
            problems.append(f"environment variable {api_key_env} is not set (needed for {self.base_url})")
        if max_tokens < 1:
            problems.append(f"max_tokens must be >= 1, got {max_tokens}")
        if max_attempts < 1:
            problems.append(f"max_attempts must be >= 1, got {max_attempts}")
        if max_connections < 1:
            problems.append(f"max_connections must be >= 1, got {max_connections}")
        if timeout_s <= 0:
            problems.append(f"timeout_s must be > 0, got {timeout_s}")
        if backoff_s < 0 or max_backoff_s < 0:
            problems.append(f"backoff_s and max_backoff_s must be >= 0, got {backoff_s} and {max_backoff_s}")
        problems += _constrain_problems(constrain, tool_format)
        if problems:
            raise ConfigError(problems, what="openai backend")

    def settings(self) -> dict[str, JSON]:
        """Endpoint, model and sampling parameters (never the key)."""
        return {
            "backend": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "constrain": self.constrain,
            "constraint": self._constraint(),
            **({"tool_format": self.tool_format} if self.tool_format != "native" else {}),
        }

    def _constraint(self) -> str:
        """What a constrained turn asks of the server: ``none``, ``tool_choice`` or ``json-schema``
        (``response_format``)."""
        if self.constrain == "none":
            return "none"
        return "tool_choice" if self.tool_format == "native" else "json-schema"

    def agent(self, context: EpisodeContext) -> OpenAIAgent:
        """A fresh agent; uses only ``context.seed`` (unless a fixed seed was configured)."""
        return OpenAIAgent(self, seed=self.seed if self.seed is not None else context.seed)

    def request_body(self, messages: Sequence[Message], tools: Sequence[JSON], *, seed: int | None) -> dict[str, Any]:
        """The JSON body POSTed to ``/chat/completions``: under a prompt-based ``tool_format`` the
        messages converted by :func:`~toolprism.backends._formats.to_text_messages` and no ``tools``.
        A null ``content`` of an assistant message with tool calls is sent as ``""`` (the OpenAI
        API allows both; llama.cpp's Python server refuses null and needs the field). A
        constrained turn (see the module docstring) carries ``tool_choice`` naming the one tool,
        or ``"required"`` (native tools), or ``response_format`` with the turn's JSON Schema
        (the ``json`` format)."""
        prompted = self.tool_format != "native"
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_text_messages(messages, tools, self.tool_format) if prompted else wire_messages(messages),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        constrained = constrains_turn(self.constrain, messages)
        if tools and not prompted:
            body["tools"] = list(tools)
            body["tool_choice"] = _tool_choice(tools) if constrained else "auto"
        if constrained and self.tool_format == "json":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "toolprism_turn", "schema": turn_schema(tools)},
            }
        if seed is not None:
            body["seed"] = seed
        return body

    def _http(self) -> tuple[list[httpx.AsyncClient], list[int]]:
        """The backend's clients and their requests in flight, bound to the running event loop (a
        client is bound to its loop: a later ``asyncio.run`` starts with none).

        ``max_connections`` is split over up to ``ceil(max_connections / SHARD_CONNECTIONS)``
        clients, each made only when every existing one is full (a large ``--concurrency`` over
        a few episodes makes one): httpcore's pool does work quadratic in its connections on every
        request (its ``_assign_requests_to_connections``; encode/httpx#3215), which on the loopback
        mock cut one 64-connection client to a few percent of the ideal throughput.
        """
        loop = asyncio.get_running_loop()
        if self._clients and (self._clients[0].is_closed or self._client_loop is not loop):
            self._clients, self._busy = [], []
        self._client_loop = loop
        return self._clients, self._busy

    def _client(self) -> int:
        """The index of the least busy client, a new one if every client is full and the pool has room."""
        clients, busy = self._http()
        shards = -(-self.max_connections // SHARD_CONNECTIONS)
        size = -(-self.max_connections // shards)
        if clients:
            shard = min(range(len(clients)), key=busy.__getitem__)
            if busy[shard] < size or len(clients) >= shards:
                return shard
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()
        clients.append(
            httpx.AsyncClient(
                transport=self.transport,
                verify=self._ssl,
                headers=headers,
                timeout=httpx.Timeout(self.timeout_s, pool=None),
                limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
            )
        )
        busy.append(0)
        return len(clients) - 1

    async def aclose(self) -> None:
        """Close the clients and their connections (call it at the end of a run, in its event
        loop); a later request opens new ones."""
        clients, self._clients, self._busy, self._client_loop = self._clients, [], [], None
        for client in clients:
            if not client.is_closed:
                await client.aclose()

    def _wait(self, state: RetryCallState) -> float:
        """Seconds before the next try: the server's ``Retry-After`` if it sent one, else
        exponential backoff with jitter; both capped at ``max_backoff_s``."""
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return min(exc.retry_after, self.max_backoff_s)
        backoff = wait_exponential(multiplier=self.backoff_s, max=self.max_backoff_s) + wait_random(0, self.backoff_s)
        return min(self.max_backoff_s, backoff(state))

    async def _post_once(self, url: str, body: dict[str, Any]) -> Any:
        """One POST; the decoded JSON body of a 200.

        Raises:
            _Retryable: connection error, timeout, 429, 5xx, or a 2xx body that is not JSON.
            ContextOverflow: a 400 saying the prompt exceeds the context.
            BackendError: any other HTTP error.
        """
        shard = self._client()
        clients, busy = self._clients, self._busy
        busy[shard] += 1
        try:
            response = await clients[shard].post(url, json=body)
        except httpx.TransportError as exc:  # connection errors, timeouts, broken bodies
            raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
        finally:
            busy[shard] -= 1
        status = response.status_code
        if status == 429 or status >= 500:
            wait = retry_after_s(response.headers.get("retry-after"))
            raise _Retryable(f"HTTP {status}: {response.text[:300]}", retry_after=wait)
        if status >= 400:
            if status in (400, 413) and OVERFLOW_TEXT.search(response.text):
                raise ContextOverflow(f"{url}: the prompt does not fit the model's context: {response.text[:500]}")
            raise BackendError(f"{url}: HTTP {status}: {response.text[:500]}")
        try:
            return response.json()
        except ValueError as exc:  # truncated or not JSON: worth another try
            raise _Retryable(f"HTTP {status} body is not JSON: {response.text[:300]!r}") from exc

    async def complete(self, messages: Sequence[Message], tools: Sequence[JSON], *, seed: int | None) -> Any:
        """POST one request (with retries) and return the decoded JSON body; at temperature 0 a
        configured :attr:`cache` answers requests it has seen and keeps new well-formed answers.

        Raises:
            ContextOverflow: the endpoint said the prompt exceeds the model's context.
            BackendError: the endpoint failed ``max_attempts`` times or answered a
                non-retryable HTTP error.
        """
        body = self.request_body(messages, tools, seed=seed)
        url = f"{self.base_url}/chat/completions"
        cache = self.cache if self.cache is not None and self.temperature == 0 else None
        key = cache.key(url, body) if cache is not None else ""
        if cache is not None and (hit := cache.get(key)) is not None:
            return hit
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception_type(_Retryable),
                stop=stop_after_attempt(self.max_attempts),
                wait=self._wait,
                sleep=self._sleep,
                reraise=False,
            ):
                with attempt:
                    answer = await self._post_once(url, body)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise BackendError(f"{url}: failed after {self.max_attempts} attempts: {last}") from last
        if cache is not None and _well_formed(answer):
            cache.put(key, answer)
        return answer


def _tool_choice(tools: Sequence[JSON]) -> JSON:
    """``tool_choice`` for a constrained turn with native tools: the function, when only one is
    shown; else ``"required"`` (a call of any of them)."""
    if len(tools) == 1:
        function = tools[0].get("function", tools[0]) if isinstance(tools[0], dict) else {}
        return {"type": "function", "function": {"name": function.get("name", "")}}
    return "required"


def _constrain_problems(constrain: str, tool_format: str) -> list[str]:
    """What is wrong with ``constrain`` under ``tool_format`` (empty when it can be asked for)."""
    if unknown := constrain_problems(constrain):
        return unknown
    if constrain == "none" or tool_format == "json" or (tool_format == "native" and constrain == "first"):
        return []
    if tool_format == "native":
        return [
            "constrain='all' with native tools: the chat-completions API cannot ask for 'a valid call or an "
            "answer' on every turn (tool_choice 'required' forbids the final answer, 'auto' constrains nothing); "
            "use constrain='first' (tool_choice until the first call), or --tool-format json (response_format "
            "with the turn's JSON Schema, honoured by vLLM, llama.cpp's llama-server and SGLang)"
        ]
    return [
        f"constrain={constrain!r} with --tool-format {tool_format}: its calls are wrapped in text that no JSON "
        "Schema (response_format) describes; use --tool-format json, or native tools with constrain='first'"
    ]


def _well_formed(body: Any) -> bool:
    """Whether ``body`` has a ``choices[0].message`` object (only such answers are cached)."""
    try:
        return isinstance(body["choices"][0]["message"], dict)
    except (KeyError, IndexError, TypeError):
        return False


__all__ = ["OpenAIAgent", "OpenAIBackend"]
