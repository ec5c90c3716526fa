"""BFCL's real entries (``../shared/external/bfcl``; skipped when absent): every acceptable answer
passes the checker, every entry becomes a pack or is skipped for a stated reason, and the oracle
scores 100% by both scorers under the native and a merged variant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _bfcl_cases import right_outputs
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.errors import ConfigError
from toolprism.interop import (
    BFCL_CATEGORIES,
    BfclTask,
    bfcl_check,
    gold_calls,
    import_bfcl,
    read_bfcl,
    score_bfcl_run,
)
from toolprism.schema import ToolCall

AST_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")
runner = CliRunner()


@pytest.fixture(scope="module")
def data() -> Path:
    path = Path(__file__).resolve().parents[3] / "shared" / "external" / "bfcl"
    if not path.is_dir():
        pytest.skip("../shared/external/bfcl is not present")
    return path


def _native(task: BfclTask, output: list[dict]) -> list[ToolCall]:
    names = {op.source_name: op.name for op in task.space.operations}
    return [ToolCall(names[name], arguments) for call in output for name, arguments in call.items()]


@pytest.mark.parametrize("category", BFCL_CATEGORIES)
def test_every_entry_is_read_with_its_possible_answer(data: Path, category: str) -> None:
    lines = [json.loads(line) for line in (data / f"BFCL_v4_{category}.json").read_text().splitlines() if line.strip()]
    tasks = read_bfcl(data, category)
    assert [t.id for t in tasks] == [e["id"] for e in lines]
    assert all(t.query and t.space.operations for t in tasks)
    assert all(bool(t.answers) == (category != "irrelevance") for t in tasks)


@pytest.mark.parametrize("category", AST_CATEGORIES)
def test_every_acceptable_answer_of_every_entry_passes(data: Path, category: str) -> None:
    failures, checked = [], 0
    for task in read_bfcl(data, category):
        for label, output in right_outputs(task):
            verdict = bfcl_check(task, _native(task, output))
            checked += 1
            if not verdict.valid and label != "reversed":  # BFCL's greedy matching may refuse a reordering
                failures.append((task.id, label, verdict))
    assert checked >= len(read_bfcl(data, category))
    assert not failures, failures[:5]


def test_irrelevance_passes_with_no_call_only(data: Path) -> None:
    for task in read_bfcl(data, "irrelevance"):
        assert bfcl_check(task, []).valid
        op = task.space.operations[0]
        assert bfcl_check(task, [ToolCall(op.name, {})]).error_type == "irrelevance_error:decoder_success"


@pytest.mark.parametrize("category", AST_CATEGORIES)
def test_every_entry_becomes_a_pack_or_is_skipped_for_its_schema(data: Path, category: str) -> None:
    tasks = {t.domain: t for t in read_bfcl(data, category)}
    imported = import_bfcl(data, category)
    assert len(imported.packs) + len(imported.skipped) == len(tasks)
    for entry, _reason in imported.skipped:
        with pytest.raises(ConfigError, match="fits its schema"):
            gold_calls(tasks[entry])
    for pack in imported.packs:
        task = tasks[pack.name]
        assert pack.tasks[0].easy == task.query
        assert all("default" not in p for t in pack.tools for p in t.parameters.get("properties", {}).values())
        gold = [pack.action_space().action(c.name, c.arguments).call() for c in pack.tasks[0].gold]
        assert bfcl_check(task, gold, numbers="json").valid, pack.name


def test_irrelevance_runs_under_variants_and_no_call_is_the_success(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "packs"
    made = runner.invoke(
        app, ["import", "bfcl", "--data", str(data), "-c", "irrelevance", "--limit", "3", "-o", str(out)]
    )
    assert made.exit_code == 0, made.output
    packs = sorted(out.glob("irrelevance/*.json"))
    assert len(packs) == 3 and all(not json.loads(p.read_text())["tasks"][0]["gold"] for p in packs)
    run_dir = tmp_path / "run"
    args = ["run", "--model", "oracle", "-d", ",".join(map(str, packs)), "-v", "native,merge,discovery"]
    ran = runner.invoke(app, [*args, "--run-dir", str(run_dir), "--no-report"])
    assert ran.exit_code == 0, ran.output
    scored = score_bfcl_run(run_dir, data)
    assert len(scored.episodes) == 9 and all(e.valid and e.multiset_success for e in scored.episodes)
    assert {r.category for r in scored.rows} == {"irrelevance"}


def _integral_floats_in_float_arrays(task: BfclTask, calls: list[ToolCall]) -> bool:
    docs = {d["name"]: d["parameters"]["properties"] for d in task.functions}
    for call in calls:
        props = docs[task.space.get(call.name).source_name]
        for param, value in call.arguments.items():
            schema = props.get(param, {})
            if schema.get("type") in ("array", "tuple") and schema.get("items", {}).get("type") == "float":
                if any(isinstance(v, float) and v.is_integer() for v in value):
                    return True
    return False


def test_the_oracle_scores_100_percent_by_both_scorers_under_native_and_merge(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "packs"
    made = runner.invoke(
        app,
        [
            "import",
            "bfcl",
            "--data",
            str(data),
            "-c",
            ",".join(AST_CATEGORIES),
            "--limit",
            "14",
            "-o",
            str(out),
            "--json",
        ],
    )
    assert made.exit_code == 0, made.output
    summary = json.loads(made.output)
    assert [c["packs"] for c in summary["categories"]] == [14, 14, 14, 14]
    sample = sorted(out.glob("*/*_[0-2].json")) + sorted(out.glob("simple_python/simple_python_13.json"))
    run_dir = tmp_path / "run"
    variants = "native,merge(by=full,args=flat)"
    ran = runner.invoke(
        app, ["run", "--model", "oracle", "-d", ",".join(map(str, sample)), "-v", variants, "--run-dir", str(run_dir)]
    )
    assert ran.exit_code == 0, ran.output
    as_json = score_bfcl_run(run_dir, data, numbers="json")
    assert as_json.not_bfcl == 0 and as_json.unscored == 0
    assert len(as_json.episodes) == 2 * len(sample)
    assert all(e.valid and e.multiset_success for e in as_json.episodes)
    # BFCL's Python numbers: the oracle writes 1.0 as 1, which BFCL refuses inside arrays of floats, only there
    tasks = {t.id: t for c in AST_CATEGORIES for t in read_bfcl(data, c)}
    as_python = score_bfcl_run(run_dir, data)
    for e in as_python.episodes:
        task = tasks[e.entry]
        canonical = [ToolCall(c.name, json.loads(json.dumps(c.arguments))) for c in gold_calls(task)]
        assert e.valid != _integral_floats_in_float_arrays(task, canonical), e
    assert any(not e.valid for e in as_python.episodes)  # simple_python_13 is in the sample
    scored = runner.invoke(app, ["score", str(run_dir), "--bfcl", str(data), "--bfcl-numbers", "json", "--json"])
    assert scored.exit_code == 0, scored.output
    rows = json.loads(scored.output)["bfcl"]["rows"]
    assert {r["variant"] for r in rows} == {"native", "merge(by=full,args=flat)"}
    assert all(r["bfcl_valid"] == r["episodes"] == r["multiset_success"] == r["agree"] for r in rows)


def test_bfcl_scoring_of_a_run_without_bfcl_packs_is_refused(data: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "garden"
    ran = runner.invoke(
        app,
        [
            "run",
            "--model",
            "oracle",
            "-d",
            "garden",
            "-n",
            "1",
            "-v",
            "native",
            "--run-dir",
            str(run_dir),
            "--no-report",
        ],
    )
    assert ran.exit_code == 0, ran.output
    scored = runner.invoke(app, ["score", str(run_dir), "--bfcl", str(data)])
    assert scored.exit_code == 2 and "no episode of a BFCL entry" in scored.output
