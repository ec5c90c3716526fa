"""Re-scoring a stored run: per-variant success, schema-form success and failure modes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from toolprism.run import RunStore
from toolprism.score._taxonomy import FailureMode, diagnose


class VariantScore(BaseModel):
    """One variant's re-scored episodes.

    Attributes:
        success_rate: exact multiset match rate.
        schema_form_success_rate: the rate if schema-form calls counted as their native actions.
        modes: failure mode → episodes (modes with no episode omitted), in taxonomy order.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    spec: str
    episodes: int
    successes: int
    success_rate: float
    schema_form_success_rate: float
    modes: dict[str, int]


class RunScore(BaseModel):
    """``toolprism score RUN_DIR``: everything recomputed from the stored traces."""

    model_config = ConfigDict(extra="forbid")

    run_dir: str
    episodes: int
    variants: list[VariantScore]


def score_run(run_dir: Path) -> RunScore:
    """Recompute scores and failure modes of every stored episode; deterministic (no timings).

    Raises:
        ConfigError: ``run_dir`` is not a run directory.
    """
    store = RunStore.open(run_dir)
    try:
        rows: dict[str, list] = {}
        specs: dict[str, str] = {}
        for result in store.results():
            rows.setdefault(result.variant, []).append(diagnose(store.trace(result.episode_id)))
            specs[result.variant] = result.spec
    finally:
        store.close()
    variants = []
    for name, diagnoses in rows.items():
        modes = Counter(d.mode for d in diagnoses if d.mode is not None)
        n = len(diagnoses)
        variants.append(
            VariantScore(
                variant=name,
                spec=specs[name],
                episodes=n,
                successes=sum(d.success for d in diagnoses),
                success_rate=sum(d.success for d in diagnoses) / n,
                schema_form_success_rate=sum(d.schema_form_success for d in diagnoses) / n,
                modes={m.value: modes[m] for m in FailureMode if modes[m]},
            )
        )
    return RunScore(run_dir=str(run_dir), episodes=sum(v.episodes for v in variants), variants=variants)
