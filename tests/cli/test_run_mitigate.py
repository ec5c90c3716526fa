"""``toolprism run --mitigate``: the mitigations are checked (a bad one lists the choices), shown in
the printed summary, recorded in the header and every trace; ``--resume`` keeps them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.run import RunStore

runner = CliRunner()
RUN = ["run", "--model", "oracle", "-d", "garden", "-n", "2", "--variants", "native,merge", "--no-report"]


def _recorded(run_dir: Path) -> tuple[list[str], set[tuple[str, ...]], list[str]]:
    """The header's mitigations, those of the stored traces, and the traces' system prompts."""
    store = RunStore.open(run_dir)
    try:
        traces = [store.trace(r.episode_id) for r in store.results()]
        return (
            store.header.config.mitigations,
            {tuple(t.mitigations) for t in traces},
            [t.messages[0]["content"] for t in traces if t.variant == "merge"],
        )
    finally:
        store.close()


def test_help_names_the_mitigations() -> None:
    result = runner.invoke(app, ["run", "--help"], terminal_width=200, env={"COLUMNS": "200"})
    text = re.sub(r"[\s│]+", " ", result.stdout)
    expected = "--mitigate MITIGATIONS Training-free mitigations (comma list or repeated): instruction, constrain-"
    assert expected in text


def test_a_bad_mitigation_lists_the_choices(tmp_path: Path) -> None:
    result = runner.invoke(app, [*RUN, "--mitigate", "instruction,prayer", "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "unknown mitigation 'prayer' (known: instruction, constrain-first, constrain-all)" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "r").exists()
    both = runner.invoke(app, [*RUN, "--mitigate", "constrain-first", "--mitigate", "constrain-all"])
    assert both.exit_code == 2 and "constrain-first and constrain-all cannot be combined" in both.stderr


def test_instruction_runs_on_the_oracle_and_is_recorded(tmp_path: Path) -> None:
    plain_dir, told_dir = tmp_path / "plain", tmp_path / "told"
    assert runner.invoke(app, [*RUN, "--run-dir", str(plain_dir)]).exit_code == 0
    result = runner.invoke(app, [*RUN, "--mitigate", "instruction", "--run-dir", str(told_dir)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "success per variant — oracle — mitigations: instruction" in result.stdout
    header, traces, prompts = _recorded(told_dir)
    assert header == ["instruction"] and traces == {("instruction",)}
    plain_header, plain_traces, plain_prompts = _recorded(plain_dir)
    assert plain_header == [] and plain_traces == {()}
    assert "dispatcher" in prompts[0] and "dispatcher" not in plain_prompts[0]  # merge's convention
    summary = runner.invoke(app, [*RUN, "--mitigate", "instruction", "--run-dir", str(tmp_path / "j"), "--json"])
    document = json.loads(summary.stdout)
    assert document["mitigations"] == ["instruction"] and {v["success_rate"] for v in document["variants"]} == {1.0}


def test_resume_refuses_other_mitigations_and_keeps_its_own(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert runner.invoke(app, [*RUN, "--mitigate", "instruction", "--run-dir", str(run_dir)]).exit_code == 0
    refused = runner.invoke(app, ["run", "--resume", str(run_dir), "--mitigate", "constrain-first", "--no-report"])
    assert refused.exit_code == 2
    assert "was run with mitigations instruction; it cannot be resumed with constrain-first" in refused.stderr
    kept = runner.invoke(app, ["run", "--resume", str(run_dir), "--no-report", "--json"])
    assert kept.exit_code == 0 and json.loads(kept.stdout)["mitigations"] == ["instruction"]


def test_score_baseline_warns_about_settings_other_than_the_mitigation(tmp_path: Path) -> None:
    cli = CliRunner()
    common = ["run", "--model", "oracle", "-d", "garden", "-n", "2", "-v", "native", "--no-report"]
    assert cli.invoke(app, [*common, "--run-dir", str(tmp_path / "base")]).exit_code == 0
    other = ["--mitigate", "instruction", "--control", "loose", "--max-turns", "4"]
    assert cli.invoke(app, [*common, *other, "--run-dir", str(tmp_path / "mit")]).exit_code == 0
    result = cli.invoke(app, ["score", str(tmp_path / "mit"), "--baseline", str(tmp_path / "base"), "--json"])
    assert result.exit_code == 0, result.output
    differences = json.loads(result.stdout)["mitigation"]["differences"]
    assert differences == ["control: 'strict' vs 'loose'", "max_turns: 20 vs 4"]
    same = cli.invoke(app, ["score", str(tmp_path / "base"), "--baseline", str(tmp_path / "base"), "--json"])
    assert json.loads(same.stdout)["mitigation"]["differences"] == []
