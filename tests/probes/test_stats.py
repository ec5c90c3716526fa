"""Paired-contrast statistics: medians, quartiles, the sign test, direction counts."""

from __future__ import annotations

import math

import pytest

from toolprism.probes._stats import directions, paired_stats


def test_paired_stats_reads_medians_quartiles_and_the_exact_sign_test() -> None:
    s = paired_stats([0.1 * i for i in range(1, 11)])
    assert s.n == 10 and s.median == pytest.approx(0.55)
    assert (s.q1, s.q3) == (pytest.approx(0.325), pytest.approx(0.775))
    assert (s.up, s.down, s.zero) == (10, 0, 0)
    assert s.sign_p == pytest.approx(2 / 2**10)  # two-sided: both all-up and all-down as extreme


def test_ties_and_nan_are_left_out_of_the_sign_test() -> None:
    s = paired_stats([1.0, -1.0, 0.0, math.nan, 2.0])
    assert (s.n, s.up, s.down, s.zero) == (4, 2, 1, 1)
    assert s.sign_p == pytest.approx(1.0)  # 2 up of 3 is as likely as chance
    empty = paired_stats([math.nan])
    assert empty.n == 0 and empty.median is None and empty.sign_p is None
    assert paired_stats([0.0, 0.0]).sign_p is None


def test_directions_count_a_band_around_zero_as_flat() -> None:
    d = directions([0.5, 0.0005, -0.0005, -0.2, math.nan], flat=1e-3)
    assert (d.up, d.down, d.flat) == (1, 1, 2)
