"""``openai``: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server...).

Tools are sent natively (``tools`` + ``tool_choice: "auto"``); the response message is recorded
as sorted JSON text and its tool calls are passed on with their arguments unparsed. With a
prompt-based ``tool_format`` (``hermes``, ``json``, ``llama``, ``mistral``), for servers or models
without native tool calling, the tools go in the system message and the reply text is parsed
(:mod:`toolprism.backends._formats`). Network
errors, 429 and 5xx are retried with exponential backoff; other HTTP errors fail at once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import httpx
from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from toolprism.backends._base import EpisodeContext, Message, ModelTurn, RawCall
from toolprism.backends._formats import TOOL_FORMATS, parse_output, to_text_messages
from toolprism.errors import BackendError, ConfigError
from toolprism.schema import JSON

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENV = "TOOLPRISM_BASE_URL"
MAX_ATTEMPTS = 5
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


class _Retryable(Exception):
    """A failure worth retrying (connection error, timeout, 429, 5xx)."""


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
    usage = body.get("usage") if isinstance(body, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return usage.get("prompt_tokens"), usage.get("completion_tokens")


def _wire(messages: Sequence[Message]) -> list[Message]:
    """The messages as sent natively: ``content: null`` is ``""`` where ``tool_calls`` stand in."""
    return [{**m, "content": ""} if m.get("content") is None and m.get("tool_calls") else m for m in messages]


def _turn_from_response(body: Any, turn_index: int, tool_format: str = "native") -> ModelTurn:
    """Map a chat-completions response body to a :class:`ModelTurn`.

    Native: the message's ``tool_calls`` (ids ``call_<turn>_<index>`` where the server gave none;
    absent or null ``arguments`` read as ``{}``); a ``tool_calls`` entry that is not a function
    call object makes the turn unreadable (``error``). Prompt-based formats: the message text,
    read by :func:`toolprism.backends._formats.parse_output` (a server that still answers with
    native ``tool_calls`` is read natively).

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
        return ModelTurn(
            raw=text,
            content=parsed.content,
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
        return _turn_from_response(body, self.turns, self.backend.tool_format)


class OpenAIBackend:
    """Backend ``openai``: an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        model: the model name sent in each request.
        base_url: the API root (``.../v1``); default ``$TOOLPRISM_BASE_URL`` or OpenAI's.
        api_key_env: the environment variable holding the API key; it may be unset only for
            a localhost ``base_url``.
        temperature / max_tokens: sampling parameters sent in each request.
        seed: sent in each request; None uses each episode's seed.
        timeout_s: per-request timeout.
        transport: an ``httpx`` transport (tests use ``httpx.MockTransport``).
        max_attempts: tries per request before :class:`BackendError`.
        backoff_s: the first retry delay (doubling, capped at 30 s).
        tool_format: ``native`` (``tools`` in the request, ``tool_calls`` in the reply) or a
            prompt-based format of :mod:`toolprism.backends._formats` (``hermes``, ``json``,
            ``llama``, ``mistral``): no ``tools`` field; the tools and the calling convention go in
            the system message, the history is plain text, and replies are parsed.

    Raises:
        ConfigError: no model, the API key variable is unset for a remote endpoint, or an unknown
            ``tool_format``.
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
    ) -> None:
        self.model = model
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
            "constraint": "none",
            **({"tool_format": self.tool_format} if self.tool_format != "native" else {}),
        }

    def agent(self, context: EpisodeContext) -> OpenAIAgent:
        """A fresh agent; uses only ``context.seed`` (unless a fixed seed was configured)."""
        return OpenAIAgent(self, seed=self.seed if self.seed is not None else context.seed)

    def request_body(self, messages: Sequence[Message], tools: Sequence[JSON], *, seed: int | None) -> dict[str, Any]:
        """The JSON body POSTed to ``/chat/completions``: under a prompt-based ``tool_format`` the
        messages converted by :func:`~toolprism.backends._formats.to_text_messages` and no ``tools``.
        A null ``content`` of an assistant message with tool calls is sent as ``""`` (the OpenAI
        API allows both; llama.cpp's Python server refuses null and needs the field)."""
        prompted = self.tool_format != "native"
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_text_messages(messages, tools, self.tool_format) if prompted else _wire(messages),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools and not prompted:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        if seed is not None:
            body["seed"] = seed
        return body

    async def complete(self, messages: Sequence[Message], tools: Sequence[JSON], *, seed: int | None) -> Any:
        """POST one request (with retries) and return the decoded JSON body.

        Raises:
            BackendError: the endpoint failed ``max_attempts`` times, answered a non-retryable
                HTTP error, or answered something that is not JSON.
        """
        body = self.request_body(messages, tools, seed=seed)
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        url = f"{self.base_url}/chat/completions"
        async with httpx.AsyncClient(transport=self.transport, timeout=self.timeout_s) as client:

            async def once() -> httpx.Response:
                try:
                    response = await client.post(url, json=body, headers=headers)
                except (httpx.TransportError, httpx.TimeoutException) as exc:
                    raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
                if response.status_code == 429 or response.status_code >= 500:
                    raise _Retryable(f"HTTP {response.status_code}: {response.text[:300]}")
                return response

            try:
                async for attempt in AsyncRetrying(
                    retry=retry_if_exception(lambda e: isinstance(e, _Retryable)),
                    stop=stop_after_attempt(self.max_attempts),
                    wait=wait_exponential(multiplier=self.backoff_s, max=30),
                    reraise=False,
                ):
                    with attempt:
                        response = await once()
            except RetryError as exc:
                last = exc.last_attempt.exception()
                raise BackendError(f"{url}: failed after {self.max_attempts} attempts: {last}") from last
        if response.status_code >= 400:
            raise BackendError(f"{url}: HTTP {response.status_code}: {response.text[:500]}")
        try:
            return response.json()
        except ValueError as exc:
            raise BackendError(f"{url}: response is not JSON: {response.text[:300]!r}") from exc


__all__ = ["OpenAIAgent", "OpenAIBackend"]
