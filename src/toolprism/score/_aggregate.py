"""Aggregates with uncertainty over stored runs: one row per episode as a pandas DataFrame,
success per model x variant x condition with bootstrap confidence intervals, and the best-vs-worst
variant gap per model (the Action-Space Shaping paper's headline: the spread of success across equivalent encodings).

Everything is recomputed from stored traces (no model is called) and is deterministic: the
bootstrap uses a fixed seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from toolprism.errors import ConfigError
from toolprism.perturb import condition_cell
from toolprism.run import UNSCORED_ENDS, RunStore
from toolprism.score._interval import success_interval
from toolprism.score._report import subtype_family, succeeded
from toolprism.score._stages import STAGES, score_stages
from toolprism.score._taxonomy import LIVELOCK_TURNS, check_livelock_turns, diagnose, run_domains

GROUP = ("model", "variant", "condition")
"""The default aggregation cells."""


def episode_frame(run_dirs: Path | str | Iterable[Path | str], *, livelock_turns: int = LIVELOCK_TURNS) -> pd.DataFrame:
    """One row per stored episode of ``run_dirs`` (one run directory, or several).

    Columns: ``run_dir, model, domain, task_id, form, kind, variant, spec, condition, family,
    subtype, severity, seed, success, schema_form_success, mode, protocol, S1 … S5,
    earliest_failed_stage, source_stage, cascade, boundary_violation, primary_error,
    trb_observed_error, trb_primary_error, rejected_calls, turns, end, error``. An episode that
    ended in a context overflow or a backend error (``end``; ``error``: its cause; see
    :data:`toolprism.run.UNSCORED_ENDS`) is a row with every score column empty (None), and
    :func:`aggregate` leaves it out. ``subtype``/``severity`` split
    the condition (``A3+C4``/``medium``; empty when clean, see
    :func:`toolprism.perturb.condition_cell`) and ``family`` is the subtype's (``C``, ``A+C``; empty
    when clean). Stage columns hold ``pass``/``fail``/``n/a``; ``mode`` (the taxonomy's label,
    computed with the livelock threshold ``livelock_turns``) and the attribution columns
    (:class:`toolprism.score.EpisodeStages`: the earliest failed stage by time, the source, the
    errors in toolprism's and in ToolRobustBench's vocabulary) are empty (None) for successes;
    ``protocol`` is the first protocol break (see :attr:`toolprism.score.EpisodeDiagnosis.protocol`),
    None when there is none.

    Raises:
        ConfigError: a path is not a run directory; ``livelock_turns`` is not an integer of at
            least 1.
    """
    check_livelock_turns(livelock_turns)
    rows = []
    for run_dir in [run_dirs] if isinstance(run_dirs, Path | str) else run_dirs:
        store = RunStore.open(Path(run_dir))
        try:
            model = store.header.config.model or "?"
            domains = run_domains(store)
            for result in store.results():
                trace = store.trace(result.episode_id)
                subtype, severity = condition_cell(result.condition or "")
                cell = {
                    "run_dir": str(run_dir),
                    "model": model,
                    "domain": result.domain,
                    "task_id": result.task_id,
                    "form": trace.task.form,
                    "kind": trace.task.kind,
                    "variant": result.variant,
                    "spec": result.spec,
                    "condition": result.condition or "",
                    "family": subtype_family(subtype),
                    "subtype": subtype,
                    "severity": severity,
                    "seed": result.seed,
                    "rejected_calls": result.rejected_calls,
                    "turns": result.turns,
                    "end": trace.end,
                    "error": trace.error,
                }
                if not trace.scored:  # no score: the score columns stay empty
                    rows.append(cell)
                    continue
                domain = domains.get(result.domain)
                diagnosis = diagnose(trace, domain, livelock_turns=livelock_turns)
                staged = score_stages(trace, domain, livelock_turns=livelock_turns)
                rows.append(
                    {
                        **cell,
                        "success": succeeded(diagnosis, staged),
                        "schema_form_success": diagnosis.schema_form_success,
                        "mode": diagnosis.mode.value if diagnosis.mode else None,
                        "protocol": diagnosis.protocol,
                        **staged.stages,
                        "earliest_failed_stage": staged.earliest_failed_stage,
                        "source_stage": staged.source_stage,
                        "cascade": staged.cascade,
                        "boundary_violation": staged.boundary_violation,
                        "primary_error": staged.primary_error,
                        "trb_observed_error": staged.trb_observed_error,
                        "trb_primary_error": staged.trb_primary_error,
                    }
                )
        finally:
            store.close()
    columns = [
        "run_dir", "model", "domain", "task_id", "form", "kind", "variant", "spec", "condition", "family", "subtype",
        "severity", "seed", "success", "schema_form_success", "mode", "protocol", *STAGES, "earliest_failed_stage",
        "source_stage", "cascade", "boundary_violation", "primary_error", "trb_observed_error", "trb_primary_error",
        "rejected_calls", "turns", "end", "error",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def aggregate(frame: pd.DataFrame, by: str | Sequence[str] = GROUP, *, confidence: float = 0.95) -> pd.DataFrame:
    """Success per cell of ``by`` with a confidence interval (:func:`success_interval`).

    Args:
        frame: rows as :func:`episode_frame` gives them (a ``success`` column and the ``by`` ones).
        by: one column name or several.

    Columns: ``*by, episodes, successes, success_rate, ci_low, ci_high``, sorted by ``by``. Rows
    whose ``end`` is a context overflow or backend error (:data:`toolprism.run.UNSCORED_ENDS`) are
    left out (a cell with no other row has none).

    Raises:
        ConfigError: a ``by`` column the frame does not have.
    """
    by = [by] if isinstance(by, str) else list(by)
    if missing := [c for c in [*by, "success"] if c not in frame.columns]:
        raise ConfigError(f"the frame has no column(s) {', '.join(missing)}", what="aggregate")
    if "end" in frame.columns:
        frame = frame[~frame["end"].isin(UNSCORED_ENDS)]
    rows = []
    for key, cell in frame.groupby(by, sort=True, dropna=False):
        low, high = success_interval(cell["success"].tolist(), confidence=confidence)
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                "episodes": len(cell),
                "successes": int(cell["success"].astype(bool).sum()),
                "success_rate": float(cell["success"].astype(bool).mean()),
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows, columns=[*by, "episodes", "successes", "success_rate", "ci_low", "ci_high"])


def variant_gap(frame: pd.DataFrame) -> pd.DataFrame:
    """Best and worst variant per model and condition, and the gap between their success rates.

    Columns: ``model, condition, best, best_rate, worst, worst_rate, gap``."""
    cells = aggregate(frame, GROUP)
    rows = []
    for (model, condition), group in cells.groupby(["model", "condition"], sort=True):
        ranked = group.sort_values(["success_rate", "variant"], ascending=[False, True])
        best, worst = ranked.iloc[0], ranked.iloc[-1]
        rows.append(
            {
                "model": model,
                "condition": condition,
                "best": best["variant"],
                "best_rate": best["success_rate"],
                "worst": worst["variant"],
                "worst_rate": worst["success_rate"],
                "gap": best["success_rate"] - worst["success_rate"],
            }
        )
    return pd.DataFrame(rows, columns=["model", "condition", "best", "best_rate", "worst", "worst_rate", "gap"])


def write_parquet(frame: pd.DataFrame, path: Path) -> Path:
    """Write ``frame`` as Parquet (pyarrow) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path, engine="pyarrow", index=False)
    return path
