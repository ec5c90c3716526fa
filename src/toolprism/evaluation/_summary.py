"""The outcome of a run: success per variant and condition, and per perturbation subtype and
severity, over everything recorded in its run directory; context overflows and backend errors
counted apart, out of every rate."""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolprism.evaluation._config import RunConfig
from toolprism.run import UNSCORED_ENDS, EpisodeResult, RunStore
from toolprism.score import PerturbationSummary, by_condition, success_interval


class VariantSummary(BaseModel):
    """Success of one variant (under one perturbation condition) over the run's scored episodes;
    episodes that ended in a context overflow or a backend error are counted apart (see
    :data:`toolprism.run.UNSCORED_ENDS`)."""

    variant: str
    spec: str
    condition: str = ""
    """``""`` clean, else the perturbations (``C2:medium``)."""
    episodes: int
    """Scored episodes (the denominator of ``success_rate``)."""
    successes: int
    success_rate: float | None
    """``successes / episodes``; None when no episode of the cell was scored."""
    ci_low: float | None = None
    ci_high: float | None = None
    """The 95% interval of ``success_rate`` (:func:`toolprism.score.success_interval`: the seeded
    percentile bootstrap, Wilson where every episode has the same outcome), the same interval
    ``toolprism score`` and the report give the cell; None when no episode of the cell was scored."""
    rejected_calls: int
    turn_limit: int
    """Episodes cut off at the turn limit (raise ``max_turns`` for stacked protocols)."""
    context_overflow: int = 0
    """Episodes whose prompt outgrew the model's context (not scored)."""
    backend_error: int = 0
    """Episodes the backend failed (not scored; ``toolprism run --resume`` runs them again)."""


class RunSummary(BaseModel):
    """The outcome of a run, as printed by ``toolprism run --json``.

    ``episodes`` counts the scored episodes; ``context_overflow`` and ``backend_error`` those
    recorded with that end, left out of every rate."""

    run_dir: str
    model: str
    mitigations: list[str] = Field(default_factory=list)
    """The mitigations the run applied (its header's; ``[]`` none; see :data:`toolprism.run.Mitigation`)."""
    episodes: int
    wall_s: float
    variants: list[VariantSummary]
    perturbations: list[PerturbationSummary] = Field(default_factory=list)
    context_overflow: int = 0
    backend_error: int = 0


def summarize(store: RunStore, wall_s: float) -> RunSummary:
    """Per-variant (and per-condition) success over everything recorded in ``store``, and the
    breakdown by perturbation subtype and severity."""
    rows: dict[tuple[str, str], list[EpisodeResult]] = {}
    results = store.results()
    for r in results:
        rows.setdefault((r.variant, r.condition or ""), []).append(r)
    config = store.header.config
    order = config.variants or list(dict.fromkeys(v for v, _ in rows))  # None: each domain's defaults
    # the header's conditions in canonical form (a run made before they were stored so still reads
    # right), then any condition only the rows know
    stored = RunConfig.model_validate(config.model_dump(exclude_unset=True)).perturbations
    conditions = list(dict.fromkeys(["", *stored, *(c for _, c in rows)]))
    cells = [(name, condition) for name in order for condition in conditions]
    variants = [_variant(name, condition, rs) for name, condition in cells if (rs := rows.get((name, condition)))]
    return RunSummary(
        run_dir=str(store.run_dir),
        model=config.model or "?",
        mitigations=list(config.mitigations),
        episodes=sum(v.episodes for v in variants),
        wall_s=round(wall_s, 2),
        variants=variants,
        perturbations=by_condition(
            [(r.condition, r.success) for r in results if r.end not in UNSCORED_ENDS], store.header.skipped
        ),
        context_overflow=sum(v.context_overflow for v in variants),
        backend_error=sum(v.backend_error for v in variants),
    )


def _variant(name: str, condition: str, rows: list[EpisodeResult]) -> VariantSummary:
    scored = [r for r in rows if r.end not in UNSCORED_ENDS]
    wins = sum(r.success for r in scored)
    low, high = success_interval([r.success for r in scored]) if scored else (None, None)
    return VariantSummary(
        variant=name,
        spec=rows[0].spec,
        condition=condition,
        episodes=len(scored),
        successes=wins,
        success_rate=wins / len(scored) if scored else None,
        ci_low=low,
        ci_high=high,
        rejected_calls=sum(r.rejected_calls for r in scored),
        turn_limit=sum(r.end == "turn_limit" for r in scored),
        context_overflow=sum(r.end == "context_overflow" for r in rows),
        backend_error=sum(r.end == "backend_error" for r in rows),
    )
