"""Confidence intervals of success rates: the percentile bootstrap (scipy.stats.bootstrap), and the
Wilson score interval where resampling cannot move the rate; Newcombe's hybrid score interval of a
difference of two rates."""

from __future__ import annotations

import math
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


def wilson_interval(successes: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (scipy.stats.binomtest): (low, high)
    in [0, 1]; deterministic. ``n`` 0 gives (nan, nan)."""
    from scipy import stats

    if n == 0:
        return float("nan"), float("nan")
    wilson = stats.binomtest(successes, n).proportion_ci(confidence, method="wilson")
    return float(wilson.low), float(wilson.high)


def newcombe_difference(k1: int, n1: int, k2: int, n2: int, *, confidence: float = 0.95) -> tuple[float, float, float]:
    """The difference ``k1/n1 - k2/n2`` and its hybrid score interval: (delta, low, high).

    Newcombe's method 10 (R. G. Newcombe, "Interval estimation for the difference between
    independent proportions: comparison of eleven methods", Statistics in Medicine 17, 1998,
    873-890): with Wilson intervals (l1, u1) and (l2, u2) of the two rates,
    ``low = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)`` and ``high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)``;
    the bounds stay within [-1, 1]. It treats the two samples as independent.

    Raises:
        ValueError: ``n1`` or ``n2`` is 0.
    """
    if n1 == 0 or n2 == 0:
        raise ValueError("a difference of proportions needs episodes on both sides")
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence=confidence)
    l2, u2 = wilson_interval(k2, n2, confidence=confidence)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
