"""The drafting driver: a domain declares its plan of templates and quotas; :func:`draft_plan` runs it.

Every device domain drafts the same way (Action-Space Shaping: templated-then-rephrased tasks of
three kinds, 1 to 6 calls): singles (questions and one-call writes), then compound tasks, then
compositional ones, each template offered until it has its quota. A plan is a sequence of lines:
:class:`Quota` (one template, or a builder that names its candidates), :class:`Rotation` (several
templates in turn), :class:`Each` (a fixed list, each offered once) and :class:`Rounds` (one-call
asks drawn in rounds); :func:`family_plan` and :func:`read_or_write` build the lines two families
of domains share. Deterministic: randomness comes only from the ``random.Random`` handed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel

from toolprism.domains._base import TaskDraft, TaskKind
from toolprism.domains._drafting import (
    Ask,
    Candidate,
    Drafts,
    HasRequest,
    Simulator,
    compose,
    compound,
    gold_of,
    joined_chains,
    replayable_compound,
    requests_of,
)
from toolprism.domains._phrasing import Request

Builder = Callable[[random.Random, Any], Any]
"""``(rng, state) -> candidate`` (see :data:`Candidate`), or ``(template, candidate)`` for a
:class:`Quota` without a template name."""


@dataclass(frozen=True)
class Quota:
    """One line of a domain's draft plan: ``count`` drafts of ``template`` built by ``build``.

    Attributes:
        template: template name; empty when ``build`` names each candidate, returning
            ``(template, candidate)``.
        build: the candidate builder, called with the task RNG and the fresh world.
        count: drafts wanted.
        kind: the drafts' kind (None: inferred, single or compound).
        tries: offers per wanted draft at most.
        spare: whether the line tops up a shortfall of its kind (see :func:`draft_plan`).
        carry: whether the line takes over the shortfall of the carrying line before it, and
            hands its own on to the next (see :func:`draft_plan`).
    """

    template: str
    build: Builder
    count: int
    kind: TaskKind | None = None
    tries: int = 30
    spare: bool = False
    carry: bool = False

    def fill(self, out: Drafts, state: Any) -> int:
        """Offer candidates to ``out`` until the quota is met or the tries are spent; the number kept."""
        if not self.template:
            return out.fill_named(lambda: self.build(out.rng, state), self.count, self.kind, tries=self.tries)
        return out.fill(self.template, lambda: self.build(out.rng, state), self.count, self.kind, tries=self.tries)


@dataclass(frozen=True)
class Rotation:
    """A plan line taking several templates in turn (:meth:`Drafts.rotate`).

    Attributes:
        builders: template name → ``build(rng, state)``.
        count: drafts wanted, all templates together.
        kind: the drafts' kind.
        tries: offers per wanted draft at most.
    """

    builders: Mapping[str, Builder]
    count: int
    kind: TaskKind | None = None
    tries: int = 40
    spare: bool = False

    def fill(self, out: Drafts, state: Any) -> int:
        """Offer candidates to ``out``, templates in turn; the number kept."""
        build = lambda name: self.builders[name](out.rng, state)  # noqa: E731
        return out.rotate(list(self.builders), build, self.count, self.kind, tries=self.tries)


@dataclass(frozen=True)
class Each:
    """A plan line offering every candidate of a list once, in order (the fixed questions).

    Attributes:
        template: template name.
        build: ``(rng, state) -> candidates``, called once when the line runs.
        kind: the drafts' kind.
    """

    template: str
    build: Callable[[random.Random, Any], Sequence[Candidate]]
    kind: TaskKind | None = None
    count: int = 0
    spare: bool = False

    def fill(self, out: Drafts, state: Any) -> int:
        """Offer each candidate once; the number kept."""
        return sum(out.offer(self.template, candidate, self.kind) for candidate in self.build(out.rng, state))


@dataclass(frozen=True)
class Rounds:
    """A plan line of one-call asks drawn in rounds: each round poses the asks ``build(rng,
    state)`` gives, shuffles them, and offers each (template: the ask's ``name``) until ``count``
    are kept; every round runs, so the RNG use does not depend on the quota.

    Attributes:
        build: ``(rng, state) -> asks`` (each with ``name`` and ``request``).
        count: drafts wanted.
        rounds: rounds run.
    """

    build: Callable[[random.Random, Any], list[Ask]]
    count: int
    rounds: int = 20
    kind: TaskKind = "single"
    spare: bool = False

    def fill(self, out: Drafts, state: Any) -> int:
        """Run the rounds; the number kept."""
        made = 0
        for _ in range(self.rounds):
            pool = self.build(out.rng, state)
            out.rng.shuffle(pool)
            for ask in pool:
                if made < self.count and out.offer(ask.name, [ask.request], self.kind):
                    made += 1
        return made


def draft_plan(
    rng: random.Random,
    state: Any,
    plan: Sequence[Quota | Rotation | Each | Rounds],
    *,
    accept: Callable[[TaskDraft], bool] | None = None,
    top_up: int = 0,
) -> list[TaskDraft]:
    """The drafts of a domain's ``plan`` on the fresh world ``state``, line by line, in order.

    The plan usually runs singles (questions and one-call writes), then compound tasks, then
    compositional ones with their quotas (Action-Space Shaping: 1-6 calls, three task kinds).
    A ``carry`` line right after another adds that line's shortfall to its own count. Afterwards,
    ``top_up`` rounds offer one more draft of each ``spare`` line while its kind has fewer drafts
    than the plan's quotas of that kind add up to. Both let a world where one template finds too
    little get more of the others.

    Args:
        rng: the task RNG (every builder and the phrasing consume it, in plan order).
        state: the fresh world (never changed).
        plan: the lines to run.
        accept: a further check of each phrased draft (see :class:`Drafts`).
        top_up: rounds of top-up.

    Returns:
        the kept drafts, in order; deterministic in ``rng``'s seed.
    """
    out = Drafts(rng, accept=accept)
    shortfall = 0
    for line in plan:
        if getattr(line, "carry", False):
            line = replace(line, count=line.count + shortfall)  # type: ignore[type-var]
            shortfall = line.count - line.fill(out, state)
        else:
            line.fill(out, state)
            shortfall = 0
    spares = [line for line in plan if line.spare]
    for line in spares * top_up:
        wanted = sum(other.count for other in plan if other.kind == line.kind)
        if out.count(line.kind) < wanted:  # type: ignore[arg-type]
            replace(line, count=1).fill(out, state)
    return out.items


def read_or_write(
    questions: Mapping[str, Callable[[random.Random, Any, set], HasRequest | None]],
    writes: Mapping[str, Callable[[random.Random, Any, set], HasRequest | None]],
    share: float = 0.25,
) -> Builder:
    """A builder of ``(template, request)`` for a one-call task: with probability ``share`` one of
    ``questions``, else one of ``writes``, the template drawn by name (``maker(rng, state, set())``)."""

    def build(rng: random.Random, state: Any) -> tuple[str, Request | None]:
        pool = questions if rng.random() < share else writes
        name = rng.choice(sorted(pool))
        ask = pool[name](rng, state, set())
        return name, None if ask is None else ask.request

    return build


def keyed_plan(
    simulator: Simulator,
    questions: Mapping[str, Callable[[random.Random, Any, set[str]], Ask | None]],
    writes: Mapping[str, Callable[[random.Random, Any, set[str]], Ask | None]],
    chains: Mapping[str, Callable[[random.Random, Any], list[Request] | None]],
    *,
    mix: Mapping[str, int],
    sizes: tuple[Sequence[int], Sequence[int]],
    fits: Callable[[Any, list[Request], list[Request]], bool],
    compound_writes: Mapping[str, Callable[[random.Random, Any, set[str]], Ask | None]] | None = None,
) -> tuple[Quota, ...]:
    """The plan of a domain whose asks are made by name on devices not yet taken (the smart home,
    the vacuum robot): ``mix`` gives the drafts of each kind.

    - single: :func:`read_or_write` of ``questions`` and ``writes``;
    - compound: 2-5 asks (``sizes``: counts and their weights) on disjoint devices, each one of
      ``questions`` (one time in ten) or of ``compound_writes`` (default ``writes``), at least one
      of them writing;
    - compositional: :func:`~toolprism.domains._drafting.compose` of ``chains`` (a second chain
      three times in ten), kept when ``fits(state, first, second)``.
    """
    makers = writes if compound_writes is None else compound_writes

    def joined(rng: random.Random, state: Any) -> list[Request] | None:
        size = rng.choices(sizes[0], weights=sizes[1])[0]

        def propose(chosen: list[Ask]) -> Ask | None:
            pool = questions if rng.random() < 0.1 else makers
            taken = set().union(*(a.writes for a in chosen))
            return pool[rng.choice(sorted(pool))](rng, state, taken)

        asks = compound(propose, size, tries=4 * size, minimum=2)
        return requests_of(asks) if asks and simulator.writes_any(gold_of(a.request for a in asks)) else None

    def chained(rng: random.Random, state: Any) -> tuple[str, list[Request]] | None:
        return compose(rng, simulator, state, chains, chance=0.3, fits=lambda a, b: fits(state, a, b))

    return (
        Quota("", read_or_write(questions, writes), mix["single"], "single"),
        Quota("compound", joined, mix["compound"], "compound"),
        Quota("", chained, mix["compositional"], "compositional"),
    )


FAMILY_COUNTS: Mapping[str, int] = {"question": 9, "single": 19, "compound": 74, "compositional": 24}
"""Drafts per seed by template family (126 in all), for :func:`family_plan`."""
FAMILY_SIZES: tuple[Sequence[int], Sequence[int]] = ((2, 3, 4, 5), (28, 34, 26, 12))
"""Requests per compound task and their weights, for :func:`family_plan`."""


def family_plan(
    simulator: Simulator,
    question: Callable[[random.Random, Any], HasRequest],
    pickers: Sequence[Callable[[random.Random, Any], Ask | None]],
    compound_pickers: Sequence[Callable[[random.Random, Any], Ask | None]],
    chains: Sequence[Callable[[random.Random, Any], list[Ask] | None]],
    *,
    counts: Mapping[str, int] = FAMILY_COUNTS,
    sizes: tuple[Sequence[int], Sequence[int]] = FAMILY_SIZES,
) -> tuple[Quota, ...]:
    """The plan of a domain drafted by family (the kitchen, the laundry room), 40 tries a draft.

    ``counts`` gives the drafts of each family: ``question`` (one read), ``single`` (one of
    ``pickers``), ``compound`` (:func:`~toolprism.domains._drafting.replayable_compound` over
    ``compound_pickers`` with ``sizes``) and ``compositional``
    (:func:`~toolprism.domains._drafting.joined_chains` of ``chains``: later calls need earlier
    ones or follow from read state). Each draft is phrased by
    :func:`~toolprism.domains._phrasing.draft` (easy and hard forms). A candidate is kept only if
    its gold replays on the world without a refusal, every gold write changes the state, a writing
    task leaves the state changed, a compound task's requests are independent (disjoint touches;
    the reversed order replays too), and both queries are new.
    """

    def single(rng: random.Random, s: Any) -> list[Request] | None:
        picked = rng.choice(pickers)(rng, s)
        return None if picked is None else [picked.request]

    def joined(rng: random.Random, s: Any) -> list[Request] | None:
        pick = lambda rng, s: rng.choice(compound_pickers)(rng, s)  # noqa: E731
        return requests_of(replayable_compound(rng, simulator, s, pick, sizes))

    builders: dict[str, tuple[Builder, TaskKind]] = {
        "question": (lambda rng, s: [question(rng, s).request], "single"),
        "single": (single, "single"),
        "compound": (joined, "compound"),
        "compositional": (lambda rng, s: requests_of(joined_chains(rng, s, chains)), "compositional"),
    }
    return tuple(Quota(family, builders[family][0], n, builders[family][1], tries=40) for family, n in counts.items())


ROTATION_COUNTS: Mapping[str, int] = {"question": 8, "single": 20, "compound": 72, "compositional": 24}
"""Drafts per seed of a domain drafted in rotation (the calendar, the smartwatch): 124."""


def rotation_plan(
    scratch: Callable[[Any, random.Random], Any],
    questions: Mapping[str, Callable[[Any], Candidate]],
    singles: Mapping[str, Callable[[Any], Request | None]],
    compound: Callable[[Any], Candidate],
    compositional: Mapping[str, Callable[[Any], Candidate]],
    counts: Mapping[str, int] = ROTATION_COUNTS,
) -> tuple[Rotation, ...]:
    """The plan of a domain drafted in rotation: ``questions``, one-call writes (``singles``),
    ``compound`` tasks, then ``compositional`` ones, the templates of each line in turn.

    Every template is called with a fresh ``scratch(state, rng)`` of the world and the task RNG
    (the domain's ``Plan``); ``counts`` gives the drafts of each line.
    """

    def planned(templates: Mapping[str, Callable[[Any], Candidate]]) -> dict[str, Builder]:
        return {name: lambda rng, state, make=make: make(scratch(state, rng)) for name, make in templates.items()}

    def single(write: Callable[[Any], Request | None]) -> Callable[[Any], Candidate]:
        return lambda plan: [r] if (r := write(plan)) is not None else None

    return (
        Rotation(planned(questions), counts["question"], "single"),
        Rotation(planned({name: single(write) for name, write in singles.items()}), counts["single"], "single"),
        Rotation(planned({"compound": compound}), counts["compound"], "compound"),
        Rotation(planned(compositional), counts["compositional"], "compositional"),
    )


def replays_growing(simulator: Simulator, state: BaseModel) -> Callable[[TaskDraft], bool]:
    """A draft check: the gold replays on ``state`` and the hard query is longer than the easy one."""
    return lambda d: simulator.replays(state, d.gold) and len(d.hard or "") > len(d.query)


__all__ = [
    "FAMILY_COUNTS",
    "FAMILY_SIZES",
    "ROTATION_COUNTS",
    "Builder",
    "Each",
    "Quota",
    "Rotation",
    "Rounds",
    "draft_plan",
    "family_plan",
    "keyed_plan",
    "read_or_write",
    "replays_growing",
    "rotation_plan",
]
