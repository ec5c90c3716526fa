"""Task generation for the laundry room: single, compound and compositional drafts from the fresh world.

Drafted by family from :mod:`._requests` asks (:func:`~toolprism.domains._plan.family_plan`
says which candidates are kept); mix per seed (:data:`PLAN`): 28 single (9 of them questions), 74
compound (2-5 requests), 24 compositional.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Ask, Simulator, ask, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._opkit import words
from toolprism.domains._plan import draft_plan, family_plan, replays_growing
from toolprism.domains.laundry import _requests as r
from toolprism.domains.laundry._ops import OPERATIONS
from toolprism.domains.laundry._requests import parts, settable
from toolprism.domains.laundry._state import (
    CYCLE_LIMITS,
    DRY_PROGRAMS,
    OPTIONS,
    WASH_CYCLES,
    LaundryState,
    heats,
    slower,
)

Picker = Callable[[random.Random, LaundryState], Ask | None]
Chain = Callable[[random.Random, LaundryState], list[Ask] | None]

SIM = Simulator(OPERATIONS)

PICKERS: tuple[Picker, ...] = (
    r.pick_power("washer"),
    r.pick_power("dryer"),
    r.pick_cycle,
    r.pick_temperature,
    r.pick_temperature,
    r.pick_spin,
    r.pick_detergent,
    r.pick_program,
    r.pick_dryer_levels,
    r.pick_option("washer"),
    r.pick_option("washer"),
    r.pick_option("dryer"),
    r.pick_schedule("washer"),
    r.pick_schedule("dryer"),
    r.pick_start("washer"),
    r.pick_start("dryer"),
    r.pick_pause("washer"),
    r.pick_pause("dryer"),
    r.pick_child_lock,
    r.pick_preset("washer"),
    r.pick_preset("dryer"),
)
"""Single-call requests that need nothing done first (washer temperature and options twice)."""

COMPOUND_PICKERS: tuple[Picker, ...] = (*PICKERS, r.pick_cycle_temperature)


# --- compositional chains: later calls need earlier ones, or follow from state read first -------


def _settings(rng: random.Random, s: LaundryState, machine: str) -> Ask | None:
    """One change of ``machine``'s settings, chosen from its current values (power and status aside)."""
    if machine == "washer":
        choices = (
            lambda: r.choose_cycle_temperature(rng, s),
            lambda: r.choose_preset(rng, s, "washer"),
            lambda: r.choose_temperature(rng, s),
            lambda: r.choose_option(rng, s, "washer"),
        )
    else:
        choices = (
            lambda: r.program(other(rng, DRY_PROGRAMS, s.dryer.program)),
            lambda: r.choose_preset(rng, s, "dryer"),
            lambda: r.choose_dryer_levels(rng, s),
            lambda: r.choose_option(rng, s, "dryer"),
        )
    return rng.choice(choices)()


def _clear_delay(machine: str) -> Ask:
    m, zero = slot(machine), slot(0)
    return ask(
        (f"set the {m}'s start delay to {zero} hours", f"clear the {m}'s delay by setting it to {zero} hours"),
        f"drop the {m}'s delay to {zero} hours, I need it done now",
        (("set_schedule", {"machine": machine, "hours": 0}),),
        r.parts(machine, "schedule"),
    )


def machine_chain(machine: str) -> Chain:
    """Get ``machine`` ready (unlock, switch on, pause it or clear its delay), change a setting, then
    start or resume it."""

    def chain(rng: random.Random, s: LaundryState) -> list[Ask] | None:
        device = getattr(s, machine)
        asks = [r.child_lock("off")] if s.child_lock == "on" else []
        if device.power == "off":
            asks.append(r.power(machine, "on"))
        elif device.status == "running":
            asks.append(r.pause(machine))
        elif device.status == "scheduled":
            asks.append(_clear_delay(machine))
        change = _settings(rng, s, machine)
        if change is None:
            return None
        resume = device.power == "on" and device.status in ("running", "paused")
        return [*asks, change, r.start(machine, resume)]

    chain.__name__ = f"{machine}_chain"
    return chain


def limit_chain(rng: random.Random, s: LaundryState) -> list[Ask] | None:
    """Look a cycle's limits up, then wash at its hottest temperature or fastest spin."""
    if not settable(s, "washer"):
        return None
    washer, kind = s.washer, rng.choice(("temperature", "spin", "current"))
    if kind == "current":
        hottest = CYCLE_LIMITS[washer.cycle].max_temperature
        if washer.temperature == hottest:
            return None
        said = slot("washer")
        return [
            ask(
                (
                    f"check which cycle the {said} is on, look up that cycle's hottest temperature and wash at it",
                    f"find the {said}'s current cycle, get its limits and set the temperature to the highest allowed",
                ),
                f"the stains are stubborn, so wash as hot as the {said}'s current cycle allows, look its limits up",
                (
                    ("get_status", {"machine": "washer"}),
                    ("get_cycle_limits", {"cycle": replied(washer.cycle)}),
                    ("set_temperature", {"temperature": replied(hottest)}),
                ),
                parts("washer", "temperature"),
            )
        ]
    name = other(rng, WASH_CYCLES, washer.cycle)
    limits = CYCLE_LIMITS[name]
    if kind == "temperature":
        if min(washer.temperature, limits.max_temperature) == limits.max_temperature:
            return None
        last, what = ("set_temperature", {"temperature": replied(limits.max_temperature)}), "hottest temperature"
    else:
        if slower(washer.spin, limits.max_spin) == limits.max_spin:
            return None
        last, what = ("set_spin", {"speed": replied(limits.max_spin)}), "fastest spin"
    cycle, said = slot(name), slot("washer")
    return [
        ask(
            (
                f"look up the {what} the {cycle} cycle allows, then set the {said} to {cycle} with it",
                f"check the {cycle} cycle's limits and put the {said} on {cycle} at its {what}",
            ),
            f"run the {said} on {cycle} at the {what} it allows, look the limit up first",
            (("get_cycle_limits", {"cycle": name}), ("set_mode", {"machine": "washer", "mode": name}), last),
            parts("washer", "cycle", "temperature", "spin", "prewash"),
        )
    ]


def preset_copy_chain(rng: random.Random, s: LaundryState) -> list[Ask] | None:
    """Read the presets, then use one preset's temperature (washer) or dryness (dryer) only."""
    if rng.random() < 0.5:
        if not settable(s, "washer"):
            return None
        limit = CYCLE_LIMITS[s.washer.cycle].max_temperature
        names = [
            n for n, p in s.washer_presets.items() if p.temperature <= limit and p.temperature != s.washer.temperature
        ]
        if not names:
            return None
        name = rng.choice(names)
        preset, washer, degrees = words(name), slot("washer"), s.washer_presets[name].temperature
        return [
            ask(
                (
                    f"look up the {washer}'s {preset} preset and wash at its temperature, keeping the cycle",
                    f"check the {preset} preset and set the {washer} to the same temperature without changing cycle",
                ),
                f"the {preset} preset's temperature is right, use just that on the {washer} and keep the cycle",
                (
                    ("list_presets", {"machine": "washer"}),
                    ("set_temperature", {"temperature": replied(degrees)}),
                ),
                parts("washer", "temperature"),
            )
        ]
    if not settable(s, "dryer"):
        return None
    name = rng.choice(sorted(s.dryer_presets))
    dryness = s.dryer_presets[name].dryness
    heat = rng.choice([h for h in heats(s.dryer.program) if (dryness, h) != (s.dryer.dryness, s.dryer.heat)] or [None])
    if heat is None:
        return None
    preset, dryer, h = words(name), slot("dryer"), slot(heat)
    return [
        ask(
            (
                f"look up the {dryer}'s {preset} preset and dry to the same dryness at {h} heat",
                f"check the {preset} preset and set the {dryer} to its dryness with {h} heat",
            ),
            f"have the {dryer} dry as much as its {preset} preset does, but on {h} heat",
            (("list_presets", {"machine": "dryer"}), ("set_dryer", {"dryness": replied(dryness), "heat": heat})),
            parts("dryer", "heat"),
        )
    ]


def check_chain(rng: random.Random, s: LaundryState) -> list[Ask] | None:
    """Read a machine, then act on what the query says it finds (the template picks a true case)."""
    machine = rng.choice(("washer", "dryer"))
    device = getattr(s, machine)
    read = ("get_status", {"machine": machine})
    if device.status == "paused" and s.child_lock == "off":
        condition, act, gold = "is paused", "resume it", ("start", {"machine": machine})
    elif device.status == "running":
        condition, act, gold = "is running", "pause it", ("pause", {"machine": machine})
    elif settable(s, machine):
        names = [o for o in OPTIONS[machine] if o != "prewash" or CYCLE_LIMITS[device.cycle].prewash == "allowed"]
        name = rng.choice(names)
        current = device.options[name]
        setting = r.flip(current)
        condition, act = f"has {slot(name)} {current}", f"turn {slot(name)} {slot(setting)}"
        gold = ("set_option", {"machine": machine, "option": name, "setting": setting})
    else:
        return None
    m = slot(machine)
    return [
        ask(
            (
                f"check the {m} and if it {condition}, {act}",
                f"look at the {m} and, if it {condition}, {act}",
            ),
            f"see whether the {m} {condition}, and if so {act}",
            (read, gold),
            parts(machine) | ({"lock"} if gold[0] == "start" else set()),
        )
    ]


def lock_chain(rng: random.Random, s: LaundryState) -> list[Ask] | None:
    """Locked: unlock, then start or resume the machines that can start. Unlocked: read a machine
    and lock if the lock is off."""
    if s.child_lock == "off":
        washer, on = slot("washer"), slot("on")
        return [
            ask(
                (
                    f"check the {washer} and if the child lock is off, turn it {on}",
                    f"look at the {washer} and switch the child lock {on} if it's off",
                ),
                f"see whether the child lock is off on the {washer}, and if so turn it {on}, the kids are visiting",
                (("get_status", {"machine": "washer"}), ("set_child_lock", {"lock": "on"})),
                {"lock"},
            )
        ]
    ready = [
        m for m in ("washer", "dryer") if getattr(s, m).power == "on" and getattr(s, m).status in ("idle", "paused")
    ]
    if not ready:
        return None
    machines = rng.sample(ready, rng.randint(1, len(ready)))
    return [r.child_lock("off"), *(r.start(m, getattr(s, m).status == "paused") for m in machines)]


def schedule_chain(rng: random.Random, s: LaundryState) -> list[Ask] | None:
    """Set a machine's delay, then start it (it waits, scheduled); unlock first if needed."""
    machine = rng.choice(("washer", "dryer"))
    device = getattr(s, machine)
    if device.power == "off" or device.status != "idle":
        return None
    unlock = [r.child_lock("off")] if s.child_lock == "on" else []
    return [*unlock, r.schedule(machine, other(rng, range(1, 13), device.delay_hours)), r.start(machine, False)]


CHAINS: tuple[Chain, ...] = (
    machine_chain("washer"),
    machine_chain("dryer"),
    limit_chain,
    preset_copy_chain,
    check_chain,
    lock_chain,
    schedule_chain,
)


# --- drafting ----------------------------------------------------------------------------------

PLAN = family_plan(SIM, r.question, PICKERS, COMPOUND_PICKERS, CHAINS)
"""Drafts per seed by template family (:data:`~toolprism.domains._plan.FAMILY_COUNTS`, 126 in all)."""


def drafts(state: LaundryState, world_seed: int) -> list[TaskDraft]:
    """The laundry room's drafts on the fresh world ``state`` of ``world_seed``, family by family.

    Deterministic: one RNG seeded with ``"laundry/tasks/{world_seed}"``. Yields :data:`PLAN`'s
    counts unless a family runs out of distinct candidates.
    """
    return draft_plan(random.Random(f"laundry/tasks/{world_seed}"), state, PLAN, accept=replays_growing(SIM, state))
