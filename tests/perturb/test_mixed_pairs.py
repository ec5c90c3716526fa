"""The representative mixed pairs (ToolRobustBench, section 6): the seed's four and toolprism's
fifth, and ``--perturb-suite mixed``, which runs each pair with its constituents at medium and
heavy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolprism.evaluation import RunConfig, expand_conditions
from toolprism.perturb import MIXED_PAIRS, PAPER_MIXED_PAIRS, TOOLPRISM_MIXED_PAIR, mixing_problem

SEED = Path(__file__).resolve().parents[2].parent / "shared" / "seeds" / "002_38097ebf734d3e2f.txt"


def test_the_seed_names_the_paper_pairs_and_not_the_fifth() -> None:
    if not SEED.is_file():
        pytest.skip("../shared/seeds is not present")
    named = set(re.findall(r"\b([A-D][1-4])\+([A-D][1-4])\b", SEED.read_text(encoding="utf-8")))
    assert named == set(PAPER_MIXED_PAIRS)
    assert TOOLPRISM_MIXED_PAIR not in named


def test_five_pairs_the_seeds_four_then_toolprisms_fifth() -> None:
    assert PAPER_MIXED_PAIRS == (("A3", "C4"), ("B4", "C4"), ("A2", "B3"), ("B2", "D2"))
    assert MIXED_PAIRS == (*PAPER_MIXED_PAIRS, TOOLPRISM_MIXED_PAIR)
    assert all(mixing_problem(pair) is None for pair in MIXED_PAIRS)
    # each pair is its own stage interaction (family pairing), and none is C-D (section 6)
    pairings = [frozenset(a[0] + b[0]) for a, b in MIXED_PAIRS]
    assert len(set(pairings)) == len(pairings)
    assert frozenset("CD") not in pairings


def test_the_mixed_suite_runs_each_pair_and_its_constituents_at_medium_and_heavy() -> None:
    conditions = expand_conditions([], "mixed")
    assert len(conditions) == len(set(conditions))
    for a, b in MIXED_PAIRS:
        for severity in ("medium", "heavy"):
            assert {f"{a}:{severity}+{b}:{severity}", f"{a}:{severity}", f"{b}:{severity}"} <= set(conditions)
    assert not [c for c in conditions if "light" in c]
    mixed = [c for c in conditions if "+" in c]
    singles = [c for c in conditions if "+" not in c]
    assert len(mixed) == 2 * len(MIXED_PAIRS)
    assert set(singles) == {t for c in mixed for t in c.split("+")}  # constituents only
    assert RunConfig(perturbations=conditions).perturbations == conditions  # stored keys as written


def test_the_mixed_suite_keeps_explicit_conditions_first() -> None:
    conditions = expand_conditions(["C2:light", "A3:medium"], "mixed")
    assert conditions[:2] == ["C2:light", "A3:medium"]
    assert conditions.count("A3:medium") == 1
