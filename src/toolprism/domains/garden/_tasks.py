"""Task generator of the garden domain: single, compound and compositional drafts.

Every one-call request is an :class:`~toolprism.domains._asks.AskKind` (an operation and its
direct and indirect phrasings), asked from the seed's fresh world: a value other than the current
one, and only what the garden accepts in that state (no watering under the mower, no run time
change while a zone waters), so every gold write succeeds and changes the state. Each request
declares what it writes and what its precondition reads; compound drafts join requests that are
independent (any order, same result). Compositional drafts chain requests where a later call
needs an earlier one (turn a zone off before changing its run time, dock the mower before
watering its lawn) or an earlier reply (water one zone as long as another).

Mix per seed (:data:`MIX`): 29 single, 76 compound and 25 compositional drafts (130; 260 tasks).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Ask, Simulator, compose, compound, gold_of, requests_of
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Quota, draft_plan, read_or_write
from toolprism.domains.garden._ops import OPERATIONS
from toolprism.domains.garden._state import LAWNS, LIGHTS, RUN_TIMES, SPRAYS, ZONES, GardenState

MIX: dict[str, int] = {"single": 29, "compound": 76, "compositional": 25}
"""Drafts per kind and seed (22 % / 58 % / 19 %)."""
SIM = Simulator(OPERATIONS)

Maker = Callable[[random.Random, GardenState, set[str]], Ask | None]
"""Builds one request on the fresh world (None: not posable); the taken set (what the requests
chosen so far write) lets it skip a zone it could not share, :func:`compound` checks the rest."""
Chain = list[Request]
"""Requests in dependency order."""

# --- ask kinds: one call each ------------------------------------------------------------------

WATERING = AskKind(
    "set_watering",
    ("turn the {zone} watering {watering}", "switch {watering} the {zone} watering"),
    {
        "on": "switch the {zone} watering {watering}, the soil there is bone dry",
        "off": "turn the {zone} watering {watering}, it is turning into a swamp",
    },
    key="watering",
)
RUN_TIME = AskKind(
    "set_run_time",
    ("set the {zone} run time to {minutes} minutes", "water the {zone} for {minutes} minutes each time"),
    "give the {zone} {minutes} minutes of water each time, {why}",
)
SPRAY = AskKind(
    "set_spray",
    ("set the {zone} spray to {spray}", "switch the {zone} sprinkler to {spray}"),
    {
        "mist": "put the {zone} sprinkler on {spray}, the new seed keeps washing away",
        "shower": "go back to the {spray} pattern on the {zone}, nothing special today",
        "jet": "switch the {zone} sprinkler to {spray} so it reaches the far corner",
    },
    key="spray",
)
START = AskKind(
    "start_mower",
    ("send the mower out to the {lawn}", "start mowing the {lawn}"),
    "get the {lawn} mowed, the grass is getting long",
)
DOCK = AskKind(
    "dock_mower",
    ("dock the mower", "send the mower back to its dock"),
    "bring the mower home to its dock, the kids want to play outside",
)
LIGHT = AskKind(
    "set_light",
    ("turn {power} the {light} light", "switch the {light} light {power}"),
    {
        "on": "switch the {light} light {power}, it is getting dark out there",
        "off": "turn the {light} light {power}, nobody is outside any more",
    },
    key="power",
)
GARDEN = AskKind(
    "get_garden",
    ("tell me what is running in the garden", "give me a rundown of the garden"),
    "see whether anything is still running out in the garden before I head out",
)
ZONE = AskKind(
    "get_zone",
    ("tell me how the {zone} is set up", "check the {zone} watering settings"),
    "look at the {zone} settings, the plants there look off",
)


def _keys(zone: str) -> frozenset[str]:
    return frozenset({f"watering:{zone}", f"minutes:{zone}", f"spray:{zone}"})


def _flip(value: str) -> str:
    return "off" if value == "on" else "on"


def _run_time_request(zone: str, minutes: int, current: int) -> Request:
    why = "the plants look thirsty" if minutes > current else "the water bill is too high"
    return RUN_TIME.request({"why": why}, zone=zone, minutes=minutes)


# --- one-call writes and questions, from the fresh world ---------------------------------------


def _watering(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    zones = [z for z in ZONES if f"watering:{z}" not in taken and s.mower.lawn != z]
    if not zones:
        return None
    zone = rng.choice(zones)
    watering = _flip(s.zones[zone].watering)
    reads = frozenset({"mower"} if watering == "on" and zone in LAWNS else ())
    return Ask(WATERING.request(zone=zone, watering=watering), frozenset({f"watering:{zone}"}), reads)


def _run_time(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    zones = [z for z in ZONES if s.zones[z].watering == "off" and f"minutes:{z}" not in taken]
    if not zones:
        return None
    zone = rng.choice(zones)
    current = s.zones[zone].minutes
    minutes = rng.choice([m for m in RUN_TIMES if m != current])
    return Ask(
        _run_time_request(zone, minutes, current), frozenset({f"minutes:{zone}"}), frozenset({f"watering:{zone}"})
    )


def _spray(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    lawn = rng.choice(LAWNS)
    asked = SPRAY.draw(rng, SPRAYS, s.zones[lawn].spray, zone=lawn)
    return None if asked is None else Ask(asked, frozenset({f"spray:{lawn}"}))


def _start(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    lawns = [lawn for lawn in LAWNS if s.zones[lawn].watering == "off"]
    if s.mower.lawn is not None or not lawns:
        return None
    lawn = rng.choice(lawns)
    return Ask(START.request(lawn=lawn), frozenset({"mower"}), frozenset({f"watering:{lawn}"}))


def _dock(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    return None if s.mower.lawn is None else Ask(DOCK.request(), frozenset({"mower"}))


def _light(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    light = rng.choice(LIGHTS)
    return Ask(LIGHT.request(light=light, power=_flip(s.lights[light])), frozenset({f"light:{light}"}))


# A question claims what it reports as written, so no request in the same compound changes it.


def _garden_question(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    everything = {"mower", *(f"light:{light}" for light in LIGHTS), *(k for z in ZONES for k in _keys(z))}
    return Ask(GARDEN.request(), frozenset(everything))


def _zone_question(rng: random.Random, s: GardenState, taken: set[str]) -> Ask | None:
    zone = rng.choice(ZONES)
    return Ask(ZONE.request(zone=zone), _keys(zone))


WRITES: dict[str, Maker] = {
    "watering": _watering,
    "run_time": _run_time,
    "spray": _spray,
    "start_mower": _start,
    "dock_mower": _dock,
    "light": _light,
}
"""Single-call write requests, by template name."""
QUESTIONS: dict[str, Maker] = {"garden_question": _garden_question, "zone_question": _zone_question}
"""Read-only requests (one read each), by template name."""


# --- compositional templates -------------------------------------------------------------------


def _off_then_run_time(rng: random.Random, s: GardenState) -> Chain | None:
    """Turn a watering zone off, change its run time, and sometimes turn it back on."""
    zones = [z for z in ZONES if s.zones[z].watering == "on"]
    if not zones:
        return None
    zone = rng.choice(zones)
    current = s.zones[zone].minutes
    chain = [WATERING.request(zone=zone, watering="off")]
    chain.append(_run_time_request(zone, rng.choice([m for m in RUN_TIMES if m != current]), current))
    if rng.random() < 0.5:
        chain.append(WATERING.request(zone=zone, watering="on"))
    return chain


def _run_time_then_water(rng: random.Random, s: GardenState) -> Chain | None:
    """Change an idle zone's run time, then start watering it."""
    zones = [z for z in ZONES if s.zones[z].watering == "off" and s.mower.lawn != z]
    if not zones:
        return None
    zone = rng.choice(zones)
    current = s.zones[zone].minutes
    minutes = rng.choice([m for m in RUN_TIMES if m != current])
    return [_run_time_request(zone, minutes, current), WATERING.request(zone=zone, watering="on")]


def _dock_then_water(rng: random.Random, s: GardenState) -> Chain | None:
    """Dock the mower, then water the lawn it was mowing."""
    lawn = s.mower.lawn
    return None if lawn is None else [DOCK.request(), WATERING.request(zone=lawn, watering="on")]


def _off_then_mow(rng: random.Random, s: GardenState) -> Chain | None:
    """Turn a lawn's watering off, then send the docked mower out to it."""
    lawns = [lawn for lawn in LAWNS if s.zones[lawn].watering == "on"]
    if s.mower.lawn is not None or not lawns:
        return None
    lawn = rng.choice(lawns)
    return [WATERING.request(zone=lawn, watering="off"), START.request(lawn=lawn)]


def _copy_run_time(rng: random.Random, s: GardenState) -> Chain | None:
    """Read one zone, then give another (idle) zone the same run time."""
    source, target = rng.sample(ZONES, 2)
    minutes = s.zones[source].minutes
    if s.zones[target].watering == "on" or s.zones[target].minutes == minutes:
        return None
    a, b = slot(source), slot(target)
    write = request(
        (f"water the {b} as long as the {a}", f"give the {b} the same run time as the {a}"),
        f"make the {b} water for as long as the {a} does",
        ("set_run_time", {"zone": target, "minutes": replied(minutes)}),
    )
    return [ZONE.request(zone=source), write]


def _match_spray(rng: random.Random, s: GardenState) -> Chain | None:
    """Read one lawn, then give the other lawn the same spray pattern."""
    source, target = rng.sample(LAWNS, 2)
    spray = s.zones[source].spray
    if s.zones[target].spray == spray:
        return None
    a, b = slot(source), slot(target)
    write = request(
        (f"set the {b} spray to match the {a}", f"give the {b} sprinkler the same pattern as the {a}"),
        f"make the {b} sprinkler spray like the {a} one",
        ("set_spray", {"zone": target, "spray": replied(spray)}),
    )
    return [ZONE.request(zone=source), write]


def _zone_if(rng: random.Random, s: GardenState) -> Chain | None:
    """Read a zone, then flip its watering if it is in the state the query names."""
    zone = rng.choice(ZONES)
    current = s.zones[zone].watering
    if current == "off" and s.mower.lawn == zone:
        return None
    z, v = slot(zone), slot(_flip(current))
    act = request(
        (f"if the {z} watering is {current}, turn it {v}", f"switch the {z} watering {v} if it is {current}"),
        f"turn the {z} watering {v} in case it is {current}",
        ("set_watering", {"zone": zone, "watering": _flip(current)}),
    )
    return [ZONE.request(zone=zone), act]


def _mower_if(rng: random.Random, s: GardenState) -> Chain | None:
    """Read the garden, then dock the mower if it is out, or send it to a dry lawn if docked."""
    if s.mower.lawn is not None:
        act = request(("dock the mower if it is out",), "have the mower go home in case it is out", ("dock_mower", {}))
    else:
        lawns = [lawn for lawn in LAWNS if s.zones[lawn].watering == "off"]
        if not lawns:
            return None
        lawn = rng.choice(lawns)
        n = slot(lawn)
        act = request(
            (f"if the mower is docked, send it to the {n}",),
            f"get the {n} mowed in case the mower is docked",
            ("start_mower", {"lawn": lawn}),
        )
    return [GARDEN.request(), act]


COMPOSITIONAL: dict[str, Callable[[random.Random, GardenState], Chain | None]] = {
    "off_then_run_time": _off_then_run_time,
    "run_time_then_water": _run_time_then_water,
    "dock_then_water": _dock_then_water,
    "off_then_mow": _off_then_mow,
    "copy_run_time": _copy_run_time,
    "match_spray": _match_spray,
    "zone_if": _zone_if,
    "mower_if": _mower_if,
}
"""Compositional templates: each returns a chain of dependent requests (None: not posable)."""


# --- the plan ----------------------------------------------------------------------------------


def _compound(rng: random.Random, s: GardenState) -> list[Request] | None:
    """2-5 independent requests (about one question in ten), at most 6 calls, one a write."""
    size = rng.choices((2, 3, 4, 5), weights=(2, 4, 4, 2))[0]

    def propose(chosen: list[Ask]) -> Ask | None:
        pool = QUESTIONS if rng.random() < 0.1 else WRITES
        taken = set().union(*(a.writes for a in chosen))
        return pool[rng.choice(sorted(pool))](rng, s, taken)

    asks = compound(propose, size, tries=4 * size, minimum=2)
    return requests_of(asks) if asks and SIM.writes_any(gold_of(a.request for a in asks)) else None


def _chain(rng: random.Random, s: GardenState) -> tuple[str, Chain] | None:
    """One compositional template, or (sometimes) two that write different operations, the second
    posed on the state the first leaves (:func:`compose` keeps both within 6 calls)."""

    def fits(first: Chain, second: Chain) -> bool:
        writes = [{op for op, _ in gold_of(c) if SIM.is_write(op)} for c in (first, second)]
        return not writes[0] & writes[1]

    return compose(rng, SIM, s, COMPOSITIONAL, chance=0.3, fits=fits)


PLAN = (
    Quota("", read_or_write(QUESTIONS, WRITES), MIX["single"], "single"),
    Quota("compound", _compound, MIX["compound"], "compound"),
    Quota("", _chain, MIX["compositional"], "compositional"),
)
"""Singles (about one question in four), then compound, then compositional drafts: see :data:`MIX`."""


def drafts(state: GardenState, world_seed: int) -> list[TaskDraft]:
    """The drafts on the fresh world ``state`` of ``world_seed`` (task RNG ``garden/tasks/<seed>``)."""
    return draft_plan(random.Random(f"garden/tasks/{world_seed}"), state, PLAN)
