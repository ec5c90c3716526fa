"""``toolprism diagnose`` on a run with tool-interface (A) and runtime (D) conditions repairs every
failed episode of every family (issue 14, item 10: reported to stop with ``unknown perturbation
subtype``; not reproduced on this code with the oracle or a scripted agent, kept as a guard)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.cli import app

CONDITIONS = ["A1:medium", "A2:heavy", "A3:light", "D1:medium", "D2:heavy", "D3:light", "A2:medium+D2:medium"]


def test_diagnose_repairs_a_and_d_family_failures(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    # one model turn: the oracle is cut off before it answers, so every episode fails
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native", "transaction"], tasks=1,
                       perturbations=CONDITIONS, max_turns=1)  # fmt: skip
    evaluate(config, run_dir=run_dir)
    result = CliRunner().invoke(app, ["diagnose", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    conditions = {r["episode_id"].split("+", 1)[1].split("#")[0] for r in report["repairs"] if "+" in r["episode_id"]}
    assert conditions == set(CONDITIONS)
    assert report["failures"] == len(report["repairs"]) > len(CONDITIONS)
