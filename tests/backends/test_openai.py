"""Tests of the ``openai`` backend against an ``httpx.MockTransport``."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from toolprism.backends._openai import OpenAIBackend
from toolprism.errors import BackendError, ConfigError

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "description": "Turn a light on or off.",
            "parameters": {
                "type": "object",
                "properties": {"room": {"type": "string"}, "power": {"type": "string"}},
                "required": ["room", "power"],
            },
        },
    }
]
MESSAGES = [
    {"role": "system", "content": "You control a smart home."},
    {"role": "user", "content": "Turn on the kitchen light."},
]


class Ctx:
    """The only part of EpisodeContext a real backend may read."""

    def __init__(self, seed: int) -> None:
        self.seed = seed


def reply(message, usage=None):
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if usage is not None:
        body["usage"] = usage
    return httpx.Response(200, json=body)


CALL_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_abc",
            "type": "function",
            "function": {"name": "set_light", "arguments": '{"room": "kitchen", "power": "on"}'},
        },
        {
            "id": "call_def",
            "type": "function",
            "function": {"name": "set_light", "arguments": '{"room": "hall"'},  # malformed
        },
    ],
}


def make(handler, **kw):
    kw.setdefault("base_url", "https://example.test/v1")
    return OpenAIBackend("gpt-test", transport=httpx.MockTransport(handler), backoff_s=0, **kw)


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("TOOLPRISM_BASE_URL", raising=False)


def test_request_body_and_tool_call_parsing():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return reply(CALL_MESSAGE, {"prompt_tokens": 42, "completion_tokens": 7})

    backend = make(handler)
    turn = asyncio.run(backend.agent(Ctx(seed=11)).respond(MESSAGES, TOOLS))

    assert len(seen) == 1
    request = seen[0]
    assert request.method == "POST"
    assert str(request.url) == "https://example.test/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = json.loads(request.content)
    assert body["model"] == "gpt-test"
    assert body["messages"] == MESSAGES
    assert body["tools"] == TOOLS
    assert body["tool_choice"] == "auto"
    assert body["seed"] == 11
    assert body["temperature"] == 0
    assert body["max_tokens"] == 1024

    assert turn.content is None
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        ("call_abc", "set_light", '{"room": "kitchen", "power": "on"}'),
        ("call_def", "set_light", '{"room": "hall"'),  # passed on unparsed
    ]
    assert json.loads(turn.raw) == CALL_MESSAGE
    assert turn.raw == json.dumps(CALL_MESSAGE, sort_keys=True)
    assert (turn.prompt_tokens, turn.completion_tokens) == (42, 7)
    assert turn.error is None


def test_content_answer_without_calls():
    backend = make(lambda r: reply({"role": "assistant", "content": "Done, the light is on."}))
    turn = asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert turn.content == "Done, the light is on."
    assert turn.calls == ()
    assert turn.prompt_tokens is None and turn.completion_tokens is None


def test_fixed_seed_overrides_episode_seed():
    bodies = []

    def handler(request):
        bodies.append(json.loads(request.content))
        return reply({"role": "assistant", "content": "ok"})

    asyncio.run(make(handler, seed=5).agent(Ctx(seed=99)).respond(MESSAGES, TOOLS))
    assert bodies[0]["seed"] == 5


def test_retries_a_500_then_succeeds():
    statuses = iter([500, 429, 200])
    calls = []

    def handler(request):
        calls.append(1)
        status = next(statuses)
        if status != 200:
            return httpx.Response(status, text="try later")
        return reply(CALL_MESSAGE)

    turn = asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(calls) == 3
    assert turn.calls[0].name == "set_light"


def test_retries_connect_errors():
    calls = []

    def handler(request):
        calls.append(1)
        if len(calls) < 3:
            raise httpx.ConnectError("refused", request=request)
        return reply({"role": "assistant", "content": "ok"})

    turn = asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert turn.content == "ok" and len(calls) == 3


def test_backend_error_after_persistent_failure():
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(503, text="overloaded")

    with pytest.raises(BackendError, match="5 attempts"):
        asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(calls) == 5


def test_client_error_is_not_retried():
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(400, json={"error": {"message": "bad tools"}})

    with pytest.raises(BackendError, match="HTTP 400"):
        asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(calls) == 1


def test_malformed_response_is_backend_error():
    backend = make(lambda r: httpx.Response(200, json={"choices": []}))
    with pytest.raises(BackendError, match="malformed"):
        asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))


def test_missing_key_is_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIBackend("gpt-test")
    monkeypatch.setenv("MY_KEY", "k")
    OpenAIBackend("gpt-test", api_key_env="MY_KEY")  # another variable works


def test_missing_key_allowed_for_localhost(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    seen = []

    def handler(request):
        seen.append(request)
        return reply({"role": "assistant", "content": "hi"})

    backend = OpenAIBackend("local", base_url="http://localhost:8080/v1", transport=httpx.MockTransport(handler))
    asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, []))
    assert "authorization" not in seen[0].headers
    body = json.loads(seen[0].content)
    assert "tools" not in body and "tool_choice" not in body


def test_base_url_from_env_and_settings(monkeypatch):
    monkeypatch.setenv("TOOLPRISM_BASE_URL", "https://proxy.test/v1/")
    backend = OpenAIBackend("m", max_tokens=64)
    assert backend.settings() == {
        "backend": "openai",
        "model": "m",
        "base_url": "https://proxy.test/v1",
        "temperature": 0.0,
        "max_tokens": 64,
        "seed": None,
        "constraint": "none",
    }
    assert "sk-test" not in json.dumps(backend.settings())
