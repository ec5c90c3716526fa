"""The equivalence validator (Action-Space Shaping: "a validator confirms each variant executes the same actions
and reaches the same states as the native schema on reference traces").

For each reference trace and variant: encode the native actions with :meth:`Variant.plan`, run the
calls through a fresh :class:`AdapterSession` on a fresh world exactly as a model's calls are run,
and check the decoded actions (sequence and multiset), that nothing was rejected, each native reply,
the state after each step and at the end. Then run the variant's negative cases
(:mod:`toolprism.validate._negative`). Every comparison counts as one check.

Everything runs under one adapter control (:data:`toolprism.shaping.Control`). The reference
traces are checked the same way under each: valid calls execute the same under every control.
A negative case must be rejected with its expected kind under ``strict``; under ``paper`` and
``loose``, which execute much of what ``strict`` rejects, it must leave the state as it was: it is
rejected (any kind), answered by a layer, or executed as a wrong action the environment refuses.
The exception is an ``invoke`` before ``list_methods``, which neither control gates: it must
execute (the world is then reset for the next case).
"""

from __future__ import annotations

import ctypes
import json
import multiprocessing
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from toolprism.domains import Task, domain_names, get_domain
from toolprism.errors import ConfigError, RejectionKind
from toolprism.schema import JSON, Action, ToolCall, canonical_json, load_catalog
from toolprism.shaping import (
    CONTROLS,
    SUITES,
    VARIANTS,
    AdapterSession,
    Batch,
    Control,
    Decision,
    Variant,
    parse_spec,
    resolve,
)
from toolprism.validate._negative import Negative, negatives
from toolprism.validate._report import (
    CHECK_KINDS,
    CallRecord,
    Failure,
    Skipped,
    ValidationReport,
    VariantReport,
    VariantSummary,
)
from toolprism.validate._suite import Suite, World, snapshot

MAX_CALLS = 1000
"""Calls one action's encoding may take before the validator calls it a runaway plan."""

Progress = Callable[[int, int, VariantSummary], None]
_ABSENT = "<absent>"


def validate(
    domains: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    *,
    catalog: str | Path | None = None,
    entry: str | int | None = None,
    group: str | None = None,
    seeds: Sequence[int] = (0,),
    limit: int | None = None,
    negative: bool = True,
    jobs: int = 1,
    progress: Progress | None = None,
    control: Control = "strict",
) -> ValidationReport:
    """Validate variants against native on reference traces.

    Args:
        domains: built-in domains (default: all of them, unless ``catalog`` is given).
        variants: variant names, suite names (``paper``, ``extended``, ``all``) or specs (default: every
            entry of :data:`VARIANTS`).
        catalog: an external catalog file (:func:`toolprism.schema.load_catalog`); its reference
            traces are one synthesized valid call per operation, run on a stub environment.
        entry / group: passed to :func:`toolprism.schema.load_catalog` (one BFCL entry; one
            ToolSchemaSpace domain).
        seeds: world seeds whose tasks are the domains' reference traces.
        limit: at most this many tasks per domain and seed.
        negative: run the negative cases too.
        jobs: worker processes (forked; 1 runs everything in this process).
        progress: called after each (suite, variant) with (done, total, summary).
        control: the adapter control every call is handled under (see the module docstring).

    Raises:
        ConfigError: unknown domain, unreadable catalog, malformed spec, unknown control.
    """
    global _SUITES
    start = time.perf_counter()
    suites: list[Suite] = []
    notes: list[str] = []
    problems = [
        f"{name} must be at least {low}, got {value}"
        for name, value, low in (("jobs", jobs, 1), ("limit", limit, 0))
        if value is not None and value < low
    ]
    problems += ["seeds must be a non-empty list of seeds >= 0"] if not seeds or min(seeds) < 0 else []
    problems += [f"unknown control {control!r} (known: {', '.join(CONTROLS)})"] if control not in CONTROLS else []
    if problems:
        raise ConfigError(problems, what="validation options")
    if catalog is not None:
        space = load_catalog(catalog, entry=entry, group=group)
        notes += [f"{space.name}: {n}" for n in space.notes]
        suites.append(Suite.from_catalog(space))
    if domains or catalog is None:
        suites += [Suite.from_domain(get_domain(d), seeds, limit) for d in (domains or domain_names())]
    names = (
        list(VARIANTS.names())
        if not variants
        else list(dict.fromkeys(v for n in variants for v in SUITES.get(n, (n,))))
    )
    for name in names:  # a malformed spec is the caller's mistake, not a finding
        parse_spec(resolve(name))
    explicit = {n for n in variants or () if n not in SUITES}  # named by the caller, not a suite member
    work = [(i, name, negative, control, name in explicit) for i in range(len(suites)) for name in names]
    results: dict[tuple[int, str], VariantReport | Skipped] = {}

    def collect(key: tuple[int, str], result: VariantReport | Skipped) -> None:
        results[key] = result
        if progress and isinstance(result, VariantReport):
            progress(len(results), len(work), result.summary)

    _SUITES = suites
    try:
        if jobs <= 1 or len(work) <= 1:
            for item in work:
                collect(item[:2], _one(*item))
        else:
            context = multiprocessing.get_context("fork")
            pool = ProcessPoolExecutor(
                max_workers=jobs, mp_context=context, initializer=_worker_init, initargs=(os.getpid(),)
            )
            try:
                futures = {pool.submit(_one, *item): item[:2] for item in work}
                for future in as_completed(futures):
                    collect(futures[future], future.result())
            except BaseException:  # Ctrl-C, SIGTERM (as the CLI raises it), a crash: stop now, not after all
                _stop_pool(pool)
                raise
            pool.shutdown()
    finally:
        _SUITES = []
    ordered = [results[item[:2]] for item in work]
    summaries = [r.summary for r in ordered if isinstance(r, VariantReport)]
    failures = [f for r in ordered if isinstance(r, VariantReport) for f in r.failures]
    skipped = [Skipped(suite=s.name, variant="*", reason=p) for s in suites for p in s.problems]
    skipped += [r for r in ordered if isinstance(r, Skipped)]
    by_kind: Counter[str] = Counter()
    for s in summaries:
        by_kind.update(s.checks_by_kind)
    return ValidationReport(
        suites=[s.name for s in suites],
        variants=names,
        control=control,
        checks=sum(by_kind.values()),
        checks_by_kind={k: by_kind[k] for k in CHECK_KINDS if k in by_kind},
        seconds=round(time.perf_counter() - start, 3),
        summaries=summaries,
        failures=failures,
        skipped=skipped,
        notes=notes,
    )


_SUITES: list[Suite] = []
"""The suites of the running :func:`validate` (inherited by forked workers)."""


def _worker_init(parent: int) -> None:
    """A worker ignores Ctrl-C (a terminal sends it to the whole process group: the parent decides,
    and stops the pool), dies of SIGTERM (not the parent's handler, inherited by the fork), and dies
    with the parent (Linux), so that no worker outlives it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no prctl: the parent still terminates its workers on a stop
            pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the work not started and terminate the workers (a variant in progress is dropped).
    Then wait for the pool's manager thread: one still closing its pipe at exit races the exit
    hook of :mod:`concurrent.futures` (a "Bad file descriptor" traceback, Python < 3.12)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(5)
    if manager is not None:
        manager.join(5)


def _one(
    index: int, name: str, negative: bool, control: Control = "strict", explicit: bool = False
) -> VariantReport | Skipped:
    """Build variant ``name`` over suite ``index`` and validate it; the build counts as a check.

    On a catalog, a suite member that cannot be built is skipped (a catalog may be too small or
    too plain for it); a variant the caller named explicitly that cannot be built is a failure."""
    suite = _SUITES[index]
    began = time.perf_counter()
    try:
        variant = Variant.build(name, suite.space)
    except ConfigError as e:
        if not suite.builtin and not explicit:  # a catalog may be too small or too plain for a suite variant
            return Skipped(suite=suite.name, variant=name, reason="; ".join(e.problems))
        failure = Failure(kind="build", suite=suite.name, variant=name, spec=name, task_id="-", message=str(e))
        summary = VariantSummary(
            suite=suite.name, variant=name, spec=name, control=control, traces=0, negatives=0, checks=1, failures=1,
            seconds=round(time.perf_counter() - began, 3), checks_by_kind={"build": 1},
        )  # fmt: skip
        return VariantReport(summary=summary, failures=[failure])
    report = validate_variant(variant, suite, negative=negative, control=control)
    report.summary.checks += 1
    report.summary.checks_by_kind = {"build": 1, **report.summary.checks_by_kind}
    report.summary.seconds = round(time.perf_counter() - began, 3)
    return report


def validate_variant(
    variant: Variant, suite: Suite, *, negative: bool = True, control: Control = "strict"
) -> VariantReport:
    """Run every reference trace of ``suite`` (and the negative cases) through ``variant``, every
    call handled under ``control`` (see the module docstring).

    ``variant`` may be built by hand (``Variant(name, spec, layers)``), e.g. over deliberately
    broken layers: nothing here looks it up in a registry.
    """
    began = time.perf_counter()
    run = _Run(variant, suite, control)
    for task in suite.tasks:
        run.trace(task)
    cases = negatives(variant, suite, run.encodings) if negative else []
    run.negatives(cases)
    summary = VariantSummary(
        suite=suite.name,
        variant=variant.name,
        spec=variant.spec,
        control=control,
        traces=len(suite.tasks),
        negatives=len(cases),
        checks=sum(run.counts.values()),
        failures=len(run.failures),
        seconds=round(time.perf_counter() - began, 3),
        checks_by_kind={k: run.counts[k] for k in CHECK_KINDS if k in run.counts},
    )
    return VariantReport(summary=summary, failures=run.failures)


Log = list[tuple[ToolCall, Decision | None]]


class _Run:
    """Checks of one variant over one suite: counts per kind and the failures."""

    def __init__(self, variant: Variant, suite: Suite, control: Control = "strict") -> None:
        self.variant, self.suite, self.control = variant, suite, control
        self.counts: Counter[str] = Counter()
        self.failures: list[Failure] = []
        self.encodings: dict[str, list[ToolCall]] = {}
        """Native operation → the calls that encoded its first occurrence in a trace."""

    def _check(self, kind: str, ok: bool) -> bool:
        self.counts[kind] += 1
        return ok

    def _fail(self, kind: str, task_id: str, message: str, log: Log, world_seed: int = 0, **extra: Any) -> None:
        self.failures.append(
            Failure(
                kind=kind,
                suite=self.suite.name,
                variant=self.variant.name,
                spec=self.variant.spec,
                task_id=task_id,
                world_seed=world_seed,
                message=message,
                calls=[_record(c, d) for c, d in log],
                **extra,
            )
        )

    # reference traces -------------------------------------------------------------------------

    def trace(self, task: Task) -> None:
        suite = self.suite
        world = suite.world(task.world_seed)
        session = AdapterSession(self.variant, world.execute, self.control)
        native = suite.native_hashes(task)
        log: Log = []
        expected = [s.action for s in task.reference]
        native_after: dict[int, JSON] = {}  # the native world's snapshot after a number of steps

        def fail(kind: str, message: str, steps: int, state_world: World | None = None) -> None:
            decoded = [d.action for _, d in log if d is not None and d.action is not None]
            if steps not in native_after:
                native_after[steps] = snapshot(suite.native_world(task, steps))
            diff = _first_difference(native_after[steps], snapshot(state_world or world))
            path, want, got = diff if diff else (None, None, None)
            self._fail(
                kind, task.id, message, list(log), task.world_seed,
                expected_actions=[a.to_json() for a in expected],
                decoded_actions=[a.to_json() for a in decoded],
                state_path=path, expected_at_path=want, actual_at_path=got,
            )  # fmt: skip

        final = native[0] if not task.reference else None
        for i, step in enumerate(task.reference):
            start = len(log)
            try:
                reply = self._drive(session, step.action, log)
            except Exception as e:  # noqa: BLE001 - any encoder crash is a finding, not a validator crash
                self._check("plan", False)
                fail("plan", f"encoding step {i} ({step.action}) raised {type(e).__name__}: {e}", i + 1)
                break
            self._check("plan", True)
            self.encodings.setdefault(step.action.op, [c for c, _ in log[start:]])
            if not self._check("reply", canonical_json(reply) == canonical_json(step.reply)):
                message = f"step {i} ({step.action}): native reply {_short(reply)} != reference {_short(step.reply)}"
                fail("reply", message, i + 1)
            final = world.state_hash() if i == len(task.reference) - 1 else None
            if not self._check("step_state", (final or world.state_hash()) == native[i + 1]):
                fail("step_state", f"state after step {i} ({step.action}) differs from the native run's", i + 1)
        decoded = [d.action for _, d in log if d is not None and d.action is not None]
        if not self._check("action_sequence", decoded == expected):
            fail("action_sequence", f"decoded {len(decoded)} action(s) differ from the {len(expected)} reference "
                 f"action(s) (first at position {_first_mismatch(decoded, expected)})", len(expected))  # fmt: skip
        if not self._check("action_multiset", Counter(decoded) == Counter(expected)):
            missing, extra = Counter(expected) - Counter(decoded), Counter(decoded) - Counter(expected)
            fail("action_multiset", f"missing {sorted(map(str, missing.elements()))}, "
                 f"unexpected {sorted(map(str, extra.elements()))}", len(expected))  # fmt: skip
        rejected = [(c, d) for c, d in log if d is not None and d.outcome == "rejected"]
        if not self._check("rejection_free", not rejected):
            c, d = rejected[0]
            fail("rejection_free", f"{len(rejected)} call(s) rejected; first {c.name}: {d.rejection}: "
                 f"{_short(d.reply)}", len(expected))  # fmt: skip
        if not self._check("state_hash", (final or world.state_hash()) == native[-1]):
            fail("state_hash", "final state differs from the native run's", len(expected))

    def _drive(self, session: AdapterSession, action: Action, log: Log) -> JSON:
        """Run ``action``'s encoding through ``session`` as a model would; return the native reply."""

        def issue(call: ToolCall) -> JSON:
            decision = session.handle(call)
            log.append((call, decision))
            return json.loads(decision.content)

        plan = self.variant.plan(action)
        try:
            item = next(plan)
            for _ in range(MAX_CALLS):
                reply = [issue(c) for c in item.calls] if isinstance(item, Batch) else issue(item)
                item = plan.send(reply)
        except StopIteration as stop:
            return stop.value
        raise RuntimeError(f"the encoding did not finish within {MAX_CALLS} calls")

    # negative cases --------------------------------------------------------------------------

    def negatives(self, cases: list[Negative]) -> None:
        seed = self.suite.tasks[0].world_seed if self.suite.tasks else 0
        world = self.suite.world(seed)
        before = world.state_hash()
        for case in cases:
            session = AdapterSession(self.variant, world.execute, self.control)
            executed = len(world.log)
            log: Log = []
            problem = None
            replies = []
            for call in case.setup:
                decision = session.handle(call)
                log.append((call, decision))
                replies.append(decision.reply)
                if decision.outcome != "answered":
                    problem = f"setup call {call.name} was {decision.outcome}, expected answered"
            if problem is None:
                call = case.call(replies)
                decision = session.handle(call)
                log.append((call, decision))
                after = world.state_hash()
                if self.control != "strict":
                    problem = self._lenient_problem(case, decision, after != before)
                elif decision.outcome != "rejected":
                    problem = f"invalid call was {decision.outcome}, expected rejected ({case.expected})"
                elif decision.rejection != case.expected:
                    problem = f"rejected as {decision.rejection}, expected {case.expected}: {_short(decision.reply)}"
                elif len(world.log) != executed:
                    problem = "rejected, but a native action was executed"
                elif after != before:
                    problem = "rejected, but the state changed"
            ran = problem is None and case.expected == RejectionKind.UNDISCOVERED and self.control != "strict"
            if ran:  # an ungated invoke ran as a model's would: the next case starts from a fresh world
                world = self.suite.world(seed)
                before = world.state_hash()
            if not self._check("negative", problem is None):
                diff = _first_difference(snapshot(self.suite.world(seed)), snapshot(world))
                path, want, got = diff if diff else (None, None, None)
                self._fail("negative", case.id, problem or "", log, seed,
                           state_path=path, expected_at_path=want, actual_at_path=got)  # fmt: skip
                world = self.suite.world(seed)
                before = world.state_hash()

    def _lenient_problem(self, case: Negative, decision: Decision, changed: bool) -> str | None:
        """What is wrong with how the ``paper`` or ``loose`` control treated a negative case
        (see the module docstring), or None."""
        if case.expected == RejectionKind.UNDISCOVERED:  # neither control gates invoke on list_methods
            if decision.outcome != "executed":
                return f"invoke before list_methods was {decision.outcome}, expected it to run under {self.control}"
            return None
        if changed:
            return f"invalid call was {decision.outcome} and changed the state under {self.control}"
        if decision.outcome == "failed":
            return "invalid call reached the runtime"
        return None


def _record(call: ToolCall, decision: Decision | None) -> CallRecord:
    if decision is None:
        return CallRecord(name=call.name, arguments=call.to_json()["arguments"], outcome="not_run")
    return CallRecord(
        name=call.name,
        arguments=call.to_json()["arguments"],
        outcome=decision.outcome,
        rejection=decision.rejection,
        reply=json.loads(decision.content),
    )


def _short(value: JSON, size: int = 160) -> str:
    text = canonical_json(value)
    return text if len(text) <= size else text[: size - 3] + "..."


def _first_mismatch(a: list[Action], b: list[Action]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _first_difference(expected: JSON, actual: JSON, path: str = "$") -> tuple[str, JSON, JSON] | None:
    """The first JSON path (keys in sorted order, then list indices) where two values differ, with
    the expected and actual values there; None when they are equal. Values are compared as their
    canonical JSON text (``1`` is not ``1.0`` nor ``true``), a whole subtree at once, so only the
    branches on the way to the difference are walked."""
    if canonical_json(expected) == canonical_json(actual):
        return None
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            sub = f"{path}.{key}" if str(key).isidentifier() else f"{path}[{json.dumps(key)}]"
            if key not in expected or key not in actual:
                return sub, expected.get(key, _ABSENT), actual.get(key, _ABSENT)
            found = _first_difference(expected[key], actual[key], sub)
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (x, y) in enumerate(zip(expected, actual, strict=False)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(expected) != len(actual):
            i = min(len(expected), len(actual))
            return (
                f"{path}[{i}]",
                expected[i] if i < len(expected) else _ABSENT,
                actual[i] if i < len(actual) else _ABSENT,
            )
        return None
    return path, expected, actual
