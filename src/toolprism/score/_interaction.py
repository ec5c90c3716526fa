"""Mixed-family interactions: each mixed condition's success against its weaker single-family
constituent (ToolRobustBench, section 6 and Figure 4: "mixed success vs the weaker isolated
constituent baseline"; 0.448 vs 0.621 at medium over five pairs and seven models).

Matching is toolprism's reading (the seed does not say how the baselines are paired): a mixed
condition ``A3:medium+C4:medium`` is compared with ``A3:medium`` and ``C4:medium`` of the same run
over the (domain, task, variant) cells where the mixed condition and every constituent that ran in
the run each have an episode. Mixed episodes outside those cells (a constituent skipped the task,
or was not asked for it) are counted as ``unmatched`` and left out of every rate of the row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from toolprism.perturb import PAPER_MIXED_PAIRS, SEVERITIES, condition_cell
from toolprism.score._interval import newcombe_difference, wilson_interval


class EpisodeOutcome(NamedTuple):
    """One scored episode, as the interaction table needs it."""

    domain: str
    task_id: str
    variant: str
    condition: str
    success: bool


class RateCell(BaseModel):
    """Success of one condition over the matched cells of an :class:`InteractionRow`.

    Attributes:
        condition: ``A3:medium`` (a constituent) or ``A3:medium+C4:medium`` (the mixture).
        ran: whether the run has any episode of this condition (False: every other field is None
            or 0 and the row cannot name the weaker constituent).
        episodes / successes: over the matched cells.
        success_rate, ci_low, ci_high: k/n and its 95% Wilson score interval; None when no
            matched episode.
    """

    model_config = ConfigDict(extra="forbid")

    condition: str
    ran: bool
    episodes: int
    successes: int
    success_rate: float | None
    ci_low: float | None
    ci_high: float | None


class InteractionRow(BaseModel):
    """One mixed condition against its weaker single-family constituent (ToolRobustBench, section
    6, Figure 4).

    Attributes:
        pair: ``A3+C4``; severity: ``medium`` (``light+heavy`` when the terms differ).
        paper_pair: the seed names this pair (:data:`toolprism.perturb.PAPER_MIXED_PAIRS`); False
            for toolprism's fifth pair and for any pair a user asked for.
        mixed: the mixed condition's success over the matched cells.
        constituents: each single-family term's success over the same cells, in pair order.
        unmatched: mixed episodes left out because a constituent that ran has no episode in
            their (domain, task, variant) cell.
        weaker: the constituent condition with the lower success rate (the first of the pair on a
            tie); None unless both constituents have matched episodes.
        delta: mixed success minus the weaker constituent's (negative: the mixture is worse than
            its weaker part); ``delta_low``/``delta_high``: its 95% interval, Newcombe's hybrid
            score interval (see :func:`toolprism.score.newcombe_difference`; it treats the two
            rates as independent samples, which is conservative for matched episodes whose
            outcomes correlate). None when ``weaker`` is None. The weaker constituent is chosen
            after seeing both rates, so ``delta`` leans negative on small samples.
        note: why a field is None, or ``""``.
    """

    model_config = ConfigDict(extra="forbid")

    pair: str
    severity: str
    paper_pair: bool
    mixed: RateCell
    constituents: list[RateCell]
    unmatched: int
    weaker: str | None
    delta: float | None
    delta_low: float | None
    delta_high: float | None
    note: str = ""


def interactions(outcomes: Iterable[EpisodeOutcome], mixed: Sequence[str] = ()) -> list[InteractionRow]:
    """One :class:`InteractionRow` per mixed condition (a condition of two ``+``-joined terms)
    among ``outcomes`` and ``mixed``, ordered by pair, then severity; deterministic.

    Args:
        outcomes: every scored episode of a run (clean ones are ignored).
        mixed: further mixed conditions to report even if none of their episodes ran (all
            skipped); their rows have no episodes.
    """
    cells: dict[str, dict[tuple[str, str, str], list[bool]]] = {}
    for o in outcomes:
        if o.condition:
            cells.setdefault(o.condition, {}).setdefault((o.domain, o.task_id, o.variant), []).append(o.success)
    conditions = {c for c in [*cells, *mixed] if c.count("+") == 1}
    return [_row(c, cells) for c in sorted(conditions, key=_order)]


def _row(condition: str, cells: dict[str, dict[tuple[str, str, str], list[bool]]]) -> InteractionRow:
    pair, severity = condition_cell(condition)
    terms = condition.split("+")
    ran = [t for t in terms if t in cells]
    matched = set(cells.get(condition, {}))
    for term in ran:
        matched &= set(cells[term])
    mixed = _rate(condition, cells, matched)
    constituents = [_rate(t, cells, matched) for t in terms]
    unmatched = sum(len(v) for k, v in cells.get(condition, {}).items() if k not in matched)
    row = {"pair": pair, "severity": severity, "paper_pair": tuple(pair.split("+")) in PAPER_MIXED_PAIRS}
    row |= {"mixed": mixed, "constituents": constituents, "unmatched": unmatched}
    note = _note(condition, terms, ran, mixed, unmatched)
    if note:
        return InteractionRow(**row, weaker=None, delta=None, delta_low=None, delta_high=None, note=note)
    weaker = min(constituents, key=lambda c: c.success_rate)  # min keeps the first on a tie
    d, low, high = newcombe_difference(mixed.successes, mixed.episodes, weaker.successes, weaker.episodes)
    return InteractionRow(**row, weaker=weaker.condition, delta=d, delta_low=low, delta_high=high)


def _note(condition: str, terms: list[str], ran: list[str], mixed: RateCell, unmatched: int) -> str:
    if not mixed.ran:
        return f"{condition} has no episode in this run (every task skipped it)"
    if missing := [t for t in terms if t not in ran]:
        return f"{' and '.join(missing)}: no episode in this run (not asked for, or skipped), no baseline"
    if mixed.episodes == 0:
        return f"no (task, variant) ran {condition} and both constituents ({unmatched} unmatched)"
    return ""


def _rate(condition: str, cells: dict[str, dict[tuple[str, str, str], list[bool]]], matched: set) -> RateCell:
    by_cell = cells.get(condition)
    wins = [w for key in sorted(matched) for w in (by_cell or {}).get(key, [])]
    k, n = sum(wins), len(wins)
    low, high = wilson_interval(k, n) if n else (None, None)
    return RateCell(
        condition=condition,
        ran=by_cell is not None,
        episodes=n,
        successes=k,
        success_rate=k / n if n else None,
        ci_low=low,
        ci_high=high,
    )


def _order(condition: str) -> tuple:
    pair, _ = condition_cell(condition)
    severities = [t.partition(":")[2] for t in condition.split("+")]
    return pair, [SEVERITIES.index(s) if s in SEVERITIES else len(SEVERITIES) for s in severities]
