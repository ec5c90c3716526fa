"""The failure taxonomy and schema-form rescoring, computed from a stored trace alone.

Action-Space Shaping, "Failures follow the variant": a seven-mode automatic taxonomy, and the schema-form
analysis (a call whose intent is right but whose encoding is wrong, e.g. a native tool name the
variant no longer shows, with the right arguments). Rules are ordered; the first match wins:

1. ``livelock``: the episode hit the turn limit.
2. ``protocol``: a cross-call protocol was broken: an unknown transaction id (never begun, or
   dangling: already committed) or a foreign one (begun for another operation), a commit with
   missing writes, an unknown or stale handle, or an invoke before discovery. A transaction begun
   and never committed broke no rule; it ran nothing, so the episode falls to the rules below
   (``under_exec`` when nothing else went wrong).
3. ``rejected_stuck``: calls were rejected as off-schema (unknown tool, invalid or malformed
   arguments) and fewer native actions ran than the gold has.
4. ``wrong_class``: an action outside the gold ran on an operation class (group) that no gold
   action belongs to: the wrong dispatcher, namespace or class was chosen.
5. ``under_exec``: every action that ran is gold, but some gold actions never ran.
6. ``over_exec``: every gold action ran, plus extra ones.
7. ``wrong_args``: the right kind of work with wrong arguments (both missing and extra actions),
   including another operation of the right class (under a class dispatcher, a wrong value of
   its operation argument); stage scoring still reports that as an S1 ``wrong_tool``.

``other`` covers episodes the model never got to act in (the backend produced no output).
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from toolprism.domains import Domain, get_domain
from toolprism.errors import RejectedCall, RejectionKind
from toolprism.perturb import expected_gold, rereads
from toolprism.run import RunStore, Trace
from toolprism.score._multiset import without_rereads


def run_domains(store: RunStore) -> dict[str, Domain]:
    """The domains a stored run used, by name, as its header names them (pack paths included).

    Raises:
        ConfigError: a pack the run used can no longer be read.
    """
    domains = [get_domain(name) for name in store.header.config.domains]
    return {d.name: d for d in domains}


class FailureMode(StrEnum):
    """The taxonomy's labels (see the module docstring for each rule)."""

    LIVELOCK = "livelock"
    PROTOCOL = "protocol"
    REJECTED_STUCK = "rejected_stuck"
    WRONG_CLASS = "wrong_class"
    UNDER_EXEC = "under_exec"
    OVER_EXEC = "over_exec"
    WRONG_ARGS = "wrong_args"
    OTHER = "other"


PROTOCOL_KINDS = {
    RejectionKind.UNKNOWN_TRANSACTION,
    RejectionKind.INCOMPLETE_TRANSACTION,
    RejectionKind.UNKNOWN_HANDLE,
    RejectionKind.UNDISCOVERED,
    RejectionKind.PROTOCOL,
}
OFF_SCHEMA_KINDS = {RejectionKind.UNKNOWN_TOOL, RejectionKind.INVALID_ARGUMENTS, RejectionKind.MALFORMED_CALL}


class EpisodeDiagnosis(BaseModel):
    """What went wrong in one episode, derived from its trace only.

    Attributes:
        success: the decoded actions equal the gold multiset.
        mode: the failure mode, or None on success.
        schema_form_success: success once schema-form calls (rejected only for their encoding:
            a native tool name with valid native arguments) are counted as the actions they name.
        schema_form_calls: how many such calls the episode made.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    success: bool
    mode: FailureMode | None
    schema_form_success: bool
    schema_form_calls: int


def diagnose(trace: Trace, domain: Domain | None = None) -> EpisodeDiagnosis:
    """Label one episode. A pure function of the trace (and the domain's static action space).

    Under perturbations the gold is the perturbations' expected gold (an unavailable tool's
    actions, or an underspecified one, are not expected). ``domain``: the episode's domain when it
    is not a built-in one (a pack; see :func:`run_domains`), else looked up by name."""
    instances = trace.perturbations
    gold = Counter(expected_gold([a.to_action() for a in trace.task.gold], instances))
    done = without_rereads(Counter(a.to_action() for a in trace.actions), gold, rereads(instances))
    space = (domain or get_domain(trace.task.domain)).action_space()
    calls = trace.calls
    rejected = {c.rejection for c in calls if c.rejection}
    schema_form = Counter()
    for call in calls:
        if call.rejection == RejectionKind.UNKNOWN_TOOL and isinstance(call.arguments, dict):
            try:
                schema_form[space.action(call.name, call.arguments)] += 1
            except RejectedCall:
                pass
    success = done == gold
    return EpisodeDiagnosis(
        success=success,
        mode=None if success else _mode(trace, gold, done, rejected, space),
        schema_form_success=success or (done + schema_form) == gold,
        schema_form_calls=sum(schema_form.values()),
    )


def _mode(trace: Trace, gold: Counter, done: Counter, rejected: set[RejectionKind], space) -> FailureMode:  # noqa: ANN001
    if trace.end == "no_output" and not trace.actions:
        return FailureMode.OTHER
    if trace.end == "turn_limit":
        return FailureMode.LIVELOCK
    if rejected & PROTOCOL_KINDS:
        return FailureMode.PROTOCOL
    if rejected & OFF_SCHEMA_KINDS and sum(done.values()) < sum(gold.values()):
        return FailureMode.REJECTED_STUCK
    missing, extra = gold - done, done - gold
    group = {op.name: op.group for op in space.operations}
    gold_groups = {group.get(a.op) for a in gold}
    if any(group.get(a.op) not in gold_groups for a in extra):
        return FailureMode.WRONG_CLASS
    if missing and not extra:
        return FailureMode.UNDER_EXEC
    if extra and not missing:
        return FailureMode.OVER_EXEC
    return FailureMode.WRONG_ARGS
