"""Tests of the ``openai`` backend against an ``httpx.MockTransport``."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from toolprism.backends._openai import OpenAIBackend
from toolprism.errors import BackendError, ConfigError, ContextOverflow

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
        "constrain": "none",
        "constraint": "none",
    }
    assert "sk-test" not in json.dumps(backend.settings())


# --- retry policy -------------------------------------------------------------------------------


def recording(backend):
    """Make ``backend`` record its retry waits instead of sleeping."""
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    backend._sleep = sleep
    return waits


def sequence(*answers):
    """A handler answering ``answers`` in order (an exception instance is raised)."""
    answers = iter(answers)
    calls = []

    def handler(request):
        calls.append(request)
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return handler, calls


OK = reply({"role": "assistant", "content": "ok"})


def test_retry_after_seconds_is_honoured_and_capped():
    handler, calls = sequence(
        httpx.Response(429, headers={"Retry-After": "7"}, text="slow down"),
        httpx.Response(503, headers={"Retry-After": "600"}, text="busy"),
        OK,
    )
    backend = make(handler, max_backoff_s=60)
    waits = recording(backend)
    turn = asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert turn.content == "ok" and len(calls) == 3
    assert waits == [7.0, 60.0]


def test_retry_after_http_date():
    from email.utils import formatdate

    from toolprism.backends._openai import retry_after_s

    assert retry_after_s(formatdate(1_000_030, usegmt=True), now=1_000_000) == pytest.approx(30)
    assert retry_after_s(formatdate(999_000, usegmt=True), now=1_000_000) == 0  # in the past
    assert retry_after_s("0.25") == 0.25
    assert retry_after_s("soon") is None and retry_after_s(None) is None and retry_after_s("-3") == 0


def test_backoff_is_exponential_with_jitter_and_bounded():
    handler, calls = sequence(*[httpx.Response(500, text="boom")] * 5)
    backend = OpenAIBackend(
        "gpt-test",
        base_url="https://example.test/v1",
        transport=httpx.MockTransport(handler),
        backoff_s=1.0,
        max_backoff_s=5.0,
    )
    waits = recording(backend)
    with pytest.raises(BackendError, match="5 attempts"):
        asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(waits) == 4
    for n, wait in enumerate(waits):  # 1, 2, 4, 8 seconds plus up to 1 s of jitter, capped at 5
        assert min(2**n, 5) <= wait <= min(2**n + 1, 5)


@pytest.mark.parametrize(
    "failure",
    [
        httpx.ReadTimeout("slow"),
        httpx.ConnectTimeout("slow"),
        httpx.RemoteProtocolError("peer closed"),
        httpx.Response(200, text='{"choices": [{"message": {"role": "assis'),  # truncated
        httpx.Response(200, text="<html>bad gateway</html>"),  # not JSON
        httpx.Response(502, text="bad gateway"),
    ],
    ids=["read-timeout", "connect-timeout", "disconnect", "truncated", "html", "502"],
)
def test_transient_failures_are_retried(failure):
    handler, calls = sequence(failure, OK)
    turn = asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert turn.content == "ok" and len(calls) == 2


@pytest.mark.parametrize("status", [401, 403, 404, 422])
def test_other_client_errors_fail_at_once(status):
    handler, calls = sequence(httpx.Response(status, json={"error": {"message": "no"}}), OK)
    with pytest.raises(BackendError, match=f"HTTP {status}") as info:
        asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert not isinstance(info.value, ContextOverflow)
    assert len(calls) == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"error": {"message": "This model\'s maximum context length is 4096 tokens. However, you requested 5000 '
        'tokens", "code": "context_length_exceeded"}}',  # OpenAI / vLLM
        '{"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", '
        '"type": "exceed_context_size_error"}}',  # llama.cpp server
        "prompt is too long: 210000 tokens > 200000 maximum",
    ],
    ids=["openai-vllm", "llama.cpp", "prompt-too-long"],
)
def test_context_overflow_400(text):
    handler, calls = sequence(httpx.Response(400, text=text), OK)
    with pytest.raises(ContextOverflow, match="does not fit"):
        asyncio.run(make(handler).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(calls) == 1  # not retried
    assert issubclass(ContextOverflow, BackendError)


def test_backend_error_after_persistent_truncation():
    handler, calls = sequence(*[httpx.Response(200, text='{"choices": [')] * 3)
    with pytest.raises(BackendError, match="3 attempts.*not JSON"):
        asyncio.run(make(handler, max_attempts=3).agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(calls) == 3


def test_bad_retry_settings_are_config_errors():
    with pytest.raises(ConfigError) as info:
        OpenAIBackend("m", base_url="http://localhost/v1", max_connections=0, timeout_s=0, backoff_s=-1)
    assert len(info.value.problems) == 3


# --- one client per backend ---------------------------------------------------------------------


def test_one_client_per_event_loop_closed_by_aclose():
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.05)  # keeps requests in flight together
        return reply({"role": "assistant", "content": "ok"})

    backend = make(slow, max_connections=20)
    assert backend._clients == []  # nothing made outside an event loop

    async def session():
        agent = backend.agent(Ctx(seed=0))
        await agent.respond(MESSAGES, TOOLS)
        first = list(backend._clients)
        assert len(first) == 1  # one request needs one client: more are made only when it is full
        await asyncio.gather(*(agent.respond(MESSAGES, TOOLS) for _ in range(5)))
        assert backend._clients == first  # 5 in flight fit the first client (7 connections)
        await asyncio.gather(*(agent.respond(MESSAGES, TOOLS) for _ in range(20)))
        made = list(backend._clients)
        assert made[0] is first[0] and len(made) == 3  # 20 connections: 3 clients of at most 7
        assert not any(c.is_closed for c in made) and backend._busy == [0, 0, 0]
        await asyncio.gather(*(agent.respond(MESSAGES, TOOLS) for _ in range(40)))
        assert backend._clients == made  # never more than the pool's clients
        await backend.aclose()
        assert all(c.is_closed for c in made) and backend._clients == []
        return made

    first = asyncio.run(session())
    second = asyncio.run(session())  # a new loop (a second run) gets new clients
    assert not set(map(id, second)) & set(map(id, first))


def test_an_unwritable_cache_directory_is_a_config_error(tmp_path):
    from toolprism.backends._cache import ResponseCache

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ConfigError, match="cannot be written"):
        ResponseCache(blocker)
    with pytest.raises(ConfigError, match="cannot be written"):
        ResponseCache(blocker / "below")


def test_usage_counts_that_are_not_whole_numbers_are_unknown():
    for usage, expected in (
        ({"prompt_tokens": 12.5, "completion_tokens": "a lot"}, (None, None)),
        ({"prompt_tokens": -5, "completion_tokens": True}, (None, None)),
        ({"prompt_tokens": 12, "completion_tokens": 3}, (12, 3)),
        ("usage", (None, None)),
    ):
        backend = make(lambda r, u=usage: reply({"role": "assistant", "content": "ok"}, usage=u))
        turn = asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
        assert (turn.prompt_tokens, turn.completion_tokens) == expected


def test_create_backend_sizes_the_pool_to_the_concurrency():
    from toolprism.backends import create_backend

    assert create_backend("openai:m", base_url="http://localhost:1/v1", concurrency=12).max_connections == 12
    assert create_backend("openai:m", base_url="http://localhost:1/v1", concurrency=0).max_connections == 1


# --- response cache -----------------------------------------------------------------------------


def test_cache_answers_repeated_temperature_zero_requests(tmp_path):
    from toolprism.backends._cache import ResponseCache

    handler, calls = sequence(reply(CALL_MESSAGE), reply(CALL_MESSAGE), OK, OK)
    cache = ResponseCache(tmp_path)
    backend = make(handler, cache=cache)
    first = asyncio.run(backend.agent(Ctx(seed=1)).respond(MESSAGES, TOOLS))
    again = asyncio.run(backend.agent(Ctx(seed=1)).respond(MESSAGES, TOOLS))
    assert len(calls) == 1 and again == first
    assert (cache.hits, cache.misses) == (1, 1)
    asyncio.run(backend.agent(Ctx(seed=2)).respond(MESSAGES, TOOLS))  # another seed: another request
    assert len(calls) == 2
    fresh = make(handler, cache=ResponseCache(tmp_path))  # a later run reads what this one kept
    assert asyncio.run(fresh.agent(Ctx(seed=1)).respond(MESSAGES, TOOLS)) == first
    assert len(calls) == 2


def test_cache_skips_sampling_and_malformed_answers(tmp_path):
    from toolprism.backends._cache import ResponseCache

    handler, calls = sequence(OK, OK, httpx.Response(200, json={"choices": []}), OK)
    sampled = make(handler, cache=ResponseCache(tmp_path), temperature=0.7)
    for _ in range(2):
        asyncio.run(sampled.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert len(calls) == 2 and not list(tmp_path.rglob("*.json"))
    greedy = make(handler, cache=ResponseCache(tmp_path))
    with pytest.raises(BackendError, match="malformed"):
        asyncio.run(greedy.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert asyncio.run(greedy.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS)).content == "ok"  # not cached
    assert len(calls) == 4


def test_cache_key_and_damaged_entries(tmp_path):
    from toolprism.backends._cache import ResponseCache

    cache = ResponseCache(tmp_path)
    key = cache.key("u", {"a": 1, "b": [1, 2]})
    assert key == cache.key("u", {"b": [1, 2], "a": 1}) and len(key) == 64
    assert key != cache.key("v", {"a": 1, "b": [1, 2]})
    cache.put(key, {"x": 1})
    assert cache.get(key) == {"x": 1}
    next(tmp_path.rglob(f"{key}.json")).write_text('{"x": ', encoding="utf-8")  # a damaged entry is a miss
    assert cache.get(key) is None
    cache.put(key, {"bad": object()})  # not JSON: nothing kept, nothing left behind
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".tmp-")]


def test_create_backend_cache_options(tmp_path):
    from toolprism.backends import create_backend

    backend = create_backend("openai:m", base_url="http://localhost:1/v1", cache=True, cache_dir=tmp_path)
    assert backend.cache is not None and backend.cache.directory == tmp_path
    assert create_backend("openai:m", base_url="http://localhost:1/v1").cache is None
