"""Failure taxonomy: the paper's seven rules (Action-Space Shaping, ``eval/taxonomy.py``) on
hand-made traces; labels are a pure function of the trace; `toolprism score` reproduces identical
output from a stored run and takes the livelock threshold."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.backends import ModelTurn, OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.domains import domain_names, get_domain
from toolprism.errors import ConfigError
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.schema import ActionSpace
from toolprism.score import FailureMode, diagnose, episode_frame, is_class_arm, protocol_breaks, score_run
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
# two gold writes on different operations, the first with an enumerated argument and a required one
PAIR = next(
    t
    for t in TASKS
    if len(t.gold) >= 2
    and len({a.op for a in t.gold}) == len(t.gold)
    and all(GROUP[a.op] != "scenes" for a in t.gold)
    and any(p.enum for p in SPACE.get(t.gold[0].op).params)
)
CLASS_MERGE = "merge(by=class,args=flat)"
T = ScriptedTurns()


def _episode(task, variant: str, turns, *, max_turns: int = 20) -> Trace:  # noqa: ANN001
    backend = turns if not isinstance(turns, list) else ScriptedBackend(turns)
    spec = EpisodeSpec(DOMAIN, task, Variant.build(variant, SPACE), 0)
    return asyncio.run(run_episode(spec, backend, max_turns=max_turns))


def _gold_call(action):  # noqa: ANN001, ANN202
    return T.call(action.op, action.arguments)


def _other_value(action):  # noqa: ANN001, ANN202
    """The gold call with its first enumerated argument changed to another allowed value."""
    args = action.arguments
    param = next(p for p in SPACE.get(action.op).params if p.enum)
    args[param.name] = next(v for v in param.enum if v != args[param.name])
    return T.call(action.op, args)


def _through(variant: str, op: str, arguments: dict | None = None) -> ModelTurn:
    """The one call that runs native ``op`` under a one-step variant (e.g. its class dispatcher)."""
    call = next(Variant.build(variant, SPACE).plan(SPACE.action(op, arguments or {})))
    return T.call(call.name, dict(call.arguments))


def _oracle_calls(task, variant: str) -> list[tuple[str, dict]]:  # noqa: ANN001
    """The oracle's calls for ``task`` under ``variant``, one per entry, protocol steps included."""
    trace = _episode(task, variant, OracleBackend(), max_turns=64)
    assert diagnose(trace).success
    return [(c.name, c.arguments) for turn in trace.turns for c in turn.calls]


def _replay(calls: list[tuple[str, dict]]) -> list[ModelTurn]:
    return [T.call(name, arguments) for name, arguments in calls]


def _roles(calls: list[tuple[str, dict]], prefix: str) -> list[int]:
    return [i for i, (name, _) in enumerate(calls) if name.startswith(prefix)]


CASES = {
    FailureMode.LIVELOCK: (SINGLE, "native", [T.call("list_scenes", {}) for _ in range(20)]),
    FailureMode.TXN_HANDLE: (
        SINGLE,
        "transaction-shared",
        [T.call(f"commit_{SINGLE.gold[0].op}", {"txn_id": "txn_9"})],
    ),
    FailureMode.REJECTED_STUCK: (SINGLE, "merge", [_gold_call(SINGLE.gold[0])]),
    # the scenes dispatcher instead of the gold operation's own class dispatcher
    FailureMode.WRONG_CLASS: (SINGLE, CLASS_MERGE, [_through(CLASS_MERGE, "list_scenes")]),
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


def test_the_labels_are_the_papers_seven_and_other_in_rule_order() -> None:
    assert [m.value for m in FailureMode] == [
        "livelock", "txn_handle", "rejected_stuck", "wrong_class", "under_exec", "over_exec", "wrong_args", "other",
    ]  # fmt: skip


# --- the paper's rules on the hand-made traces ------------------------------------------


def test_a_wrong_argument_action_with_another_missing_is_under_exec() -> None:
    # one action with a wrong value, the other gold action never made: counts decide (1 < 2)
    diagnosis = diagnose(_episode(PAIR, "native", [_other_value(PAIR.gold[0])]))
    assert diagnosis.mode is FailureMode.UNDER_EXEC and diagnosis.protocol is None


def test_an_extra_read_in_another_group_under_native_is_over_exec_not_wrong_class() -> None:
    turns = [_gold_call(SINGLE.gold[0]), T.call("list_scenes", {})]
    assert GROUP["list_scenes"] != GROUP[SINGLE.gold[0].op]
    assert diagnose(_episode(SINGLE, "native", turns)).mode is FailureMode.OVER_EXEC
    # native is not a class arm; the same read of another class in place of the gold action is wrong_args
    assert diagnose(_episode(SINGLE, "native", [T.call("list_scenes", {})])).mode is FailureMode.WRONG_ARGS


def test_a_call_through_the_wrong_class_dispatcher_under_a_class_merge_is_wrong_class() -> None:
    gold = SINGLE.gold[0]
    extra = [_through(CLASS_MERGE, gold.op, gold.arguments), _through(CLASS_MERGE, "list_scenes")]
    assert diagnose(_episode(SINGLE, CLASS_MERGE, extra)).mode is FailureMode.WRONG_CLASS  # before over_exec
    # an extra action in the gold's own class is no wrong class: over_exec
    twice = [_through(CLASS_MERGE, gold.op, gold.arguments)] * 2
    assert diagnose(_episode(SINGLE, CLASS_MERGE, twice)).mode is FailureMode.OVER_EXEC


def test_a_transaction_begun_and_never_committed_is_txn_handle() -> None:
    calls = _oracle_calls(SINGLE, "transaction-shared")
    (commit,) = _roles(calls, "commit_")
    trace = _episode(SINGLE, "transaction-shared", _replay(calls[:commit]))
    assert trace.rejected_calls == 0 and not trace.actions  # without the flag: under_exec
    diagnosis = diagnose(trace)
    assert diagnosis.mode is FailureMode.TXN_HANDLE and diagnosis.protocol == "dangling_transaction"


def test_a_turn_limit_reached_after_an_answer_on_turn_16_is_livelock() -> None:
    reads = [T.call("list_scenes", {}) for _ in range(15)]
    trace = _episode(SINGLE, "native", [*reads, T.answer("Done.")])
    assert trace.end == "answered" and len(trace.turns) == 16 and trace.max_turns == 20
    assert diagnose(trace).mode is FailureMode.LIVELOCK
    # one turn fewer is not: the 14 reads are more actions than the gold's one
    shorter = _episode(SINGLE, "native", [*reads[:14], T.answer("Done.")])
    assert len(shorter.turns) == 15 and diagnose(shorter).mode is FailureMode.OVER_EXEC


def test_the_livelock_threshold_is_configurable_and_capped_by_the_turn_limit() -> None:
    reads = [T.call("list_scenes", {}) for _ in range(15)]
    answered = _episode(SINGLE, "native", [*reads, T.answer("Done.")])
    assert diagnose(answered, livelock_turns=17).mode is FailureMode.OVER_EXEC
    assert diagnose(answered, livelock_turns=16).mode is FailureMode.LIVELOCK
    assert diagnose(answered, livelock_turns=3).mode is FailureMode.LIVELOCK
    # an episode the runner cut off at a limit below the threshold is a livelock all the same
    cut = _episode(SINGLE, "native", reads, max_turns=8)
    assert cut.end == "turn_limit" and diagnose(cut).mode is FailureMode.LIVELOCK
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ConfigError, match="livelock_turns"):
            diagnose(answered, livelock_turns=bad)


# --- transaction flags, from the call records -----------------------------------------------------


def _first_write_only(task) -> list[tuple[str, dict]]:  # noqa: ANN001
    """The oracle's transaction calls for ``task``'s first gold action only (the rest never made)."""
    calls = _oracle_calls(task, "transaction-shared")
    return calls[: _roles(calls, "commit_")[0] + 1]


def test_a_double_commit_is_txn_handle() -> None:
    calls = _first_write_only(PAIR)
    trace = _episode(PAIR, "transaction-shared", _replay([*calls, calls[-1]]))
    assert trace.rejected_calls == 1 and len(trace.actions) == 1  # without the flag: rejected_stuck
    diagnosis = diagnose(trace)
    assert diagnosis.mode is FailureMode.TXN_HANDLE and diagnosis.protocol == "double_commit"
    # on a task it completes, the double commit is recorded but the episode succeeds
    single = _oracle_calls(SINGLE, "transaction-shared")
    done = diagnose(_episode(SINGLE, "transaction-shared", _replay([*single, single[-1]])))
    assert done.success and done.mode is None and done.protocol == "double_commit"


def test_a_set_after_commit_is_txn_handle() -> None:
    calls = _first_write_only(PAIR)
    (set_call,) = [calls[i] for i in _roles(calls, "set_")[:1]]
    diagnosis = diagnose(_episode(PAIR, "transaction-shared", _replay([*calls, set_call])))
    assert diagnosis.mode is FailureMode.TXN_HANDLE and diagnosis.protocol == "set_after_commit"


def test_a_commit_with_required_writes_missing_and_a_foreign_commit_are_txn_handle() -> None:
    calls = _first_write_only(PAIR)
    begin, commit = calls[0], calls[-1]
    incomplete = diagnose(_episode(PAIR, "transaction-shared", _replay([begin, commit])))
    assert incomplete.mode is FailureMode.TXN_HANDLE and incomplete.protocol == "incomplete_transaction"
    other = PAIR.gold[1].op
    foreign = diagnose(_episode(PAIR, "transaction-shared", _replay([begin, (f"commit_{other}", commit[1])])))
    assert foreign.mode is FailureMode.TXN_HANDLE and foreign.protocol == "foreign_transaction"
    never = diagnose(_episode(PAIR, "transaction-shared", _replay([commit])))
    assert never.mode is FailureMode.TXN_HANDLE and never.protocol == "unknown_transaction"


def _edited(trace: Trace, edit) -> Trace:  # noqa: ANN001
    data = json.loads(trace.model_dump_json())
    edit(data)
    return Trace.model_validate(data)


def test_a_runtime_refused_commit_closes_its_transaction() -> None:
    trace = _episode(SINGLE, "transaction-shared", _replay(_oracle_calls(SINGLE, "transaction-shared")))

    def refuse(data: dict) -> None:
        for turn in data["turns"]:
            for call in turn["calls"]:
                if call["outcome"] == "executed":
                    call.update(outcome="failed", reply={"error": "timeout"}, layer=0)
        data["actions"] = []

    refused = _edited(trace, refuse)
    assert protocol_breaks(refused) == [] and diagnose(refused).mode is FailureMode.UNDER_EXEC


def test_a_commit_run_without_its_required_writes_is_flagged() -> None:
    # a control that runs an incomplete commit anyway (the paper's loose control) still flags it
    gold = SINGLE.gold[0]
    required = next(p.name for p in SPACE.get(gold.op).params if p.required)
    trace = _episode(SINGLE, "transaction-shared", _replay(_oracle_calls(SINGLE, "transaction-shared")))

    def drop(data: dict) -> None:
        for record in [c["action"] for t in data["turns"] for c in t["calls"] if c["action"]] + data["actions"]:
            record["args"].pop(required)

    loose = _edited(trace, drop)
    assert protocol_breaks(loose, SPACE) == ["incomplete_transaction"] and protocol_breaks(trace, SPACE) == []
    assert diagnose(loose).mode is FailureMode.TXN_HANDLE


# --- toolprism's finer protocol distinctions: a field, not a label ---------------------------------


def test_handles_and_discovery_breaks_are_the_protocol_field_not_the_label() -> None:
    reference = [c for c in _oracle_calls(SINGLE, "reference") if any(k.endswith("_handle") for k in c[1])]
    assert reference, "the gold call passes a value by handle"
    name, arguments = reference[-1]
    stale = {k: ("h_99" if k.endswith("_handle") else v) for k, v in arguments.items()}
    handle = diagnose(_episode(SINGLE, "reference", [T.call(name, stale)]))
    assert handle.mode is FailureMode.REJECTED_STUCK and handle.protocol == "unknown_handle"
    invoke = next(c for c in _oracle_calls(SINGLE, "discovery") if c[0] != "list_methods")
    undiscovered = diagnose(_episode(SINGLE, "discovery", _replay([invoke])))
    assert undiscovered.mode is FailureMode.REJECTED_STUCK and undiscovered.protocol == "undiscovered"


def test_success_has_no_mode() -> None:
    diagnosis = diagnose(_episode(MULTI, "transaction-shared", OracleBackend()))
    assert diagnosis.success and diagnosis.mode is None and diagnosis.protocol is None
    assert diagnosis.schema_form_success


def test_native_names_under_merge_are_schema_form_successes() -> None:
    diagnosis = diagnose(_episode(SINGLE, "merge", [_gold_call(SINGLE.gold[0])]))
    assert diagnosis.schema_form_calls == 1 and diagnosis.schema_form_success and not diagnosis.success
    wrong = diagnose(_episode(SINGLE, "merge", [_other_value(SINGLE.gold[0])]))
    assert wrong.schema_form_calls == 1 and not wrong.schema_form_success


def test_class_arms_are_class_routing_specs_or_whole_catalogs() -> None:
    assert is_class_arm(CLASS_MERGE, SPACE) and is_class_arm("rename(style=namespaced)", SPACE)
    assert is_class_arm("discovery", SPACE) and is_class_arm("split|merge(args=flat,by=class)", SPACE)
    for spec in ("", "native", "merge(by=full,args=flat)", "merge(by=random,k=2,seed=0)", "rename(style=opaque)"):
        assert not is_class_arm(spec, SPACE), spec
    # a catalog whose classes are whole domains: every arm over it is a class arm (the paper's)
    names = [n for n in domain_names() if n != "smart_home"][:2]
    ops = [
        replace(op, name=f"{name}__{op.name}", group=name)
        for name in names
        for op in get_domain(name).action_space().operations
    ]
    whole = ActionSpace("whole", ops)
    assert is_class_arm("", whole) and not is_class_arm("", ActionSpace("x", [replace(o, group="") for o in ops]))


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


def test_score_takes_the_livelock_threshold(tmp_path: Path) -> None:
    # 16 reads and an answer: 17 turns, under a turn limit of 20
    agent = ScriptedBackend([*(T.call("list_scenes", {}) for _ in range(16)), T.answer("Done.")])
    config = RunConfig(model="scripted", domains=["smart_home"], variants=["native"], tasks=1, max_turns=20)
    evaluate(config, run_dir=tmp_path / "r", backend=agent)
    runner = CliRunner()
    default = json.loads(runner.invoke(app, ["score", str(tmp_path / "r"), "--json"]).stdout)
    assert default["livelock_turns"] == 16 and default["variants"][0]["modes"] == {"livelock": 1}
    raised = runner.invoke(app, ["score", str(tmp_path / "r"), "--json", "--livelock-turns", "18"])
    assert raised.exit_code == 0, raised.output
    assert json.loads(raised.stdout)["variants"][0]["modes"] == {"over_exec": 1}
    assert score_run(tmp_path / "r", livelock_turns=17).variants[0].modes == {FailureMode.LIVELOCK: 1}
    frame = episode_frame(tmp_path / "r", livelock_turns=18)
    assert list(frame["mode"]) == ["over_exec"] and list(frame["protocol"]) == [None]
    assert list(episode_frame(tmp_path / "r")["mode"]) == ["livelock"]
    refused = runner.invoke(app, ["score", str(tmp_path / "r"), "--livelock-turns", "0"])
    assert refused.exit_code == 2 and "livelock-turns" in refused.output
    with pytest.raises(ConfigError, match="livelock_turns"):
        score_run(tmp_path / "r", livelock_turns=0)


STAGE_OF_MODE = {
    FailureMode.LIVELOCK: "S1",  # it kept reading scenes: a tool the task does not need
    # the refused call (S2) comes before the end, where the operation never reached (S1) shows
    FailureMode.TXN_HANDLE: "S2",
    FailureMode.REJECTED_STUCK: "S2",
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
    if mode in (FailureMode.TXN_HANDLE, FailureMode.REJECTED_STUCK):
        assert staged.stages["S2"] == "fail"  # the rejected call was never followed by an accepted one
