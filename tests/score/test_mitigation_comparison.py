"""A mitigated run against its baseline (``toolprism score RUN --baseline BASE``): per-variant
success and difference, schema-valid first calls, trained marks, and the refusal of runs that do
not share tasks or seeds. The runs use :class:`_mitigated_runs.ConventionReader`, which solves
``merge`` only when told its calling convention."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _mitigated_runs import reader_run  # tests/_mitigated_runs.py
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.errors import ConfigError
from toolprism.run import RunStore
from toolprism.score import (
    check_comparable,
    compare_mitigation,
    first_call_valid,
    score_run,
    trained_variants,
    wilson_interval,
)

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mitigation")
    return {
        "baseline": reader_run(root / "baseline"),
        "instruction": reader_run(root / "instruction", ["instruction"]),
        "more_tasks": reader_run(root / "more_tasks", ["instruction"], tasks=3),
        "other_seed": reader_run(root / "other_seed", ["instruction"], seed=1),
    }


def test_the_instruction_repairs_merge_and_leaves_native_alone(runs: dict[str, Path]) -> None:
    comparison = compare_mitigation(score_run(runs["baseline"]), score_run(runs["instruction"]), trained=["merge"])
    assert comparison.baseline_mitigations == [] and comparison.mitigations == ["instruction"]
    assert comparison.baseline_model == comparison.model == "reader"
    rows = {r.variant: r for r in comparison.rows}
    assert list(rows) == ["native", "merge"] and {r.condition for r in rows.values()} == {""}
    native, merge = rows["native"], rows["merge"]
    assert (native.baseline.successes, native.mitigated.successes, native.baseline.episodes) == (2, 2, 2)
    assert (merge.baseline.successes, merge.mitigated.successes) == (0, 2)
    assert native.delta == 0 and native.delta_low < 0 < native.delta_high and not native.significant
    # 2/2 against 0/2: Newcombe's bounds from the two Wilson intervals
    (l1, _), (_, u2) = wilson_interval(2, 2), wilson_interval(0, 2)
    assert merge.delta == 1.0 and merge.delta_high == 1.0
    assert merge.delta_low == pytest.approx(1 - ((1 - l1) ** 2 + u2**2) ** 0.5) and merge.significant
    # the success intervals are the ones toolprism score gives the cells
    scored = {v.variant: v for v in score_run(runs["instruction"]).variants}
    assert (merge.mitigated.ci_low, merge.mitigated.ci_high) == (scored["merge"].ci_low, scored["merge"].ci_high)
    # without the convention the reader calls native names, which merge does not show
    assert (merge.baseline.first_call_valid_rate, merge.mitigated.first_call_valid_rate) == (0.0, 1.0)
    assert (native.baseline.first_call_valid_rate, native.mitigated.first_call_valid_rate) == (1.0, 1.0)
    assert merge.first_call_delta == 1.0
    assert (merge.trained, native.trained) == (True, False) and comparison.trained_absent == []


def test_first_call_validity_counts_schema_rejections_only(runs: dict[str, Path]) -> None:
    store = RunStore.open(runs["baseline"])
    try:
        traces = {r.variant: store.trace(r.episode_id) for r in store.results()}
    finally:
        store.close()
    merge = traces["merge"]
    assert merge.calls[0].outcome == "rejected" and merge.calls[0].rejection == "unknown_tool"
    assert not first_call_valid(merge) and first_call_valid(traces["native"])
    protocol = merge.calls[0].model_copy(update={"rejection": "unknown_handle"})  # the right form at the wrong time
    turns = [merge.turns[0].model_copy(update={"calls": [protocol]}), *merge.turns[1:]]
    assert first_call_valid(merge.model_copy(update={"turns": turns}))
    assert not first_call_valid(merge.model_copy(update={"turns": []}))  # no call at all


def test_runs_that_do_not_share_tasks_or_seeds_are_refused(runs: dict[str, Path]) -> None:
    with pytest.raises(ConfigError) as info:
        check_comparable(runs["baseline"], runs["more_tasks"])
    assert len([p for p in info.value.problems if "is posed by the mitigated run only" in p]) == 1
    with pytest.raises(ConfigError, match="the baseline ran at seed 0, the mitigated run at 1"):
        compare_mitigation(score_run(runs["baseline"]), score_run(runs["other_seed"]))
    check_comparable(runs["baseline"], runs["instruction"])  # the same tasks at the same seed


def test_trained_variants_from_a_list_or_a_manifest(tmp_path: Path) -> None:
    assert trained_variants("merge, native,merge") == ["merge", "native"]
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"train": {"variants": ["merge"], "domains": ["garden"]}, "other": 1}))
    assert trained_variants(str(manifest)) == ["merge"]
    manifest.write_text(json.dumps({"train": {"domains": ["garden"]}}))
    with pytest.raises(ConfigError, match="no list of variant names at train.variants"):
        trained_variants(str(manifest))
    with pytest.raises(ConfigError, match="cannot read the manifest"):
        trained_variants(str(tmp_path / "missing.json"))


def test_score_baseline_prints_the_table_and_one_json_document(runs: dict[str, Path], tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"train": {"variants": ["merge", "split"]}}))
    args = ["score", str(runs["instruction"]), "--baseline", str(runs["baseline"]), "--trained", str(manifest)]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    mitigation = document["mitigation"]
    assert mitigation["trained"] == ["merge", "split"] and mitigation["trained_absent"] == ["split"]
    merge = next(r for r in mitigation["rows"] if r["variant"] == "merge")
    assert merge["delta"] == 1.0 and merge["trained"] is True and merge["mitigated"]["first_call_valid"] == 2
    assert document["variants"]  # the mitigated run's own scores stay in the document
    table = runner.invoke(app, args, terminal_width=250)
    assert table.exit_code == 0
    assert "mitigated (instruction) vs baseline (none), per variant" in table.stdout
    merge_line = next(line for line in table.stdout.splitlines() if "│ merge" in line and "trained" in line)
    assert "0/2 0%" in merge_line and "2/2 100%" in merge_line and "+100 pts" in merge_line
    refused = runner.invoke(app, ["score", str(runs["more_tasks"]), "--baseline", str(runs["baseline"])])
    assert refused.exit_code == 2 and "is posed by the mitigated run only" in refused.stderr
    alone = runner.invoke(app, ["score", str(runs["instruction"]), "--trained", "merge"])
    assert alone.exit_code == 2 and "give --baseline" in alone.stderr
    same = runner.invoke(app, ["score", str(runs["baseline"]), "--baseline", str(runs["baseline"])], terminal_width=250)
    assert same.exit_code == 0 and "note: both runs applied the same mitigations (none)" in same.stdout
