"""Stage-wise scoring (S1-S5) and cascade-aware attribution on real traces of scripted agents
that fail on purpose, clean and perturbed; labels are a pure function of the trace."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprism.backends import OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.perturb import parse_perturbations, plan
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.score import (
    PRIMARY_ERRORS,
    TRB_ERROR_NAMES,
    TRB_ERRORS,
    StageEvent,
    attribution_summary,
    normalize_failure_type,
    reported_status,
    score_stages,
)
from toolprism.shaping import Variant

DOMAIN = get_domain("smart_home")
SPACE = DOMAIN.action_space()
TASKS = [t for t in DOMAIN.tasks(0) if t.form == "easy"]
T = ScriptedTurns()
SINGLE = next(
    t
    for t in TASKS
    if len(t.gold) == 1
    and SPACE.get(t.gold[0].op).kind == "write"
    and any(p.enum for p in SPACE.get(t.gold[0].op).params)
)
MULTI = next(t for t in TASKS if len(t.gold) >= 2 and len({a.op for a in t.gold}) >= 2)


def episode(task, turns, variant: str = "native", perturb: str | None = None) -> Trace:  # noqa: ANN001
    instances = ()
    if perturb:
        made, skips = plan(task, SPACE, parse_perturbations(perturb), 0)
        assert not skips, skips
        instances = tuple(made)
    spec = EpisodeSpec(DOMAIN, task, Variant.build(variant, SPACE), 0, instances)
    backend = turns if not isinstance(turns, list) else ScriptedBackend(turns)
    return asyncio.run(run_episode(spec, backend))


def report(status: str, failure_type: str | None, retryable: bool, final_result: object = None) -> str:
    """A runtime report as the system prompt of a C or D condition asks for it."""
    fields = {"status": status, "failure_type": failure_type, "retryable": retryable, "final_result": final_result}
    return json.dumps(fields)


def call(action):  # noqa: ANN001, ANN201
    return T.call(action.op, action.arguments)


def other_value(action):  # noqa: ANN001, ANN201
    args = action.arguments
    param = next(p for p in SPACE.get(action.op).params if p.enum)
    args[param.name] = next(v for v in param.enum if v != args[param.name])
    return T.call(action.op, args)


def test_success_passes_every_stage_it_reaches() -> None:
    result = score_stages(episode(MULTI, OracleBackend()))
    assert result.stages == {"S1": "pass", "S2": "pass", "S3": "pass", "S4": "n/a", "S5": "pass"}
    assert result.primary_error is None and not result.cascade


@pytest.mark.parametrize(
    ("name", "task", "turns", "stage", "primary"),
    [
        ("unneeded tool", SINGLE, [T.call("list_scenes", {}), call(SINGLE.gold[0])], "S1", "wrong_tool"),
        ("needed tool never used", MULTI, [call(MULTI.gold[0])], "S1", "missing_tool"),
        ("invalid call not corrected", SINGLE, [T.call("no_such_tool", {})], "S1", "missing_tool"),
        ("wrong value", SINGLE, [other_value(SINGLE.gold[0])], "S3", "wrong_value"),
        ("write repeated", SINGLE, [call(SINGLE.gold[0]), call(SINGLE.gold[0])], "S5", "extra_action"),
    ],
)
def test_clean_failures_land_in_their_stage(name: str, task, turns, stage: str, primary: str) -> None:  # noqa: ANN001
    result = score_stages(episode(task, turns))
    assert result.stages["S5"] == "fail", name
    assert result.stages[stage] == "fail" and result.primary_error == primary, (name, result)
    assert result.boundary_violation is None


def test_uncorrected_rejection_fails_schema_grounding() -> None:
    trace = episode(SINGLE, [T.call(SINGLE.gold[0].op, {"bogus": 1})])
    result = score_stages(trace)
    # the refused call (call 0) comes before the end, where the missing tool shows: S2 failed first
    assert result.stages["S2"] == "fail" and result.earliest_failed_stage == "S2"
    assert result.events["S2"] == StageEvent(turn=0, call=0) and result.events["S1"] == StageEvent(turn=1, call=None)
    corrected = score_stages(episode(SINGLE, [T.call(SINGLE.gold[0].op, {"bogus": 1}), call(SINGLE.gold[0])]))
    assert corrected.stages["S2"] == "pass" and corrected.stages["S5"] == "pass"


def test_the_right_tools_in_the_wrong_form_are_attributed_to_schema_grounding() -> None:
    wrong_args = score_stages(episode(SINGLE, [T.call(SINGLE.gold[0].op, {"bogus": 1})]))
    native_names_under_merge = score_stages(episode(MULTI, [call(a) for a in MULTI.gold], variant="merge"))
    commit_never_begun = T.call(f"commit_{SINGLE.gold[0].op}", {"txn_id": "txn_9"})
    broken_protocol = score_stages(episode(SINGLE, [commit_never_begun], variant="transaction"))
    for result in (wrong_args, native_names_under_merge, broken_protocol):
        # the refusal comes first in time and is the cause: a direct schema failure, no cascade
        assert result.stages["S1"] == "fail" and result.earliest_failed_stage == "S2"
        assert (result.source_stage, result.primary_error, result.cascade) == ("S2", "invalid_call", False)
        assert (result.trb_observed_error, result.trb_primary_error) == ("schema_violation", "schema_violation")
    gold_op = SINGLE.gold[0].op
    dispatched = T.call(SPACE.get(gold_op).group, {"operation": gold_op, "bogus": 1})
    wrong_args_under_merge = score_stages(episode(SINGLE, [dispatched], variant="merge-class"))
    assert (wrong_args_under_merge.source_stage, wrong_args_under_merge.primary_error) == ("S2", "invalid_call")
    made_up = score_stages(episode(SINGLE, [T.call("no_such_tool", {})]))
    assert (made_up.source_stage, made_up.primary_error) == ("S1", "missing_tool")  # no tool was right
    assert (made_up.earliest_failed_stage, made_up.cascade) == ("S2", True)  # seen first as a refused form
    assert (made_up.trb_observed_error, made_up.trb_primary_error) == ("schema_violation", "tool_misselection")
    other_op = next(op.name for op in SPACE.operations if op.kind == "write" and op.name != gold_op)
    other_protocol = [T.call(f"commit_{other_op}", {"txn_id": "txn_7"})]  # breaks the protocol on the wrong tool
    wrong_tool = score_stages(episode(SINGLE, other_protocol, variant="transaction"))
    assert (wrong_tool.source_stage, wrong_tool.primary_error) == ("S1", "missing_tool")


def test_runtime_failure_not_retried_is_an_s4_cause_seen_first_as_a_missing_tool() -> None:
    trace = episode(SINGLE, [call(SINGLE.gold[0])], perturb="D2:light")  # gives up after the timeout
    result = score_stages(trace)
    assert trace.failed_calls == 1
    assert result.stages["S4"] == "fail" and result.primary_error == "runtime_not_retried"
    assert result.earliest_failed_stage == "S3" or result.earliest_failed_stage in ("S1", "S4")
    assert result.source_stage == "S4" and result.boundary_violation is False
    turns = [call(SINGLE.gold[0]), call(SINGLE.gold[0])]
    answer = T.answer("Done. " + report("success", "timeout", True))
    retried = score_stages(episode(SINGLE, [*turns, answer], perturb="D2:light"))
    assert retried.stages["S4"] == "pass" and retried.stages["S5"] == "pass"
    assert retried.runtime_report == "reported" and retried.runtime_matches.retryable is True
    # the same retries, but the report is missing or says the wrong thing: S4 checks the runtime fields
    unreported = score_stages(episode(SINGLE, [*turns, T.answer("Done.")], perturb="D2:light"))
    assert unreported.runtime_report == "missing" and unreported.primary_error == "runtime_not_reported"
    wrong = score_stages(episode(SINGLE, [*turns, T.answer(report("ok", "rate_limited", "yes"))], perturb="D2:light"))
    assert wrong.stages["S4"] == "fail" and wrong.primary_error == "runtime_misreported"
    assert (wrong.runtime_matches.status, wrong.runtime_matches.failure_type) == (True, False)


def test_permanent_failure_must_be_reported_not_looped_on() -> None:
    looping = episode(SINGLE, [call(SINGLE.gold[0]) for _ in range(6)], perturb="D1:light")
    assert score_stages(looping).primary_error in ("runtime_looped", "runtime_not_reported")
    silent = score_stages(episode(SINGLE, [call(SINGLE.gold[0]), T.answer("All set!")], perturb="D1:light"))
    assert silent.stages["S4"] == "fail" and silent.primary_error == "runtime_not_reported"
    said = "Sorry, I could not do it: the service is down. " + report("failed", "Service Unavailable", "no")
    honest = episode(SINGLE, [call(SINGLE.gold[0]), T.answer(said)], perturb="D1:light")
    result = score_stages(honest)
    assert result.stages["S4"] == "pass" and result.stages["S5"] == "pass"
    assert result.reported_status == "failure" and result.reported_failure_type == "unavailable"
    assert score_stages(episode(SINGLE, OracleBackend(), perturb="D1:light")).stages["S4"] == "pass"


def _falsified_id_reused() -> list[Trace]:
    """C3:medium on retail, every easy task whose falsified identifier feeds a later gold call:
    the agent reads the falsified return, then calls the later operation with the planted value."""
    retail = get_domain("retail")
    space = retail.action_space()
    traces = []
    for task in [t for t in retail.tasks(0) if t.form == "easy"]:
        made, skips = plan(task, space, parse_perturbations("C3:medium"), 0)
        if skips:
            continue
        change = made[0].params["changes"][0]
        step = made[0].params["step"]
        later = [a for a in task.gold[step + 1 :] if change["true"] in a.arguments.values()]
        if not later:
            continue
        spoiled = [call(a) for a in task.gold[: step + 1]]
        bad = {k: (change["false"] if v == change["true"] else v) for k, v in later[0].arguments.items()}
        spoiled.append(T.call(later[0].op, bad))
        spec = EpisodeSpec(retail, task, Variant.build("native", space), 0, tuple(made))
        traces.append(asyncio.run(run_episode(spec, ScriptedBackend(spoiled))))
    return traces


def test_a_falsified_identifier_used_later_is_a_direct_output_handling_failure_not_a_cascade() -> None:
    # issue 13: S1..S5 order gave earliest S3, source S4, cascade on 3 of 3 such tasks; in time the
    # falsified return is read (S4) before the planted value is used (S3): no cascade (paper: 0.003)
    traces = _falsified_id_reused()
    assert len(traces) >= 3
    for trace in traces:
        result = score_stages(trace)
        assert result.primary_error == "used_falsified_value" and result.source_stage == "S4", result
        assert result.stages["S3"] == "fail" and result.earliest_failed_stage == "S4", result
        assert not result.cascade and result.boundary_violation is False
        native = [i for i, c in enumerate(trace.calls) if c.outcome in ("executed", "failed")]
        read = native[trace.injections[0].call]  # the falsified read: the native call the injection hit
        assert result.events["S4"].call == read < result.events["S3"].call == len(trace.calls) - 1
        assert (result.trb_observed_error, result.trb_primary_error) == ("incorrect_arguments", "incorrect_arguments")


def test_a_timeout_answered_with_a_changed_call_cascades_from_runtime_handling() -> None:
    # D2: the first call times out; instead of repeating it, the agent sends other values. The wrong
    # value (S3) and the unretried failure (S4) show at the same call; built in pipeline order, the
    # value is seen first: a cascade from S4 (the paper's runtime cascade rate is 0.638)
    trace = episode(SINGLE, [call(SINGLE.gold[0]), other_value(SINGLE.gold[0])], perturb="D2:light")
    assert [c.outcome for c in trace.calls] == ["failed", "executed"]
    result = score_stages(trace)
    assert result.stages["S3"] == result.stages["S4"] == "fail"
    assert (result.primary_error, result.source_stage, result.earliest_failed_stage) == (
        "runtime_not_retried", "S4", "S3"
    )  # fmt: skip
    assert result.cascade and result.boundary_violation is False
    assert result.events["S3"] == result.events["S4"] == StageEvent(turn=1, call=1)
    assert (result.trb_observed_error, result.trb_primary_error) == ("incorrect_arguments", "runtime_failure")


def test_attribution_summary_per_family_and_subtype_in_toolrobustbench_terms() -> None:
    falsified = [("C3:medium", score_stages(t)) for t in _falsified_id_reused()]
    d2 = episode(SINGLE, [call(SINGLE.gold[0]), other_value(SINGLE.gold[0])], perturb="D2:light")
    gave_up = episode(SINGLE, [call(SINGLE.gold[0])], perturb="D2:heavy")
    runtime = [("D2:light", score_stages(d2)), ("D2:heavy", score_stages(gave_up))]
    clean = [("", score_stages(episode(MULTI, OracleBackend())))]
    rows = attribution_summary(clean + falsified + runtime)
    assert [(r.family, r.subtype) for r in rows] == [("", None), ("C", None), ("C", "C3"), ("D", None), ("D", "D2")]
    by = {(r.family, r.subtype): r for r in rows}
    assert (by[("", None)].failures, by[("", None)].cascade_rate, by[("", None)].boundary_violation_rate) == (
        0,
        None,
        None,
    )
    observation = by[("C", "C3")]
    assert observation.failures == observation.episodes == len(falsified)
    assert observation.primary_error_shares == {"incorrect_arguments": 1.0} and observation.cascade_rate == 0.0
    assert by[("D", "D2")].primary_error_shares == {"runtime_failure": 1.0}
    assert by[("D", "D2")].observed_error_shares == {"incorrect_arguments": 0.5, "runtime_failure": 0.5}
    assert by[("D", "D2")].cascade_rate == 0.5 and by[("D", "D2")].boundary_violation_rate == 0.0


def test_every_primary_error_has_a_toolrobustbench_name() -> None:
    assert set(TRB_ERRORS) == set(PRIMARY_ERRORS) and set(TRB_ERRORS.values()) == set(TRB_ERROR_NAMES)


def test_stage_verdicts_carry_the_event_where_they_first_failed() -> None:
    assert "list_scenes" not in {a.op for a in MULTI.gold}
    turns = [T.call("list_scenes", {}), T.call(MULTI.gold[0].op, {"bogus": 1}), *[call(a) for a in MULTI.gold]]
    result = score_stages(episode(MULTI, turns))
    assert result.stages == {"S1": "fail", "S2": "pass", "S3": "pass", "S4": "n/a", "S5": "fail"}
    end = StageEvent(turn=len(turns), call=None)  # one call per turn, then the answer
    assert result.events == {  # an unneeded read first; a refused call, corrected: S2 passes
        "S1": StageEvent(turn=0, call=0), "S2": None, "S3": None, "S4": None, "S5": end
    }  # fmt: skip
    wrong_later = [call(MULTI.gold[0]), other_value(MULTI.gold[1]) if SPACE.get(MULTI.gold[1].op).params else None]
    assert wrong_later[1] is not None
    late = score_stages(episode(MULTI, wrong_later))
    assert late.events["S3"] == StageEvent(turn=1, call=1) and late.events["S1"] == StageEvent(turn=2, call=None)
    # two independent errors: the wrong value is seen first (call 1), the missing tool only at the end;
    # the source stays the first stage with a cause in pipeline order (S1), so this counts as a cascade
    assert (late.earliest_failed_stage, late.source_stage, late.cascade) == ("S3", "S1", True)
    assert (result.earliest_failed_stage, result.source_stage, result.cascade) == ("S1", "S1", False)
    assert result.trb_primary_error == "tool_misselection"
    success = score_stages(episode(MULTI, OracleBackend()))
    assert set(success.events.values()) == {None} and success.trb_primary_error is None
    gives_up = score_stages(episode(SINGLE, [call(SINGLE.gold[0])], perturb="D2:light"))  # then answers "Done."
    assert gives_up.events["S4"] == gives_up.events["S5"] == StageEvent(turn=1, call=None)
    assert (gives_up.earliest_failed_stage, gives_up.cascade) == ("S4", False)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("The request timed out.", "timeout"),
        ("TimeoutError after 30s", "timeout"),
        ("got a 429 Too Many Requests", "rate_limited"),
        ("the service is unavailable right now", "unavailable"),
        ("All done!", None),
        ("HTTP 504 from the orders service", "timeout"),
        ("it failed with status 503", "unavailable"),
        ("A refund of $429.00 was issued.", None),
        ("The total was 500 dollars.", None),
        ("Order #W5041187 is on its way.", None),
        ("The calls were throttled.", "rate_limited"),
    ],
)
def test_failure_types_are_matched_after_alias_normalization(text: str, canonical: str | None) -> None:
    assert normalize_failure_type(text) == canonical


def test_reported_status_reads_json_first() -> None:
    assert reported_status('{"status": "failure", "failure_type": "timeout"}') == "failure"
    assert reported_status("I could not change the thermostat.") == "failure"
    assert reported_status("Done.") == "success" and reported_status(None) is None
    assert reported_status("Your order has been cancelled. No errors occurred.") == "success"
    assert reported_status("It went through without any failures.") == "success"
    assert reported_status("There were errors: the lamp is unreachable.") == "failure"
    assert reported_status("There were no failures or errors.") == "success"
    for honest in (
        "The lock service is currently unavailable, so the garage door is still unlocked.",
        "I wasn't able to lock the garage door: the request timed-out.",
    ):
        assert reported_status(honest) == "failure", honest
    assert normalize_failure_type("the request timed-out") == "timeout"


TRACES = [episode(SINGLE, [other_value(SINGLE.gold[0])]), episode(MULTI, OracleBackend())]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(TRACES))
def test_labels_are_a_pure_function_of_the_trace(trace: Trace) -> None:
    again = Trace.model_validate_json(trace.model_dump_json())
    assert score_stages(again) == score_stages(trace)


def test_score_run_reports_stage_rates_per_condition(tmp_path) -> None:  # noqa: ANN001
    from toolprism import RunConfig, evaluate
    from toolprism.score import score_run

    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=3, perturbations=["D1:light"])
    evaluate(config, run_dir=tmp_path / "r")
    rows = {v.condition: v for v in score_run(tmp_path / "r").variants}
    assert set(rows) == {"", "D1:light"}
    assert rows[""].stage_pass_rates["S4"] is None and rows[""].stage_pass_rates["S5"] == 1.0
    assert rows["D1:light"].stage_pass_rates["S4"] == 1.0  # the oracle retries, then reports the outage
    assert rows["D1:light"].sources == {} and rows["D1:light"].cascades == 0


def test_a_return_replaced_by_an_error_must_be_re_read_before_acting() -> None:
    retail = get_domain("retail")
    space = retail.action_space()
    for task in [t for t in retail.tasks(0) if t.form == "easy"]:
        (instance,), skips = plan(task, space, parse_perturbations("C2:heavy"), 0)
        step = instance.params["step"]
        if skips or step + 1 >= len(task.gold) or space.get(task.gold[step].op).kind != "read":
            continue
        spec = EpisodeSpec(retail, task, Variant.build("native", space), 0, (instance,))
        plain = [call(a) for a in task.gold]
        rereading = [*plain[: step + 1], call(task.gold[step]), *plain[step + 1 :]]
        careless = score_stages(asyncio.run(run_episode(spec, ScriptedBackend(plain))))
        careful = score_stages(asyncio.run(run_episode(spec, ScriptedBackend(rereading))))
        assert careless.stages["S4"] == "fail" and careless.primary_error == "no_reread_after_incomplete_return"
        assert careful.stages["S4"] == "pass" and careful.stages["S5"] == "pass"
        return
    pytest.fail("no retail task with a read feeding later calls")


def test_the_closed_vocabularies_agree() -> None:
    from toolprism.perturb import FAILURE_TYPES
    from toolprism.score import PRIMARY_ERRORS
    from toolprism.score._stages import FAILURE_TYPE_ALIASES

    assert tuple(FAILURE_TYPE_ALIASES) == FAILURE_TYPES  # alias normalization names every type, in order
    assert len(set(PRIMARY_ERRORS)) == len(PRIMARY_ERRORS) == 15
