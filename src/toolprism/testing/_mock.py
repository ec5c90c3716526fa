"""A fault-injecting OpenAI-compatible mock server: a real HTTP/1.1 server (keep-alive) on
127.0.0.1, in a background thread, answering ``POST /v1/chat/completions`` with scripted replies,
and (unless ``scoring="off"``) vLLM's scoring endpoints driven by a tiny deterministic model
(:class:`~toolprism.testing.TinyLM`): ``POST /tokenize`` (a prompt, or messages + tools with
``add_generation_prompt``), ``POST /detokenize`` and ``POST /v1/completions`` (text or token-id
prompts, ``prompt_logprobs``, greedy generation).

The default script lets a toolprism episode complete in two requests: the first answer calls the
first tool offered, with arguments made from its parameter schema; once the conversation ends
with a tool message (or no tools are offered), it answers with text. At the configured rate a
request instead gets a fault. Which request gets which fault is a pure function of the server
seed, the request body and how many times that same body was sent before, so a run is
reproducible whatever the order in which concurrent requests arrive.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from toolprism.testing._tinylm import TinyLM

FAULTS = ("429", "500", "503", "timeout", "truncated", "invalid_arguments")
"""Fault kinds: ``429`` (with ``Retry-After``), ``500``, ``503``, ``timeout`` (the request is
held ``hang_s`` seconds, then the connection is closed without an answer), ``truncated`` (a 200
whose JSON body is cut in half) and ``invalid_arguments`` (a well-formed 200 whose tool call has
arguments that are not JSON: a model failure, not a backend one)."""
TRANSPORT_FAULTS = frozenset(FAULTS) - {"invalid_arguments"}
"""The faults a client should retry (all but ``invalid_arguments``)."""
INVALID_ARGUMENTS = '{"room": "kitchen", '
"""The arguments text of an ``invalid_arguments`` fault (cut-off JSON)."""

SCORING_MODES = ("vllm", "no-prompt-logprobs", "off")
"""What the mock offers for scoring: ``vllm`` (``/tokenize``, ``/detokenize`` and
``/v1/completions`` with ``prompt_logprobs``), ``no-prompt-logprobs`` (the same, but completions
ignore ``prompt_logprobs``, as servers without it do) and ``off`` (chat completions only)."""

Script = Callable[[dict[str, Any]], dict[str, Any]]
"""Maps a request body to the assistant message to answer with."""


def example_value(schema: Any, depth: int = 0) -> Any:
    """A plausible value for a JSON Schema fragment: its first enum value, const or default, else
    a placeholder of its type (``"x"``, ``1``, ``1.0``, ``True``; objects with their required
    properties). Never raises."""
    if not isinstance(schema, dict) or depth > 20:
        return "x"
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return example_value(schema[key][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        return {name: example_value(props.get(name), depth + 1) for name in required}
    if kind == "array":
        return [example_value(schema.get("items"), depth + 1)] * min(int(schema.get("minItems") or 0), 3)
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1.0))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "x"


def scripted_reply(body: dict[str, Any]) -> dict[str, Any]:
    """The default script: call the first tool with example arguments, then answer with text
    once a tool result is in (see the module docstring)."""
    messages = body.get("messages") or [{}]
    tools = body.get("tools") or []
    if not tools or messages[-1].get("role") == "tool":
        return {"role": "assistant", "content": "Done."}
    function = tools[0].get("function") or {}
    arguments = example_value(function.get("parameters") or {"type": "object"})
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{len(messages)}",
                "type": "function",
                "function": {"name": function.get("name", ""), "arguments": json.dumps(arguments)},
            }
        ],
    }


@dataclass(frozen=True)
class Served:
    """One request as the server saw it.

    Attributes:
        key: SHA-256 of the request body's bytes (a retried request has the same key).
        attempt: how many requests with this key came before (0 for the first).
        fault: the injected fault (see :data:`FAULTS`), or None for a normal answer.
    """

    key: str
    attempt: int
    fault: str | None


class MockOpenAIServer:
    """The mock server. Use as a context manager (or :meth:`start` / :meth:`stop`).

    Args:
        latency_s: seconds each answer waits before it is sent (a model's time per request).
        fault_rate: the share of requests that get a fault, 0 to 1.
        fault_mix: relative weights of the fault kinds (keys from :data:`FAULTS`); default equal.
        retry_after: the ``Retry-After`` header value of a 429 (seconds, as text).
        hang_s: how long a ``timeout`` fault holds the request (make it longer than the client's
            timeout to see a timeout, shorter to see a dropped connection).
        seed: the seed of the fault choice.
        script: maps a request body to the assistant message (default :func:`scripted_reply`).
        port: the port on 127.0.0.1; 0 (default) picks a free one.
        scoring: which scoring endpoints it serves (:data:`SCORING_MODES`).
        lm: the model behind them (default ``TinyLM()``); any object with TinyLM's
            ``tokenize``, ``detokenize``, ``token_str``, ``render``, ``logits``, ``logprobs``,
            ``vocab_size`` and ``max_model_len`` (tests plug in a transformers model).

    Besides ``POST /v1/chat/completions`` it answers ``GET /v1/models``, ``GET /v1/stats``
    (``served``, ``max_in_flight``, ``first_at`` and ``last_at``, the Unix times the first and the
    latest request arrived, and a count per fault kind) and ``DELETE /v1/stats`` (reset).

    Attributes:
        base_url: ``http://127.0.0.1:<port>/v1`` (once started).
        served: every request answered or faulted, in arrival order (see :class:`Served`).
        connections: TCP connections accepted (keep-alive clients reuse theirs).
        invalid_sent: answers sent with :data:`INVALID_ARGUMENTS` (an ``invalid_arguments``
            fault on a request the script answers with text changes nothing).
        max_in_flight: the most requests the server held at once.

    Raises:
        ValueError: a rate outside [0, 1] or an unknown fault kind.
    """

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        fault_rate: float = 0.0,
        fault_mix: Mapping[str, float] | None = None,
        retry_after: str = "0",
        hang_s: float = 1.0,
        seed: int = 0,
        script: Script = scripted_reply,
        port: int = 0,
        scoring: Literal["vllm", "no-prompt-logprobs", "off"] = "vllm",
        lm: TinyLM | None = None,
    ) -> None:
        mix = dict(fault_mix) if fault_mix is not None else dict.fromkeys(FAULTS, 1.0)
        unknown = sorted(set(mix) - set(FAULTS))
        if unknown or not 0 <= fault_rate <= 1 or (fault_rate and sum(mix.values()) <= 0):
            raise ValueError(f"fault_rate must be in [0, 1] and fault_mix weigh kinds of {FAULTS}; got {unknown}")
        if scoring not in SCORING_MODES:
            raise ValueError(f"scoring must be one of {SCORING_MODES}, got {scoring!r}")
        self.scoring = scoring
        self.lm = lm if lm is not None else TinyLM()
        self.latency_s = latency_s
        self.fault_rate = fault_rate
        self.fault_mix = mix
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.seed = seed
        self.script = script
        self.port = port
        self.served: list[Served] = []
        self.connections = 0
        self.invalid_sent = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> MockOpenAIServer:
        """Bind and serve in a daemon thread; returns self."""
        handler = type("Handler", (_Handler,), {"mock": self})
        httpd = _Server(("127.0.0.1", self.port), handler)
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (requests being held finish on their own threads)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> MockOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset_stats(self) -> None:
        """Forget the requests served and the in-flight maximum (the fault choice is unaffected)."""
        with self._lock:
            self.served.clear()
            self.connections = self.invalid_sent = 0
            self.max_in_flight = self.in_flight
            self.first_at = self.last_at = None

    def faults(self) -> Counter[str]:
        """How many requests got each fault."""
        return Counter(s.fault for s in self.served if s.fault is not None)

    def fault_for(self, key: str, attempt: int) -> str | None:
        """The fault for the ``attempt``-th request with body key ``key`` (None: a normal answer)."""
        if self.fault_rate <= 0:
            return None
        digest = hashlib.sha256(f"{self.seed}|{key}|{attempt}".encode()).digest()
        if int.from_bytes(digest[:8]) / 2**64 >= self.fault_rate:
            return None
        point = int.from_bytes(digest[8:16]) / 2**64 * sum(self.fault_mix.values())
        for kind, weight in self.fault_mix.items():
            point -= weight
            if point < 0 and weight > 0:
                return kind
        return next(k for k, w in reversed(self.fault_mix.items()) if w > 0)

    def _admit(self, raw: bytes) -> Served:
        key = hashlib.sha256(raw).hexdigest()  # a client retries with the same bytes
        with self._lock:
            attempt = self._attempts[key]
            self._attempts[key] += 1
            served = Served(key, attempt, self.fault_for(key, attempt))
            self.served.append(served)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.last_at = time.time()
            self.first_at = self.first_at or self.last_at
        return served

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stall
    mock: MockOpenAIServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        with self.mock._lock:
            self.mock.connections += 1

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/stats"):
            mock = self.mock
            stats = {"served": len(mock.served), "max_in_flight": mock.max_in_flight, "connections": mock.connections}
            stats |= {"first_at": mock.first_at, "last_at": mock.last_at}
            self._json(200, {**stats, **mock.faults()})
        elif self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "mock", "object": "model", "owned_by": "toolprism"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_DELETE(self) -> None:
        if self.path.rstrip("/").endswith("/stats"):
            self.mock.reset_stats()
            self._json(200, {"reset": True})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.rstrip("/")
        route = next((r for r in _ROUTES if path.endswith(r)), None)
        if route is None or (route != "/chat/completions" and self.mock.scoring == "off"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        mock = self.mock
        served = mock._admit(raw)
        try:
            self._answer(raw, served, route)
        finally:
            mock._leave()

    def _answer(self, raw: bytes, served: Served, route: str) -> None:
        mock = self.mock
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            self._json(400, {"error": {"message": f"request body is not a JSON object: {exc}"}})
            return
        if served.fault == "timeout":
            time.sleep(mock.hang_s)
            self.close_connection = True
            return
        if mock.latency_s:
            time.sleep(mock.latency_s)
        if served.fault in ("429", "500", "503"):
            headers = {"Retry-After": mock.retry_after} if served.fault == "429" else {}
            self._json(int(served.fault), {"error": {"message": f"injected {served.fault}"}}, headers)
            return
        if route == "/chat/completions":
            reply = self._chat(body, raw, served)
        else:
            try:
                reply = _SCORING[route](mock, body)
            except _BadRequest as exc:
                self._json(400, {"object": "error", "message": str(exc), "type": "BadRequestError", "code": 400})
                return
        data = json.dumps(reply).encode()
        if served.fault == "truncated":
            data = data[: len(data) // 2]
        self._send(200, data)

    def _chat(self, body: dict[str, Any], raw: bytes, served: Served) -> dict[str, Any]:
        mock = self.mock
        message = mock.script(body)
        if served.fault == "invalid_arguments" and message.get("tool_calls"):
            message = json.loads(json.dumps(message))
            message["tool_calls"][0]["function"]["arguments"] = INVALID_ARGUMENTS
            with mock._lock:
                mock.invalid_sent += 1
        return {
            "id": f"chatcmpl-{served.key[:12]}-{served.attempt}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "mock"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
            ],
            "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": 8, "total_tokens": len(raw) // 4 + 8},
        }

    def _json(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(status, json.dumps(body).encode(), headers)

    def _send(self, status: int, data: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class _BadRequest(ValueError):
    """A scoring request the mock answers with HTTP 400 (vLLM's error body)."""


def _tokenize(mock: MockOpenAIServer, body: dict[str, Any]) -> dict[str, Any]:
    """vLLM's ``POST /tokenize``: ``messages`` (+ ``tools``, ``add_generation_prompt``, default
    true; ``add_special_tokens`` default false) or ``prompt`` (``add_special_tokens`` default true)."""
    lm = mock.lm
    if "messages" in body:
        text = lm.render(
            body["messages"], body.get("tools") or [], add_generation_prompt=body.get("add_generation_prompt", True)
        )
        ids = lm.tokenize(text, add_special_tokens=bool(body.get("add_special_tokens", False)))
    elif isinstance(body.get("prompt"), str):
        ids = lm.tokenize(body["prompt"], add_special_tokens=bool(body.get("add_special_tokens", True)))
    else:
        raise _BadRequest("tokenize needs 'messages' or a 'prompt' string")
    strs = [lm.token_str(i) for i in ids] if body.get("return_token_strs") else None
    return {"count": len(ids), "max_model_len": lm.max_model_len, "tokens": ids, "token_strs": strs}


def _detokenize(mock: MockOpenAIServer, body: dict[str, Any]) -> dict[str, Any]:
    """vLLM's ``POST /detokenize``: ``tokens`` to ``prompt``."""
    tokens = body.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) and 0 <= t < mock.lm.vocab_size for t in tokens):
        raise _BadRequest("detokenize needs 'tokens', a list of token ids in the vocabulary")
    return {"prompt": mock.lm.detokenize(tokens)}


def _prompts(mock: MockOpenAIServer, prompt: Any) -> list[list[int]]:
    """A completions ``prompt`` (a string, token ids, or a list of either) as token-id lists."""
    lm = mock.lm
    if isinstance(prompt, str):
        return [lm.tokenize(prompt, add_special_tokens=True)]
    if isinstance(prompt, list) and prompt and all(isinstance(t, int) for t in prompt):
        return [prompt]
    if isinstance(prompt, list) and prompt:
        return [p for item in prompt for p in _prompts(mock, item)]
    raise _BadRequest("prompt must be a string, a list of token ids, or a non-empty list of either")


def _completions(mock: MockOpenAIServer, body: dict[str, Any]) -> dict[str, Any]:
    """vLLM's ``POST /v1/completions``: greedy generation of ``max_tokens`` (default 16, at most
    64) and, when asked, ``prompt_logprobs`` (None for the first token, then each prompt token's
    log-probability with its rank, plus the top ``prompt_logprobs`` tokens)."""
    lm = mock.lm
    prompts = _prompts(mock, body.get("prompt"))
    max_tokens = int(body.get("max_tokens") or 16)
    k = body.get("prompt_logprobs")
    choices = []
    for index, ids in enumerate(prompts):
        if any(not 0 <= t < lm.vocab_size for t in ids):
            raise _BadRequest("token id out of vocabulary")
        if len(ids) + max_tokens > lm.max_model_len:
            raise _BadRequest(
                f"This model's maximum context length is {lm.max_model_len} tokens. However, you requested "
                f"{len(ids) + max_tokens} tokens ({len(ids)} in the messages, {max_tokens} in the completion). "
                "Please reduce the length of the messages or completion."
            )
        generated = list(ids)
        for _ in range(min(max_tokens, 64)):
            generated.append(int(lm.logits(generated)[-1].argmax()))
        choice: dict[str, Any] = {
            "index": index,
            "text": lm.detokenize(generated[len(ids) :]),
            "logprobs": None,
            "finish_reason": "length",
        }
        if k is not None and mock.scoring == "vllm":
            rows = lm.logprobs(ids)
            entries: list[Any] = [None]
            for position in range(1, len(ids)):
                row = rows[position - 1]
                order = [int(t) for t in row.argsort()[::-1][: int(k)]]
                entry = {}
                for t in [ids[position], *order]:
                    rank = int((row > row[t]).sum()) + 1
                    entry[str(t)] = {"logprob": float(row[t]), "rank": rank, "decoded_token": lm.token_str(t)}
                entries.append(entry)
            choice["prompt_logprobs"] = entries
        choices.append(choice)
    n_prompt = sum(len(p) for p in prompts)
    return {
        "id": "cmpl-mock",
        "object": "text_completion",
        "created": 0,
        "model": body.get("model", "mock"),
        "choices": choices,
        "usage": {"prompt_tokens": n_prompt, "completion_tokens": max_tokens * len(prompts)},
    }


_SCORING: dict[str, Callable[[MockOpenAIServer, dict[str, Any]], dict[str, Any]]] = {
    "/detokenize": _detokenize,
    "/tokenize": _tokenize,
    "/completions": _completions,
}
_ROUTES = ("/chat/completions", *_SCORING)
"""Matched by suffix, in this order (``/chat/completions`` before ``/completions``,
``/detokenize`` before ``/tokenize``)."""


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # the listen backlog: many clients connect at once
    block_on_close = False  # held (timeout) requests do not delay stop()
    daemon_threads = True
