"""The mixed-family interaction table (ToolRobustBench, section 6): the interval arithmetic against
published values, the matching of mixed episodes with their constituents, rows for constituents
that did not run, and the table recomputed from a stored run."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.score import EpisodeOutcome, interactions, newcombe_difference, wilson_interval


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_newcombe_1998a(k: int, n: int, low: float, high: float) -> None:
    # Newcombe, "Two-sided confidence intervals for the single proportion", Stat Med 1998, Table I
    assert wilson_interval(k, n) == pytest.approx((low, high), abs=5e-5)


@pytest.mark.parametrize(
    ("k1", "n1", "k2", "n2", "low", "high"),
    [
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (5, 56, 0, 29, -0.0381, 0.1926),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (10, 10, 0, 10, 0.6075, 1.0),
    ],
)
def test_newcombe_hybrid_score_matches_the_published_examples(
    k1: int, n1: int, k2: int, n2: int, low: float, high: float
) -> None:
    # Newcombe, "Interval estimation for the difference between independent proportions", Stat Med
    # 1998, Table II, method 10
    d, lo, hi = newcombe_difference(k1, n1, k2, n2)
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert (lo, hi) == pytest.approx((low, high), abs=5e-5)


def test_newcombe_needs_episodes_on_both_sides() -> None:
    with pytest.raises(ValueError):
        newcombe_difference(1, 2, 0, 0)


def _episodes(condition: str, wins: list[bool], *, variant: str = "native", start: int = 0) -> list[EpisodeOutcome]:
    return [EpisodeOutcome("retail", f"t{start + i}", variant, condition, w) for i, w in enumerate(wins)]


def test_delta_is_mixed_minus_the_weaker_constituent() -> None:
    mixed = "A3:medium+C4:medium"
    outcomes = [
        *_episodes(mixed, [True, False, False, False, False, False, False, False, False, False]),  # 1/10
        *_episodes("A3:medium", [True] * 9 + [False]),  # 9/10
        *_episodes("C4:medium", [True] * 6 + [False] * 4),  # 6/10: the weaker
        *_episodes("", [True] * 10),  # clean episodes are not rows
    ]
    (row,) = interactions(outcomes)
    assert (row.pair, row.severity, row.paper_pair) == ("A3+C4", "medium", True)
    assert (row.mixed.successes, row.mixed.episodes) == (1, 10)
    assert [(c.condition, c.successes, c.episodes) for c in row.constituents] == [
        ("A3:medium", 9, 10),
        ("C4:medium", 6, 10),
    ]
    assert row.weaker == "C4:medium"
    assert row.delta == pytest.approx(0.1 - 0.6)
    assert (row.delta, row.delta_low, row.delta_high) == pytest.approx(newcombe_difference(1, 10, 6, 10))
    assert row.delta_high < 0  # clearly worse than its weaker part
    assert (row.mixed.ci_low, row.mixed.ci_high) == pytest.approx(wilson_interval(1, 10))
    assert row.note == ""


def test_a_tie_names_the_first_constituent_and_positive_deltas_stay_positive() -> None:
    mixed = "B2:medium+D2:medium"
    outcomes = [*_episodes(mixed, [True] * 4), *_episodes("B2:medium", [False] * 4)]
    outcomes += _episodes("D2:medium", [False] * 4)
    (row,) = interactions(outcomes)
    assert row.weaker == "B2:medium"
    assert row.delta == 1.0
    assert row.delta_low > 0 and row.delta_high == pytest.approx(1.0)


def test_only_cells_where_every_constituent_ran_are_compared() -> None:
    mixed = "A2:heavy+B3:heavy"
    outcomes = [
        *_episodes(mixed, [False, False, True, True]),  # t0..t3
        *_episodes(mixed, [True], variant="merge"),  # merge/t0: no constituent ran there
        *_episodes("A2:heavy", [True, True, True]),  # t0..t2 (A2 skipped t3)
        *_episodes("B3:heavy", [True, True, True, True]),  # t0..t3
        *_episodes("B3:heavy", [False], start=9),  # t9: no mixed episode, not compared
    ]
    (row,) = interactions(outcomes)
    assert row.paper_pair and row.severity == "heavy"
    assert (row.mixed.successes, row.mixed.episodes) == (1, 3)  # t0, t1, t2 only
    assert [(c.successes, c.episodes) for c in row.constituents] == [(3, 3), (3, 3)]
    assert row.unmatched == 2  # native/t3 and merge/t0
    assert row.delta == pytest.approx(1 / 3 - 1)


def test_a_constituent_that_did_not_run_gives_a_row_without_a_delta() -> None:
    mixed = "A3:medium+C4:medium"
    (row,) = interactions([*_episodes(mixed, [True, False]), *_episodes("A3:medium", [True, True])])
    assert (row.mixed.successes, row.mixed.episodes) == (1, 2)
    a3, c4 = row.constituents
    assert (a3.ran, a3.success_rate) == (True, 1.0)
    assert (c4.ran, c4.episodes, c4.success_rate, c4.ci_low) == (False, 0, None, None)
    assert (row.weaker, row.delta, row.delta_low, row.delta_high) == (None, None, None, None)
    assert "C4:medium" in row.note


def test_a_mixed_condition_skipped_everywhere_still_has_a_row() -> None:
    (row,) = interactions(_episodes("A3:medium", [True]), mixed=["A3:medium+C4:medium", "C2:light"])
    assert (row.pair, row.mixed.ran, row.mixed.episodes, row.mixed.success_rate) == ("A3+C4", False, 0, None)
    assert row.delta is None and "no episode" in row.note


def test_rows_are_ordered_by_pair_then_severity_and_own_pairs_are_marked() -> None:
    outcomes = [
        *_episodes("A2:heavy+D2:heavy", [True]),
        *_episodes("B4:medium+C4:medium", [True]),
        *_episodes("A2:medium+D2:medium", [True]),
        *_episodes("A3:light+C4:heavy", [True]),
    ]
    rows = interactions(outcomes)
    assert [(r.pair, r.severity) for r in rows] == [
        ("A2+D2", "medium"),
        ("A2+D2", "heavy"),
        ("A3+C4", "light+heavy"),
        ("B4+C4", "medium"),
    ]
    assert [r.paper_pair for r in rows] == [False, False, True, True]


def test_a_run_with_a_pair_and_its_constituents_fills_the_table(tmp_path) -> None:  # noqa: ANN001
    run_dir = tmp_path / "r"
    perturb = "B2:medium+D2:medium,B2:medium,D2:medium,A3:medium+C4:medium,A3:medium"
    args = ["run", "--model", "oracle", "-d", "retail", "-v", "native", "-n", "3", "--perturb", perturb]
    ran = CliRunner().invoke(app, [*args, "--run-dir", str(run_dir), "--json"])
    assert ran.exit_code == 0, ran.output
    first = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert first.exit_code == 0, first.output
    rows = {r["pair"]: r for r in json.loads(first.stdout)["interactions"]}
    assert set(rows) == {"A3+C4", "B2+D2"}
    b2d2 = rows["B2+D2"]
    # the oracle fails B2 (it acts on a value the request no longer gives) and passes D2 (it retries)
    assert [c["success_rate"] for c in b2d2["constituents"]] == [0.0, 1.0]
    assert (b2d2["mixed"]["episodes"], b2d2["mixed"]["successes"], b2d2["unmatched"]) == (3, 0, 0)
    assert (b2d2["weaker"], b2d2["delta"]) == ("B2:medium", 0.0)
    assert b2d2["delta_low"] < 0 < b2d2["delta_high"]
    a3c4 = rows["A3+C4"]
    assert a3c4["constituents"][1]["ran"] is False and a3c4["delta"] is None
    again = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert again.stdout == first.stdout  # recomputed from the traces, byte-identical
    table = CliRunner().invoke(app, ["score", str(run_dir)])
    assert table.exit_code == 0, table.output
    assert "weaker constituent" in table.stdout and "B2:medium" in table.stdout
