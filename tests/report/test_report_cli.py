"""``toolprism report``: default output paths, the markdown summary, figures, and bad input as a
clear error (exit code 2, no traceback); ``toolprism --help`` loads neither matplotlib nor pandas."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from _report_runs import native_names_run, oracle_run
from typer.testing import CliRunner

from toolprism.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli-runs")
    return native_names_run(root / "names"), oracle_run(root / "oracle")


def test_one_run_writes_its_report_into_the_run_directory(runs: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["report", str(runs[0])])
    assert result.exit_code == 0, result.output
    out = runs[0] / "report.html"
    assert result.output.strip() == str(out) and out.read_text().startswith("<!DOCTYPE html>")


def test_several_runs_write_report_html_in_the_current_directory(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", *map(str, runs)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "report.html"
    page = (tmp_path / "report.html").read_text()
    assert 'id="comparison"' in page and "names" in page and "oracle" in page


def test_markdown_to_stdout_or_a_file_and_figures(runs: tuple[Path, Path], tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(runs[0]), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# toolprism report: names") and "## Success grid" in result.output
    assert "| native | native | 100% [34–100%] n=2 |" in result.output
    out = tmp_path / "summary.md"
    figures = tmp_path / "figs"
    result = runner.invoke(app, ["report", str(runs[0]), "--format", "md", "-o", str(out), "--figures", str(figures)])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output and out.read_text().startswith("# toolprism report")
    assert {"grid.png", "grid.svg", "failure-modes.png", "ladder.svg"} <= {p.name for p in figures.iterdir()}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["{missing}"], "invalid run directory"),
        (["{run}", "-o", "{tmp}/no/such/dir/r.html"], "does not exist"),
        (["{run}", "-o", "{tmp}"], "is a directory"),
        (["{run}", "--probes", "{tmp}/nope"], "not a directory"),
        (["{run}", "--figures", "{run}/header.json"], "is a file, not a directory"),
        (["{run}", "--format", "pdf"], "pdf"),
    ],
)
def test_bad_input_is_a_clear_error(runs: tuple[Path, Path], tmp_path: Path, args: list[str], words: str) -> None:
    filled = [a.format(missing=tmp_path / "missing", run=runs[0], tmp=tmp_path) for a in args]
    result = runner.invoke(app, ["report", *filled])
    assert result.exit_code == 2, result.output
    assert words in " ".join(result.output.split()) and "Traceback" not in result.output


def test_an_existing_directory_that_is_no_run_is_named(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["report", str(tmp_path / "empty"), str(tmp_path / "other")])
    assert result.exit_code == 2 and "error:" in result.output
    assert "empty" in result.output and "other" in result.output  # every bad path listed


def test_an_unfinished_run_is_reported_with_a_note(runs: tuple[Path, Path], tmp_path: Path) -> None:
    run = tmp_path / "unfinished"
    shutil.copytree(runs[0], run)
    with sqlite3.connect(run / "results.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE rowid > 3")
    result = runner.invoke(app, ["report", str(run), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert "only 3 of the 8 episodes it planned are recorded" in " ".join(result.output.split())
    assert "3 recorded of 8 planned" in (tmp_path / "r.html").read_text()


def test_help_imports_neither_matplotlib_nor_pandas() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from toolprism.cli import app\n"
        "for args in (['--help'], ['report', '--help']):\n"
        "    assert CliRunner().invoke(app, args).exit_code == 0\n"
        "print(sorted(m for m in ('matplotlib', 'pandas') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stderr
