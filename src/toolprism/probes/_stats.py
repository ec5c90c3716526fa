"""Paired-contrast statistics for probe studies: median and interquartile range, the two-sided
sign test, and direction counts (Xu et al. 2026, section III: every quantity is reported as the
injected row minus the clean row of the same task and step).

NaN contrasts (a quantity that could not be computed, e.g. the first-token surprisal of an empty
return) are left out of every statistic; ``n`` counts what remains.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy.stats import binomtest


class PairedStats(BaseModel):
    """Summary of paired contrasts ``injected - clean`` (units of the quantity: nats, or a probability).

    Attributes:
        n: contrasts that are numbers (NaN left out).
        median, q1, q3: median and quartiles (numpy's linear interpolation); None when ``n`` is 0.
        up, down, zero: contrasts above, below and equal to 0.
        sign_p: two-sided exact sign test of ``up`` against ``down`` (ties left out;
            ``scipy.stats.binomtest`` with p = 1/2); None when ``up + down`` is 0.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    median: float | None
    q1: float | None
    q3: float | None
    up: int
    down: int
    zero: int
    sign_p: float | None

    def median_iqr(self, digits: int = 3) -> str:
        """``+0.123 [-0.010, +0.400]`` (signed, no ``-0.000``); ``—`` when there is no contrast."""
        if self.median is None:
            return "—"
        return f"{signed(self.median, digits)} [{signed(self.q1, digits)}, {signed(self.q3, digits)}]"

    def signs(self) -> str:
        """``up/down, p=...`` (the sign test; ``p=—`` when every contrast is 0)."""
        return f"{self.up}/{self.down}, p={'—' if self.sign_p is None else f'{self.sign_p:.2g}'}"


def signed(value: float | None, digits: int = 3) -> str:
    """``value`` with its sign and ``digits`` decimals; a value that rounds to zero is ``0.000``
    (never ``-0.000``); ``—`` for None."""
    if value is None:
        return "—"
    return f"{0.0:.{digits}f}" if round(value, digits) == 0 else f"{value:+.{digits}f}"


def paired_stats(deltas: Iterable[float]) -> PairedStats:
    """:class:`PairedStats` of ``deltas`` (NaN left out). Deterministic; never raises."""
    values = np.array([d for d in deltas if not math.isnan(d)], dtype=float)
    up, down = int((values > 0).sum()), int((values < 0).sum())
    if values.size == 0:
        return PairedStats(n=0, median=None, q1=None, q3=None, up=0, down=0, zero=0, sign_p=None)
    q1, median, q3 = (float(x) for x in np.percentile(values, [25, 50, 75]))
    p = float(binomtest(up, up + down, 0.5).pvalue) if up + down else None
    return PairedStats(
        n=int(values.size), median=median, q1=q1, q3=q3, up=up, down=down, zero=int(values.size) - up - down, sign_p=p
    )


class Directions(BaseModel):
    """How many contrasts moved up, down, or stayed within ``flat`` of 0 (NaN left out)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    up: int
    down: int
    flat: int


def directions(deltas: Iterable[float], *, flat: float) -> Directions:
    """Count ``deltas`` above ``flat``, below ``-flat``, and within ``[-flat, flat]`` (``flat`` >= 0)."""
    values = [d for d in deltas if not math.isnan(d)]
    up = sum(d > flat for d in values)
    down = sum(d < -flat for d in values)
    return Directions(up=up, down=down, flat=len(values) - up - down)
