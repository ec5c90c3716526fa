"""``toolprism run --control``: the adapter control is recorded in the run header and in every
trace, and a resumed run keeps its control."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.cli import app
from toolprism.errors import ConfigError
from toolprism.run import RunStore

runner = CliRunner()
RUN = ["run", "--model", "oracle", "-n", "2", "-d", "smart_home", "-v", "native,merge(by=full)", "--json"]


def _controls(run_dir: Path) -> tuple[str, set[str]]:
    """The header's control and the controls of the stored traces."""
    store = RunStore.open(run_dir)
    try:
        return store.header.config.control, {store.trace(r.episode_id).control for r in store.results()}
    finally:
        store.close()


def test_help_lists_the_controls() -> None:
    result = runner.invoke(app, ["run", "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = re.sub(r"[\s│]+", " ", result.stdout)  # the help as one line, without its box
    assert "--control <strict|paper|loose> How the adapter treats invalid calls: 'strict'" in text
    assert "'paper' is the Action" in text and "hard control" in text and "'loose' is its loose control" in text


def test_the_control_is_recorded_in_the_header_and_every_trace(tmp_path: Path) -> None:
    for control in ("strict", "paper", "loose"):
        result = runner.invoke(app, [*RUN, "--control", control, "--run-dir", str(tmp_path / control)])
        assert result.exit_code == 0, result.output
        assert all(v["success_rate"] == 1.0 for v in json.loads(result.stdout)["variants"])  # the oracle: any control
        assert _controls(tmp_path / control) == (control, {control})
    default = runner.invoke(app, [*RUN, "--run-dir", str(tmp_path / "default")])
    assert default.exit_code == 0 and _controls(tmp_path / "default") == ("strict", {"strict"})


def test_an_unknown_control_is_refused() -> None:
    result = runner.invoke(app, [*RUN, "--control", "hard"])
    assert result.exit_code == 2 and "'hard' is not one of 'strict', 'paper', 'loose'" in result.output


def _forget_one_episode(run_dir: Path) -> None:
    with sqlite3.connect(run_dir / "results.sqlite") as db:
        (first,) = db.execute("SELECT episode_id FROM episodes ORDER BY rowid LIMIT 1").fetchone()
        db.execute("DELETE FROM episodes WHERE episode_id = ?", (first,))
        db.execute("DELETE FROM traces WHERE episode_id = ?", (first,))


def test_resume_keeps_the_runs_control_and_refuses_another(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    assert runner.invoke(app, [*RUN, "--control", "paper", "--run-dir", str(run_dir)]).exit_code == 0
    refused = runner.invoke(app, ["run", "--resume", str(run_dir), "--control", "loose"])
    assert refused.exit_code == 2 and "was run under control 'paper'" in refused.output
    assert "cannot be resumed under 'loose'" in refused.output
    _forget_one_episode(run_dir)
    again = runner.invoke(app, ["run", "--resume", str(run_dir), "--json"])  # no --control: the run's
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["episodes"] == 4 and _controls(run_dir) == ("paper", {"paper"})
    _forget_one_episode(run_dir)
    same = runner.invoke(app, ["run", "--resume", str(run_dir), "--control", "paper", "--json"])
    assert same.exit_code == 0, same.output
    assert _controls(run_dir) == ("paper", {"paper"})


def test_evaluate_refuses_to_resume_under_another_control(tmp_path: Path) -> None:
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=1, control="loose")
    evaluate(config, run_dir=tmp_path / "r")
    with pytest.raises(ConfigError, match="was run under control 'loose'.*under 'strict'"):
        evaluate(RunConfig(control="strict"), resume=tmp_path / "r")
    assert evaluate(RunConfig(), resume=tmp_path / "r").episodes == 1  # control not set: the header's is used


def test_a_header_written_before_controls_reads_as_strict(tmp_path: Path) -> None:
    evaluate(RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=1), run_dir=tmp_path / "r")
    path = tmp_path / "r" / "header.json"
    header = json.loads(path.read_text())
    del header["config"]["control"]
    path.write_text(json.dumps(header))
    assert _controls(tmp_path / "r")[0] == "strict"
    with pytest.raises(ConfigError, match="was run under control 'strict'"):
        evaluate(RunConfig(control="paper"), resume=tmp_path / "r")


def test_options_that_change_nothing_are_said(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["run", "--model", "oracle", "-d", "smart_home", "-v", "native", "-n", "1", "--ray-address", "ray://x:1",
         "--cache", "--cache-dir", str(tmp_path / "c"), "--base-url", "http://127.0.0.1:9/v1",
         "--run-dir", str(tmp_path / "r"), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for option in ("--ray-address is used only with --executor ray", "--cache applies to", "--base-url is ignored"):
        assert option in result.stderr
