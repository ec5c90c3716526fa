"""``toolprism run`` ends by writing the HTML report and printing its path (``--no-report`` skips
it; ``--json`` keeps stdout one JSON document)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolprism.cli import app

runner = CliRunner()


def test_a_run_ends_with_its_report(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    result = runner.invoke(app, ["run", "--model", "oracle", "-n", "1", "--run-dir", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["episodes"] == 3  # stdout is still the summary alone
    report = run_dir / "report.html"
    assert f"report: {report}" in result.stderr
    page = report.read_text(encoding="utf-8")
    assert 'id="grid"' in page and 'id="traces"' in page


def test_no_report(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    result = runner.invoke(app, ["run", "--model", "oracle", "-n", "1", "--run-dir", str(run_dir), "--no-report"])
    assert result.exit_code == 0, result.output
    assert not (run_dir / "report.html").exists() and "report:" not in result.output
