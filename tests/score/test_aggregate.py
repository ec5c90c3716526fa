"""Aggregates: bootstrap intervals, per-cell success, best-vs-worst variant gaps, Parquet export."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.errors import ConfigError
from toolprism.score import STAGES, aggregate, episode_frame, success_interval, variant_gap


def test_bootstrap_interval_contains_the_rate_and_narrows_with_more_episodes() -> None:
    small = [True, False] * 5
    large = [True, False] * 200
    low_s, high_s = success_interval(small)
    low_l, high_l = success_interval(large)
    assert low_s <= 0.5 <= high_s and low_l <= 0.5 <= high_l
    assert high_l - low_l < high_s - low_s
    assert success_interval(small) == (low_s, high_s)  # seeded: deterministic


def test_unanimous_outcomes_get_an_interval_that_shrinks_with_more_episodes_not_a_point() -> None:
    low4, high4 = success_interval([True] * 4)
    low40, high40 = success_interval([True] * 40)
    assert high4 == high40 == 1.0 and low4 < low40 < 1.0
    assert round(low4, 2) == 0.51  # Wilson score interval for 4 of 4 at 95%
    none_low, none_high = success_interval([False])
    assert none_low == 0.0 and 0.5 < none_high < 1.0


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
    # no tool called: S1 (missing tools) and S5 fail at the end, S1 first in pipeline order
    assert set(frame["earliest_failed_stage"]) == set(frame["source_stage"]) == {"S1"}
    assert set(frame["trb_primary_error"]) == set(frame["trb_observed_error"]) == {"tool_misselection"}
    assert not frame["cascade"].any()
    out = tmp_path / "episodes.parquet"
    result = CliRunner().invoke(app, ["score", str(run), "--parquet", str(out), "--json"])
    assert result.exit_code == 0, result.output
    back = pd.read_parquet(out)
    assert back["task_id"].tolist() == frame["task_id"].tolist()
    assert back.drop(columns=["source_stage", "boundary_violation"]).equals(
        frame.drop(columns=["source_stage", "boundary_violation"])
    )


def test_episode_frame_splits_conditions_into_subtype_and_severity(tmp_path: Path) -> None:
    config = RunConfig(
        model="oracle",
        domains=["smart_home"],
        variants=["native"],
        tasks=2,
        perturbations=["C2:light", "A3:heavy+C4:heavy"],
    )
    evaluate(config, run_dir=tmp_path / "run")
    frame = episode_frame(tmp_path / "run")  # one run directory, or several in a list
    cells = set(zip(frame["condition"], frame["subtype"], frame["severity"], strict=True))
    assert cells == {("", "", ""), ("C2:light", "C2", "light"), ("A3:heavy+C4:heavy", "A3+C4", "heavy")}
    assert set(zip(frame["subtype"], frame["family"], strict=True)) == {("", ""), ("C2", "C"), ("A3+C4", "A+C")}
    assert frame["earliest_failed_stage"].isna().all() and frame["trb_primary_error"].isna().all()  # all succeed
    per_subtype = aggregate(frame[frame["subtype"] != ""], by="subtype")
    assert per_subtype[["subtype", "success_rate"]].values.tolist() == [["A3+C4", 1.0], ["C2", 1.0]]
    with pytest.raises(ConfigError, match="no column"):
        aggregate(frame, by=["varient"])
