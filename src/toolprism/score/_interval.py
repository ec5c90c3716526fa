"""Confidence intervals of success rates: the percentile bootstrap (scipy.stats.bootstrap), and the
Wilson score interval where resampling cannot move the rate."""

from __future__ import annotations

from collections.abc import Sequence


def success_interval(
    outcomes: Sequence[bool], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Interval of the success rate of ``outcomes`` at ``confidence``: (low, high), rates in [0, 1].

    The percentile bootstrap over episodes (scipy.stats.bootstrap, seeded: deterministic). When
    every episode has the same outcome (always so for a single episode), every resample has the
    observed rate and the bootstrap interval would collapse to a point; the Wilson score interval
    (scipy.stats.binomtest) is given instead, so that 4 of 4 reads as 51%-100%, not 100%-100%.
    No episodes give (nan, nan).
    """
    import numpy as np
    from scipy import stats  # loaded on first use: it is slow to import

    values = np.asarray(outcomes, dtype=float)
    if not len(values):
        return float("nan"), float("nan")
    if values.min() == values.max():
        wilson = stats.binomtest(int(values.sum()), len(values)).proportion_ci(confidence, method="wilson")
        return float(wilson.low), float(wilson.high)
    result = stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
