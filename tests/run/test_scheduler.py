"""The scheduler: a lazy bounded window, the runner hook, budgets, the circuit breaker, progress,
stopping on signals, and the kill test (SIGKILL mid-run, resume, same scores as an uninterrupted run)."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from _signals import ctrl_c_enabled  # tests/_signals.py
from rich.console import Console
from typer.testing import CliRunner

from toolprism.backends import EpisodeContext, Message, ModelTurn, OracleBackend, ScriptedBackend
from toolprism.cli import app
from toolprism.cli._common import ProgressReport
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.evaluation import RunConfig, evaluate, score_episode
from toolprism.run import EpisodeSpec, RunHeader, RunLimits, RunStopped, RunStore, Trace, run_episode, run_episodes
from toolprism.shaping import Variant

SMALL = RunConfig(model="oracle", domains=["smart_home"], variants=["native", "merge"], tasks=4)
"""8 episodes."""


def _specs(n: int, pulled: list[EpisodeSpec] | None = None) -> Iterator[EpisodeSpec]:
    """``n`` oracle episodes of smart_home (tasks round-robin, distinct seeds), produced lazily;
    each spec handed out is appended to ``pulled``."""
    domain = get_domain("smart_home")
    variant = Variant.build("native", domain.action_space())
    tasks = domain.tasks(0)[:5]
    for i in range(n):
        spec = EpisodeSpec(domain, tasks[i % len(tasks)], variant, seed=i)
        if pulled is not None:
            pulled.append(spec)
        yield spec


def _store(path: Path) -> RunStore:
    return RunStore.create(path, RunHeader(config={"model": "oracle"}))


def _rows(run_dir: Path) -> list[tuple]:
    """Every stored result row but its timing, sorted by episode id."""
    with sqlite3.connect(run_dir / "results.sqlite") as db:
        columns = [r[1] for r in db.execute("PRAGMA table_info(episodes)") if r[1] != "duration_ms"]
        return sorted(db.execute(f"SELECT {', '.join(columns)} FROM episodes"))


def _count(run_dir: Path) -> int:
    try:
        with sqlite3.connect(run_dir / "results.sqlite") as db:
            return db.execute("SELECT count(*) FROM episodes").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


# --- the window ----------------------------------------------------------------------------------


def test_the_window_is_bounded_and_pending_work_is_pulled_lazily(tmp_path: Path) -> None:
    pulled: list[EpisodeSpec] = []
    running, ended = [0], [0]
    seen: list[tuple[int, int, int, int]] = []  # (in flight, ended, specs pulled, asyncio tasks) at each start
    backend = OracleBackend()

    async def runner(spec: EpisodeSpec) -> Trace:
        running[0] += 1
        seen.append((running[0], ended[0], len(pulled), len(asyncio.all_tasks())))
        await asyncio.sleep(0.001)
        trace = await run_episode(spec, backend)
        running[0] -= 1
        ended[0] += 1
        return trace

    store = _store(tmp_path / "r")
    progress = asyncio.run(
        run_episodes(_specs(40, pulled), backend, store, score_episode, concurrency=4, runner=runner)
    )
    assert progress.done == 40 and len(store.finished()) == 40
    assert max(s[0] for s in seen) == 4  # the window fills, and never overflows
    for _, n_ended, n_pulled, n_tasks in seen:
        # pulled: the ended ones, the window and one spec of lookahead; tasks: the window and the main one
        assert n_pulled <= n_ended + 4 + 1 and n_tasks <= 4 + 1


def test_finished_episodes_are_skipped_and_the_backend_is_closed(tmp_path: Path) -> None:
    closed: list[bool] = []

    class Closing(OracleBackend):
        async def aclose(self) -> None:
            closed.append(True)

    store = _store(tmp_path / "r")
    asyncio.run(run_episodes(list(_specs(6))[:3], Closing(), store, score_episode))
    progress = asyncio.run(run_episodes(_specs(6), Closing(), store, score_episode, concurrency=3))
    assert progress.done == 3 and len(store.finished()) == 6 and closed == [True, True]


# --- budgets -------------------------------------------------------------------------------------


def _counting(context: EpisodeContext, messages: Sequence[Message]) -> ModelTurn:
    """Answers at once, reporting 100 prompt and 10 completion tokens."""
    return ModelTurn(raw="Done.", content="Done.", prompt_tokens=100, completion_tokens=10)


def test_a_token_budget_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    backend = ScriptedBackend(_counting)
    with pytest.raises(RunStopped) as info:
        evaluate(SMALL.model_copy(update={"max_tokens_total": 300}), run_dir=tmp_path, backend=backend)
    stop = info.value
    assert stop.reason == "max_tokens_total" and "--max-tokens-total 300" in str(stop)
    assert stop.progress.tokens == 330 and _count(tmp_path) == 3 and stop.summary.episodes == 3
    summary = evaluate(RunConfig(), resume=tmp_path, backend=backend)  # a resumed run takes its own (no) budget
    assert summary.episodes == 8 and len(_rows(tmp_path)) == 8


class _Slow(OracleBackend):
    """The oracle, 20 ms per turn."""

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        inner = super().agent(context)

        class Agent:
            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                await asyncio.sleep(0.02)
                return await inner.respond(messages, tools)

        return Agent()


def test_a_wall_budget_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=20, max_wall_s=0.2)
    with pytest.raises(RunStopped) as info:  # 20 episodes of at least 2 turns of 20 ms: at least 0.8 s
        evaluate(config, run_dir=tmp_path, backend=_Slow())
    assert info.value.reason == "max_wall" and _count(tmp_path) < 20
    evaluate(RunConfig(), resume=tmp_path, backend=_Slow())
    assert len(_rows(tmp_path)) == 20


def test_limits_are_checked_with_the_rest_of_the_configuration() -> None:
    bad = SMALL.model_copy(update={"max_tokens_total": 0, "max_wall_s": -1.0, "max_consecutive_backend_errors": -1})
    with pytest.raises(ConfigError) as info:
        evaluate(bad)
    assert len(info.value.problems) == 3
    assert any("--max-wall" in p for p in info.value.problems)  # the option a CLI user gave, named
    with pytest.raises(ConfigError, match="--max-wall"):
        evaluate(SMALL.model_copy(update={"max_wall_s": float("nan")}))  # nan is no budget at all


def test_limits_are_not_stored_in_the_run_header(tmp_path: Path) -> None:
    evaluate(SMALL.model_copy(update={"tasks": 1, "max_wall_s": 600.0}), run_dir=tmp_path, backend=OracleBackend())
    config = RunStore.open(tmp_path).header.config.model_dump()
    assert "max_wall_s" not in config and config["model"] == "oracle"


# --- the circuit breaker -------------------------------------------------------------------------


def _failing_after(good: int, pattern: str = "") -> tuple:
    """A runner whose episodes end ``backend_error`` after the first ``good`` ones (or, with
    ``pattern``, where the pattern, repeated, has an ``x``), and the scorer that records them."""
    backend = OracleBackend()
    count = [0]

    async def runner(spec: EpisodeSpec) -> Trace:
        trace = await run_episode(spec, backend)
        count[0] += 1
        failing = pattern[(count[0] - 1) % len(pattern)] == "x" if pattern else count[0] > good
        return trace.model_copy(update={"end": "backend_error"}) if failing else trace

    def scorer(spec: EpisodeSpec, trace: Trace):  # noqa: ANN202
        if trace.end != "backend_error":
            return score_episode(spec, trace)
        result = score_episode(spec, trace.model_copy(update={"end": "answered"}))
        return result.model_copy(update={"end": "backend_error", "success": False, "error": f"HTTP 401 on {spec.seed}"})

    return backend, runner, scorer


def test_the_breaker_stops_after_consecutive_backend_errors_with_a_clear_message(tmp_path: Path) -> None:
    backend, runner, scorer = _failing_after(3)
    store = _store(tmp_path / "r")
    with pytest.raises(RunStopped) as info:
        asyncio.run(run_episodes(_specs(30), backend, store, scorer, runner=runner, limits=RunLimits()))
    stop = info.value
    assert stop.reason == "backend_errors" and "10 episodes in a row failed with a backend error" in str(stop)
    assert "the last one: HTTP 401 on" in str(stop)  # the cause is shown, not only "looks down"
    assert stop.progress.backend_errors == 10 and stop.progress.done == 13 and stop.progress.failed == 0
    store.close()
    assert _count(tmp_path / "r") == 13  # every finished episode recorded (resume runs the backend errors again)


def test_an_episode_without_backend_error_resets_the_breaker_and_zero_disables_it(tmp_path: Path) -> None:
    backend, runner, scorer = _failing_after(0, pattern="xx.")  # never 3 in a row
    limits = RunLimits(max_consecutive_backend_errors=3)
    progress = asyncio.run(
        run_episodes(_specs(12), backend, _store(tmp_path / "a"), scorer, runner=runner, limits=limits)
    )
    assert progress.done == 12 and progress.backend_errors == 8
    backend, runner, scorer = _failing_after(0)
    limits = RunLimits(max_consecutive_backend_errors=0)
    progress = asyncio.run(
        run_episodes(_specs(12), backend, _store(tmp_path / "b"), scorer, runner=runner, limits=limits)
    )
    assert progress.done == progress.backend_errors == 12


# --- progress ------------------------------------------------------------------------------------


def test_progress_in_a_log_is_one_line_with_every_count(monkeypatch) -> None:  # noqa: ANN001
    import toolprism.cli._common as common

    early = io.StringIO()
    progress = ProgressReport("variants", interval_s=0, console=Console(file=early, force_terminal=False))
    progress.start(1024)
    progress.update(done=1)
    progress.stop()
    assert "/s" not in early.getvalue() and "ETA" not in early.getvalue()  # no rate over a few milliseconds
    monkeypatch.setattr(common, "MIN_RATE_S", 0.0)
    out = io.StringIO()
    progress = ProgressReport("episodes", interval_s=0, console=Console(file=out, force_terminal=False))
    progress.start(10)
    progress.update(done=4, running=2, failed=1, backend_errors=1, tokens=800, note="last: ok t@native#0")
    progress.stop()
    lines = out.getvalue().splitlines()
    assert lines[0] == "episodes: 0/10 done, 0.0 episodes/s"
    last = lines[-1]
    for part in ("episodes: 4/10 done", "2 running", "1 failed", "1 backend errors", "episodes/s", "tokens/s", "ETA "):
        assert part in last
    quiet = io.StringIO()
    progress = ProgressReport("tasks", interval_s=3600, console=Console(file=quiet, force_terminal=False))
    for done in range(1, 50):
        progress.update(done=done, total=49)
    progress.stop()
    assert len(quiet.getvalue().splitlines()) == 2  # the first and the last: none in between within the interval
    every = io.StringIO()
    progress = ProgressReport("tasks", interval_s=0, console=Console(file=every, force_terminal=False))
    for done in range(1, 4):
        progress.update(done=done, total=3)
    progress.stop()
    assert len(every.getvalue().splitlines()) == 3  # QA: the last line was printed twice when stop said nothing new


def test_run_validate_and_export_print_progress_lines_in_a_log(tmp_path: Path) -> None:
    env = {"TOOLPRISM_PROGRESS_INTERVAL": "0"}
    args = ["run", "--model", "oracle", "-d", "smart_home", "-v", "native,merge", "-n", "2", "--run-dir"]
    result = CliRunner().invoke(app, [*args, str(tmp_path / "r"), "--concurrency", "2"], env=env)
    assert result.exit_code == 0, result.output
    assert "episodes: 4/4 done, 0 running, 0 failed, 0 backend errors" in result.stderr
    result = CliRunner().invoke(
        app, ["validate", "-d", "smart_home", "-v", "native", "--limit", "1", "--jobs", "1"], env=env
    )
    assert result.exit_code == 0 and "variants: 1/1 done" in result.stderr, result.output
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(
        app, ["export", "tasks", "--out", str(out), "-d", "smart_home", "--limit", "2"], env=env
    )
    assert result.exit_code == 0 and "tasks: 2/2 done" in result.stderr, result.output


def test_a_spent_budget_on_the_command_line_exits_3_with_the_resume_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolprism.evaluation._evaluate as evaluation

    monkeypatch.setattr(evaluation, "create_backend", lambda *a, **k: _Slow())
    run_dir = tmp_path / "r"
    args = ["run", "--model", "oracle", "-d", "smart_home", "-v", "native", "-n", "20", "--max-wall", "0.2"]
    result = CliRunner().invoke(app, [*args, "--run-dir", str(run_dir)])
    assert result.exit_code == 3, result.output
    err = " ".join(result.stderr.split())
    assert "wall-time budget spent" in err and f"toolprism run --resume {run_dir}" in err
    result = CliRunner().invoke(app, ["run", "--resume", str(run_dir), "--max-wall", "600"])
    assert result.exit_code == 0, result.output
    assert len(_rows(run_dir)) == 20


# --- signals and the kill test -------------------------------------------------------------------

BLOCKING = textwrap.dedent("""
    import asyncio, sys, threading, time
    import toolprism.evaluation._evaluate as evaluation
    from toolprism.backends import OracleBackend
    from toolprism.cli import main

    HONOUR_STOP = sys.argv[2] == "honour"

    def work(stop):  # a blocking generation in a worker thread, like the embedded model's
        for _ in range(12000 if HONOUR_STOP else 1):
            if HONOUR_STOP and stop.is_set():
                return
            time.sleep(0.01 if HONOUR_STOP else 300)

    class Blocking(OracleBackend):
        started = 0

        def agent(self, context):
            inner = super().agent(context)
            Blocking.started += 1
            blocks = Blocking.started > 2  # every episode after the first two blocks

            class Agent:
                async def respond(self, messages, tools):
                    if blocks:
                        stop = threading.Event()
                        try:
                            await asyncio.to_thread(work, stop)
                        except asyncio.CancelledError:
                            stop.set()
                            raise
                    return await inner.respond(messages, tools)
            return Agent()

    evaluation.create_backend = lambda *args, **kwargs: Blocking()
    sys.argv = ["toolprism", "run", "--model", "oracle", "-d", "smart_home", "-v", "native", "-n", "8",
                "--concurrency", "2", "--run-dir", sys.argv[1]]
    main()
""")
"""A CLI run whose episodes after the first two block in a worker thread: in steps
that honour a stop flag (``honour``; 120 s), or for 300 s in one sleep (anything else)."""


def _start(script: str, run_dir: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    return subprocess.Popen(
        [sys.executable, "-c", script, str(run_dir), *args],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=ctrl_c_enabled,
    )


def _wait_for(run_dir: Path, rows: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _count(run_dir) < rows and proc.poll() is None:
        time.sleep(0.05)


def test_ctrl_c_stops_a_run_blocked_in_a_worker_thread_and_the_store_resumes(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    proc = _start(BLOCKING, run_dir, "honour")
    _wait_for(run_dir, 1, proc)  # a fast episode is recorded; blocking ones are in flight
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)  # far less than the 120 s a blocked episode would take
    assert proc.returncode == 128 + signal.SIGINT, err
    assert f"continue with: toolprism run --resume {run_dir}" in " ".join(err.split()) and "Traceback" not in err
    finished = _count(run_dir)
    assert 1 <= finished < 8
    evaluate(resume=run_dir, backend=OracleBackend())
    assert len(_rows(run_dir)) == 8


def test_a_second_ctrl_c_exits_at_once(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    proc = _start(BLOCKING, run_dir, "ignore")  # worker threads that sleep 300 s, deaf to any stop
    _wait_for(run_dir, 1, proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGINT and "interrupted again: exiting now" in err, err
    store = RunStore.open(run_dir)
    assert len(store.finished()) >= 1  # what finished is kept


KILLABLE = textwrap.dedent("""
    import asyncio, sys
    import toolprism.evaluation._evaluate as evaluation
    from toolprism.backends import OracleBackend
    from toolprism.cli import main

    class Slow(OracleBackend):
        def agent(self, context):
            inner = super().agent(context)
            class Agent:
                async def respond(self, messages, tools):
                    await asyncio.sleep(0.02)
                    return await inner.respond(messages, tools)
            return Agent()

    evaluation.create_backend = lambda *args, **kwargs: Slow()
    sys.argv = ["toolprism", "run", "--model", "oracle", "-d", "smart_home,retail", "-v", "native,merge,transaction",
                "-n", "6", "-p", "C2:medium", "--concurrency", "4", "--run-dir", sys.argv[1]]
    main()
""")


def test_kill_test_sigkill_mid_run_then_resume_gives_each_episode_once_and_the_uninterrupted_scores(
    tmp_path: Path,
) -> None:
    config = RunConfig(
        model="oracle", domains=["smart_home", "retail"], variants=["native", "merge", "transaction"], tasks=6,
        perturbations=["C2:medium"], concurrency=4,
    )  # fmt: skip
    whole = evaluate(config, run_dir=tmp_path / "whole", backend=OracleBackend())
    killed = tmp_path / "killed"
    proc = _start(KILLABLE, killed)
    _wait_for(killed, 10, proc)
    proc.kill()
    proc.communicate(timeout=60)
    assert 10 <= _count(killed) < whole.episodes  # killed mid-way
    resumed = evaluate(resume=killed, backend=OracleBackend())
    with sqlite3.connect(killed / "results.sqlite") as db:
        ids = [r[0] for r in db.execute("SELECT episode_id FROM episodes")]
        traces = [r[0] for r in db.execute("SELECT episode_id FROM traces")]
    assert len(ids) == len(set(ids)) == whole.episodes and sorted(traces) == sorted(ids)
    assert _rows(killed) == _rows(tmp_path / "whole")
    assert [v.model_dump() for v in resumed.variants] == [v.model_dump() for v in whole.variants]


def test_progress_of_slow_units_reads_as_time_per_unit() -> None:
    out = io.StringIO()
    progress = ProgressReport("tasks", interval_s=0, console=Console(file=out, force_terminal=False))
    progress.start(16)
    progress._started -= 600  # 10 minutes ago: 2 tasks done, 0.003 tasks/s
    progress.update(done=2)
    progress.stop()
    last = out.getvalue().splitlines()[-1]
    assert "5m00s per task" in last and "tasks/s" not in last and "ETA 1h10m" in last
