"""Bootstrap confidence intervals of success rates (scipy.stats.bootstrap, percentile method)."""

from __future__ import annotations

from collections.abc import Sequence


def success_interval(
    outcomes: Sequence[bool], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the success rate of ``outcomes`` (scipy.stats.bootstrap).

    With fewer than two episodes, or when every episode has the same outcome, the interval
    collapses to the observed rate (resampling cannot move it).
    """
    import numpy as np
    from scipy import stats  # loaded on first use: it is slow to import

    values = np.asarray(outcomes, dtype=float)
    if len(values) < 2 or values.min() == values.max():
        rate = float(values.mean()) if len(values) else float("nan")
        return rate, rate
    result = stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
