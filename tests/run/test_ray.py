"""``--executor ray``: the same episodes and scores as a local run, a lost worker or a failing
backend loses no other episode, resume works, and a missing Ray is a ConfigError with the hint.

The Ray tests (marker ``ray``) start one local Ray instance with 2 CPUs for the module and shut it
down at the end; they skip when Ray is not installed.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from typer.testing import CliRunner

from toolprism.backends import EpisodeContext, OracleBackend
from toolprism.cli import app
from toolprism.errors import BackendError, ConfigError
from toolprism.evaluation import RunConfig, evaluate
from toolprism.run import EpisodeEnd, RayRunner, RunStore

RECORDS_BACKEND_ERRORS = "backend_error" in get_args(EpisodeEnd)
"""Whether the episode loop records a backend failure as an episode (end ``backend_error``) or raises it."""

CONFIG = {"model": "oracle", "domains": ["smart_home"], "tasks": 2, "variants": ["native", "merge", "split"]}
"""6 oracle episodes: quick, and every one a success."""


@pytest.fixture(scope="module")
def ray_cluster() -> Any:
    """A local Ray instance with 2 CPUs for this module, shut down at the end."""
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray instance is already running in this process")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the test backends below, by value
    yield ray
    ray.shutdown()


def _rows(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Per episode: its result row and its trace, timings left out (they differ between any two runs)."""
    store = RunStore.open(run_dir)
    try:
        traces = {r.episode_id: store.trace(r.episode_id) for r in store.results()}
        rows = {}
        for result in store.results():
            row = result.model_dump(exclude={"duration_ms"})
            trace = json.loads(traces[result.episode_id].model_dump_json())
            trace.pop("duration_ms")
            for turn in trace["turns"]:
                turn.pop("latency_ms")
            rows[result.episode_id] = {"result": row, "trace": trace}
        return rows
    finally:
        store.close()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    run_dir = tmp_path_factory.mktemp("local") / "run"
    evaluate(RunConfig(**CONFIG), run_dir=run_dir)
    return _rows(run_dir)


class _Failing(OracleBackend):
    """The oracle, except on the episodes of task ``task_id``: ``how`` is ``crash`` (the worker
    process exits) or ``error`` (a BackendError)."""

    def __init__(self, task_id: str, how: str) -> None:
        super().__init__()
        self.task_id, self.how = task_id, how

    def agent(self, context: EpisodeContext) -> Any:
        return _Down(self.how) if context.task.id == self.task_id else super().agent(context)


class _Down:
    """An agent whose first turn fails as :class:`_Failing` says."""

    def __init__(self, how: str) -> None:
        self.how = how

    async def respond(self, messages: Any, tools: Any) -> Any:
        if self.how == "crash":
            os._exit(1)  # a worker lost mid-episode (only ever run on a Ray worker here)
        raise BackendError("endpoint down (test)")


def _first_task(local_run: dict[str, dict[str, Any]]) -> str:
    return next(iter(local_run.values()))["result"]["task_id"]


@pytest.mark.ray
def test_ray_run_records_the_episodes_and_scores_of_a_local_run(ray_cluster, local_run, tmp_path: Path) -> None:
    summary = evaluate(RunConfig(**CONFIG, executor="ray", concurrency=2), run_dir=tmp_path / "ray")
    assert summary.episodes == len(local_run) == 6
    assert _rows(tmp_path / "ray") == local_run  # same rows, same traces (timings aside)
    header = RunStore.open(tmp_path / "ray")
    try:  # how the episodes ran is not what the run evaluated: not in the header
        assert "executor" not in header.header.config.model_dump(exclude_unset=True)
    finally:
        header.close()


@pytest.mark.ray
@pytest.mark.parametrize("how", ["crash", "error"])
def test_a_failing_episode_loses_no_other_and_resume_completes_the_run(
    ray_cluster, local_run, tmp_path: Path, how: str
) -> None:
    task_id = _first_task(local_run)
    failing = {e for e, row in local_run.items() if row["result"]["task_id"] == task_id}
    run_dir = tmp_path / "run"
    config = RunConfig(**CONFIG, executor="ray", concurrency=2)
    if RECORDS_BACKEND_ERRORS:
        evaluate(config, run_dir=run_dir, backend=_Failing(task_id, how))
        store = RunStore.open(run_dir)
        try:
            ends = {r.episode_id: r.end for r in store.results()}
            assert set(ends) == set(local_run)  # every episode recorded, the others complete
            assert {e for e, end in ends.items() if end == "backend_error"} == failing
            cause = "Ray worker lost" if how == "crash" else "endpoint down"
            assert all(cause in store.trace(e).error for e in failing)
        finally:
            store.close()
    else:  # the episode loop raises backend failures: the run stops, what finished stays recorded
        with pytest.raises(BackendError, match="Ray worker lost" if how == "crash" else "endpoint down"):
            evaluate(config, run_dir=run_dir, backend=_Failing(task_id, how))
        store = RunStore.open(run_dir)
        try:
            assert store.finished() <= set(local_run) - failing
        finally:
            store.close()
    evaluate(RunConfig(executor="ray"), resume=run_dir)  # the oracle, rebuilt on the workers from the header
    assert _rows(run_dir) == {e: local_run[e] for e in _rows(run_dir)}
    assert set(_rows(run_dir)) == set(local_run)


def test_missing_ray_is_a_config_error_with_the_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[ray\]"'):
        evaluate(RunConfig(**CONFIG, executor="ray"), run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()  # refused before the run directory is made
    result = CliRunner().invoke(
        app, ["run", "--model", "oracle", "--executor", "ray", "--run-dir", str(tmp_path / "cli")]
    )
    assert result.exit_code == 2
    assert 'pip install -e ".[ray]"' in result.output
    assert "Traceback" not in result.output


def test_an_unreachable_cluster_is_a_config_error_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as if this process had no Ray yet
    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConfigError, match=f"cannot reach the Ray cluster at 'ray://127.0.0.1:{port}'"):
        RayRunner(RunConfig(**CONFIG), address=f"ray://127.0.0.1:{port}")


def test_starting_ray_keeps_the_callers_sigterm_handler() -> None:
    """ray.init replaces SIGTERM's handler with a bare sys.exit (a traceback, no resume hint)."""
    import signal

    from toolprism.run._ray import _keeping_sigterm

    def ours(signum: int, frame: object) -> None: ...

    previous = signal.signal(signal.SIGTERM, ours)
    try:
        _keeping_sigterm(lambda: signal.signal(signal.SIGTERM, lambda s, f: sys.exit(s)))  # as ray.init does
        assert signal.getsignal(signal.SIGTERM) is ours
    finally:
        signal.signal(signal.SIGTERM, previous)
