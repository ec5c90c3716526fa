"""Stage-wise scoring and cascade-aware attribution of one episode, from its trace alone.

ToolRobustBench, section 3: five diagnostic axes locate where a tool-use failure
starts: S1 tool selection, S2 schema grounding, S3 argument binding, S4 output/runtime-feedback
handling, S5 end-to-end success. Attribution separates the *observed* error (the symptom, here
the taxonomy mode) from the *primary* error (its cause), records the earliest failed stage and the
source stage, flags a cascade when they differ, and a boundary violation when a perturbed
episode's source stage lies outside the perturbation's primary stage and allowed spillover.

Stage rules (each ``pass``, ``fail`` or ``n/a`` when an earlier failure leaves nothing to judge):

- S1: the operations the agent decoded (executed or refused by the runtime) are exactly the gold's
  (tolerated re-reads aside): no needed tool left out, no unneeded tool used.
- S2: every call rejected for its form (unknown tool, invalid or malformed arguments, a broken
  protocol) was followed by an accepted call; an episode that ends on a rejection fails.
- S3: every decoded action on a gold operation carries gold argument values.
- S4 (only when a tool-output or runtime perturbation, or a runtime failure, occurred): retryable
  runtime failures were retried until the call ran; a non-retryable one was not retried more than
  :data:`RETRY_LIMIT` times (per call) and the final answer reports the failure (and, if it names a failure
  type, the right one after alias normalization; where a runtime report was asked for, the report's
  status, failure type and retryability match the labels instead); no action used a value that a perturbed return
  falsified or introduced; no wrong action followed a changed return; after a return replaced by
  an error string or emptied, the next call repeats that read (a read's; a write is not redone);
  where the domain fixes an expected result, the answer states it (else ``wrong_result``: the
  agent did not recover the evidence from the perturbed return).
- S5: the decoded actions equal the expected gold (re-reads tolerated), the episode answered, S4
  did not fail (ToolRobustBench: runtime cases also check the reported runtime fields) and, where
  the domain fixes an expected result (``Domain.expected_result``: ToolRobustBench's environment,
  not the stateful domains), the final answer states it (:func:`toolprism.score.result_match`:
  the runtime report's ``final_result`` when one was read, else the answer's text; a wrong or
  missing result with nothing else wrong is ``wrong_result`` at S5, or at S4 under a perturbed
  return). The run's headline success is the multiset match and that result
  (:attr:`EpisodeStages.result_match` not False); S5 is stricter where S4 applies.

The source stage is S4 when S4 has a cause (a mishandled return explains what follows); S2 when S1
failed only for missing tools and the agent was refused for the form while reaching for one of
them (an off-schema or protocol-breaking call that names it): the selection was right and its
encoding wrong; otherwise the first stage with a cause.

Temporal attribution (ToolRobustBench, section 3: "deterministic backtracking records ... earliest
failed and source stages, cascade indicators"). Each failed stage records the event at which it
first failed (:class:`StageEvent`: the model turn and the call, counted over the whole episode, or
no call for a failure at the end):

- S1: the first decoded call on an operation the gold does not need (``wrong_tool``); for a
  needed tool left out (``missing_tool``), the episode end: only the end shows it never came.
- S2: the first form-rejected call after which no call was accepted.
- S3: the first decoded call on a gold operation with values the gold does not have.
- S4: where the mishandling of the feedback happened. A perturbed *return* (C family) is
  mishandled when it is taken in: the event is the call whose reply was falsified, changed or
  emptied (the read the agent then trusted); its later use (a value, or a wrong stated result)
  is the visible consequence, so a ``wrong_result`` from a perturbed return is direct (earliest =
  source = S4, no cascade), and one at S5 alone is seen at the end. A *runtime
  failure* (D family) is the runtime's doing, not the agent's; the agent mishandles it in its
  response: for ``runtime_not_retried`` the first call after the failed call that was never
  re-run (the episode end when there is none), for ``runtime_looped`` the attempt past
  :data:`RETRY_LIMIT` retries, for ``runtime_not_reported`` (and any other runtime cause) the end.
- S5: the end.

The earliest failed stage is the failed stage whose event came first; events at the same call (or
all at the end) are ordered S1 … S5, the order in which one call is built (tool, form, values,
then the reaction to its feedback). This is toolprism's reading of "earliest": the seed names
the quantity, not the clock. A cascade is a source stage that differs from the earliest failed
stage (the paper's definition). Consequences, which the paper's cascade rates (runtime 0.638,
observation 0.003) show: an agent that trusts a falsified identifier and uses it in a later call
fails S4 at the read and S3 only at the use, so the failure is direct (earliest = source = S4, no
cascade); an agent that answers a timeout with a changed call instead of the same one fails S3
and S4 at that call, so the wrong value is seen first and the failure is a cascade from S4. The
source stage keeps its rule above (not a time order): two independent errors, say a wrong value
at the second call and a tool never called, have the source S1 (pipeline order) and the earliest
failed stage S3 (time order), a cascade.

Errors in ToolRobustBench's vocabulary (:data:`TrbError`), next to toolprism's: the primary error
maps by :data:`TRB_ERRORS` (a function of :data:`PrimaryError`); the observed error in that
vocabulary is the error of the earliest failed stage (the symptom seen first), so it differs from
the primary one exactly where a cascade crosses error kinds. toolprism's ``observed_error`` (the
Action-Space Shaping taxonomy's mode) is kept beside it.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from toolprism.domains import Domain
from toolprism.perturb import FailureType, Injection, Instance, Stage, expected_gold, rereads
from toolprism.run import CallRecord, Trace
from toolprism.score._multiset import without_rereads
from toolprism.score._runtime import (
    FAILURE_TYPE_ALIASES,  # noqa: F401 - importable from here as before
    ReportedStatus,
    ReportOutcome,
    RuntimeMatches,
    RuntimeScore,
    normalize_failure_type,
    reported_status,
    result_match,
    runtime_decided,
    score_runtime,
)
from toolprism.score._taxonomy import (
    LIVELOCK_TURNS,
    OFF_SCHEMA_KINDS,
    PROTOCOL_KINDS,
    FailureMode,
    check_livelock_turns,
    diagnose,
)

STAGES: tuple[Stage, ...] = get_args(Stage)
Verdict = Literal["pass", "fail", "n/a"]
PrimaryError = Literal[
    "missing_tool",
    "wrong_tool",
    "invalid_call",
    "wrong_value",
    "runtime_not_retried",
    "runtime_looped",
    "runtime_not_reported",
    "used_falsified_value",
    "acted_on_changed_return",
    "no_reread_after_incomplete_return",
    "extra_action",
    "no_answer",
    "incomplete",
    "runtime_misreported",
    "wrong_result",
]
"""The cause of a failure, by stage: S1 ``missing_tool``/``wrong_tool``, S2 ``invalid_call``, S3
``wrong_value``, S4 the ``runtime_*`` and return-handling errors, S5 ``extra_action`` (every gold
action ran, plus more), ``no_answer`` (the right actions, no final answer), ``incomplete``;
``wrong_result`` (the answer does not state the expected result, where the domain fixes one) is S4
when the return it came from was perturbed (C family: the agent did not recover the evidence),
else S5."""
PRIMARY_ERRORS: tuple[str, ...] = get_args(PrimaryError)
TrbError = Literal[
    "tool_misselection", "schema_violation", "incorrect_arguments", "runtime_failure", "wrong_final_result"
]
"""ToolRobustBench's error vocabulary (section 4, failure attribution)."""
TRB_ERRORS: dict[PrimaryError, TrbError] = {
    "missing_tool": "tool_misselection",
    "wrong_tool": "tool_misselection",
    "invalid_call": "schema_violation",
    "wrong_value": "incorrect_arguments",
    "runtime_not_retried": "runtime_failure",
    "runtime_looped": "runtime_failure",
    "runtime_not_reported": "runtime_failure",
    "runtime_misreported": "runtime_failure",
    "used_falsified_value": "incorrect_arguments",
    "acted_on_changed_return": "incorrect_arguments",
    "no_reread_after_incomplete_return": "wrong_final_result",
    "extra_action": "wrong_final_result",
    "no_answer": "wrong_final_result",
    "incomplete": "wrong_final_result",
    "wrong_result": "wrong_final_result",
}
"""toolprism's primary error → ToolRobustBench's error. S1 → tool misselection, S2 → schema
violation, S3 → incorrect arguments, the runtime causes → runtime failure, S5 → wrong final result
(no answer, or the wrong actions done, is a final result that disagrees with the gold). The return
-handling causes are toolprism's reading: using a falsified value or acting on a changed return
binds what the return said (incorrect arguments; the paper finds incorrect arguments are 91.7% of
observation failures), and not re-reading an emptied return leaves the answer without its
evidence (wrong final result)."""
TRB_ERROR_NAMES: tuple[str, ...] = get_args(TrbError)
ObservedError = FailureMode | Literal["incomplete"]
"""The symptom: the taxonomy's failure mode, or ``incomplete`` when the taxonomy sees success (the
actions are right, but there is no answer, S4 failed, or the answer does not state the expected
result)."""
RETRY_LIMIT = 3
"""Retries of a call that keeps failing before the agent counts as looping on it."""


class StageEvent(BaseModel):
    """Where a stage first failed (see the module docstring for each stage's event).

    Attributes:
        turn: 0-based index of the model turn in the trace.
        call: 0-based index of the call among all the episode's calls (:attr:`Trace.calls`), None
            for a failure at the end (the last turn: the answer, or the lack of one).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    call: int | None


class EpisodeStages(BaseModel):
    """The stage verdicts and the attribution of one episode.

    Attributes:
        stages: ``S1`` … ``S5`` → ``pass``/``fail``/``n/a``.
        observed_error: the symptom (see :data:`ObservedError`), None on success.
        primary_error: the cause (see :data:`PrimaryError`), None on success.
        earliest_failed_stage: the failed stage whose event came first (ties in S1 … S5 order).
        source_stage: the stage the primary error belongs to.
        cascade: the source stage differs from the earliest failed stage (the symptom seen first
            belongs to another stage than its cause).
        boundary_violation: under perturbations, the source stage lies outside every instance's
            primary stage and allowed spillover; None for clean episodes and successes.
        reported_status / reported_failure_type: what the final answer says, normalized: the
            runtime report's fields where one was asked for, else read from the free text.
        runtime_report: ``reported``/``missing``/``unparsable`` where the system prompt asked for a
            runtime report (a C or D condition), else None (see :mod:`toolprism.score._runtime`).
        runtime_matches: the report's per-field agreement with the expected labels (True/False,
            None where not applicable); None where no report was asked for.
        result_match: whether the final answer states the expected result
            (:func:`toolprism.score.result_match`); None where the domain fixes none (every
            stateful domain) or the perturbations leave none to state.
        runtime_decided: in a runtime (D) case whose report was asked for, whether the report
            states the right status, failure type and retryability (part of success); else None.
        events: ``S1`` … ``S5`` → the :class:`StageEvent` at which the stage first failed, None
            where it did not fail.
        trb_observed_error / trb_primary_error: the earliest failed stage's error and the primary
            error in ToolRobustBench's vocabulary (:data:`TrbError`), None on success.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    stages: dict[Stage, Verdict]
    observed_error: ObservedError | None
    primary_error: PrimaryError | None
    earliest_failed_stage: Stage | None
    source_stage: Stage | None
    cascade: bool
    boundary_violation: bool | None
    reported_status: ReportedStatus | None
    reported_failure_type: FailureType | None
    events: dict[Stage, StageEvent | None] = Field(default_factory=lambda: dict.fromkeys(STAGES))
    trb_observed_error: TrbError | None = None
    trb_primary_error: TrbError | None = None
    runtime_report: ReportOutcome | None = None
    runtime_matches: RuntimeMatches | None = None
    result_match: bool | None = None
    runtime_decided: bool | None = None


def score_stages(trace: Trace, domain: Domain | None = None, *, livelock_turns: int = LIVELOCK_TURNS) -> EpisodeStages:
    """Stage verdicts, the event where each failed stage first failed, and attribution for
    ``trace`` (a pure function of the trace; ``domain`` and ``livelock_turns``, which only the
    observed error depends on, as for :func:`toolprism.score.diagnose`). ToolRobustBench,
    section 3; the time order of the events is the module docstring's.

    Raises:
        ConfigError: ``livelock_turns`` is not an integer of at least 1.
    """
    check_livelock_turns(livelock_turns)
    instances = trace.perturbations
    tolerate = rereads(instances)
    gold = Counter(expected_gold([a.to_action() for a in trace.task.gold], instances))
    calls = trace.calls
    decoded = [c.action.to_action() for c in calls if c.action is not None]
    done = without_rereads(Counter(a.to_action() for a in trace.actions), gold, tolerate)
    answer = trace.answer
    gold_ops = {a.op for a in gold}
    used_ops = {a.op for a in decoded}
    causes: dict[Stage, PrimaryError] = {}

    blocked = {op for i in instances if i.family == "D" and not i.labels.retryable for op in i.blocked_ops}
    missing_ops, extra_ops = gold_ops - used_ops, used_ops - gold_ops - tolerate - blocked
    s1: Verdict = "pass" if not (missing_ops or extra_ops) else "fail"
    if s1 == "fail":
        causes["S1"] = "missing_tool" if missing_ops and not extra_ops else "wrong_tool"

    s2: Verdict = "pass"
    for i, call in enumerate(calls):
        if call.rejection in OFF_SCHEMA_KINDS | PROTOCOL_KINDS:
            if not any(later.outcome != "rejected" for later in calls[i + 1 :]):
                s2, causes["S2"] = "fail", "invalid_call"
    if not calls and gold:
        s2 = "n/a"

    wrong_values = [a for a in decoded if a.op in gold_ops and a not in gold]
    s3: Verdict = "n/a" if s1 == "fail" and not (used_ops & gold_ops) else ("fail" if wrong_values else "pass")
    if s3 == "fail":
        causes["S3"] = "wrong_value"

    runtime = score_runtime(trace, domain)
    stated = result_match(trace, domain, runtime)
    s4, cause4 = _feedback(trace, instances, calls, gold, answer, runtime, stated)
    if s4 == "fail" and cause4:
        causes["S4"] = cause4
    success = done == gold and trace.end == "answered" and s4 != "fail" and stated is not False
    s5: Verdict = "pass" if success else "fail"
    if not success:  # the cause when no earlier stage has one
        extra, short = done - gold, gold - done
        said = "wrong_result" if trace.end == "answered" and stated is False else "no_answer"
        causes["S5"] = "extra_action" if extra and not short else said if done == gold else "incomplete"
    stages: dict[Stage, Verdict] = {"S1": s1, "S2": s2, "S3": s3, "S4": s4, "S5": s5}
    events = _events(trace, stages, causes, extra_ops, gold, gold_ops, instances)
    if success:
        return EpisodeStages(
            stages=stages,
            observed_error=None,
            primary_error=None,
            earliest_failed_stage=None,
            source_stage=None,
            cascade=False,
            boundary_violation=None,
            **_reported(runtime, answer, trace),
            events=events,
            result_match=stated,
        )
    earliest = min((s for s in STAGES if stages[s] == "fail"), key=lambda s: (_when(events[s]), STAGES.index(s)))
    # a perturbed return or runtime failure that the agent mishandled is the cause of what follows;
    # so is a refused form when the tools it left out are the ones it tried to call (S2 before S1)
    form_first = causes.get("S1") == "missing_tool" and "S2" in causes and _tried(calls, missing_ops)
    source = "S4" if "S4" in causes else "S2" if form_first else next((s for s in STAGES if s in causes), "S5")
    allowed = {s for i in instances for s in (i.primary_stage, *i.spillover)}
    primary = causes.get(source, "incomplete")
    return EpisodeStages(
        stages=stages,
        observed_error=diagnose(trace, domain, livelock_turns=livelock_turns).mode or "incomplete",
        primary_error=primary,
        earliest_failed_stage=earliest,
        source_stage=source,
        cascade=source != earliest,
        boundary_violation=(source not in allowed) if instances else None,
        **_reported(runtime, answer, trace),
        events=events,
        trb_observed_error=TRB_ERRORS[causes.get(earliest, "incomplete")],
        trb_primary_error=TRB_ERRORS[primary],
        result_match=stated,
    )


def _when(event: StageEvent | None) -> float:
    """An event's place in time: its call index; failures at the end come after every call."""
    return math.inf if event is None or event.call is None else event.call


def _events(
    trace: Trace,
    stages: dict[Stage, Verdict],
    causes: dict[Stage, PrimaryError],
    extra_ops: set[str],
    gold: Counter,
    gold_ops: set[str],
    instances: list[Instance],
) -> dict[Stage, StageEvent | None]:
    """Each failed stage's event (module docstring), None for the others."""
    turn_of = [t for t, turn in enumerate(trace.turns) for _ in turn.calls]
    calls = trace.calls
    end = StageEvent(turn=max(len(trace.turns) - 1, 0), call=None)

    def at(index: int | None) -> StageEvent:
        return end if index is None else StageEvent(turn=turn_of[index], call=index)

    def first(indices: Any) -> int | None:
        return next(iter(indices), None)

    decoded = [(i, c.action.to_action()) for i, c in enumerate(calls) if c.action is not None]
    wrong_tool = causes.get("S1") == "wrong_tool"
    refused = (i for i, c in enumerate(calls) if c.rejection in OFF_SCHEMA_KINDS | PROTOCOL_KINDS)
    found: dict[Stage, StageEvent] = {
        "S1": at(first(i for i, a in decoded if a.op in extra_ops) if wrong_tool else None),
        "S2": at(first(i for i in refused if all(later.outcome == "rejected" for later in calls[i + 1 :]))),
        "S3": at(first(i for i, a in decoded if a.op in gold_ops and a not in gold)),
        "S4": at(_feedback_event(trace, calls, causes.get("S4"), instances)),
        "S5": end,
    }
    return {stage: found[stage] if stages[stage] == "fail" else None for stage in STAGES}


_RETURN_CAUSES = (
    "used_falsified_value",
    "acted_on_changed_return",
    "no_reread_after_incomplete_return",
    "wrong_result",
)
"""S4 causes located at the perturbed return the agent took in."""


def _feedback_event(
    trace: Trace, calls: list[CallRecord], cause: PrimaryError | None, instances: list[Instance]
) -> int | None:
    """S4's event: the call index where the feedback was mishandled, None for the end."""
    if cause in _RETURN_CAUSES:
        native = [i for i, c in enumerate(calls) if c.outcome in ("executed", "failed")]
        hit = [j.call for j in trace.injections if j.site == "reply" and j.call is not None and j.call < len(native)]
        return native[min(hit)] if hit else None  # the perturbed read the agent trusted
    if cause == "runtime_not_retried":
        for index, call in enumerate(calls):
            if call.outcome == "failed" and not any(
                later.outcome == "executed" and later.action == call.action for later in calls[index + 1 :]
            ):
                return index + 1 if index + 1 < len(calls) else None  # the response to the failure
        return None
    if cause == "runtime_looped":
        blocked = {op for i in instances if i.family == "D" for op in i.blocked_ops}
        seen: Counter = Counter()
        for index, call in enumerate(calls):
            if call.outcome == "failed" and call.action and call.action.op in blocked:
                seen[call.action.to_action()] += 1
                if seen[call.action.to_action()] > RETRY_LIMIT + 1:
                    return index
        return None
    return None  # runtime_not_reported (or misreported) and any other cause: the answer, at the end


def _reported(runtime: RuntimeScore, answer: str | None, trace: Trace) -> dict[str, Any]:
    """The EpisodeStages fields of what the answer reports: from the runtime report where one was
    asked for, else read from the free text (traces recorded before reports were asked for)."""
    if not runtime.requested:
        return {"reported_status": reported_status(answer), "reported_failure_type": normalize_failure_type(answer)}
    return {
        "reported_status": runtime.status,
        "reported_failure_type": runtime.failure_type,
        "runtime_report": runtime.outcome,
        "runtime_matches": runtime.matches,
        "runtime_decided": runtime_decided(trace, runtime),
    }


def _tried(calls: list[CallRecord], missing_ops: set[str]) -> bool:
    """Whether the agent reached for a missing operation and was refused for the form: an
    off-schema or protocol-breaking call that names it (as its tool name, inside a protocol tool's
    name such as ``commit_<op>``, or as an argument value such as a dispatcher's ``operation``).
    A call under an opaque name does not say which operation it meant and does not count."""
    for call in calls:
        if call.rejection in OFF_SCHEMA_KINDS | PROTOCOL_KINDS and _named(call, missing_ops):
            return True
    return False


def _named(call: CallRecord, ops: set[str]) -> bool:
    args = call.arguments if isinstance(call.arguments, dict) else {}
    if any(isinstance(value, str) and value in ops for value in args.values()):
        return True
    names = [call.name, *(step.name for step in call.path)]
    return any(re.search(rf"(?:^|_){re.escape(op)}(?:$|_)", name) for name in names for op in ops)


def _feedback(
    trace: Trace,
    instances: list[Instance],
    calls: list[CallRecord],
    gold: Counter,
    answer: str | None,
    runtime: RuntimeScore,
    stated: bool | None = None,
) -> tuple[Verdict, PrimaryError | None]:
    """S4: the reaction to perturbed returns and runtime failures. Under a runtime (D)
    perturbation whose report was asked for, the report's status, failure type and retryability
    must also match (ToolRobustBench, section 3: "runtime cases additionally check predicted
    runtime fields"); without a report (older traces) the free text is read instead. Under a
    perturbed return (C), an answer that does not state the expected result (``stated`` False:
    :func:`toolprism.score.result_match`) did not recover the evidence (``wrong_result``)."""
    failed = [(i, c) for i, c in enumerate(calls) if c.outcome == "failed"]
    output = [i for i in instances if i.family == "C"]
    runtime_case = runtime.requested and any(i.family == "D" for i in instances)
    if not failed and not output and not runtime_case:  # a runtime case is judged on its report too
        return "n/a", None
    for instance in (i for i in instances if i.family == "D"):
        attempts = [c for _, c in failed if c.action and c.action.op in instance.blocked_ops]
        if instance.labels.retryable:
            for index, call in failed:
                if not any(later.outcome == "executed" and later.action == call.action for later in calls[index + 1 :]):
                    return "fail", "runtime_not_retried"
        else:
            per_call = Counter(c.action.to_action() for c in attempts)
            if any(n > RETRY_LIMIT + 1 for n in per_call.values()):
                return "fail", "runtime_looped"
            if runtime.requested:
                continue  # the report decides, below
            named = normalize_failure_type(answer)
            if attempts and (reported_status(answer) != "failure" or named not in (None, instance.labels.failure_type)):
                return "fail", "runtime_not_reported"
    if runtime_case:
        if runtime.outcome != "reported":
            return "fail", "runtime_not_reported"
        m = runtime.matches
        if False in (m.status, m.failure_type, m.retryable):
            return "fail", "runtime_misreported"
    injected = [j for j in trace.injections if j.site == "reply" and j.call is not None]
    if output and injected:
        native = [i for i, c in enumerate(calls) if c.outcome in ("executed", "failed")]  # the runtime's calls
        first = native[min(j.call for j in injected)]
        planted = {str(v) for j in injected for v in _new_scalars(j.original, j.replacement)}
        after = [c.action.to_action() for c in calls[first + 1 :] if c.outcome == "executed" and c.action]
        off_gold = [a for a in after if a not in gold]  # re-reads included: reading a planted id is using it
        if any(str(v) in planted for a in off_gold for v in _scalars(a.arguments)):
            return "fail", "used_falsified_value"
        if any(a.op not in rereads(instances) for a in off_gold):
            return "fail", "acted_on_changed_return"
        gone = {j.target for j in injected if _evidence_gone(j) and j.target in rereads(instances)}
        if gone and after and after[0].op not in gone:
            return "fail", "no_reread_after_incomplete_return"
        if stated is False:
            return "fail", "wrong_result"
    return "pass", None


def _evidence_gone(injection: Injection) -> bool:
    """The payload was replaced by an error string or emptied (Xu et al.'s failed return)."""
    replacement = injection.replacement
    return injection.subtype == "C2" and (
        replacement == {} or (isinstance(replacement, dict) and "error" in replacement)
    )


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [value]


def _new_scalars(original: Any, replacement: Any) -> set[Any]:
    """Scalars the replacement shows that the original did not (falsified or planted values)."""
    before = {json.dumps(v) for v in _scalars(original)}
    return {v for v in _scalars(replacement) if json.dumps(v) not in before and not isinstance(v, bool)}
