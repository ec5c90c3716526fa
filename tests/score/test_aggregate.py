"""Aggregates: bootstrap intervals, per-cell success, best-vs-worst variant gaps, Parquet export."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.score import STAGES, aggregate, episode_frame, success_interval, variant_gap


def test_bootstrap_interval_contains_the_rate_and_narrows_with_more_episodes() -> None:
    small = [True, False] * 5
    large = [True, False] * 200
    low_s, high_s = success_interval(small)
    low_l, high_l = success_interval(large)
    assert low_s <= 0.5 <= high_s and low_l <= 0.5 <= high_l
    assert high_l - low_l < high_s - low_s
    assert success_interval(small) == (low_s, high_s)  # seeded: deterministic
    assert success_interval([True, True, True]) == (1.0, 1.0) and success_interval([False]) == (0.0, 0.0)


def test_aggregate_and_gap_on_a_hand_made_frame() -> None:
    frame = pd.DataFrame(
        {
            "model": ["m"] * 6,
            "variant": ["native"] * 3 + ["merge"] * 3,
            "condition": [""] * 6,
            "success": [True, True, False, False, False, True],
        }
    )
    cells = aggregate(frame)
    assert cells["variant"].tolist() == ["merge", "native"]  # sorted
    assert cells["success_rate"].round(3).tolist() == [0.333, 0.667]
    assert (cells["ci_low"] <= cells["success_rate"]).all() and (cells["success_rate"] <= cells["ci_high"]).all()
    gap = variant_gap(frame).iloc[0]
    assert (gap["best"], gap["worst"]) == ("native", "merge") and gap["gap"] == pytest.approx(1 / 3)


def test_episode_frame_from_a_stored_run_and_parquet_round_trip(tmp_path: Path) -> None:
    T = ScriptedTurns()
    run = tmp_path / "run"
    evaluate(
        RunConfig(model="scripted", domains=["smart_home"], variants=["native", "merge"], tasks=2),
        run_dir=run,
        backend=ScriptedBackend([T.answer("I did nothing.")]),
    )
    frame = episode_frame([run])
    assert len(frame) == 4 and not frame["success"].any()
    assert set(frame["mode"]) == {"under_exec"} and set(frame["S5"]) == {"fail"}
    assert set(STAGES) <= set(frame.columns)
    out = tmp_path / "episodes.parquet"
    result = CliRunner().invoke(app, ["score", str(run), "--parquet", str(out), "--json"])
    assert result.exit_code == 0, result.output
    back = pd.read_parquet(out)
    assert back["task_id"].tolist() == frame["task_id"].tolist()
    assert back.drop(columns=["source_stage", "boundary_violation"]).equals(
        frame.drop(columns=["source_stage", "boundary_violation"])
    )
