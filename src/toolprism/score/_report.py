"""Re-scoring a stored run: per variant and condition, success, schema-form success, failure modes,
stage pass rates and attribution; per perturbation condition over all variants, success with the
skips and their reasons; per perturbation family and subtype, the attribution in ToolRobustBench's
terms (primary-error shares, cascade rate, boundary-violation rate)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from toolprism.perturb import SEVERITIES, SkipRecord, Stage, condition_cell
from toolprism.run import RunStore, verify_run_tasks
from toolprism.score._interaction import EpisodeOutcome, InteractionRow, interactions
from toolprism.score._interval import success_interval
from toolprism.score._runtime import RuntimeFieldRow, runtime_rows
from toolprism.score._stages import STAGES, TRB_ERROR_NAMES, EpisodeStages, TrbError, score_stages
from toolprism.score._taxonomy import (
    LIVELOCK_TURNS,
    PROTOCOL_BREAKS,
    EpisodeDiagnosis,
    FailureMode,
    ProtocolBreak,
    check_livelock_turns,
    diagnose,
    run_domains,
)


class VariantScore(BaseModel):
    """One variant's re-scored episodes under one condition.

    Attributes:
        condition: the perturbations (``""`` clean).
        success_rate: exact multiset match rate (and, where the domain fixes an expected result,
            the answer states it: :func:`succeeded`); ``ci_low``/``ci_high``: its 95% interval
            (percentile bootstrap; Wilson where all episodes agree; see
            :func:`toolprism.score.success_interval`).
        schema_form_success_rate: the rate if schema-form calls counted as their native actions.
        modes: failure mode → episodes (modes with no episode omitted), in taxonomy order.
        protocols: the first protocol an episode broke → episodes, successes included (see
            :data:`toolprism.score.ProtocolBreak`; none omitted).
        stage_pass_rates: S1 … S5 → pass rate over the episodes where the stage applies (None
            where it applies to none).
        sources: source stage of each failed episode → count (cascade-aware attribution).
        cascades: failed episodes whose source stage differs from their earliest failed stage.
        boundary_violations: perturbed failures attributed outside the perturbation's stages.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    spec: str
    condition: str = ""
    episodes: int
    successes: int
    success_rate: float
    ci_low: float
    ci_high: float
    schema_form_success_rate: float
    modes: dict[FailureMode, int]
    protocols: dict[ProtocolBreak, int] = Field(default_factory=dict)
    stage_pass_rates: dict[Stage, float | None]
    sources: dict[Stage, int]
    cascades: int
    boundary_violations: int


class VariantGap(BaseModel):
    """The best and the worst variant under one condition, and the gap between their success."""

    model_config = ConfigDict(extra="forbid")

    condition: str
    best: str
    best_rate: float
    worst: str
    worst_rate: float
    gap: float


class PerturbationSummary(BaseModel):
    """Success under one perturbation condition over every variant (ToolRobustBench's breakdown):
    one subtype at one severity, or a mixed pair (``subtype`` ``A3+C4``, ``severity`` ``medium``).

    ``success_rate`` and its 95% interval ``ci_low``/``ci_high`` are None when every (task,
    variant) pair was skipped; ``skipped`` counts those pairs and ``reasons`` gives each distinct
    reason with its count, most frequent first."""

    model_config = ConfigDict(extra="forbid")

    subtype: str
    severity: str
    episodes: int
    successes: int
    success_rate: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    skipped: int
    reasons: dict[str, int] = Field(default_factory=dict)


def by_condition(outcomes: Iterable[tuple[str, bool]], skipped: Iterable[SkipRecord]) -> list[PerturbationSummary]:
    """One :class:`PerturbationSummary` per perturbed condition, single subtypes before mixed
    pairs, then by subtype and severity.

    Args:
        outcomes: (condition key, success) per episode; clean episodes (``""``) are left out.
        skipped: the run header's skip records.
    """
    cells: dict[str, list[bool]] = {}
    skips: dict[str, set[tuple[str, str]]] = {}
    reasons: dict[str, Counter] = {}
    for condition, success in outcomes:
        if condition:
            cells.setdefault(condition, []).append(success)
    for s in skipped:
        skips.setdefault(s.condition, set()).add((s.task, s.variant))
        prefix = f"{s.subtype}: " if "+" in s.condition else ""
        reasons.setdefault(s.condition, Counter())[prefix + s.reason] += 1

    def order(condition: str) -> tuple:
        terms = [t.partition(":") for t in condition.split("+")]
        return (len(terms), *[(sub, SEVERITIES.index(sev) if sev in SEVERITIES else 9) for sub, _, sev in terms])

    rows = []
    for condition in sorted(set(cells) | set(skips), key=order):
        subtype, severity = condition_cell(condition)
        wins = cells.get(condition, [])
        low, high = success_interval(wins) if wins else (None, None)
        rows.append(
            PerturbationSummary(
                subtype=subtype,
                severity=severity,
                episodes=len(wins),
                successes=sum(wins),
                success_rate=sum(wins) / len(wins) if wins else None,
                ci_low=low,
                ci_high=high,
                skipped=len(skips.get(condition, ())),
                reasons=dict(reasons.get(condition, Counter()).most_common()),
            )
        )
    return rows


class AttributionSummary(BaseModel):
    """Attribution of the failures under one perturbation family, or one subtype of it
    (ToolRobustBench, section 4: "failure attribution"; over every variant and severity).

    Attributes:
        family: the family (``A`` … ``D``; ``A+C`` for a mixed pair; ``""`` for clean episodes).
        subtype: the subtype (``C3``, ``A3+C4``), None on the family's own row.
        episodes / failures: episodes scored, and those that failed (a primary error recorded).
        primary_error_shares / observed_error_shares: ToolRobustBench error → share of the
            failures whose primary (observed) error it is (:data:`toolprism.score.TrbError`;
            errors with no failure omitted, in the vocabulary's order).
        cascade_rate: failures whose source stage differs from their earliest failed stage, over
            the failures; None without failures.
        boundary_violation_rate: failures attributed outside the perturbations' primary stage and
            allowed spillover, over the failures; None without failures and for clean episodes.
    """

    model_config = ConfigDict(extra="forbid")

    family: str
    subtype: str | None = None
    episodes: int
    failures: int
    primary_error_shares: dict[TrbError, float]
    observed_error_shares: dict[TrbError, float]
    cascade_rate: float | None
    boundary_violation_rate: float | None


def subtype_family(subtype: str) -> str:
    """The family of a subtype cell: ``C`` for ``C3``, ``A+C`` for ``A3+C4``, ``""`` for clean."""
    return "+".join(term[:1] for term in subtype.split("+")) if subtype else ""


def attribution_summary(scored: Iterable[tuple[str, EpisodeStages]]) -> list[AttributionSummary]:
    """One :class:`AttributionSummary` per family and per subtype, each family's row before its
    subtypes' (clean first, single families before mixed pairs).

    Args:
        scored: (condition key, stage scores) per episode; clean episodes have the key ``""``.
    """
    cells: dict[tuple[str, str | None], list[EpisodeStages]] = {}
    for condition, stages in scored:
        subtype = condition_cell(condition)[0]
        family = subtype_family(subtype)
        cells.setdefault((family, None), []).append(stages)
        if subtype:
            cells.setdefault((family, subtype), []).append(stages)
    rows = []
    for (family, subtype), episodes in sorted(cells.items(), key=lambda c: ("+" in c[0][0], c[0][0], c[0][1] or "")):
        failed = [s for s in episodes if s.primary_error is not None]
        n = len(failed)
        rows.append(
            AttributionSummary(
                family=family,
                subtype=subtype,
                episodes=len(episodes),
                failures=n,
                primary_error_shares=_shares([s.trb_primary_error for s in failed]),
                observed_error_shares=_shares([s.trb_observed_error for s in failed]),
                cascade_rate=sum(s.cascade for s in failed) / n if n else None,
                boundary_violation_rate=(sum(bool(s.boundary_violation) for s in failed) / n if n and family else None),
            )
        )
    return rows


def _shares(errors: list[TrbError | None]) -> dict[TrbError, float]:
    counts = Counter(errors)
    return {e: counts[e] / len(errors) for e in TRB_ERROR_NAMES if counts[e]}  # type: ignore[misc]


class OutcomeCount(BaseModel):
    """The episodes of one model, variant and condition that are left out of every score, and why
    (see :data:`toolprism.run.UNSCORED_ENDS`).

    Attributes:
        model: the run's model (its backend's model id, else its configured name).
        variant / condition: the cell (``condition`` ``""`` clean).
        recorded: episodes stored; ``scored``: those scored (``recorded`` less the two below).
        context_overflow: episodes whose prompt outgrew the model's context (a recorded outcome
            of its own: variants that show more tools overflow first).
        backend_error: episodes the backend failed (after its retries); ``toolprism run
            --resume`` runs them again.
    """

    model_config = ConfigDict(extra="forbid")

    model: str
    variant: str
    condition: str = ""
    recorded: int
    scored: int
    context_overflow: int
    backend_error: int


class RunScore(BaseModel):
    """``toolprism score RUN_DIR``: everything recomputed from the stored traces."""

    model_config = ConfigDict(extra="forbid")

    run_dir: str
    livelock_turns: int = LIVELOCK_TURNS
    """The livelock threshold the failure modes were computed with (model turns)."""
    episodes: int
    """Scored episodes: those recorded less the context overflows and backend errors
    (:attr:`outcomes`)."""
    planned: int | None = None
    """Episodes the run planned (its header), None if unknown; more than the episodes recorded
    when the run was stopped before it finished (``toolprism run --resume`` finishes it)."""
    variants: list[VariantScore]
    gaps: list[VariantGap]
    perturbations: list[PerturbationSummary] = Field(default_factory=list)
    attribution: list[AttributionSummary] = Field(default_factory=list)
    """Per family and subtype: primary-error shares, cascade and boundary-violation rates."""
    interactions: list[InteractionRow] = Field(default_factory=list)
    """Each mixed condition against its weaker single-family constituent (ToolRobustBench,
    section 6; see :func:`toolprism.score.interactions`)."""
    runtime: list[RuntimeFieldRow] = Field(default_factory=list)
    """Runtime-report outcomes and per-field match rates per subtype with a C or D perturbation
    (ToolRobustBench, section 5 "Runtime feedback"; see :mod:`toolprism.score._runtime`)."""
    outcomes: list[OutcomeCount] = Field(default_factory=list)
    """Per model, variant and condition (in recording order): episodes recorded, scored, and left
    out of every score as context overflows or backend errors."""

    @property
    def recorded(self) -> int:
        """Episodes stored, scored or not."""
        return sum(o.recorded for o in self.outcomes) if self.outcomes else self.episodes


def score_run(run_dir: Path, *, livelock_turns: int = LIVELOCK_TURNS) -> RunScore:
    """Recompute scores and failure modes of every stored episode; deterministic (no timings).
    Episodes that ended in a context overflow or a backend error are left out of every rate,
    stage, failure mode, attribution and interaction and counted in :attr:`RunScore.outcomes`.

    ``livelock_turns``: the taxonomy's livelock threshold in model turns (the paper's 16 by
    default; see :func:`toolprism.score.diagnose`).

    Raises:
        ConfigError: ``livelock_turns`` is not an integer of at least 1, ``run_dir`` is not a run
            directory, or the code no longer generates a task the run posed as it was (pinned task
            hashes; the message names each changed task).
    """
    check_livelock_turns(livelock_turns)
    store = RunStore.open(run_dir)
    try:
        verify_run_tasks(store, "re-scoring")
        planned = store.header.episodes
        domains = run_domains(store)
        rows: dict[tuple[str, str], list] = {}
        episodes: list[EpisodeOutcome] = []
        specs: dict[str, str] = {}
        skipped = store.header.skipped
        model = _model_name(store.header.backend.get("model"), store.header.config.model)
        reports = []
        ends: dict[tuple[str, str], Counter] = {}
        for result in store.results():
            trace = store.trace(result.episode_id)
            ends.setdefault((result.variant, result.condition or ""), Counter())[trace.end] += 1
            if not trace.scored:  # the end the trace records (an upgraded one may differ from its row)
                continue
            domain = domains.get(result.domain)
            scored = (
                diagnose(trace, domain, livelock_turns=livelock_turns),
                score_stages(trace, domain, livelock_turns=livelock_turns),
            )
            rows.setdefault((result.variant, result.condition or ""), []).append(scored)
            key = (result.domain, result.task_id, result.variant, result.condition or "")
            episodes.append(EpisodeOutcome(*key, succeeded(*scored)))
            reports.append((trace.perturbations, scored[1].runtime_report, scored[1].runtime_matches))
            specs[result.variant] = result.spec
    finally:
        store.close()
    variants = []
    for (name, condition), scored in rows.items():
        diagnoses = [d for d, _ in scored]
        stages = [s for _, s in scored]
        modes = Counter(d.mode for d in diagnoses if d.mode is not None)
        protocols = Counter(d.protocol for d in diagnoses if d.protocol is not None)
        n = len(diagnoses)
        judged = {stage: [s.stages[stage] for s in stages if s.stages[stage] != "n/a"] for stage in STAGES}
        sources = Counter(s.source_stage for s in stages if s.source_stage)
        wins = [succeeded(d, s) for d, s in scored]
        low, high = success_interval(wins)
        variants.append(
            VariantScore(
                variant=name,
                spec=specs[name],
                condition=condition,
                episodes=n,
                successes=sum(wins),
                success_rate=sum(wins) / n,
                ci_low=low,
                ci_high=high,
                schema_form_success_rate=sum(d.schema_form_success for d in diagnoses) / n,
                modes={m: modes[m] for m in FailureMode if modes[m]},
                protocols={p: protocols[p] for p in PROTOCOL_BREAKS if protocols[p]},
                stage_pass_rates={k: (v.count("pass") / len(v) if v else None) for k, v in judged.items()},
                sources={stage: sources[stage] for stage in STAGES if sources[stage]},
                cascades=sum(s.cascade for s in stages),
                boundary_violations=sum(bool(s.boundary_violation) for s in stages),
            )
        )
    outcomes = [(v.condition, succeeded(d, s)) for v in variants for d, s in rows[(v.variant, v.condition)]]
    return RunScore(
        run_dir=str(run_dir),
        livelock_turns=livelock_turns,
        episodes=sum(v.episodes for v in variants),
        planned=planned,
        variants=variants,
        gaps=_gaps(variants),
        perturbations=by_condition(outcomes, skipped),
        attribution=attribution_summary((c, s) for (_, c), scored in rows.items() for _, s in scored),
        interactions=interactions(episodes, [s.condition for s in skipped]),
        runtime=runtime_rows(model, reports),
        outcomes=[_outcome(model, variant, condition, counts) for (variant, condition), counts in ends.items()],
    )


def episode_outcomes(run_dir: Path, *, livelock_turns: int = LIVELOCK_TURNS) -> list[EpisodeOutcome]:
    """Each scored episode of a stored run, in recording order: (domain, task id, variant,
    condition, success), success as :func:`score_run` judges it (:func:`succeeded`). Episodes
    left out of every score (context overflow, backend error) are left out here too.

    Raises:
        ConfigError: as :func:`score_run`.
    """
    check_livelock_turns(livelock_turns)
    store = RunStore.open(run_dir)
    try:
        verify_run_tasks(store, "re-scoring")
        domains = run_domains(store)
        outcomes = []
        for result in store.results():
            trace = store.trace(result.episode_id)
            if not trace.scored:
                continue
            domain = domains.get(result.domain)
            diagnosis = diagnose(trace, domain, livelock_turns=livelock_turns)
            stages = score_stages(trace, domain, livelock_turns=livelock_turns)
            key = (result.domain, result.task_id, result.variant, result.condition or "")
            outcomes.append(EpisodeOutcome(*key, succeeded(diagnosis, stages)))
    finally:
        store.close()
    return outcomes


def _outcome(model: str, variant: str, condition: str, ends: Counter) -> OutcomeCount:
    recorded = sum(ends.values())
    unscored = {end: ends[end] for end in ("context_overflow", "backend_error")}
    return OutcomeCount(
        model=model,
        variant=variant,
        condition=condition,
        recorded=recorded,
        scored=recorded - sum(unscored.values()),
        **unscored,
    )


def succeeded(diagnosis: EpisodeDiagnosis, stages: EpisodeStages) -> bool:
    """An episode's headline success, as the run scored it: the multiset match
    (:attr:`EpisodeDiagnosis.success`) and, where the domain fixes an expected result, the final
    answer stating it (:attr:`EpisodeStages.result_match` not False; ToolRobustBench, section 3),
    and in a runtime case the right reported decisions (:attr:`EpisodeStages.runtime_decided`)."""
    return diagnosis.success and stages.result_match is not False and stages.runtime_decided is not False


def _model_name(backend_model: object, config_model: str | None) -> str:
    """The run's model as its header names it: the backend's model id, else the configured name."""
    return backend_model if isinstance(backend_model, str) and backend_model else config_model or "unknown"


def _gaps(variants: list[VariantScore]) -> list[VariantGap]:
    gaps = []
    for condition in dict.fromkeys(v.condition for v in variants):
        ranked = sorted((v for v in variants if v.condition == condition), key=lambda v: (-v.success_rate, v.variant))
        best, worst = ranked[0], ranked[-1]
        gap = best.success_rate - worst.success_rate
        gaps.append(VariantGap(condition=condition, best=best.variant, best_rate=best.success_rate,
                               worst=worst.variant, worst_rate=worst.success_rate, gap=gap))  # fmt: skip
    return gaps
