"""A fleet: a domain made of several like devices (the tv sets, the media zones), its asks and task shapes.

Such a domain phrases each one-call write as an *atom* ``(rng, state, device) -> ask`` on one
device, from its current state; :class:`Devices` turns its atoms into the compound and chained
candidates of the drafting plan (:func:`~toolprism.domains._drafting.draft_plan`): independent
writes on the fresh world, and chains on one device where each ask is posed on the state the
earlier ones leave (Action-Space Shaping: compound and compositional tasks of 1-6 calls).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from toolprism.domains._drafting import Simulator, compound, extend, requests_of
from toolprism.domains._phrasing import Request
from toolprism.domains._plan import Builder, Quota


@dataclass(frozen=True)
class DeviceAsk:
    """A request on one device and the settings it touches (asks sharing none are independent).

    Attributes:
        request: the phrased request and its gold.
        device: the device's name (a tv set, a zone).
        slots: the device settings the gold writes or depends on.
    """

    request: Request
    device: str
    slots: frozenset[str]

    def independent_of(self, other: DeviceAsk) -> bool:
        """Whether the two asks can run in either order with the same result."""
        return self.device != other.device or not self.slots & other.slots


Atom = Callable[[random.Random, Any, str], "DeviceAsk | None"]
"""``(rng, state, device) -> ask`` on that device, or None when it does not apply."""


def device_ask(device: str, slots: set[str] | frozenset[str], asked: Request | None) -> DeviceAsk | None:
    """``asked`` on ``device`` touching ``slots`` (None stays None)."""
    return None if asked is None else DeviceAsk(asked, device, frozenset(slots))


@dataclass(frozen=True)
class Devices:
    """A device domain's atoms, as compound and chain candidates.

    Attributes:
        simulator: the domain's operations, for replays on scratch copies.
        names: the devices.
        singles: one-call atoms, weighted by repetition.
        chained: atoms that may follow in a chain on one device.
        power: the atom that switches a device on or off.
        powered_off: the devices that are off in a state.
    """

    simulator: Simulator
    names: Sequence[str]
    singles: Sequence[Atom]
    chained: Sequence[Atom]
    power: Atom
    powered_off: Callable[[Any], list[str]]

    def compound(self, rng: random.Random, state: Any, size: int) -> list[Request] | None:
        """``size`` independent one-call asks on the fresh world (no two touch a setting of one device)."""
        pick = lambda _: rng.choice(self.singles)(rng, state, rng.choice(self.names))  # noqa: E731
        return requests_of(compound(pick, size, tries=40 * size))

    def chain(self, rng: random.Random, state: Any, first: DeviceAsk, calls: int) -> list[Request] | None:
        """``first`` on its device, then asks on the state it leaves until the gold has ``calls`` calls."""
        more = lambda after: rng.choice(self.chained)(rng, after, first.device)  # noqa: E731
        return extend(self.simulator, state, first, more, calls)

    def power_chain(self, rng: random.Random, state: Any, calls: int) -> list[Request] | None:
        """A chain of ``calls`` calls opening with switching on a device that is off."""
        first = self.power(rng, state, rng.choice(self.powered_off(state)))
        assert first is not None  # switching power always applies
        return self.chain(rng, state, DeviceAsk(first.request, first.device, frozenset({"power"})), calls)

    def opened_chain(self, rng: random.Random, state: Any, openers: Sequence[Atom], calls: int) -> list[Request] | None:
        """A chain of ``calls`` calls on a device that is on, opening with one of ``openers``."""
        device = rng.choice([n for n in self.names if n not in self.powered_off(state)])
        first = rng.choice(openers)(rng, state, device)
        return None if first is None else self.chain(rng, state, first, calls)

    def plan(
        self,
        question: Builder,
        openers: tuple[str, Sequence[Atom]],
        read_then_write: Sequence[tuple[str, Builder, int]],
        power_calls: Sequence[int],
    ) -> tuple[Quota, ...]:
        """The drafting plan of a device domain, about 126 drafts a seed.

        :data:`QUESTIONS` questions (``question``), :data:`SINGLE_WRITES` one-call writes,
        compound tasks of :data:`COMPOUND_SIZES` asks; then compositional tasks: a power chain of
        each length in ``power_calls``, a chain opening with one of ``openers = (template,
        atoms)`` of each length in :data:`OPENED`, and the templates ``(template,
        build, count)`` whose first call is a read, which top up a shortfall of the others
        (run with ``top_up=3``).
        """
        name, atoms = openers
        sizes = sorted({*COMPOUND_SIZES})
        return (
            Quota("question", question, QUESTIONS),
            Quota("single", partial(self.compound, size=1), SINGLE_WRITES),
            *(Quota("compound", partial(self.compound, size=n), COMPOUND_SIZES.count(n)) for n in sizes),
            *(Quota("power_chain", partial(self.power_chain, calls=n), 1, "compositional") for n in power_calls),
            *(Quota(name, partial(self.opened_chain, openers=atoms, calls=n), 1, "compositional") for n in OPENED),
            *(Quota(template, build, count, "compositional", spare=True) for template, build, count in read_then_write),
        )


COMPOUND_SIZES = (2,) * 14 + (3,) * 24 + (4,) * 24 + (5,) * 12
"""Asks per compound task, one entry per draft (74 a seed)."""
OPENED = (2, 3, 4, 5, 3)
"""Gold lengths of the chains that open with a two-call ask (up to 6 calls: under ``transaction``
the oracle needs three turns a call plus one to answer, 19 turns, within the episode limit of 20)."""
SINGLE_WRITES = 20
QUESTIONS = 8


__all__ = ["Atom", "DeviceAsk", "Devices", "device_ask"]
