"""``openai``: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server...).

Tools are sent natively (``tools`` + ``tool_choice: "auto"``); the response message is recorded
as sorted JSON text and its tool calls are passed on with their arguments unparsed. Network
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


def _turn_from_response(body: Any, turn_index: int) -> ModelTurn:
    """Map a chat-completions response body to a :class:`ModelTurn`.

    Raises:
        BackendError: the body has no ``choices[0].message``.
    """
    try:
        message = body["choices"][0]["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (KeyError, IndexError, TypeError) as exc:
        raise BackendError(f"malformed chat-completions response ({exc}): {body!r:.500}") from None
    calls = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        fn = tc.get("function") or {}
        arguments = fn.get("arguments")
        if not isinstance(arguments, str):  # some servers send an object; keep it as JSON text
            arguments = json.dumps(arguments)
        calls.append(
            RawCall(
                id=tc.get("id") or f"call_{turn_index}_{i}",
                name=str(fn.get("name", "")),
                arguments=arguments,
            )
        )
    usage = body.get("usage") or {}
    return ModelTurn(
        raw=json.dumps(message, sort_keys=True),
        content=message.get("content"),
        calls=tuple(calls),
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
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
        return _turn_from_response(body, self.turns)


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

    Raises:
        ConfigError: no model, or the API key variable is unset for a remote endpoint.
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
        problems = []
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
        }

    def agent(self, context: EpisodeContext) -> OpenAIAgent:
        """A fresh agent; uses only ``context.seed`` (unless a fixed seed was configured)."""
        return OpenAIAgent(self, seed=self.seed if self.seed is not None else context.seed)

    def request_body(self, messages: Sequence[Message], tools: Sequence[JSON], *, seed: int | None) -> dict[str, Any]:
        """The JSON body POSTed to ``/chat/completions``."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools:
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
