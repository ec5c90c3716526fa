"""The ``openai`` backend against :class:`toolprism.testing.MockOpenAIServer`, a real HTTP server
on 127.0.0.1 injecting faults; and the mock itself."""

from __future__ import annotations

import asyncio
import json
import time
import typing
from collections import Counter

import httpx
import pytest

from toolprism.backends._openai import OpenAIBackend
from toolprism.errors import BackendError
from toolprism.evaluation import RunConfig, evaluate
from toolprism.run import RunStore
from toolprism.testing import FAULTS, INVALID_ARGUMENTS, TRANSPORT_FAULTS, MockOpenAIServer, example_value

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "parameters": {
                "type": "object",
                "properties": {"room": {"type": "string", "enum": ["kitchen", "hall"]}, "level": {"type": "integer"}},
                "required": ["room", "level"],
            },
        },
    }
]
MESSAGES = [{"role": "user", "content": "Light the kitchen."}]


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


def body(n: int = 0) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": f"request {n}"}], "tools": TOOLS}


# --- the mock -----------------------------------------------------------------------------------


def test_scripted_episode_shape():
    with MockOpenAIServer() as mock:
        first = httpx.post(f"{mock.base_url}/chat/completions", json=body()).json()["choices"][0]["message"]
        call = first["tool_calls"][0]["function"]
        assert call["name"] == "set_light" and json.loads(call["arguments"]) == {"room": "kitchen", "level": 1}
        follow = body()
        follow["messages"] += [first, {"role": "tool", "tool_call_id": "c", "content": "{}"}]
        second = httpx.post(f"{mock.base_url}/chat/completions", json=follow).json()["choices"][0]["message"]
        assert second == {"role": "assistant", "content": "Done."}
        assert httpx.get(f"{mock.base_url}/models").json()["data"][0]["id"] == "mock"
        assert httpx.post(f"{mock.base_url}/chat/completions", content=b"{not json").status_code == 400


def test_stats_count_requests_and_time_the_first_and_the_latest():
    with MockOpenAIServer() as mock:
        assert httpx.get(f"{mock.base_url}/stats").json()["first_at"] is None
        before = time.time()
        for n in range(3):
            httpx.post(f"{mock.base_url}/chat/completions", json=body(n))
        stats = httpx.get(f"{mock.base_url}/stats").json()
        assert stats["served"] == 3 and before <= stats["first_at"] < stats["last_at"] <= time.time()
        httpx.delete(f"{mock.base_url}/stats")
        stats = httpx.get(f"{mock.base_url}/stats").json()
        assert stats["served"] == 0 and stats["first_at"] is None and stats["last_at"] is None


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_each_fault_kind(kind):
    with MockOpenAIServer(fault_rate=1.0, fault_mix={kind: 1.0}, retry_after="3", hang_s=0.5) as mock:
        url = f"{mock.base_url}/chat/completions"
        if kind == "timeout":
            with pytest.raises(httpx.ReadTimeout):
                httpx.post(url, json=body(), timeout=0.1)
            return
        response = httpx.post(url, json=body())
    if kind in ("429", "500", "503"):
        assert response.status_code == int(kind)
        assert (response.headers.get("retry-after") == "3") == (kind == "429")
    elif kind == "truncated":
        assert response.status_code == 200
        with pytest.raises(ValueError):
            json.loads(response.text)
    else:
        arguments = response.json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        assert arguments == INVALID_ARGUMENTS and mock.invalid_sent == 1


def test_fault_choice_is_deterministic_and_near_the_rate():
    mix = {"429": 2.0, "500": 1.0, "truncated": 1.0}
    a = MockOpenAIServer(fault_rate=0.2, fault_mix=mix, seed=3)
    b = MockOpenAIServer(fault_rate=0.2, fault_mix=mix, seed=3)
    keys = [f"k{i}" for i in range(4000)]
    faults = [a.fault_for(k, 0) for k in keys]
    assert faults == [b.fault_for(k, 0) for k in keys]
    assert faults != [MockOpenAIServer(fault_rate=0.2, fault_mix=mix, seed=4).fault_for(k, 0) for k in keys]
    counts = Counter(f for f in faults if f)
    assert 0.17 < sum(counts.values()) / len(keys) < 0.23
    assert set(counts) == set(mix) and counts["429"] > counts["500"]
    with pytest.raises(ValueError):
        MockOpenAIServer(fault_rate=0.2, fault_mix={"teapot": 1.0})
    with pytest.raises(ValueError):
        MockOpenAIServer(fault_rate=1.5)


def test_example_value():
    assert example_value({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a", 3]}) == {
        "a": 1.0
    }
    assert example_value({"type": ["null", "boolean"]}) is True
    assert example_value({"anyOf": [{"const": 4}]}) == 4
    assert example_value({"type": "array", "items": {"type": "string"}, "minItems": 2}) == ["x", "x"]
    assert example_value("nonsense") == "x"


# --- the backend against the mock ---------------------------------------------------------------


def test_one_connection_reused_across_requests():
    with MockOpenAIServer() as mock:
        backend = OpenAIBackend("m", base_url=mock.base_url)

        async def session():
            agent = backend.agent(Ctx(seed=0))
            for _ in range(20):
                await agent.respond(MESSAGES, TOOLS)
            await backend.aclose()

        asyncio.run(session())
        assert len(mock.served) == 20
        assert mock.connections == 1  # one connection, kept alive: not one per request


def test_pool_bounds_connections_and_requests_in_flight():
    with MockOpenAIServer(latency_s=0.05) as mock:
        backend = OpenAIBackend("m", base_url=mock.base_url, max_connections=12)  # 2 clients of 6

        async def burst():
            await asyncio.gather(*(backend.agent(Ctx(seed=i)).respond(MESSAGES, TOOLS) for i in range(48)))
            await backend.aclose()

        asyncio.run(burst())
        assert len(mock.served) == 48
        assert mock.max_in_flight <= 12 and mock.connections <= 12
        assert mock.max_in_flight >= 2  # the requests did overlap


def test_backend_survives_every_transport_fault():
    # every first attempt of every request fails (one kind each), the second is answered; the
    # timeout leaves a loaded machine time to connect (0.1 s failed a retry's connect under a full
    # test run on 2 cores), the hang outlasts it
    mix = dict.fromkeys(TRANSPORT_FAULTS, 1.0)
    with MockOpenAIServer(fault_rate=1.0, fault_mix=mix, hang_s=2.0) as mock:
        mock.fault_for = lambda key, attempt: None if attempt else sorted(mix)[int(key, 16) % len(mix)]
        backend = OpenAIBackend("m", base_url=mock.base_url, timeout_s=1.0, backoff_s=0, max_attempts=2)

        async def many():
            turns = await asyncio.gather(*(backend.agent(Ctx(seed=i)).respond(MESSAGES, TOOLS) for i in range(30)))
            await backend.aclose()
            return turns

        turns = asyncio.run(many())
        assert all(t.calls and t.calls[0].name == "set_light" for t in turns)
        assert set(mock.faults()) == set(TRANSPORT_FAULTS)  # each kind was met and survived
        assert len(mock.served) == 60


def test_backend_error_when_the_fault_persists():
    with MockOpenAIServer(fault_rate=1.0, fault_mix={"503": 1.0}) as mock:
        backend = OpenAIBackend("m", base_url=mock.base_url, backoff_s=0, max_attempts=3)
        with pytest.raises(BackendError, match="3 attempts.*503"):
            asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
        assert len(mock.served) == 3


def test_evaluate_pools_connections_and_the_cache_replays_a_run(tmp_path):
    with MockOpenAIServer() as mock:
        config = RunConfig(
            model="openai:mock",
            base_url=mock.base_url,
            domains=["smart_home"],
            tasks=2,
            variants=["native"],
            concurrency=2,
            cache=True,
            cache_dir=str(tmp_path / "cache"),
        )
        first = evaluate(config, run_dir=tmp_path / "one")
        served = len(mock.served)
        assert served >= 4 and mock.connections <= 2
        second = evaluate(config, run_dir=tmp_path / "two")
        assert len(mock.served) == served  # every request answered from the cache
        assert first.model_dump(exclude={"run_dir", "wall_s"}) == second.model_dump(exclude={"run_dir", "wall_s"})


# --- 500 episodes at a 20% fault rate ------------------------------------------------------------


def _records_backend_errors() -> bool:
    from toolprism.run._trace import EpisodeEnd

    return "backend_error" in typing.get_args(EpisodeEnd)


def _fault_run(tmp_path, max_attempts: int):
    """500 episodes (smart_home, 100 tasks x 5 variants) through ``evaluate`` and the openai
    backend against the mock at a 20% fault rate; returns the mock and the stored results.

    The client's timeout (5 s) is far above a normal answer's time even on a loaded machine, so
    that only the mock's ``timeout`` faults (held 5.5 s) time out and the mock's log tells which
    requests failed every attempt."""
    mock = MockOpenAIServer(fault_rate=0.2, retry_after="0", hang_s=5.5, seed=7)
    with mock:
        backend = OpenAIBackend(
            "mock", base_url=mock.base_url, timeout_s=5.0, backoff_s=0.001, max_attempts=max_attempts
        )
        config = RunConfig(
            model="openai:mock", base_url=mock.base_url, domains=["smart_home"], tasks=100, concurrency=32
        )
        evaluate(config, run_dir=tmp_path / "run", backend=backend)
        assert backend._clients == []  # evaluate closed them (aclose) in the run's event loop
    store = RunStore.open(tmp_path / "run")
    try:
        results = store.results()
        invalid = {
            r.episode_id
            for r in results
            if any(c.raw_arguments == INVALID_ARGUMENTS for t in store.trace(r.episode_id).turns for c in t.calls)
        }
        rejected_invalid = {
            r.episode_id
            for r in results
            if any(
                c.raw_arguments == INVALID_ARGUMENTS and c.outcome == "rejected" and c.rejection == "malformed_call"
                for t in store.trace(r.episode_id).turns
                for c in t.calls
            )
        }
    finally:
        store.close()
    return mock, results, invalid, rejected_invalid


def _exhausted(mock: MockOpenAIServer, max_attempts: int) -> int:
    """Requests whose every attempt got a transport fault (each ends its episode)."""
    by_key: dict[str, list] = {}
    for s in mock.served:
        by_key.setdefault(s.key, []).append(s.fault)
    return sum(len(faults) >= max_attempts and all(f in TRANSPORT_FAULTS for f in faults) for faults in by_key.values())


def test_500_episodes_at_20_percent_faults_all_recorded(tmp_path):
    """Retries absorb every transport fault (6 attempts; the mock's choice is deterministic and
    the run checks that no request failed 6 times); invalid tool-call arguments are the model's
    failure: a recorded rejection, and the episode goes on."""
    mock, results, invalid, rejected_invalid = _fault_run(tmp_path, max_attempts=6)
    assert _exhausted(mock, 6) == 0
    assert len(results) == 500 and len({r.episode_id for r in results}) == 500
    faults = mock.faults()
    assert 0.15 < sum(faults.values()) / len(mock.served) < 0.25
    assert set(faults) == set(FAULTS)
    assert len(invalid) == mock.invalid_sent > 0  # every invalid answer reached its episode's trace ...
    assert rejected_invalid == invalid  # ... as a rejected, malformed call (a model failure)
    assert all(r.rejected_calls >= 1 for r in results if r.episode_id in invalid)
    assert {r.end for r in results} <= {"answered", "turn_limit"}
    # the window bounds what the client has open; a held ("timeout") request the client gave up on
    # stays counted by the server until it lets go, so each may add one
    assert mock.max_in_flight <= 32 + faults["timeout"]


@pytest.mark.skipif(not _records_backend_errors(), reason="needs run_episode to record backend_error (outcomes)")
def test_500_episodes_with_exhausted_retries_are_backend_errors(tmp_path):
    """With 2 attempts some requests fail every time: each such episode is recorded as
    ``backend_error`` with its cause, the others as before, and the run goes on."""
    mock, results, invalid, rejected_invalid = _fault_run(tmp_path, max_attempts=2)
    exhausted = _exhausted(mock, 2)
    assert exhausted > 0
    assert len(results) == 500 and len({r.episode_id for r in results}) == 500
    errors = [r for r in results if r.end == "backend_error"]
    assert len(errors) == exhausted
    assert all(getattr(r, "error", None) for r in errors)
    assert not any(r.success for r in errors)
    assert rejected_invalid == invalid and len(invalid) <= mock.invalid_sent


def test_cli_cache_dir_replays_a_run_and_is_allowed_with_resume(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from toolprism.cli import app

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    with MockOpenAIServer() as mock:
        base = ["run", "--model", "openai:mock", "--base-url", mock.base_url, "-d", "smart_home", "-n", "1"]
        base += ["-v", "native", "--cache-dir", str(tmp_path / "c"), "--json"]
        first = runner.invoke(app, [*base, "--run-dir", "one"])
        assert first.exit_code == 0, first.output
        served = len(mock.served)
        assert served > 0 and list((tmp_path / "c").rglob("*.json"))
        second = runner.invoke(app, [*base, "--run-dir", "two"])
        assert second.exit_code == 0, second.output
        assert len(mock.served) == served
        resumed = runner.invoke(app, ["run", "--resume", "two", "--cache"])
        assert resumed.exit_code == 0, resumed.output
