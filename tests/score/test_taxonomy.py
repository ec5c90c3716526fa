"""Failure taxonomy: scripted agents that fail on purpose land in the right mode; labels are a pure
function of the trace; `toolprism score` reproduces identical output from a stored run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.backends import ModelTurn, OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.score import FailureMode, diagnose
from toolprism.shaping import Variant

DOMAIN = get_domain("smart_home")
SPACE = DOMAIN.action_space()
TASKS = DOMAIN.tasks(0)
GROUP = {op.name: op.group for op in SPACE.operations}
# a one-action write whose operation has an enumerated argument and is not in the 'scenes' class
SINGLE = next(
    t
    for t in TASKS
    if len(t.gold) == 1
    and SPACE.get(t.gold[0].op).kind == "write"
    and GROUP[t.gold[0].op] != "scenes"
    and any(p.enum for p in SPACE.get(t.gold[0].op).params)
)
MULTI = next(t for t in TASKS if len(t.gold) >= 2)
T = ScriptedTurns()


def _episode(task, variant: str, turns) -> Trace:  # noqa: ANN001
    backend = turns if not isinstance(turns, list) else ScriptedBackend(turns)
    return asyncio.run(run_episode(EpisodeSpec(DOMAIN, task, Variant.build(variant, SPACE), 0), backend))


def _gold_call(action):  # noqa: ANN001, ANN202
    return T.call(action.op, action.arguments)


def _other_value(action):  # noqa: ANN001, ANN202
    """The gold call with its first enumerated argument changed to another allowed value."""
    args = action.arguments
    param = next(p for p in SPACE.get(action.op).params if p.enum)
    args[param.name] = next(v for v in param.enum if v != args[param.name])
    return T.call(action.op, args)


CASES = {
    FailureMode.LIVELOCK: (SINGLE, "native", [T.call("list_scenes", {}) for _ in range(20)]),
    FailureMode.PROTOCOL: (SINGLE, "transaction", [T.call(f"commit_{SINGLE.gold[0].op}", {"txn_id": "txn_9"})]),
    FailureMode.REJECTED_STUCK: (SINGLE, "merge", [_gold_call(SINGLE.gold[0])]),
    FailureMode.WRONG_CLASS: (SINGLE, "native", [T.call("list_scenes", {})]),
    FailureMode.UNDER_EXEC: (MULTI, "native", [_gold_call(MULTI.gold[0])]),
    FailureMode.OVER_EXEC: (SINGLE, "native", [_gold_call(SINGLE.gold[0]), _gold_call(SINGLE.gold[0])]),
    FailureMode.WRONG_ARGS: (SINGLE, "native", [_other_value(SINGLE.gold[0])]),
    FailureMode.OTHER: (SINGLE, "native", [ModelTurn(raw="", error="prompt exceeds the context")]),
}


@pytest.mark.parametrize("mode", list(CASES))
def test_each_failing_agent_lands_in_its_mode(mode: FailureMode) -> None:
    task, variant, turns = CASES[mode]
    diagnosis = diagnose(_episode(task, variant, turns))
    assert not diagnosis.success and diagnosis.mode is mode


def test_success_has_no_mode() -> None:
    diagnosis = diagnose(_episode(MULTI, "transaction", OracleBackend()))
    assert diagnosis.success and diagnosis.mode is None and diagnosis.schema_form_success


def test_native_names_under_merge_are_schema_form_successes() -> None:
    diagnosis = diagnose(_episode(SINGLE, "merge", [_gold_call(SINGLE.gold[0])]))
    assert diagnosis.schema_form_calls == 1 and diagnosis.schema_form_success and not diagnosis.success
    wrong = diagnose(_episode(SINGLE, "merge", [_other_value(SINGLE.gold[0])]))
    assert wrong.schema_form_calls == 1 and not wrong.schema_form_success


@pytest.mark.parametrize("mode", list(CASES))
def test_labels_are_a_pure_function_of_the_trace(mode: FailureMode) -> None:
    trace = _episode(*CASES[mode])
    reloaded = Trace.model_validate_json(trace.model_dump_json())
    assert diagnose(reloaded) == diagnose(trace)


def test_score_reproduces_identical_output_from_a_stored_run(tmp_path: Path) -> None:
    summary = evaluate(RunConfig(model="oracle", variants=["native", "merge"], tasks=2), run_dir=tmp_path / "r")
    runner = CliRunner()
    first = runner.invoke(app, ["score", str(tmp_path / "r"), "--json"])
    second = runner.invoke(app, ["score", str(tmp_path / "r"), "--json"])
    assert first.exit_code == 0 and first.stdout == second.stdout
    scored = json.loads(first.stdout)
    assert [v["success_rate"] for v in scored["variants"]] == [v.success_rate for v in summary.variants]
    assert all(v["modes"] == {} for v in scored["variants"])
    table = runner.invoke(app, ["score", str(tmp_path / "r")])
    assert table.exit_code == 0 and "schema-form success" in table.stdout
    assert runner.invoke(app, ["score", str(tmp_path / "r")]).stdout == table.stdout  # byte-identical tables
    missing = runner.invoke(app, ["score", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "not a directory" in missing.output


STAGE_OF_MODE = {
    FailureMode.LIVELOCK: "S1",  # it kept reading scenes: a tool the task does not need
    FailureMode.PROTOCOL: "S1",  # the commit never ran: the needed operation was not reached
    FailureMode.REJECTED_STUCK: "S1",
    FailureMode.WRONG_CLASS: "S1",
    FailureMode.UNDER_EXEC: "S1",
    FailureMode.OVER_EXEC: "S5",  # right tool, right values, once too often
    FailureMode.WRONG_ARGS: "S3",
    FailureMode.OTHER: "S1",
}


@pytest.mark.parametrize("mode", list(CASES))
def test_each_failing_agent_lands_in_its_earliest_stage(mode: FailureMode) -> None:
    from toolprism.score import score_stages

    task, variant, turns = CASES[mode]
    trace = _episode(task, variant, turns)
    staged = score_stages(trace)
    assert staged.stages["S5"] == "fail" and staged.earliest_failed_stage == STAGE_OF_MODE[mode], staged
    assert staged.observed_error == mode.value
    if mode in (FailureMode.PROTOCOL, FailureMode.REJECTED_STUCK):
        assert staged.stages["S2"] == "fail"  # the rejected call was never followed by an accepted one
