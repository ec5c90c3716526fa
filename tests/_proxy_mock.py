"""A mock OpenAI-compatible model server for the schema-proxy tests: a real HTTP server on
127.0.0.1 (stdlib ``ThreadingHTTPServer`` in a thread) whose answers come from a Python policy.

Import it as ``from _proxy_mock import MockUpstream`` (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Policy = Callable[[dict[str, Any]], tuple[int, Any]]
"""Request body -> (HTTP status, response body: a message dict, any JSON, or raw ``bytes``)."""


class MockUpstream:
    """Serves ``POST /v1/chat/completions`` and ``GET /v1/models``; records every request body.

    A policy returning ``(200, {"role": "assistant", ...})`` is wrapped into a chat completion;
    any other status or body is sent as it is.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: Any) -> None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "mock-model", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "no such route", "type": "not_found"}})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                status, answer = owner.policy(body)
                if status == 200 and isinstance(answer, dict) and answer.get("role") == "assistant":
                    answer = {
                        "id": f"chatcmpl-mock-{len(owner.requests)}",
                        "object": "chat.completion",
                        "created": 1700000000,
                        "model": body.get("model", "mock-model"),
                        "choices": [{"index": 0, "message": answer, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                self._send(status, answer)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The OpenAI base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> MockUpstream:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI tool call."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def assistant(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    """An assistant message with ``calls`` (none: a text answer)."""
    return {"role": "assistant", "content": content, **({"tool_calls": list(calls)} if calls else {})}
