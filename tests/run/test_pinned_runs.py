"""A stored run always means the same tasks: score, diagnose and --resume refuse a run whose tasks
the code now generates differently, naming each changed task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.cli import app
from toolprism.domains import _phrasing
from toolprism.errors import ConfigError
from toolprism.run import RunStore, verify_run_tasks

runner = CliRunner()


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    evaluate(RunConfig(model="oracle", domains=["tv"], variants=["native"], tasks=3), run_dir=out)
    return out


def _shouting(text: str) -> str:
    """An edited phrasing helper: sentences end with '!' instead of '.'."""
    text = text.strip()
    return text[0].upper() + text[1:].rstrip(".?!") + "!"


def test_the_header_pins_each_task_it_poses(run_dir: Path) -> None:
    header = json.loads((run_dir / "header.json").read_text())
    pins = header["tasks"]["tv"]
    assert pins["version"] == 1 and len(pins["set_hash"]) == 16
    assert len(pins["tasks"]) == 3
    store = RunStore.open(run_dir)
    try:
        stored = store.stored_tasks()
    finally:
        store.close()
    from toolprism.domains import task_hash

    assert {t["id"]: task_hash(t) for t in stored} == pins["tasks"]


def test_score_refuses_a_run_whose_task_a_phrasing_edit_changed(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert runner.invoke(app, ["score", str(run_dir), "--json"]).exit_code == 0
    monkeypatch.setattr(_phrasing, "_sentence", _shouting)
    result = runner.invoke(app, ["score", str(run_dir)])
    assert result.exit_code == 2, result.output
    assert "task tv/" in result.output and "changed since this run: its query was" in result.output
    assert "Traceback" not in result.output


def test_diagnose_and_resume_refuse_too(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_phrasing, "_sentence", _shouting)
    for args in (["diagnose", str(run_dir)], ["run", "--resume", str(run_dir)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "changed since this run" in result.output, args


def test_a_run_without_pins_is_checked_against_its_traces(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header_path = run_dir / "header.json"
    header = json.loads(header_path.read_text())
    del header["tasks"]  # as written before pins existed
    header_path.write_text(json.dumps(header))
    store = RunStore.open(run_dir)
    try:
        verify_run_tasks(store)
        monkeypatch.setattr(_phrasing, "_sentence", _shouting)
        with pytest.raises(ConfigError, match=r"task tv/\S+ changed since this run"):
            verify_run_tasks(store)
    finally:
        store.close()


def test_resume_refuses_tasks_the_run_did_not_pin(run_dir: Path) -> None:
    header_path = run_dir / "header.json"
    header = json.loads(header_path.read_text())
    dropped = next(iter(header["tasks"]["tv"]["tasks"]))
    del header["tasks"]["tv"]["tasks"][dropped]
    header_path.write_text(json.dumps(header))
    result = runner.invoke(app, ["run", "--resume", str(run_dir)])
    assert result.exit_code == 2
    assert f"task {dropped} is new since this run" in result.output


def _edit_traces(run_dir: Path, edit, *, only: int | None = None) -> None:
    """Apply ``edit(trace_dict)`` to the stored traces (the first ``only`` of them, or all)."""
    import sqlite3

    db = sqlite3.connect(run_dir / "results.sqlite")
    rows = db.execute("SELECT episode_id, trace FROM traces ORDER BY rowid").fetchall()
    for episode_id, text in rows[:only]:
        trace = json.loads(text)
        edit(trace)
        db.execute("UPDATE traces SET trace = ? WHERE episode_id = ?", (json.dumps(trace), episode_id))
    db.commit()
    db.close()


def _drop_pins(run_dir: Path) -> None:
    header = json.loads((run_dir / "header.json").read_text())
    del header["tasks"]
    (run_dir / "header.json").write_text(json.dumps(header))


def _as_version_1(trace: dict) -> None:
    """What a version-1 trace could look like: defaults left out of its task."""
    trace["version"] = 1
    for key, default in (("world_seed", 0), ("kind", "single"), ("form", "easy")):
        if trace["task"].get(key) == default:
            del trace["task"][key]


def test_version_1_traces_whose_tasks_leave_defaults_out_still_verify(run_dir: Path) -> None:
    _drop_pins(run_dir)
    _edit_traces(run_dir, _as_version_1)
    result = runner.invoke(app, ["score", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output


def _wrong_gold(trace: dict) -> None:
    trace["task"]["gold"][0]["args"] = {**trace["task"]["gold"][0]["args"], "tv": "kids_room"}


def test_a_trace_whose_task_was_edited_is_refused(run_dir: Path) -> None:
    _edit_traces(run_dir, _wrong_gold, only=1)
    result = runner.invoke(app, ["score", str(run_dir)])
    assert result.exit_code == 2, result.output
    assert "another task than the header pins" in " ".join(result.output.split())


def test_without_pins_traces_of_one_task_must_agree(tmp_path: Path) -> None:
    out = tmp_path / "run"
    evaluate(RunConfig(model="oracle", domains=["tv"], variants=["native", "merge"], tasks=1), run_dir=out)
    _drop_pins(out)
    _edit_traces(out, _wrong_gold, only=1)
    result = runner.invoke(app, ["score", str(out)])
    assert result.exit_code == 2, result.output
    assert "store different tasks: edited or damaged" in result.output


def test_an_edited_header_is_named(run_dir: Path) -> None:
    header_path = run_dir / "header.json"
    original = json.loads(header_path.read_text())
    for change, expected in (
        (lambda h: h.update(tasks={}), "the run header does not pin it"),
        (lambda h: h["tasks"]["tv"].update(version=7), "domain tv is at version 1; the run was made at version 7"),
        (lambda h: h["config"].update(domains=["garden"]), "domain tv is pinned by the run but not among the domains"),
    ):
        header = json.loads(json.dumps(original))
        change(header)
        header_path.write_text(json.dumps(header))
        result = runner.invoke(app, ["score", str(run_dir)])
        assert result.exit_code == 2, (expected, result.output)
        assert expected in " ".join(result.output.split()), (expected, result.output)
