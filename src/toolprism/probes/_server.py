"""``ServerScorer``: teacher-forced scoring on an OpenAI-compatible server that returns prompt
log-probabilities (vLLM).

What it sends (vLLM's API; any server offering the same endpoints works):

- render: ``POST /tokenize`` with the messages (as the ``openai`` backend sends them), the tools
  and ``add_generation_prompt``, then ``POST /detokenize`` of those ids: the text is the server's
  own chat template. The text is tokenised again and must give the same ids (a tokenizer whose
  decoding is not lossless would make the scored prompt differ from the served one:
  :class:`~toolprism.probes.ProbeError`).
- score: ``POST /tokenize`` of the context and of each ``context + continuation`` as whole
  texts (``add_special_tokens: false``: the template writes its own), the scored tokens by
  :func:`~toolprism.probes.scored_tokens`; then one ``POST /v1/completions`` whose ``prompt`` is
  the list of token-id sequences, ``max_tokens: 1``, ``prompt_logprobs: 0``: each prompt token's
  log-probability (nats) given the tokens before it. A sequence that is a prefix of another in
  the same call is read from the longer one (log-probabilities depend only on earlier tokens).

``/tokenize`` and ``/detokenize`` are at the server root (``base_url`` without its trailing
``/v1``), as vLLM serves them. The first use checks the server can do this (one tokenisation and
one scored token) and raises a ProbeError saying what is missing when it cannot. Requests retry
like the ``openai`` backend's (tenacity: 429, 5xx, timeouts, connection errors, non-JSON bodies;
``Retry-After`` honoured). Texts' tokenisations, renderings and scored sequences are cached
(LRU), so a context rendered for several probes is sent once, and a sequence scored before (the
S0 of a later return that is byte-identical across fault arms) is not scored again.

Cost: vLLM (V1) does not read its prefix cache for a request asking for prompt log-probabilities,
so every sequence is a full prefill on the server; the sequences of one :meth:`score` call go in
one request, which the server batches.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

import httpx
import numpy as np
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential, wait_random

from toolprism.backends import OVERFLOW_TEXT, Message, retry_after_s, wire_messages
from toolprism.errors import BackendError, ConfigError
from toolprism.probes._scorer import ProbeError, TokenLogprobs, scored_tokens
from toolprism.schema import JSON

CACHE_SIZE = 256
"""Texts (and renderings) whose tokenisation is kept (about 30 MB at retail's prompt length)."""
TOKENIZE_THREADS = 8
"""Concurrent ``/tokenize`` requests of one :meth:`ServerScorer.score` call."""
SCORED_CACHE_SIZE = 64
"""Scored token sequences whose log-probabilities are kept (a later return byte-identical across
fault arms has the same S0 sequence: it is sent once)."""
BASE_URL_ENV = "TOOLPRISM_BASE_URL"
"""Where the base URL is read when none is given (as the ``openai`` backend reads it)."""
MAX_BACKOFF_S = 60.0
"""The longest wait between two tries, ``Retry-After`` included."""


class _Retryable(Exception):
    """A failure worth retrying (connection error, timeout, 429, 5xx, a body that is not JSON)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Missing(Exception):
    """The server has no such endpoint (HTTP 404/405) or ignored ``prompt_logprobs``."""


class _LRU(OrderedDict[str, Any]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_or(self, key: str, make: Any) -> Any:
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = self[key] = make()
        if len(self) > self.size:
            self.popitem(last=False)
        return value


class ServerScorer:
    """Teacher-forced scoring on a vLLM-compatible server (module docstring for the protocol).

    Args:
        model: the served model name sent in each request.
        base_url: the API root (``http://host:8000/v1``); default ``$TOOLPRISM_BASE_URL``.
        api_key_env: the environment variable holding the API key (default ``OPENAI_API_KEY``
            when it is set; a local server needs none).
        timeout_s: per-request timeout.
        max_attempts: tries per request before :class:`~toolprism.errors.BackendError`.
        backoff_s: the first retry delay (doubling, with jitter, capped at 60 s).
        transport: an ``httpx`` transport (tests).

    Raises:
        ConfigError: no model, no base URL, a URL that is not http(s), or ``api_key_env`` named
            but unset for a remote server.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        timeout_s: float = 120.0,
        max_attempts: int = 5,
        backoff_s: float = 1.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        url = (base_url or os.environ.get(BASE_URL_ENV) or "").rstrip("/")
        problems = []
        if not model:
            problems.append("no model name given")
        if not url:
            problems.append(
                "no base URL: give --base-url (or TOOLPRISM_BASE_URL) of a server returning prompt "
                "log-probabilities, e.g. vLLM's http://localhost:8000/v1"
            )
        elif urlparse(url).scheme not in ("http", "https"):
            problems.append(f"base_url {url!r} is not an http(s) URL")
        key = os.environ.get(api_key_env or "OPENAI_API_KEY") or None
        host = urlparse(url).hostname or ""
        if api_key_env and key is None and host not in ("localhost", "127.0.0.1", "::1"):
            problems.append(f"environment variable {api_key_env} is not set (needed for {url})")
        if max_attempts < 1 or timeout_s <= 0 or backoff_s < 0:
            problems.append("max_attempts must be >= 1, timeout_s > 0 and backoff_s >= 0")
        if problems:
            raise ConfigError(problems, what="server scorer")
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = url
        self.root = url[: -len("/v1")] if url.endswith("/v1") else url
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._transport = transport
        self._client: httpx.Client | None = None
        self._texts: _LRU = _LRU(CACHE_SIZE)
        self._renders: _LRU = _LRU(CACHE_SIZE)
        self._scored: _LRU = _LRU(SCORED_CACHE_SIZE)
        self._lock = threading.Lock()
        self.max_model_len: int | None = None
        self._checked = False
        self._tools_rendered = False
        self.requests = 0
        """HTTP requests sent (retries included)."""
        self.prompt_tokens = 0
        """Tokens sent for scoring (the server's prefill work; vLLM reuses no prefix cache for them)."""

    # --- the protocol ----------------------------------------------------------------------------

    def settings(self) -> dict[str, JSON]:
        """The scorer, model, server and its context window (checks the server on first call)."""
        self._check()
        return {
            "scorer": "server",
            "model": self.model,
            "base_url": self.base_url,
            "max_model_len": self.max_model_len,
            "method": "vllm /tokenize + /v1/completions prompt_logprobs",
        }

    def render(self, messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
        """The server's rendering of ``messages`` with ``tools`` (detokenised ``/tokenize``).

        Raises:
            ProbeError: the server cannot score, cannot render these messages, or its
                detokenisation does not tokenise back to the same ids.
        """
        self._check()
        key = json.dumps([list(messages), list(tools), generation_prompt], sort_keys=True, default=str)
        return self._renders.get_or(key, lambda: self._render(messages, tools, generation_prompt))

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as :meth:`score` tokenises it (``LogprobScorer.tokenize``)."""
        return list(self._tokenize(text))

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        """Log-probabilities (nats) of each continuation after ``context``
        (:class:`~toolprism.probes.LogprobScorer`).

        Raises:
            ProbeError: the server cannot score, or a sequence does not fit its context.
            BackendError: the server failed ``max_attempts`` times.
        """
        self._check()
        if not continuations:
            return []
        context_ids, *fulls = self._tokenize_all([context, *(context + c for c in continuations)])
        starts = [scored_tokens(context_ids, f) for f in fulls]
        if starts and min(starts) == 0:
            raise ProbeError("an empty context gives the first token nothing to condition on")
        logprobs = self._prompt_logprobs(fulls)
        return [TokenLogprobs(tuple(f[s:]), tuple(lp[s:])) for f, s, lp in zip(fulls, starts, logprobs, strict=True)]

    def close(self) -> None:
        """Close the HTTP connection pool (a later request opens a new one)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> ServerScorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- requests --------------------------------------------------------------------------------

    def _cannot(self, why: str) -> ProbeError:
        return ProbeError(
            f"{self.base_url} cannot return prompt log-probabilities (needs vLLM's /tokenize and "
            f"prompt_logprobs; {why}); probe with embedded or hf:<dir>"
        )

    def _check(self) -> None:
        """On first use: one tokenisation and one scored token, or a ProbeError saying what is missing."""
        if self._checked:
            return
        ids = self._ids(self._request(f"{self.root}/tokenize", {"model": self.model, "prompt": "ab"}), "a test text")
        self._prompt_logprobs([ids])
        self._checked = True

    def _post(self, url: str, body: dict[str, Any]) -> Any:
        """POST with retries; the decoded JSON of a 2xx.

        Raises:
            _Missing: HTTP 404 or 405.
            ProbeError: a 400 saying the prompt exceeds the context, or another 4xx.
            BackendError: ``max_attempts`` retryable failures.
        """
        wait = wait_exponential(multiplier=self.backoff_s, max=MAX_BACKOFF_S) + wait_random(0, self.backoff_s)

        def delay(state: Any) -> float:
            exc = state.outcome.exception() if state.outcome is not None else None
            if isinstance(exc, _Retryable) and exc.retry_after is not None:
                return min(exc.retry_after, MAX_BACKOFF_S)
            return min(MAX_BACKOFF_S, wait(state))

        try:
            for attempt in Retrying(
                retry=retry_if_exception_type(_Retryable),
                stop=stop_after_attempt(self.max_attempts),
                wait=delay,
                reraise=False,
            ):
                with attempt:
                    answer = self._post_once(url, body)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise BackendError(f"{url}: failed after {self.max_attempts} attempts: {last}") from None
        return answer

    def _post_once(self, url: str, body: dict[str, Any]) -> Any:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(transport=self._transport, headers=self._headers, timeout=self.timeout_s)
            self.requests += 1
            client = self._client
        try:
            response = client.post(url, json=body)
        except httpx.TransportError as exc:
            raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(
                f"HTTP {status}: {response.text[:300]}", retry_after_s(response.headers.get("retry-after"))
            )
        if status in (404, 405):
            raise _Missing(f"{url} answered HTTP {status}: {response.text[:300]}")
        if status >= 400:
            if OVERFLOW_TEXT.search(response.text):
                raise ProbeError(f"the prompt does not fit the server's context: {response.text[:500]}")
            raise ProbeError(f"{url}: HTTP {status}: {response.text[:500]}")
        try:
            return response.json()
        except ValueError as exc:
            raise _Retryable(f"HTTP {status} body is not JSON: {response.text[:300]!r}") from exc

    def _ids(self, answer: Any, what: str) -> list[int]:
        """The ``tokens`` of a ``/tokenize`` answer (records ``max_model_len``)."""
        ids = answer.get("tokens") if isinstance(answer, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise ProbeError(f"{self.root}/tokenize answered without token ids for {what}: {answer!r:.300}")
        if isinstance(answer.get("max_model_len"), int):
            self.max_model_len = answer["max_model_len"]
        return ids

    def _fetch_ids(self, text: str) -> list[int]:
        body = {"model": self.model, "prompt": text, "add_special_tokens": False}
        return self._ids(self._request(f"{self.root}/tokenize", body), "a text")

    def _tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as a whole (no special tokens added), cached."""
        return self._texts.get_or(text, lambda: self._fetch_ids(text))

    def _tokenize_all(self, texts: Sequence[str]) -> list[list[int]]:
        """:meth:`_tokenize` of each text; those not cached are requested concurrently (up to
        :data:`TOKENIZE_THREADS` at once: one round trip instead of one per continuation)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._texts]
        if len(missing) > 1:
            with ThreadPoolExecutor(min(TOKENIZE_THREADS, len(missing))) as pool:
                fetched = list(pool.map(self._fetch_ids, missing))
            for text, ids in zip(missing, fetched, strict=True):
                self._texts.get_or(text, lambda ids=ids: ids)
        return [self._tokenize(t) for t in texts]

    def _chat_ids(self, messages: Sequence[Message], tools: Sequence[JSON], generation_prompt: bool) -> list[int]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(messages),
            "add_generation_prompt": generation_prompt,
            "add_special_tokens": False,
        }
        if tools:
            body["tools"] = list(tools)
        return self._ids(self._request(f"{self.root}/tokenize", body), "the messages")

    def _render(self, messages: Sequence[Message], tools: Sequence[JSON], generation_prompt: bool) -> str:
        ids = self._chat_ids(messages, tools, generation_prompt)
        if tools and not self._tools_rendered:  # once: a server ignoring 'tools' renders the same without them
            if self._chat_ids(messages, [], generation_prompt) == ids:
                raise ProbeError(
                    f"{self.root}/tokenize ignores 'tools' (older vLLM releases do; or the model's chat "
                    "template does not render tools), so its rendering is not the episode's prompt; update the server "
                    "or probe with embedded or hf:<dir>"
                )
            self._tools_rendered = True
        answer = self._request(f"{self.root}/detokenize", {"model": self.model, "tokens": ids})
        text = answer.get("prompt") if isinstance(answer, dict) else None
        if not isinstance(text, str):
            raise ProbeError(f"{self.root}/detokenize answered without a 'prompt': {answer!r:.300}")
        if self._tokenize(text) != ids:
            raise ProbeError(
                "the server's rendered prompt does not tokenise back to the same ids (its detokenisation is "
                "not lossless), so scored text would not be the prompt it serves; probe with embedded or hf:<dir>"
            )
        return text

    def _request(self, url: str, body: dict[str, Any]) -> Any:
        try:
            return self._post(url, body)
        except _Missing as exc:
            raise self._cannot(str(exc)) from None

    def _prompt_logprobs(self, sequences: Sequence[Sequence[int]]) -> list[list[float]]:
        """Each token's log-probability given the tokens before it (nats; the first is NaN), one
        list per sequence; a sequence that is a prefix of another is read from the longer one.

        Raises:
            ProbeError: the answer has no prompt log-probabilities, or a sequence does not fit
                the server's context.
        """
        unique: list[tuple[int, ...]] = []
        for seq in sorted({tuple(s) for s in sequences}, key=len, reverse=True):
            if not any(u[: len(seq)] == seq for u in unique):
                unique.append(seq)
        rows = {u: hit for u in unique if (hit := self._scored.get(_key(u))) is not None}
        todo = [u for u in unique if u not in rows]
        if todo:
            rows.update(self._request_logprobs(todo))
        for u in todo:
            self._scored.get_or(_key(u), lambda u=u: rows[u])
        out = []
        for s in sequences:
            s = tuple(s)
            source = next((u for u in unique if u[: len(s)] == s), None)
            if source is None or source not in rows:
                raise ProbeError("the completions answer lacks a choice for a scored prompt")
            out.append([float(x) for x in rows[source][: len(s)]])
        return out

    def _request_logprobs(self, unique: Sequence[tuple[int, ...]]) -> dict[tuple[int, ...], np.ndarray]:
        """One ``/v1/completions`` request scoring ``unique``: sequence → per-token log-probabilities."""
        longest = max(len(u) for u in unique)
        if self.max_model_len is not None and longest + 1 > self.max_model_len:
            raise ProbeError(
                f"a scored prompt of {longest} tokens does not fit the server's context of {self.max_model_len}"
            )
        body = {
            "model": self.model,
            "prompt": [list(u) for u in unique],
            "max_tokens": 1,
            "temperature": 0.0,
            "prompt_logprobs": 0,
        }
        answer = self._request(f"{self.base_url}/completions", body)
        self.prompt_tokens += sum(len(u) for u in unique)
        rows = {}
        try:
            for choice in answer["choices"]:
                seq = unique[int(choice["index"])]
                entries = choice.get("prompt_logprobs")
                if not isinstance(entries, list):
                    raise self._cannot("its completions answer has no prompt_logprobs")
                if len(entries) != len(seq):
                    raise ProbeError(f"prompt_logprobs has {len(entries)} entries for {len(seq)} prompt tokens")
                values = [float("nan")] + [
                    float(e[str(t)]["logprob"]) for e, t in zip(entries[1:], seq[1:], strict=True)
                ]
                rows[seq] = np.array(values, dtype=np.float64)
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ProbeError(f"malformed prompt_logprobs in the completions answer ({exc!r})") from None
        return rows


def _key(ids: Sequence[int]) -> str:
    """A compact cache key of a token sequence."""
    return hashlib.sha256(np.asarray(ids, dtype=np.int64).tobytes()).hexdigest()


__all__ = ["ServerScorer"]
