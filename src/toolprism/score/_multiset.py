"""Schema-independent scoring: compare the multiset of decoded native actions with the gold.

An episode succeeds iff the multisets are equal (Action-Space Shaping, "Scoring is schema-independent").
Precision and recall are over multiset intersections.

Where the gold is empty (the right answer is to do nothing, as an unavailable tool or an
ambiguous request makes it), equal multisets also need the episode to have answered: an episode
with no output, or cut off at its turn limit after unreadable turns or rejected calls, did
nothing by failing, not by deciding to (toolprism's reading; the paper's tasks all have gold).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from toolprism.schema import Action


class ActionScore(BaseModel):
    """Scores of one episode's decoded actions against the gold multiset.

    Attributes:
        success: exact multiset match.
        precision: |gold ∩ decoded| / |decoded| (1.0 when nothing was decoded and gold is empty).
        recall: |gold ∩ decoded| / |gold| (1.0 when gold is empty).
        missing: gold actions not performed (canonical text, sorted).
        extra: performed actions not in the gold (canonical text, sorted).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    success: bool
    precision: float
    recall: float
    missing: list[str]
    extra: list[str]


def without_rereads(done: Counter, gold: Counter, tolerate: frozenset[str]) -> Counter:
    """``done`` with calls of ``tolerate`` operations beyond the gold's count removed."""
    return +Counter({a: min(n, gold[a]) if a.op in tolerate else n for a, n in done.items()})


def multiset_success(gold: Counter, done: Counter, end: str | None) -> bool:
    """Whether ``done`` (decoded actions, re-reads removed) matches ``gold`` as a multiset and,
    when ``gold`` is empty, the episode ended by answering (``end == "answered"``; module
    docstring). ``end`` None: the multiset match alone (a comparison of two action lists, not of
    an episode)."""
    return gold == done and (bool(+gold) or end is None or end == "answered")


def score_actions(
    gold: Iterable[Action],
    decoded: Iterable[Action],
    *,
    tolerate: frozenset[str] = frozenset(),
    end: str | None = None,
) -> ActionScore:
    """Score ``decoded`` against ``gold`` as multisets (order ignored, duplicates counted).

    ``tolerate``: operations whose calls beyond the gold's are ignored (re-reads of state after a
    perturbed return, see ``toolprism.perturb.rereads``). ``end``: the episode's end (a trace's
    ``end``); an empty gold is matched only by an episode that answered (:func:`multiset_success`)."""
    gold_counts = Counter(gold)
    got = without_rereads(Counter(decoded), gold_counts, tolerate)
    common = sum((gold_counts & got).values())
    n_gold, n_got = sum(gold_counts.values()), sum(got.values())
    return ActionScore(
        success=multiset_success(gold_counts, got, end),
        precision=common / n_got if n_got else float(n_gold == 0),
        recall=common / n_gold if n_gold else 1.0,
        missing=sorted(str(a) for a in (gold_counts - got).elements()),
        extra=sorted(str(a) for a in (got - gold_counts).elements()),
    )
