"""``toolprism import tau2``, ``toolprism run -d <pack>`` and ``toolprism score --scorer tau2`` from the
command line, on tau2's retail tasks 0-2 and the database subset that holds what they touch
(../shared/external/tau2, skipped when absent); bad input is a clear error that writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.cli import app

runner = CliRunner()


@pytest.fixture
def small(external: Path, tmp_path: Path) -> dict[str, Path]:
    """Tasks 0-2 (the first three of tasks.json) and the database subset they need."""
    base = external / "tau2"
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(json.loads((base / "tau2_retail_tasks.json").read_text())[:3]))
    return {
        "tools": base / "tau2_retail_tools.openai.json",
        "tasks": tasks,
        "db": base / "tau2_retail_db.SUBSET_tasks0-2.json",
    }


def _import(files: dict[str, Path], out: Path, *extra: str):  # noqa: ANN202
    args = ["import", "tau2", *(f"--{k}={v}" for k, v in files.items()), "-o", str(out), *extra]
    return runner.invoke(app, args)


def test_import_run_and_score_both_ways(small: dict[str, Path], tmp_path: Path) -> None:
    result = _import(small, tmp_path / "packs", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["tools"], summary["writes"], summary["tasks"]) == (16, 7, 3)
    assert summary["refused_gold_actions"] == 1  # task 2 looks up a product that does not exist, as in tau2
    pack = summary["path"]
    run_dir = tmp_path / "run"
    args = ["run", "--model", "oracle", "-d", pack, "-v", "native,merge,transaction", "--max-turns", "100"]
    result = runner.invoke(app, [*args, "--run-dir", str(run_dir), "--no-report", "--json"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["score", str(run_dir), "--scorer", "tau2", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["variant"]: r for r in json.loads(result.stdout)["tau2"]}
    assert sorted(rows) == ["merge", "native", "transaction"]
    for row in rows.values():
        assert row["episodes"] == 3
        assert row["multiset"] == row["tau2"] == row["db"] == row["communicate"] == row["agree"] == 3
    text = runner.invoke(app, ["score", str(run_dir), "--scorer", "tau2"], env={"COLUMNS": "200"})
    assert "toolprism's multiset score and tau2's reward" in text.output


def test_bad_input_is_one_clear_error_and_writes_nothing(
    small: dict[str, Path], external: Path, tmp_path: Path
) -> None:
    airline = {**small, "tools": external / "tau2" / "tau2_airline_tools.openai.json"}
    result = _import(airline, tmp_path / "out")
    assert result.exit_code != 0
    assert "no executor" in result.output and "book_reservation" in result.output
    assert "Traceback" not in result.output
    broken = tmp_path / "db.json"
    broken.write_text('{"products": {}, "users": {}, "orders": {}, "extra": 1}')
    result = _import({**small, "db": broken}, tmp_path / "out")
    assert result.exit_code != 0 and "db.extra" in result.output
    assert not (tmp_path / "out").exists()
