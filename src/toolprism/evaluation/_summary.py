"""The outcome of a run: success per variant and condition, and per perturbation subtype and
severity, over everything recorded in its run directory."""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolprism.evaluation._config import RunConfig
from toolprism.run import EpisodeResult, RunStore
from toolprism.score import PerturbationSummary, by_condition


class VariantSummary(BaseModel):
    """Success of one variant (under one perturbation condition) over the run's episodes."""

    variant: str
    spec: str
    condition: str = ""
    """``""`` clean, else the perturbations (``C2:medium``)."""
    episodes: int
    successes: int
    success_rate: float
    rejected_calls: int
    turn_limit: int
    """Episodes cut off at the turn limit (raise ``max_turns`` for stacked protocols)."""


class RunSummary(BaseModel):
    """The outcome of a run, as printed by ``toolprism run --json``."""

    run_dir: str
    model: str
    episodes: int
    wall_s: float
    variants: list[VariantSummary]
    perturbations: list[PerturbationSummary] = Field(default_factory=list)


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
    variants = [
        VariantSummary(
            variant=name,
            spec=rs[0].spec,
            condition=condition,
            episodes=len(rs),
            successes=sum(r.success for r in rs),
            success_rate=sum(r.success for r in rs) / len(rs),
            rejected_calls=sum(r.rejected_calls for r in rs),
            turn_limit=sum(r.end == "turn_limit" for r in rs),
        )
        for name in order
        for condition in conditions
        if (rs := rows.get((name, condition)))
    ]
    return RunSummary(
        run_dir=str(store.run_dir),
        model=config.model or "?",
        episodes=sum(v.episodes for v in variants),
        wall_s=round(wall_s, 2),
        variants=variants,
        perturbations=by_condition([(r.condition, r.success) for r in results], store.header.skipped),
    )
