"""Drafting machinery shared by the device domains' task generators.

A device domain phrases what a user may ask as :class:`~toolprism.domains._phrasing.Request`s
from the fresh world's state; this module turns them into drafts that hold by construction:

- :class:`Simulator` runs a gold on a scratch copy of the state (no refusal, every write changes
  the state: :meth:`Simulator.replays`);
- :class:`Ask` is a request with the settings it writes and reads; :func:`compound` joins
  independent asks under a call budget (any order of independent asks gives the same result);
- :class:`Scratch` builds a compositional plan request by request, each on the state the
  earlier ones leave, and :func:`compose` chains two compositional templates into one task;
- :class:`Drafts` phrases candidates (:func:`~toolprism.domains._phrasing.draft`) and keeps
  those whose easy and hard queries are both new, up to a quota per template (the driver that runs
  a domain's plan of templates and quotas is :func:`toolprism.domains._plan.draft_plan`).

Everything is deterministic: randomness comes only from the ``random.Random`` handed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel

from toolprism.domains._base import OperationFn, TaskDraft, TaskKind, operation_kind
from toolprism.domains._phrasing import Request, draft, request
from toolprism.errors import DomainError

MAX_CALLS = 6
"""Gold calls per task at most (Action-Space Shaping: 1 to 6). Under ``transaction`` a 6-call task takes the
oracle 19 turns (three a call plus the answer), within the episode limit ``run.MAX_TURNS`` = 20."""

S = TypeVar("S", bound=BaseModel)
Actions = Sequence[tuple[str, dict]]
"""``(operation, arguments)`` pairs in execution order (a request's or a task's gold)."""


def gold_of(requests: Iterable[Request]) -> list[tuple[str, dict]]:
    """The concatenated gold of ``requests``, in order."""
    return [action for r in requests for action in r.gold]


def calls(requests: Iterable[Request]) -> int:
    """The number of gold calls of ``requests`` together."""
    return sum(len(r.gold) for r in requests)


# --- replays on scratch copies -----------------------------------------------------------------


class Simulator:
    """A domain's operation functions, run directly on (copies of) a state, without schemas.

    Args:
        operations: the domain's decorated operation functions (its ``OPERATIONS``).
    """

    def __init__(self, operations: Iterable[OperationFn]) -> None:
        ops = tuple(operations)
        self.functions: dict[str, OperationFn] = {fn.__name__: fn for fn in ops}
        self.writes = frozenset(fn.__name__ for fn in ops if operation_kind(fn) == "write")

    def is_write(self, op: str) -> bool:
        """Whether ``op`` is a write operation."""
        return op in self.writes

    def writes_any(self, gold: Actions) -> bool:
        """Whether ``gold`` has a write."""
        return any(op in self.writes for op, _ in gold)

    def run(self, state: BaseModel, gold: Actions) -> None:
        """Run ``gold`` on ``state`` in place.

        Raises:
            DomainError: an action is refused (in a generator, a bug: the gold is built to pass).
        """
        for op, args in gold:
            self.functions[op](state, **args)

    def after(self, state: S, gold: Actions) -> S:
        """The state ``gold`` leaves, on a deep copy of ``state``.

        Raises:
            DomainError: an action is refused.
        """
        scratch = state.model_copy(deep=True)
        self.run(scratch, gold)
        return scratch

    def apply(self, state: BaseModel, gold: Actions) -> bool:
        """Run ``gold`` on ``state`` in place; False at the first refusal or write that changes
        nothing (the state then holds the actions before it)."""
        for op, args in gold:
            before = state.model_dump()
            try:
                self.functions[op](state, **args)
            except DomainError:
                return False
            if op in self.writes and state.model_dump() == before:
                return False
        return True

    def replays(self, state: BaseModel, gold: Actions) -> bool:
        """Whether ``gold`` runs on a copy of ``state`` with no refusal, every write changing the
        state, and the state changed at the end exactly when ``gold`` writes."""
        scratch = state.model_copy(deep=True)
        return self.apply(scratch, gold) and (scratch.model_dump() != state.model_dump()) == self.writes_any(gold)


class Scratch:
    """A compositional plan under construction: requests in order, each built on the state the
    earlier ones leave (:attr:`state`, a copy; the fresh world is never touched)."""

    def __init__(self, simulator: Simulator, state: BaseModel) -> None:
        self.simulator = simulator
        self.state = state.model_copy(deep=True)
        self.plan: list[Request] = []

    def add(self, item: Request | HasRequest | None) -> bool:
        """Append ``item`` (an :class:`Ask` or request; None: nothing to add, False) and run it.

        Raises:
            DomainError: the request is refused (a generator bug).
        """
        if item is None:
            return False
        req = item if isinstance(item, Request) else item.request
        self.simulator.run(self.state, req.gold)
        self.plan.append(req)
        return True

    def attempt(self, req: Request | None) -> bool:
        """Append ``req`` only if it replays with no refusal and every write changes the state."""
        if req is None:
            return False
        trial = self.state.model_copy(deep=True)
        if not self.simulator.apply(trial, req.gold):
            return False
        self.state = trial
        self.plan.append(req)
        return True


def chain(
    simulator: Simulator, state: BaseModel, steps: Iterable[Callable[[BaseModel], Request | None]]
) -> list[Request] | None:
    """Requests built one after another, each step on the state the earlier ones leave.

    Returns None when a step has nothing to ask or its request does not replay (see
    :meth:`Scratch.attempt`).
    """
    scratch = Scratch(simulator, state)
    for step in steps:
        if not scratch.attempt(step(scratch.state)):
            return None
    return scratch.plan


# --- independent requests ----------------------------------------------------------------------


class HasRequest(Protocol):
    """Anything carrying a request (an ask)."""

    @property
    def request(self) -> Request: ...


class Independent(HasRequest, Protocol):
    """An ask that can tell whether it is independent of another (any order, same result)."""

    def independent_of(self, other: Independent, /) -> bool: ...


A = TypeVar("A", bound=Independent)
V = TypeVar("V")


@dataclass(frozen=True)
class Ask:
    """A request with the settings it writes and the settings its phrasing or preconditions read.

    Two asks are independent when neither writes what the other writes or reads; asks that only
    declare ``writes`` are independent when those are disjoint.

    Attributes:
        request: the phrased request and its gold.
        writes: keys of what the gold changes (``"light:kitchen"``, ``"washer.spin"``...).
        reads: keys of what the request's phrasing or preconditions depend on.
        name: template name of a single-request task (optional).
    """

    request: Request
    writes: frozenset[str]
    reads: frozenset[str] = frozenset()
    name: str = ""

    def independent_of(self, other: Ask) -> bool:
        """Whether the two asks can run in either order with the same result."""
        return not (self.writes & (other.writes | other.reads) or other.writes & self.reads)


def ask(
    direct: str | Sequence[str], indirect: str | Sequence[str], gold: Sequence[tuple[str, dict]], writes: Iterable[str]
) -> Ask:
    """An :class:`Ask` writing ``writes`` (phrasings and gold as in
    :func:`~toolprism.domains._phrasing.request`); asks writing nothing in common are independent."""
    return Ask(request(direct, indirect, *gold), frozenset(writes))


def other(rng: random.Random, values: Iterable[V], current: object) -> V:
    """A value of ``values`` other than ``current`` (one ``rng.choice``)."""
    return rng.choice([v for v in values if v != current])


def flip(value: str) -> Literal["on", "off"]:
    """The other of ``"on"`` and ``"off"`` (a power, a child lock)."""
    return "off" if value == "on" else "on"


def independent(asks: Sequence[Independent]) -> bool:
    """Whether every two of ``asks`` are independent of each other."""
    return all(a.independent_of(b) for i, a in enumerate(asks) for b in asks[i + 1 :])


def compound(
    propose: Callable[[list[A]], A | None],
    size: int,
    *,
    tries: int,
    max_calls: int = MAX_CALLS,
    minimum: int | None = None,
) -> list[A] | None:
    """Up to ``size`` pairwise independent asks, at most ``max_calls`` gold calls together.

    ``propose(chosen)`` offers one ask given those chosen so far (None: nothing this time); an
    offer that is not independent of every chosen ask, or would overrun the budget, is skipped.

    Args:
        propose: the offer maker (consumes the caller's RNG).
        size: asks wanted.
        tries: offers at most.
        max_calls: gold calls at most, all asks together.
        minimum: fewest asks accepted (default ``size``).

    Returns:
        The chosen asks in offer order, or None if fewer than ``minimum`` were found.
    """
    chosen: list[A] = []
    budget = max_calls
    for _ in range(tries):
        if len(chosen) == size:
            break
        offer = propose(chosen)
        if offer is None or len(offer.request.gold) > budget:
            continue
        if all(offer.independent_of(c) for c in chosen):
            chosen.append(offer)
            budget -= len(offer.request.gold)
    return chosen if len(chosen) >= (size if minimum is None else minimum) else None


def requests_of(asks: Iterable[HasRequest] | None) -> list[Request] | None:
    """The requests of ``asks`` in order (None stays None)."""
    return None if asks is None else [a.request for a in asks]


def shuffled_compound(rng: random.Random, pool: list[A], size: int) -> list[A] | None:
    """``size`` pairwise independent asks of ``pool`` (shuffled in place with ``rng``), offered
    once each in the shuffled order; None if fewer than ``size`` fit (see :func:`compound`)."""
    rng.shuffle(pool)
    offers = iter(pool)
    return compound(lambda _: next(offers, None), size, tries=len(pool))


def replayable_compound(
    rng: random.Random,
    simulator: Simulator,
    state: S,
    pick: Callable[[random.Random, S], A | None],
    sizes: tuple[Sequence[int], Sequence[int]],
) -> list[A] | None:
    """Pairwise independent asks of ``pick(rng, state)``, as many as a size drawn from
    ``sizes = (sizes, weights)`` (2 at least, ``8 * size`` offers at most), kept only if their
    gold also replays in reverse order on ``state`` (:meth:`Simulator.replays`); else None."""
    size = rng.choices(*sizes)[0]
    asks = compound(lambda _: pick(rng, state), size, tries=size * 8, minimum=2)
    if asks is None or not simulator.replays(state, gold_of(a.request for a in reversed(asks))):
        return None
    return asks


def joined_chains(
    rng: random.Random, state: S, chains: Sequence[Callable[[random.Random, S], list[Ask] | None]]
) -> list[Ask] | None:
    """1, 2 or 3 (weights 40/45/15) distinct ``chains`` posed on ``state``, their asks joined in order.

    None when a chain is not posable, two chains write a common setting (each chain counts as one
    ask: its first request with the union of its writes), or the joined gold has fewer than 2 or
    more than :data:`MAX_CALLS` calls.
    """
    count = rng.choices((1, 2, 3), (40, 45, 15))[0]
    posed = [build(rng, state) for build in rng.sample(list(chains), min(count, len(chains)))]
    if any(c is None for c in posed):
        return None
    asks = [a for c in posed for a in c]  # type: ignore[union-attr]
    whole = [Ask(c[0].request, frozenset().union(*(a.writes for a in c))) for c in posed]  # type: ignore[index,union-attr]
    if not independent(whole) or not 2 <= calls(a.request for a in asks) <= MAX_CALLS:
        return None
    return asks


def extend(
    simulator: Simulator, state: S, first: A, more: Callable[[S], A | None], length: int
) -> list[Request] | None:
    """``first``, then asks ``more(state after the asks so far)`` offers, pairwise independent,
    until the gold has exactly ``length`` calls (``40 * length`` offers at most); else None."""

    def propose(chosen: list[A]) -> A | None:
        if not chosen:
            return first
        return more(simulator.after(state, gold_of(a.request for a in chosen)))

    requests = requests_of(compound(propose, length, tries=40 * length, max_calls=length, minimum=1)) or []
    return requests if calls(requests) == length else None


# --- chained compositional templates -----------------------------------------------------------

Template = Callable[[random.Random, BaseModel], "list[Request] | None"]
"""A compositional template: ``(rng, state) -> requests in dependency order`` (None: not posable)."""


def compose(
    rng: random.Random,
    simulator: Simulator,
    state: BaseModel,
    templates: Mapping[str, Template],
    *,
    chance: float,
    partners: Callable[[str], Sequence[str]] | None = None,
    fits: Callable[[list[Request], list[Request]], bool] | None = None,
    max_calls: int = MAX_CALLS,
) -> tuple[str, list[Request]] | None:
    """One compositional template, sometimes followed by a second posed on the state it leaves.

    The second (drawn with probability ``chance`` from ``partners(first)``, default: every other
    template) is kept if both fit ``max_calls`` together and ``fits(first, second)`` holds; the
    joined task's template name is ``"<first>+<second>"``.

    Returns:
        ``(template name, requests)``, or None when the first template is not posable or too long.
    """
    names = list(templates)
    name = rng.choice(names)
    plan = templates[name](rng, state)
    if not plan or calls(plan) > max_calls:
        return None
    if rng.random() < chance:
        options = partners(name) if partners else [n for n in names if n != name]
        second_name = rng.choice(list(options))
        second = templates[second_name](rng, simulator.after(state, gold_of(plan)))
        if second and calls(plan) + calls(second) <= max_calls and (fits is None or fits(plan, second)):
            return f"{name}+{second_name}", plan + second
    return name, plan


def compose_families(
    rng: random.Random,
    simulator: Simulator,
    state: BaseModel,
    templates: Mapping[str, Template],
    family: Mapping[str, str],
    *,
    chance: float = 0.6,
    first_calls: int = 3,
) -> tuple[str, list[Request]] | None:
    """:func:`compose` where a second template must be of another ``family`` (template → family
    name) and the first plan has at most ``first_calls`` gold calls."""
    return compose(
        rng,
        simulator,
        state,
        templates,
        chance=chance,
        partners=lambda name: [n for n in templates if family[n] != family[name]],
        fits=lambda first, _: calls(first) <= first_calls,
    )


# --- collecting drafts -------------------------------------------------------------------------

Candidate = Request | Sequence[Request | None] | None
"""What a builder proposes: one request, requests in order, or None (a None inside: not posable)."""


class Drafts:
    """Collects drafts, keeping a candidate only if both its queries are new and it fits.

    A candidate fits when it has 1 to ``max_calls`` gold calls, exactly one exactly when its kind
    is ``single``, and ``accept(draft)`` holds.

    Args:
        rng: the task RNG (phrasing consumes it).
        max_calls: gold calls per task at most.
        accept: a further check of each phrased draft (e.g. a replay on the fresh world).
    """

    def __init__(
        self,
        rng: random.Random,
        *,
        max_calls: int = MAX_CALLS,
        accept: Callable[[TaskDraft], bool] | None = None,
    ) -> None:
        self.rng = rng
        self.max_calls = max_calls
        self.accept = accept
        self.items: list[TaskDraft] = []
        self._seen: set[str] = set()

    def offer(self, template: str, candidate: Candidate, kind: TaskKind | None = None) -> bool:
        """Phrase ``candidate`` as a draft of ``template``; True if it was kept."""
        if candidate is None:
            return False
        requests = [candidate] if isinstance(candidate, Request) else list(candidate)
        if not requests or any(r is None for r in requests):
            return False
        n = calls(requests)  # type: ignore[arg-type]
        if not 1 <= n <= self.max_calls or (kind is not None and (kind == "single") != (n == 1)):
            return False
        made = draft(self.rng, template, requests, kind=kind)  # type: ignore[arg-type]
        if made.query in self._seen or made.hard in self._seen or (self.accept and not self.accept(made)):
            return False
        self._seen.update((made.query, made.hard or ""))
        self.items.append(made)
        return True

    def fill_named(
        self,
        build: Callable[[], tuple[str, Candidate] | None],
        count: int,
        kind: TaskKind | None = None,
        *,
        tries: int = 30,
    ) -> int:
        """Offer ``build()``'s ``(template, candidate)`` until ``count`` are kept or
        ``tries * count`` offers were made; returns how many were kept."""
        made = 0
        for _ in range(tries * count):
            if made == count:
                break
            built = build()
            if built is not None and self.offer(*built, kind):
                made += 1
        return made

    def fill(
        self,
        template: str,
        build: Callable[[], Candidate],
        count: int,
        kind: TaskKind | None = None,
        *,
        tries: int = 30,
    ) -> int:
        """:meth:`fill_named` for one template."""
        return self.fill_named(lambda: (template, build()), count, kind, tries=tries)

    def rotate(
        self,
        names: Sequence[str],
        build: Callable[[str], Candidate],
        count: int,
        kind: TaskKind | None = None,
        *,
        tries: int = 40,
    ) -> int:
        """:meth:`fill_named` taking the templates ``names`` in turn (in an order shuffled with the
        RNG): ``build(name)`` proposes a candidate of template ``name``."""
        order = list(names)
        self.rng.shuffle(order)
        turn = iter(range(tries * count))
        return self.fill_named(lambda: (name := order[next(turn) % len(order)], build(name)), count, kind, tries=tries)

    def count(self, kind: TaskKind) -> int:
        """Drafts kept so far of ``kind``."""
        return sum(d.kind == kind for d in self.items)


__all__ = [
    "MAX_CALLS",
    "Ask",
    "Drafts",
    "Scratch",
    "Simulator",
    "ask",
    "calls",
    "chain",
    "compose",
    "compose_families",
    "compound",
    "extend",
    "flip",
    "gold_of",
    "independent",
    "joined_chains",
    "other",
    "replayable_compound",
    "requests_of",
    "shuffled_compound",
]
