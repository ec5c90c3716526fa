"""Counterfactual repair: every failed episode is re-run once with its attributed primary error
corrected; failures are sorted into tiers *before* the repair (:mod:`toolprism.repair._tiers`) and
recovery is measured per tier (ToolRobustBench, section 5: "Correcting the attributed primary
error recovers 100% of Tier-1, 82.1% of Tier-2, and 0% of Tier-3 failures ... 72.4% of failed
instances overall").

The repair of the attributed error is one intervention aimed at the source stage:

- S4 (a perturbed return or runtime failure mishandled): the clean return restored (the
  tool-output and runtime perturbations removed).
- S1 (tool selection): the right tools named in the request (the variant's own tool names,
  those the encoded gold calls, and the operations).
- S2 (schema grounding): the variant's calling convention added to the request.
- S3 (argument binding): the right values named in the request.
- otherwise (S5), and for any episode cut off at the turn limit: twice the turns.

A user-intent perturbation (family B) on the episode is removed as well: the clean request
restored. An episode counts as recovered when its repaired re-run passes S5. (toolprism's reading:
the seed names no intervention per stage; an earlier version added a second, stronger repair, the
gold calls spelled out, and defined the tiers by which repair recovered the failure, which made
per-tier recovery 100/100/0 by construction.)
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from toolprism.backends import Backend, OracleBackend, create_backend
from toolprism.domains import Domain, Task, get_domain
from toolprism.errors import BackendError, ConfigError
from toolprism.perturb import Stage, expected_gold
from toolprism.repair._tiers import TIER_RULES, TIERS, Tier, assign_tier
from toolprism.run import EpisodeSpec, RunStore, Trace, constrain_mode, run_episode, verify_run_tasks
from toolprism.schema import canonical_json
from toolprism.score import PrimaryError, run_domains, score_stages
from toolprism.shaping import Variant

MAX_CONSECUTIVE_BACKEND_ERRORS = 10
"""``diagnose`` stops once this many repairs in a row could not be served (as ``run``'s breaker)."""


class Repair(BaseModel):
    """The counterfactual repair of one failed episode.

    Attributes:
        episode_id: the stored episode.
        tier / tier_reason: the tier assigned from the scored trace before the repair
            (:func:`~toolprism.repair.assign_tier`), and why.
        source_stage / primary_error: the attribution the repair acts on.
        earliest_failed_stage / cascade: the rest of the attribution the tier read.
        intervention: what the repair changed (module docstring).
        recovered: whether the repaired re-run passed S5.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    episode_id: str
    tier: Tier
    tier_reason: str
    source_stage: Stage
    primary_error: PrimaryError
    earliest_failed_stage: Stage
    cascade: bool
    intervention: str
    recovered: bool


class Recovery(BaseModel):
    """Recovery of a group of failures: ``recovered`` of ``failures``, the rate and its 95% Wilson
    score interval (None, None and None when the group is empty).

    Attributes:
        tier: 1, 2 or 3; None for the overall row.
        rule: the tier's rule in one line (:data:`~toolprism.repair.TIER_RULES`), or ``all failures``.
        failures / recovered: counts; rate: recovered / failures; low / high: the interval.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tier: Tier | None
    rule: str
    failures: int
    recovered: int
    rate: float | None
    low: float | None
    high: float | None


class RepairReport(BaseModel):
    """``toolprism diagnose``: every failed episode's tier and repair, recovery per tier and overall.

    Attributes:
        run_dir: the run repaired; failures: how many failed episodes were repaired.
        tiers: one :class:`Recovery` row per tier, 1 to 3 (tiers assigned before the repair).
        overall: recovery over every failure.
        repairs: one :class:`Repair` per failed episode, in recording order.
        not_repaired: failed episodes whose repaired re-run the backend could not serve (ended
            ``backend_error`` or ``context_overflow``), with that end and its cause: left out of
            every recovery rate, as a run leaves such episodes out of its scores.
    """

    model_config = ConfigDict(extra="forbid")

    run_dir: str
    failures: int
    tiers: list[Recovery]
    overall: Recovery
    repairs: list[Repair]
    not_repaired: list[dict[str, str]] = Field(default_factory=list)


def recovery(outcomes: list[bool], *, tier: Tier | None = None, confidence: float = 0.95) -> Recovery:
    """The :class:`Recovery` row of ``outcomes`` (one bool per failure: recovered or not), with the
    Wilson score interval at ``confidence`` (scipy.stats.binomtest; as in
    :func:`toolprism.score.success_interval` for uniform outcomes, used here for every group so
    that small tiers read alike)."""
    n, k = len(outcomes), sum(outcomes)
    rule = TIER_RULES[tier] if tier is not None else "all failures"
    if not n:
        return Recovery(tier=tier, rule=rule, failures=0, recovered=0, rate=None, low=None, high=None)
    from scipy import stats  # loaded on first use: it is slow to import

    wilson = stats.binomtest(k, n).proportion_ci(confidence, method="wilson")
    return Recovery(
        tier=tier, rule=rule, failures=n, recovered=k, rate=k / n, low=float(wilson.low), high=float(wilson.high)
    )


ORACLE_TURNS = 256
"""Turn limit for the oracle that encodes the gold (stacked protocols need many turns)."""

Intervention = tuple[str, Callable[[EpisodeSpec, int], tuple[EpisodeSpec, int]]]
"""A description and a function (spec, max_turns) → (repaired spec, max_turns)."""


def _with_hint(spec: EpisodeSpec, hint: str) -> EpisodeSpec:
    task = dataclasses.replace(spec.task, query=f"{spec.task.query}\n\n({hint})")
    return dataclasses.replace(spec, task=task)


def _without(spec: EpisodeSpec, families: str) -> EpisodeSpec:
    kept = tuple(i for i in spec.perturbations if i.family not in families)
    return dataclasses.replace(spec, perturbations=kept)


def encoded_calls(spec: EpisodeSpec) -> list[tuple[str, dict]]:
    """The calls that make the episode's expected gold under its variant, as the model must write
    them: ``[(tool name, arguments)]`` in order, protocol steps included (the oracle's calls on the
    expected gold alone, with no perturbation, so transaction and handle ids count from the
    first call the agent makes)."""
    task = dataclasses.replace(spec.task, gold=tuple(expected_gold(spec.task.gold, spec.perturbations)))
    clean = dataclasses.replace(spec, task=task, perturbations=())
    trace = asyncio.run(run_episode(clean, OracleBackend(), max_turns=ORACLE_TURNS))
    return [(c.name, c.arguments) for t in trace.turns for c in t.calls]


def intervention(spec: EpisodeSpec, source_stage: str, *, turn_limit: bool = False) -> Intervention:
    """The repair of a failure attributed to ``source_stage`` (module docstring); an episode cut
    off at the turn limit gets twice the turns, whatever its source stage.

    The repaired episode has the clean request (no user-intent perturbation) and, for S4, the
    clean returns; every hint is about that episode's expected gold."""
    base = _without(spec, "BCD" if source_stage == "S4" and not turn_limit else "B")
    gold = expected_gold(base.task.gold, base.perturbations)
    if turn_limit or source_stage not in ("S1", "S2", "S3", "S4"):
        return "twice the turns", lambda s, t: (base, 2 * t)
    if source_stage == "S4":
        return "clean return restored", lambda s, t: (base, t)
    if source_stage == "S1":
        # the variant's tool names, and the operations (a dispatcher or discovery tool alone says little)
        tools = ", ".join(dict.fromkeys(name for name, _ in encoded_calls(base))) or "none"
        ops = ", ".join(dict.fromkeys(a.op for a in gold)) or "none"
        return "right tools named", lambda s, t: (_with_hint(base, f"Tools to use: {tools} (operations: {ops})."), t)
    if source_stage == "S2":
        convention = spec.variant.convention() or "Call the tools exactly as their schemas say."
        return "calling convention given", lambda s, t: (_with_hint(base, convention), t)
    values = "; ".join(f"{a.op}: {canonical_json(a.arguments)}" for a in gold) or "none"
    return "right values named", lambda s, t: (_with_hint(base, f"Use these values: {values}."), t)


def spec_of(trace: Trace, domain: Domain | None = None) -> EpisodeSpec:
    """Rebuild the episode's spec from its stored trace (deterministic task regeneration), under
    the adapter control and the mitigations it ran under."""
    domain = domain or get_domain(trace.task.domain)
    seed = trace.task.world_seed
    task: Task = next(t for t in domain.tasks(seed) if t.id == trace.task.id)
    variant = Variant.build(trace.spec, domain.action_space())
    variant = dataclasses.replace(variant, name=trace.variant)
    instances = tuple(trace.perturbations)
    mitigations = tuple(trace.mitigations)
    return EpisodeSpec(domain, task, variant, trace.seed, instances, trace.control, mitigations=mitigations)


def diagnose_run(
    run_dir: Path,
    *,
    backend: Backend | None = None,
    limit: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> RepairReport:
    """Assign every failed episode (S5 failed; context overflows and backend errors are not
    failures and are left out) of ``run_dir``, at most ``limit``, its tier
    (:func:`~toolprism.repair.assign_tier`, from the stored trace), then repair it once with the
    run's own model (module docstring); an episode counts as recovered when its repaired re-run
    passes S5. Returns the repairs and recovery per tier and overall.

    ``progress`` is called after each repaired episode with (episodes done, episodes to repair,
    episode id).

    Raises:
        ConfigError: ``run_dir`` is not a run directory, ``limit`` is below 1, or the code no longer
            generates a task the run posed as it was (pinned task hashes).
        BackendError: the backend failed :data:`MAX_CONSECUTIVE_BACKEND_ERRORS` repairs in a row
            (the endpoint looks down); a single failure is recorded in ``not_repaired`` instead.
    """
    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be at least 1, got {limit}", what="options")
    store = RunStore.open(run_dir)
    try:
        verify_run_tasks(store, "repairing")
        config = store.header.config
        domains = run_domains(store)
        max_turns = config.max_turns
        traces = [store.trace(r.episode_id) for r in store.results()]
    finally:
        store.close()
    scored = [t for t in traces if t.scored]  # a context overflow or backend error is no model failure
    failed = [t for t in scored if score_stages(t, domains.get(t.task.domain)).stages["S5"] == "fail"][:limit]
    if backend is None and failed:
        model = config.model or "oracle"
        try:
            constrain = constrain_mode(config.mitigations)  # a constrained run's repairs decode as it did
            options = {"constrain": constrain} if constrain != "none" else {}
            backend = create_backend(model, base_url=config.base_url, tool_format=config.tool_format, **options)
        except ConfigError:
            raise ConfigError(
                f"the run's model {model!r} cannot be rebuilt by name (it was a backend object given to evaluate()); "
                "pass the same backend: diagnose_run(run_dir, backend=...)",
                what="model",
            ) from None
    repairs: list[Repair] = []
    not_repaired: list[dict[str, str]] = []
    streak = 0
    if progress is not None:
        progress(0, len(failed), "")
    for trace in failed:
        domain = domains.get(trace.task.domain)
        stages = score_stages(trace, domain)
        assigned = assign_tier(stages, trace)  # before the repair, from the scored trace alone
        source = stages.source_stage or "S5"
        spec = spec_of(trace, domain)
        description, apply = intervention(spec, source, turn_limit=trace.end == "turn_limit")
        repaired, turns = apply(spec, max_turns)
        outcome = asyncio.run(run_episode(repaired, backend, max_turns=turns))
        if not outcome.scored:  # the backend failed, not the repair: recorded apart, the others go on
            not_repaired.append({"episode_id": trace.episode_id, "end": outcome.end, "error": outcome.error or ""})
            streak = streak + 1 if outcome.end == "backend_error" else 0
            if streak >= MAX_CONSECUTIVE_BACKEND_ERRORS:
                raise BackendError(
                    f"the last {streak} repairs in a row failed with a backend error; the last one, "
                    f"{trace.episode_id}: {outcome.error}. Check the endpoint, then run diagnose again"
                )
            if progress is not None:
                progress(len(repairs) + len(not_repaired), len(failed), trace.episode_id)
            continue
        streak = 0
        repairs.append(
            Repair(
                episode_id=trace.episode_id,
                tier=assigned.tier,
                tier_reason=assigned.reason,
                source_stage=source,
                primary_error=stages.primary_error or "incomplete",
                earliest_failed_stage=stages.earliest_failed_stage or source,
                cascade=stages.cascade,
                intervention=description,
                recovered=score_stages(outcome, domain).stages["S5"] == "pass",
            )
        )
        if progress is not None:
            progress(len(repairs) + len(not_repaired), len(failed), trace.episode_id)
    return RepairReport(
        run_dir=str(run_dir),
        failures=len(repairs),
        tiers=[recovery([r.recovered for r in repairs if r.tier == t], tier=t) for t in TIERS],
        overall=recovery([r.recovered for r in repairs]),
        repairs=repairs,
        not_repaired=not_repaired,
    )
