"""OpenAI chat-completions wire format for the schema proxy: error bodies, the response the harness
gets, server-sent events, and the JSON Lines log of both sides.

Streaming: the proxy asks the upstream model without streaming (it must see a whole turn to decode
it, and may ask again for protocol-only calls), then streams the final result to a client that sent
``stream: true`` in the OpenAI chunk format: one chunk with the role and the text, one chunk per
tool call (``index``, ``id``, ``type``, the whole ``function``), one chunk with the
``finish_reason``, a ``usage`` chunk when ``stream_options.include_usage`` is set, then
``data: [DONE]``.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from toolprism.interop._proxy_state import Message

LOG_FILE = "proxy.jsonl"
"""The log's file name under ``--log-dir``."""

LOG_VERSION = 1
"""Version of :class:`ExchangeRecord`."""


def error_body(message: str, *, kind: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def completion(upstream: dict[str, Any], message: Message, finish_reason: str, usage: dict[str, int]) -> dict[str, Any]:
    """The ``chat.completion`` the harness gets: the upstream's envelope (id, created, model,
    system fingerprint) around the proxy's single choice and the usage summed over its upstream calls."""
    out = {k: upstream[k] for k in ("id", "created", "model", "system_fingerprint") if k in upstream}
    out.setdefault("id", f"chatcmpl-proxy-{int(time.time() * 1000)}")
    out.setdefault("created", int(time.time()))
    out["object"] = "chat.completion"
    out["choices"] = [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}]
    out["usage"] = usage
    return out


def add_usage(total: dict[str, int], body: dict[str, Any]) -> None:
    """Add a response's ``usage`` token counts into ``total`` (counts that are not whole numbers skipped)."""
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value


def sse_events(body: dict[str, Any], include_usage: bool) -> list[str]:
    """A ``chat.completion`` as server-sent events in the OpenAI chunk format (module docstring)."""
    choice = body["choices"][0]
    message = choice["message"]
    head = {k: body[k] for k in ("id", "created", "model", "system_fingerprint") if k in body}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        document = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(document, ensure_ascii=False)}\n\n"

    events = [chunk({"role": "assistant", "content": message.get("content") or ""})]
    for index, call in enumerate(message.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": index, **call}]}))
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        events.append(f"data: {json.dumps({**head, 'choices': [], 'usage': body.get('usage')})}\n\n")
    events.append("data: [DONE]\n\n")
    return events


class UpstreamCall(BaseModel):
    """One request the proxy sent upstream and what came back.

    Attributes:
        request: the body sent (variant tools, variant-level messages).
        status: the HTTP status, or None when no response came.
        response: the body received (JSON, or the text when it is not JSON), or None.
        latency_ms: wall time of the call.
        error: why no usable response came (unreachable, timeout), else None.
    """

    model_config = ConfigDict(extra="forbid")

    request: dict[str, Any]
    status: int | None = None
    response: Any = None
    latency_ms: float = 0.0
    error: str | None = None


class ExchangeRecord(BaseModel):
    """One line of ``proxy.jsonl``: a harness request, the upstream calls it took, the answer.

    Attributes:
        version: :data:`LOG_VERSION`.
        time: when the harness request arrived (ISO 8601, UTC).
        path: the route (``/v1/chat/completions``, ``/v1/models``).
        variant / control: the proxy's settings (``variant`` is the canonical spec when the request
            had tools).
        harness_request: the body the harness sent (native tools and history).
        upstream: every upstream call, in order.
        decisions: the adapter's decision for every model call (``call``, ``outcome``, ``action``,
            ``reply``, ``rejection``, ``layer``), in order.
        injections: the tool-output perturbations applied to the history sent upstream.
        status / harness_response: what the harness got (for a stream, the completion it was built from).
    """

    model_config = ConfigDict(extra="forbid")

    version: int = LOG_VERSION
    time: str
    path: str
    variant: str
    control: str
    harness_request: Any = None
    upstream: list[UpstreamCall] = Field(default_factory=list)
    decisions: list[dict[str, Any]] = Field(default_factory=list)
    injections: list[dict[str, Any]] = Field(default_factory=list)
    status: int = 200
    harness_response: Any = None


class ExchangeLog:
    """Appends :class:`ExchangeRecord` lines to ``DIR/proxy.jsonl`` (one flushed line per exchange)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / LOG_FILE
        self._lock = threading.Lock()

    def write(self, record: ExchangeRecord) -> None:
        """Append ``record`` as one JSON line (thread-safe; the file is opened per write)."""
        line = record.model_dump_json() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
