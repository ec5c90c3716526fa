"""The schema proxy on bad input and failing upstreams: OpenAI-style errors with the right status,
never a traceback; bad settings refused before it serves; protocol state kept across requests."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
from _proxy_mock import MockUpstream, assistant, call  # noqa: E402  (tests/_proxy_mock.py)
from starlette.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from toolprism.cli import app as cli_app  # noqa: E402
from toolprism.errors import ConfigError  # noqa: E402
from toolprism.interop import PROXY_LOG_FILE, ProxyConfig, create_proxy_app  # noqa: E402

pytestmark = pytest.mark.proxy

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
                "required": ["city"],
            },
        },
    }
]
ASK = {"model": "m", "messages": [{"role": "user", "content": "weather in Paris?"}], "tools": TOOLS}


def client_for(url: str, variant: str = "merge", **settings: Any) -> TestClient:
    return TestClient(create_proxy_app(ProxyConfig(upstream=url, variant=variant, **settings)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["message"] and "Traceback" not in error["message"]
    if code is not None:
        assert error["code"] == code
    return error


@pytest.mark.parametrize("stream", [False, True])
def test_unreachable_upstream_is_a_502(stream: bool, tmp_path: Path) -> None:
    with client_for(f"http://127.0.0.1:{free_port()}/v1", log_dir=tmp_path) as client:
        error = assert_error(client.post("/v1/chat/completions", json={**ASK, "stream": stream}), 502, "unreachable")
        assert_error(client.get("/v1/models"), 502, "unreachable")
    assert "upstream" in error["message"]
    record = json.loads((tmp_path / PROXY_LOG_FILE).read_text().splitlines()[0])
    assert record["status"] == 502 and record["upstream"][0]["error"].startswith("unreachable")


@pytest.mark.parametrize(
    ("status", "answer", "expected", "code"),
    [
        (500, {"error": {"message": "model crashed", "type": "server_error", "code": "boom"}}, 500, "boom"),
        (429, b"slow down", 429, "upstream_status"),
        (200, b"<html>not json</html>", 502, "upstream_malformed"),
        (200, {"choices": []}, 502, "upstream_malformed"),
        (200, {"choices": [{"message": {"role": "assistant", "tool_calls": "x"}}]}, 502, "upstream_malformed"),
    ],
    ids=["500-openai-error", "429-text", "not-json", "no-choice", "bad-tool-calls"],
)
def test_upstream_failures_keep_their_status(status: int, answer: Any, expected: int, code: str) -> None:
    with MockUpstream(lambda body: (status, answer)) as upstream, client_for(upstream.url) as client:
        assert_error(client.post("/v1/chat/completions", json=ASK), expected, code)


def test_variant_that_does_not_apply_is_a_400() -> None:
    variant = "merge(by=groups,groups=get_weather+book_flight)"
    with MockUpstream(lambda body: (200, assistant(content="x"))) as upstream, client_for(upstream.url, variant) as c:
        error = assert_error(c.post("/v1/chat/completions", json=ASK), 400, "variant_not_applicable")
        bad_tools = {**ASK, "tools": [{"type": "function", "function": {"description": "no name"}}]}
        assert_error(c.post("/v1/chat/completions", json=bad_tools), 400, "variant_not_applicable")
    assert "book_flight" in error["message"]
    assert upstream.requests == []


def test_bad_requests_are_400s() -> None:
    with MockUpstream(lambda body: (200, assistant(content="x"))) as upstream, client_for(upstream.url) as client:
        assert_error(client.post("/v1/chat/completions", content=b"{not json"), 400, "invalid_json")
        assert_error(client.post("/v1/chat/completions", json=[1, 2]), 400, "invalid_body")
        assert_error(client.post("/v1/chat/completions", json={"model": "m"}), 400, "invalid_request")
        assert_error(client.post("/v1/chat/completions", json={**ASK, "tools": "x"}), 400, "invalid_request")
    assert upstream.requests == []


def test_models_and_toolless_requests_pass_through() -> None:
    plain = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}
    with MockUpstream(lambda body: (200, assistant(content="hello"))) as upstream, client_for(upstream.url) as client:
        models = client.get("/v1/models")
        answer = client.post("/v1/chat/completions", json=plain, headers={"Authorization": "Bearer k"})
    assert models.status_code == 200 and models.json()["data"][0]["id"] == "mock-model"
    assert answer.json()["choices"][0]["message"]["content"] == "hello"
    assert upstream.requests == [plain]


def test_protocol_state_and_text_turns_survive_requests(tmp_path: Path) -> None:
    """Under transaction, the model begins, then answers in text; in the next request it sets and
    commits that transaction: the proxy restores the open transaction and shows the model its begin."""

    def model(body: dict[str, Any]) -> tuple[int, Any]:
        messages = body["messages"]
        said = [c["function"]["name"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        if not said:
            return 200, assistant(call("b", "begin_get_weather", {}))
        if messages[-1]["role"] == "tool" and said[-1] == "begin_get_weather":
            return 200, assistant(content="Which city?")
        if messages[-1]["role"] == "user":
            txn = json.loads(next(m["content"] for m in messages if m.get("tool_call_id") == "b"))["txn_id"]
            sets = call("s", "set_get_weather__city", {"txn_id": txn, "city": "Paris"})
            return 200, assistant(sets, call("c", "commit_get_weather", {"txn_id": txn}))
        return 200, assistant(content="Sunny.")

    with MockUpstream(model) as upstream, client_for(upstream.url, "transaction") as client:
        first = client.post("/v1/chat/completions", json=ASK).json()["choices"][0]["message"]
        assert first == {"role": "assistant", "content": "Which city?"}
        history = [*ASK["messages"], first, {"role": "user", "content": "Paris."}]
        second = client.post("/v1/chat/completions", json={**ASK, "messages": history}).json()
    calls = second["choices"][0]["message"]["tool_calls"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    shown = upstream.requests[-1]["messages"]
    assert [m["role"] for m in shown] == ["user", "assistant", "tool", "assistant", "user"]
    assert shown[1]["tool_calls"][0]["function"]["name"] == "begin_get_weather"


def test_bad_settings_are_refused_all_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        ProxyConfig(upstream="localhost:8000", variant="merge(by=nope)", control="hard", perturb=["D2"]).checked()
    text = str(caught.value)
    for part in ("--upstream", "--variant", "--control", "family C"):
        assert part in text
    with pytest.raises(ConfigError, match="C2:light"):
        ProxyConfig(upstream="http://127.0.0.1:1/v1", variant="merge", perturb=["C2:heavy"]).checked()


def test_cli_refuses_bad_settings_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    runner = CliRunner()
    result = runner.invoke(cli_app, ["proxy", "--upstream", "ftp://x", "--variant", "nope(x=1)"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output and "--upstream" in result.output and "unknown operator" in result.output
    helped = runner.invoke(cli_app, ["proxy", "--help"])
    assert helped.exit_code == 0 and "--variant" in helped.output and "--log-dir" in helped.output
