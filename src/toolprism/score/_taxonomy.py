"""The failure taxonomy and schema-form rescoring, computed from a stored trace alone.

Action-Space Shaping, "Failures follow the variant" (Table 2; the paper's code: ``eval/taxonomy.py``
over the episode records of ``eval/run_agentic.py``, ``eval/run_hierarchy.py`` and
``eval/run_class_grouping.py``): seven modes, rule for rule as the paper assigns them. The rules
are ordered; the first that fires labels a failed episode:

1. ``livelock``: the episode made at least ``livelock_turns`` model turns (default
   :data:`LIVELOCK_TURNS`, the paper's 16), or was cut off at its own turn limit. Turns count
   as the paper counts them: every model request, the last one included, so an episode that
   answers on its 16th turn is a livelock.
2. ``txn_handle``: a transaction flag (see :func:`protocol_breaks`): a set or commit on a
   transaction never begun or begun for another operation, a commit with required writes
   missing, a double commit, a set after commit, or a transaction begun and never committed
   (dangling).
3. ``rejected_stuck``: at least one call was rejected (of any kind: what the adapter's control
   rejects is what counts) and fewer native actions ran than the gold has.
4. ``wrong_class``: only in a class arm (:func:`is_class_arm`): a native action ran on an
   operation of a class (group) that none of the task's gold operations belongs to, i.e. the
   call went through the wrong class dispatcher, namespace or discovered class.
5. ``under_exec``: fewer native actions ran than the gold has (counts, not sets).
6. ``over_exec``: more ran than the gold has.
7. ``wrong_args``: otherwise: as many actions as the gold, some of them with a wrong value (or on
   another operation).

``other`` (checked first, as in the paper) covers episodes the model never got to act in: the
backend produced no output and nothing ran (the paper's "no recorded outcome (request error)");
and, last, an empty expected gold met by doing nothing without answering (success on an empty
gold needs an answer: :func:`toolprism.score.multiset_success`; the paper's tasks all have gold).

Counts are over the decoded native actions that ran (re-reads a perturbation makes tolerable
removed) against the expected gold (under perturbations, the perturbations' expected gold).

Deviations from the paper's code, each forced by what a toolprism trace is:

- The livelock threshold is the smaller of ``livelock_turns`` and the episode's own turn limit
  (in the paper they are one number, ``MAX_TURNS``): an episode the runner cut off always counts.
- Transaction flags are derived from the trace's call records (the paper's decoder flags them as
  it goes): the transaction layer's rejections (``unknown_transaction``,
  ``incomplete_transaction``) and ``begin`` calls whose ``txn_id`` no later commit used. A call
  rejected by the schema check before the protocol was consulted (e.g. a ``set`` without a
  ``txn_id``) is an off-schema rejection, not a flag. A commit the runtime refused (a runtime
  perturbation) closes its transaction for the taxonomy: the agent did commit.
- ``wrong_class``: the paper counts it only in its whole-catalog runners, where a class is a
  device domain. toolprism also has class arms inside one domain (a class is an operation group
  there), so a class arm is either (see :func:`is_class_arm`). The task's classes are the groups
  of its gold operations (the paper's: the task's domain); a task without gold has none, and the
  rule does not apply.

toolprism's finer protocol distinctions (handles, discovery, foreign transactions, ...) are the
extra field :attr:`EpisodeDiagnosis.protocol`, not a label.
"""

from __future__ import annotations

import re
from collections import Counter
from enum import StrEnum
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from toolprism.domains import Domain, domain_names, get_domain
from toolprism.errors import ConfigError, RejectedCall, RejectionKind
from toolprism.perturb import expected_gold, rereads
from toolprism.run import RunStore, Trace
from toolprism.schema import ActionSpace
from toolprism.score._multiset import multiset_success, without_rereads

LIVELOCK_TURNS = 16
"""The paper's turn limit, and its livelock threshold (``eval/run_agentic.py``: ``MAX_TURNS``)."""


def run_domains(store: RunStore) -> dict[str, Domain]:
    """The domains a stored run used, by name, as its header names them (pack paths included).

    Raises:
        ConfigError: a pack the run used can no longer be read.
    """
    domains = [get_domain(name) for name in store.header.config.domains]
    return {d.name: d for d in domains}


class FailureMode(StrEnum):
    """The taxonomy's labels, in rule order (see the module docstring for each rule)."""

    LIVELOCK = "livelock"
    TXN_HANDLE = "txn_handle"
    REJECTED_STUCK = "rejected_stuck"
    WRONG_CLASS = "wrong_class"
    UNDER_EXEC = "under_exec"
    OVER_EXEC = "over_exec"
    WRONG_ARGS = "wrong_args"
    OTHER = "other"


ProtocolBreak = Literal[
    "unknown_transaction",
    "foreign_transaction",
    "double_commit",
    "set_after_commit",
    "incomplete_transaction",
    "dangling_transaction",
    "unknown_handle",
    "undiscovered",
    "protocol",
]
"""A broken cross-call protocol: a set or commit on a transaction never begun
(``unknown_transaction``, the paper's ``set_unknown_txn``/``commit_unknown_txn``) or begun for
another operation (``foreign_transaction``, which the paper flags the same way), a second commit
(``double_commit``), a set after the commit (``set_after_commit``), a commit with required writes
missing (``incomplete_transaction``, the paper's ``commit_missing_required``), a transaction begun
and never committed (``dangling_transaction``, the paper's ``dangling_txn``); an unknown or stale
handle (``unknown_handle``), an invoke before discovery (``undiscovered``), another protocol
rejection (``protocol``). The first six are the paper's transaction flags (:data:`TXN_BREAKS`)."""
PROTOCOL_BREAKS: tuple[str, ...] = get_args(ProtocolBreak)
TXN_BREAKS: frozenset[str] = frozenset(PROTOCOL_BREAKS[:6])
"""The breaks that are the paper's transaction flags (``eval/taxonomy.py``: ``TXN``)."""

PROTOCOL_KINDS = {
    RejectionKind.UNKNOWN_TRANSACTION,
    RejectionKind.INCOMPLETE_TRANSACTION,
    RejectionKind.UNKNOWN_HANDLE,
    RejectionKind.UNDISCOVERED,
    RejectionKind.PROTOCOL,
}
"""Rejections for a broken cross-call protocol (stage S2 counts them with the off-schema ones)."""
OFF_SCHEMA_KINDS = {RejectionKind.UNKNOWN_TOOL, RejectionKind.INVALID_ARGUMENTS, RejectionKind.MALFORMED_CALL}
"""Rejections for a call's form: a tool not shown, arguments its schema refuses, unparsable output."""
_OTHER_BREAKS: dict[RejectionKind, ProtocolBreak] = {
    RejectionKind.INCOMPLETE_TRANSACTION: "incomplete_transaction",
    RejectionKind.UNKNOWN_HANDLE: "unknown_handle",
    RejectionKind.UNDISCOVERED: "undiscovered",
    RejectionKind.PROTOCOL: "protocol",
}

CLASS_OPERATORS = re.compile(r"\bmerge\([^)]*\bby=class\b|\brename\([^)]*\bstyle=namespaced\b|\bdiscovery\b")
"""Operators that route calls through classes: class dispatchers (``merge(by=class)``), class
namespaces (``rename(style=namespaced)``), class discovery (``discovery``)."""


class EpisodeDiagnosis(BaseModel):
    """What went wrong in one episode, derived from its trace only.

    Attributes:
        success: the decoded actions equal the gold multiset.
        mode: the failure mode, or None on success.
        protocol: the first protocol the episode broke (see :data:`ProtocolBreak`; dangling
            transactions count at the episode's end), on success too; None when it broke none.
        schema_form_success: success once schema-form calls (rejected only for their encoding:
            a native tool name with valid native arguments) are counted as the actions they name.
        schema_form_calls: how many such calls the episode made.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    success: bool
    mode: FailureMode | None
    protocol: ProtocolBreak | None = None
    schema_form_success: bool
    schema_form_calls: int


def check_livelock_turns(livelock_turns: int) -> int:
    """``livelock_turns`` when it is a usable threshold (an int of at least 1).

    Raises:
        ConfigError: it is not.
    """
    if isinstance(livelock_turns, bool) or not isinstance(livelock_turns, int) or livelock_turns < 1:
        raise ConfigError(f"livelock_turns must be an integer of at least 1, got {livelock_turns!r}", what="options")
    return livelock_turns


def diagnose(trace: Trace, domain: Domain | None = None, *, livelock_turns: int = LIVELOCK_TURNS) -> EpisodeDiagnosis:
    """Label one episode. A pure function of the trace (and the domain's static action space).

    Under perturbations the gold is the perturbations' expected gold (an unavailable tool's
    actions, or an underspecified one, are not expected). ``domain``: the episode's domain when it
    is not a built-in one (a pack; see :func:`run_domains`), else looked up by name.
    ``livelock_turns``: the livelock threshold in model turns (the paper's 16 by default).

    Raises:
        ConfigError: ``livelock_turns`` is not an integer of at least 1.
    """
    check_livelock_turns(livelock_turns)
    instances = trace.perturbations
    gold = Counter(expected_gold([a.to_action() for a in trace.task.gold], instances))
    done = without_rereads(Counter(a.to_action() for a in trace.actions), gold, rereads(instances))
    space = (domain or get_domain(trace.task.domain)).action_space()
    schema_form = Counter()
    for call in trace.calls:
        if call.rejection == RejectionKind.UNKNOWN_TOOL and isinstance(call.arguments, dict):
            try:
                schema_form[space.action(call.name, call.arguments)] += 1
            except RejectedCall:
                pass
    breaks = protocol_breaks(trace, space)
    success = multiset_success(gold, done, trace.end)
    mode = None
    if not success:
        mode = _mode(trace, space, gold, done, breaks, min(livelock_turns, trace.max_turns))
    return EpisodeDiagnosis(
        success=success,
        mode=mode,
        protocol=breaks[0] if breaks else None,
        schema_form_success=success or multiset_success(gold, done + schema_form, trace.end),
        schema_form_calls=sum(schema_form.values()),
    )


def _mode(
    trace: Trace, space: ActionSpace, gold: Counter, done: Counter, breaks: list[ProtocolBreak], livelock_turns: int
) -> FailureMode:
    n_gold, n_exec = sum(gold.values()), sum(done.values())
    if trace.end == "no_output" and not trace.actions:
        return FailureMode.OTHER
    if len(trace.turns) >= livelock_turns:
        return FailureMode.LIVELOCK
    if TXN_BREAKS.intersection(breaks):
        return FailureMode.TXN_HANDLE
    if trace.rejected_calls and n_exec < n_gold:
        return FailureMode.REJECTED_STUCK
    if is_class_arm(trace.spec, space):
        group = {op.name: op.group for op in space.operations}
        classes = {group.get(a.op) for a in trace.task.gold}
        if classes and any(group.get(a.op) not in classes for a in done):
            return FailureMode.WRONG_CLASS
    if n_exec < n_gold:
        return FailureMode.UNDER_EXEC
    if n_exec > n_gold:
        return FailureMode.OVER_EXEC
    if n_gold == 0:  # nothing to do, nothing done, but no answer either
        return FailureMode.OTHER
    return FailureMode.WRONG_ARGS


def is_class_arm(spec: str, space: ActionSpace) -> bool:
    """Whether calls under the variant ``spec`` over ``space`` go through classes, so that the
    taxonomy's ``wrong_class`` rule applies.

    Either the spec routes calls through operation classes (:data:`CLASS_OPERATORS`: a class
    dispatcher, a class namespace or class discovery; toolprism's class arms within one domain),
    or ``space`` is a whole catalog: its operations' classes (groups) are two or more domain
    names (the paper's class arms, all of which show the whole catalog: ``eval/run_hierarchy.py``
    and ``eval/run_class_grouping.py`` count wrong-class actions in every arm, the flat
    whole-catalog control included)."""
    if CLASS_OPERATORS.search(spec):
        return True
    classes = {op.group for op in space.operations}
    return len(classes) > 1 and classes <= set(domain_names())


def protocol_breaks(trace: Trace, space: ActionSpace | None = None) -> list[ProtocolBreak]:
    """Every protocol break of the episode, in call order; dangling transactions last, in the
    order they were begun (see :data:`ProtocolBreak`).

    Derived from the call records: a ``begin`` is a call a layer answered with a ``txn_id`` and
    that carried none; a transaction closes when an executed (or runtime-refused) call carried its
    ``txn_id`` down its path; a transaction-layer rejection (``unknown_transaction``) of a call
    whose only argument is ``txn_id`` is a commit, else a set, and it is a ``double_commit`` /
    ``set_after_commit`` when the id was closed, ``foreign_transaction`` when it is open, else
    ``unknown_transaction``. With ``space``, an executed commit whose action lacks a required
    argument (a control that runs it anyway) is an ``incomplete_transaction`` too.
    """
    begun: list[str] = []
    closed: set[str] = set()
    breaks: list[ProtocolBreak] = []
    for call in trace.calls:
        step = call.path[-1].arguments if call.path else {}
        if call.outcome == "answered":
            txn = call.reply.get("txn_id") if isinstance(call.reply, dict) else None
            if isinstance(txn, str) and "txn_id" not in step:
                begun.append(txn)
        elif call.outcome in ("executed", "failed"):
            ids = [s.arguments["txn_id"] for s in call.path if isinstance(s.arguments.get("txn_id"), str)]
            closed.update(ids)
            if ids and space is not None and _missing_required(call.action.to_action(), space):
                breaks.append("incomplete_transaction")
        elif call.rejection == RejectionKind.UNKNOWN_TRANSACTION:
            txn, commit = step.get("txn_id"), set(step) == {"txn_id"}
            if not isinstance(txn, str):
                breaks.append("unknown_transaction")
            elif txn in closed:
                breaks.append("double_commit" if commit else "set_after_commit")
            else:
                breaks.append("foreign_transaction" if txn in begun else "unknown_transaction")
        elif call.rejection in _OTHER_BREAKS:
            breaks.append(_OTHER_BREAKS[call.rejection])
    breaks += ["dangling_transaction" for txn in dict.fromkeys(begun) if txn not in closed]
    return breaks


def _missing_required(action, space: ActionSpace) -> bool:  # noqa: ANN001
    try:
        operation = space.get(action.op)
    except RejectedCall:
        return False
    return any(p.required and p.name not in action.arguments for p in operation.params)
