"""Run directories: determinism, crash and kill safety, resume without duplicates."""

from __future__ import annotations

import functools
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from toolprism.backends import OracleBackend
from toolprism.errors import BackendError, ConfigError
from toolprism.evaluation import RunConfig, evaluate
from toolprism.run import RunStore

SLOW_ORACLE = textwrap.dedent("""
    import asyncio, sys
    from toolprism.backends import OracleBackend
    from toolprism.backends._oracle import OracleAgent

    class Slow(OracleAgent):
        async def respond(self, messages, tools):
            await asyncio.sleep(0.05)
            return await super().respond(messages, tools)

    class SlowOracle(OracleBackend):
        def agent(self, context):
            return Slow(context)
""")
"""Script prefix for runs in a child process: an oracle slow enough to be killed mid-run."""

CONFIG = RunConfig(model="oracle", variants=["native", "transaction", "merge"], tasks=4)


def _rows(run_dir: Path) -> list[str]:
    with sqlite3.connect(run_dir / "results.sqlite") as db:
        return [r[0] for r in db.execute("SELECT episode_id FROM episodes")]


def _finished_so_far(run_dir: Path) -> int:
    """Rows written by a run still in progress; 0 until the store has created its table."""
    try:
        return len(_rows(run_dir)) if (run_dir / "results.sqlite").exists() else 0
    except sqlite3.OperationalError:  # the file exists a moment before its schema does
        return 0


def test_same_seed_gives_identical_traces_and_results(tmp_path: Path) -> None:
    a = evaluate(CONFIG, run_dir=tmp_path / "a")
    b = evaluate(CONFIG, run_dir=tmp_path / "b")
    assert [v.model_dump() for v in a.variants] == [v.model_dump() for v in b.variants]
    sa, sb = RunStore.open(tmp_path / "a"), RunStore.open(tmp_path / "b")
    ids = _rows(tmp_path / "a")
    assert ids == _rows(tmp_path / "b") and len(ids) == 2 * 3 * 4
    for episode_id in ids:
        assert sa.trace(episode_id).deterministic_view() == sb.trace(episode_id).deterministic_view()
    other = evaluate(CONFIG.model_copy(update={"seed": 1}), run_dir=tmp_path / "c")
    assert _rows(tmp_path / "c") != ids and other.episodes == a.episodes


class _FailingOracle(OracleBackend):
    """Fails episodes ``start`` to ``start + count - 1`` (in the order they start)."""

    def __init__(self, start: int, count: int) -> None:
        super().__init__()
        self.started, self.failing = 0, range(start, start + count)

    def agent(self, context):  # noqa: ANN001, ANN201
        self.started += 1
        if self.started - 1 in self.failing:
            raise BackendError("provider went away")
        return super().agent(context)


def test_backend_errors_are_recorded_and_resume_runs_them_again_each_once(tmp_path: Path) -> None:
    first = evaluate(CONFIG, run_dir=tmp_path, backend=_FailingOracle(5, 4))
    assert len(_rows(tmp_path)) == 24 and first.backend_error == 4 and first.episodes == 20
    assert all(v.success_rate == 1.0 for v in first.variants)  # the failed ones are out of the rates
    store = RunStore.open(tmp_path)
    assert len(store.finished()) == 20
    store.close()
    summary = evaluate(resume=tmp_path, backend=OracleBackend())
    rows = _rows(tmp_path)
    assert len(rows) == len(set(rows)) == 24
    assert summary.episodes == 24 and summary.backend_error == 0
    assert all(v.success_rate == 1.0 for v in summary.variants)


def test_killed_process_resumes_each_episode_once(tmp_path: Path) -> None:
    script = SLOW_ORACLE + textwrap.dedent(f"""
        from toolprism.evaluation import RunConfig, evaluate
        evaluate(RunConfig.model_validate_json({CONFIG.model_dump_json()!r}), run_dir=sys.argv[1], backend=SlowOracle())
    """)
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _finished_so_far(tmp_path) < 3:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(_rows(tmp_path))
    assert 3 <= finished < 24
    evaluate(resume=tmp_path, backend=OracleBackend())
    rows = _rows(tmp_path)
    assert len(rows) == len(set(rows)) == 24


def test_config_problems_are_all_listed_before_anything_runs(tmp_path: Path) -> None:
    bad = RunConfig(
        model="oracle", domains=["smart_home", "atlantis"], variants=["native", "merge(by=bogus)", "nosuch"], tasks=0
    )
    with pytest.raises(ConfigError) as info:
        evaluate(bad, run_dir=tmp_path / "r")
    text = str(info.value)
    for fragment in [
        "unknown domain 'atlantis'",
        "by='bogus'",
        "'nosuch': unknown operator",
        "tasks (--tasks) must be at least 1",
    ]:
        assert fragment in text
    assert not (tmp_path / "r").exists()


def test_resume_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a toolprism run directory"):
        evaluate(resume=tmp_path)
    evaluate(CONFIG.model_copy(update={"tasks": 1}), run_dir=tmp_path / "r")
    with pytest.raises(ConfigError, match="already holds a run"):
        evaluate(CONFIG, run_dir=tmp_path / "r")


def test_bad_run_directories_fail_clearly(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ConfigError, match="is not a directory"):
        evaluate(resume=a_file)
    with pytest.raises(ConfigError, match="exists and is not a directory"):
        evaluate(CONFIG, run_dir=a_file)
    with pytest.raises(ConfigError, match="cannot create"):
        evaluate(CONFIG, run_dir=a_file / "sub")


def test_a_database_without_the_run_tables_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evaluate(CONFIG, run_dir=run_dir, backend=OracleBackend())
    database = run_dir / "results.sqlite"
    database.unlink()
    database.write_bytes(b"")  # empty (truncated to nothing)
    with pytest.raises(ConfigError, match="not a toolprism run database .no table 'episodes'"):
        RunStore.open(run_dir)
    assert database.read_bytes() == b""  # nothing was written into it
    database.unlink()
    with sqlite3.connect(database) as db:  # another program's database
        db.execute("CREATE TABLE notes (x)")
    before = database.read_bytes()
    with pytest.raises(ConfigError, match="no table 'episodes'"):
        RunStore.open(run_dir)
    assert database.read_bytes() == before


def test_a_run_being_written_is_not_resumed_by_a_second_writer(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evaluate(CONFIG, run_dir=run_dir, backend=OracleBackend())
    writer = RunStore.open(run_dir)
    writer.claim()  # as the process still running the run holds it
    try:
        with pytest.raises(ConfigError, match=rf"being written by another toolprism process \(pid {os.getpid()}\)"):
            evaluate(resume=run_dir, backend=OracleBackend())
    finally:
        writer.close()
    evaluate(resume=run_dir, backend=OracleBackend())  # the lock goes with its writer


def test_default_run_directories_never_collide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    quick = CONFIG.model_copy(update={"tasks": 1, "variants": ["native"]})
    dirs = {evaluate(quick).run_dir for _ in range(3)}
    assert len(dirs) == 3 and all(Path(d).parent == Path("toolprism-runs") for d in dirs)


def test_duplicates_and_bad_numbers_are_config_problems() -> None:
    bad = RunConfig(model="oracle", domains=["retail", "retail"], variants=["native", "native"], concurrency=0)
    with pytest.raises(ConfigError) as info:
        evaluate(bad)
    assert len(info.value.problems) == 3


def test_a_run_written_before_newer_columns_opens_with_their_defaults(tmp_path) -> None:  # noqa: ANN001
    import json as _json
    import sqlite3

    from toolprism.run import RunStore as Store

    (tmp_path / "header.json").write_text(_json.dumps({"config": {}}))
    db = sqlite3.connect(tmp_path / "results.sqlite")
    db.execute(
        "CREATE TABLE episodes (episode_id TEXT PRIMARY KEY, task_id, domain, variant, spec, seed, success, "
        "precision, recall, rejected_calls, turns, actions, end, scoring_error, duration_ms)"
    )
    db.execute("INSERT INTO episodes VALUES ('a','t','d','v','s',0,1,1.0,1.0,0,2,1,'answered',NULL,3.0)")
    db.commit()
    db.close()
    (result,) = Store.open(tmp_path).results()
    assert (result.condition, result.final_state_match, result.success) == ("", None, True)


def test_a_missing_or_damaged_trace_is_a_clear_error_and_resume_runs_that_episode_again(tmp_path: Path) -> None:
    config = CONFIG.model_copy(update={"variants": ["native"], "tasks": 3})
    evaluate(config, run_dir=tmp_path)
    first, second, third, fourth, *_ = _rows(tmp_path)
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        db.execute("DELETE FROM traces WHERE episode_id = ?", (first,))
        db.execute("UPDATE traces SET trace = '{not json' WHERE episode_id = ?", (second,))
        db.execute("UPDATE traces SET trace = json_object('episode_id', ?) WHERE episode_id = ?", (third, third))
        db.execute("DELETE FROM episodes WHERE episode_id = ?", (fourth,))  # a trace with no result row
    store = RunStore.open(tmp_path)
    assert store.damaged() == [first, second, third] and not {first, fourth} & store.finished()
    with pytest.raises(ConfigError, match=r"is missing; 3 episode\(s\) of this run have no readable trace"):
        store.trace(first)
    for damaged in (second, third):
        with pytest.raises(ConfigError, match="is damaged"):
            store.trace(damaged)
    store.close()
    summary = evaluate(resume=tmp_path, backend=OracleBackend())
    store = RunStore.open(tmp_path)
    assert store.damaged() == [] and summary.episodes == 6 and len(_rows(tmp_path)) == 6
    assert store.trace(first).episode_id == first


def test_a_run_stopped_while_it_plans_says_so(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys, time
        from pathlib import Path
        import toolprism.evaluation._evaluate as evaluation
        from toolprism.cli import main

        ready = Path(sys.argv[2])

        def slow_plan(config):  # a plan of 10^5 episodes takes seconds to count
            ready.touch()
            time.sleep(60)

        evaluation.RunPlan.of = slow_plan
        sys.argv = ["toolprism", "run", "--model", "oracle", "--run-dir", sys.argv[1]]
        main()
    """)
    ready = tmp_path / "planning"
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "r"), str(ready)], stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not ready.exists():
        time.sleep(0.05)
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "interrupted before the first episode started" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_a_terminated_cli_run_says_how_to_resume_and_resumes(tmp_path: Path) -> None:
    script = SLOW_ORACLE + textwrap.dedent("""
        import toolprism.evaluation._evaluate as evaluation
        from toolprism.cli import main

        evaluation.create_backend = lambda *args, **kwargs: SlowOracle()
        sys.argv = ["toolprism", "run", "--model", "oracle", "-n", "4", "-v", "native,merge", "--run-dir", sys.argv[1]]
        main()
    """)
    run_dir = tmp_path / "r"
    # as a background job, where SIGINT is ignored
    quiet = functools.partial(signal.signal, signal.SIGINT, signal.SIG_IGN)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(run_dir)], stderr=subprocess.PIPE, text=True, preexec_fn=quiet
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _finished_so_far(run_dir) < 2:
        time.sleep(0.05)
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert f"continue with: toolprism run --resume {run_dir}" in " ".join(err.split()) and "Traceback" not in err
    assert 2 <= len(_rows(run_dir)) < 16
    evaluate(resume=run_dir, backend=OracleBackend())
    assert len(set(_rows(run_dir))) == len(_rows(run_dir)) == 16
