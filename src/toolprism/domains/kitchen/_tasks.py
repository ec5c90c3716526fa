"""Task generation for the kitchen: single, compound and compositional drafts from the fresh world.

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
from toolprism.domains.kitchen import _requests as r
from toolprism.domains.kitchen._ops import OPERATIONS
from toolprism.domains.kitchen._state import (
    OVEN_PRESETS,
    OVEN_RANGE,
    TEMPERATURE_RANGE,
    TIMER_CAPACITY,
    TIMER_LABELS,
    KitchenState,
)

Picker = Callable[[random.Random, KitchenState], Ask | None]
Chain = Callable[[random.Random, KitchenState], list[Ask] | None]

SIM = Simulator(OPERATIONS)

PICKERS: tuple[Picker, ...] = (
    r.pick_power("oven"),
    r.pick_oven_mode,
    r.pick_oven_temperature,
    r.pick_oven_preset,
    r.pick_fridge_mode,
    r.pick_compartment("fridge"),
    r.pick_compartment("freezer"),
    r.pick_power("kettle"),
    r.pick_kettle_temperature,
    r.pick_burner,
    r.pick_burner,
    r.pick_child_lock,
    r.pick_timer,
    r.pick_cancel,
    r.pick_microwave,
    r.pick_microwave_preset,
    r.pick_start("microwave"),
    r.pick_pause("microwave"),
    r.pick_power("dishwasher"),
    r.pick_dishwasher_program,
    r.pick_start("dishwasher"),
    r.pick_pause("dishwasher"),
    r.pick_power("coffee_maker"),
    r.pick_brew,
)
"""Single-call requests that need nothing done first (``pick_burner`` twice: four burners)."""

COMPOUND_PICKERS: tuple[Picker, ...] = (*PICKERS, r.pick_oven_mode_temperature)


# --- compositional chains: later calls need earlier ones, or follow from state read first -------


def _threshold(appliance: str, reads: str, temperature: int, current: int) -> Ask:
    """Read ``reads`` and move ``appliance`` to ``temperature`` if it is on the other side of it
    (the template picks ``temperature`` so that it is)."""
    side, verb = ("below", "raise it to") if temperature > current else ("above", "bring it down to")
    name = slot(reads) if appliance == reads else f"{slot(reads)}'s {slot(appliance)}"
    t = slot(temperature)
    return ask(
        (
            f"check the {name} and if it is {side} {t} degrees, {verb} {t}",
            f"look at the {name} temperature and, if it's {side} {t} degrees, set it to {t}",
        ),
        f"make sure the {name} isn't {side} {t} degrees, and if it is, set it to {t}",
        (
            ("get_status", {"appliance": reads}),
            ("set_temperature", {"appliance": appliance, "temperature": temperature}),
        ),
        {appliance},
    )


def oven_chain(rng: random.Random, s: KitchenState) -> list[Ask] | None:
    """Off: turn the oven on, then set a mode and temperature (or a preset). On: read it, then raise
    or lower it past a threshold the query states, or change mode and temperature if it is in the
    mode the query names."""
    if s.oven.power == "on" and rng.random() < 0.5:
        temperature = other(rng, r.oven_temperatures(s.oven.mode), s.oven.temperature)
        return [_threshold("oven", "oven", temperature, s.oven.temperature)]
    if s.oven.power == "on":
        change = r.choose_oven_mode_temperature(rng, s).request
        oven = slot("oven")
        return [
            ask(
                tuple(f"check the {oven} and if it is in {s.oven.mode} mode, {d}" for d in change.direct),
                f"see whether the {oven} is on {s.oven.mode}, and if so {change.indirect[0]}",
                (("get_status", {"appliance": "oven"}), *change.gold),
                {"oven"},
            )
        ]
    if rng.random() < 0.3:
        return [r.power("oven", "on"), r.preset(rng.choice(OVEN_PRESETS), "oven")]
    return [r.power("oven", "on"), r.choose_oven_mode_temperature(rng, s)]


def fridge_chain(rng: random.Random, s: KitchenState) -> list[Ask]:
    """Read the fridge, then move the fridge or the freezer past a threshold the query states."""
    compartment = rng.choice(("fridge", "freezer"))
    current = getattr(s.fridge, f"{compartment}_temperature")
    low, high = TEMPERATURE_RANGE[compartment]
    return [_threshold(compartment, "fridge", other(rng, range(low, high + 1), current), current)]


def dishwasher_chain(rng: random.Random, s: KitchenState) -> list[Ask]:
    """Get the dishwasher into a state that takes a new program (on, not running), set it, start it."""
    first = {"off": [r.power("dishwasher", "on")], "running": [r.pause("dishwasher")]}
    key = "off" if s.dishwasher.power == "off" else s.dishwasher.status
    program = other(rng, r.DISHWASHER_PROGRAMS, s.dishwasher.program)
    resume = key in ("running", "paused")
    return [*first.get(key, []), r.dishwasher_program(program), r.start("dishwasher", resume)]


def microwave_chain(rng: random.Random, s: KitchenState) -> list[Ask] | None:
    """Pause the microwave if it runs, program it (or apply a preset), then start it."""
    program = r.choose_microwave_preset(rng, s) if rng.random() < 0.3 else None
    program = program or r.choose_microwave(rng, s)
    first = [r.pause("microwave")] if s.microwave.status == "running" else []
    return [*first, program, r.start("microwave", s.microwave.status != "idle")]


def cooktop_chain(rng: random.Random, s: KitchenState) -> list[Ask]:
    """Locked: unlock the cooktop, then set one or two burners. Unlocked: read the cooktop and change
    a burner if it is at the level the query names."""
    if s.cooktop.child_lock == "on":
        burners = rng.sample(r.BURNERS, rng.choice((1, 1, 2)))
        return [r.child_lock("off"), *(r.choose_burner(rng, s, b) for b in burners)]
    name = rng.choice(r.BURNERS)
    current, level = s.cooktop.burners[name], other(rng, r.BURNER_LEVELS, s.cooktop.burners[name])
    where, cooktop = slot(name), slot("cooktop")
    change = f"turn it {slot(level)}" if level == "off" else f"set it to {slot(level)}"
    return [
        ask(
            (
                f"check the {cooktop} and if the {where} burner is {current}, {change}",
                f"look at the {cooktop} and, if the {where} burner is at {current}, {change}",
            ),
            f"see whether the {where} burner on the {cooktop} is {current}, and if so {change}",
            (("get_status", {"appliance": "cooktop"}), ("set_burner", {"burner": name, "level": level})),
            {name},
        )
    ]


def coffee_chain(rng: random.Random, s: KitchenState) -> list[Ask]:
    """Off: turn the coffee maker on, then brew one or two coffees. On: check it is on, then brew."""
    if s.coffee_maker.power == "off":
        return [r.power("coffee_maker", "on"), *(r.choose_brew(rng) for _ in range(rng.choice((1, 1, 2))))]
    coffee = r.choose_brew(rng).request
    action = coffee.gold[0]
    maker = slot("coffee_maker")
    return [
        ask(
            tuple(f"check that the {maker} is on and if it is, {d}" for d in coffee.direct),
            f"see whether the {maker} is on and, if so, {coffee.indirect[0]}",
            (("get_status", {"appliance": "coffee_maker"}), action),
            {"coffee"},
        )
    ]


def kettle_chain(rng: random.Random, s: KitchenState) -> list[Ask]:
    """Read the kettle; if it is off, set a temperature and switch it on; if on, switch it off."""
    read = ("get_status", {"appliance": "kettle"})
    kettle, off, on = slot("kettle"), slot("off"), slot("on")
    if s.kettle.power == "on":
        return [
            ask(
                (
                    f"check the {kettle} and if it is on, turn it {off}",
                    f"look at the {kettle} and switch it {off} if it's on",
                ),
                f"see if the {kettle} is on, and if it is, switch it {off}, nobody wants tea now",
                (read, ("set_power", {"appliance": "kettle", "power": "off"})),
                {"kettle"},
            )
        ]
    degrees = other(rng, r.KETTLE_TEMPERATURES, s.kettle.temperature)
    t = slot(degrees)
    return [
        ask(
            (
                f"check the {kettle} and if it is off, set it to {t} degrees and switch it {on}",
                f"look at the {kettle} and, if it's off, heat it to {t} degrees and turn it {on}",
            ),
            f"see whether the {kettle} is off, and if so get it {on} at {t} degrees for a pot of tea",
            (
                read,
                ("set_temperature", {"appliance": "kettle", "temperature": degrees}),
                ("set_power", {"appliance": "kettle", "power": "on"}),
            ),
            {"kettle"},
        )
    ]


def timer_copy_chain(rng: random.Random, s: KitchenState) -> list[Ask] | None:
    """Read the timers, then start (or reset) a timer for as long as another one has left."""
    source = rng.choice(sorted(s.timers))
    minutes = s.timers[source]
    targets = [
        t
        for t in TIMER_LABELS
        if t != source and s.timers.get(t) != minutes and (t in s.timers or len(s.timers) < TIMER_CAPACITY)
    ]
    if not targets:
        return None
    target = rng.choice(targets)
    said = slot(target)
    return [
        ask(
            (
                f"check the timers and set a {said} timer for as long as the {source} timer has left",
                f"look at the {source} timer and give the {said} a timer with the same minutes",
            ),
            f"time the {said} to finish together with the {source}, using what the {source} timer has left",
            (("list_timers", {}), ("set_timer", {"label": target, "minutes": replied(minutes)})),
            {f"timer:{target}", "timers"},
        )
    ]


def timer_shortest_chain(rng: random.Random, s: KitchenState) -> list[Ask] | None:
    """Read the timers, then cancel the one with the least time left (unique)."""
    least = sorted(s.timers.values())
    if len(least) < 2 or least[0] == least[1]:
        return None
    label = min(s.timers, key=s.timers.__getitem__)
    return [
        ask(
            (
                "check the timers and cancel the one with the least time left",
                "look at the running timers and cancel whichever is closest to done",
            ),
            "find the timer that's nearly finished among the running timers and cancel it, it isn't needed",
            (("list_timers", {}), ("cancel_timer", {"label": replied(label)})),
            {f"timer:{label}", "timers"},
        )
    ]


def preset_copy_chain(rng: random.Random, s: KitchenState) -> list[Ask] | None:
    """Read the presets, then set the oven to a preset's temperature in its current mode, or the
    microwave to a preset's time at another power level."""
    if rng.random() < 0.5 and s.oven.power == "on":
        low, high = OVEN_RANGE[s.oven.mode]
        names = [
            n for n, p in s.oven_presets.items() if low <= p.temperature <= high and p.temperature != s.oven.temperature
        ]
        if not names:
            return None
        name = rng.choice(names)
        oven, preset, degrees = slot("oven"), words(name), s.oven_presets[name].temperature
        return [
            ask(
                (
                    f"look up the {oven}'s {preset} preset and set the {oven} to its temperature, keeping the mode",
                    f"check the {preset} preset and heat the {oven} to the same temperature in its current mode",
                ),
                f"the {preset} preset has the right heat, so give the {oven} that temperature but keep its mode",
                (
                    ("list_presets", {"appliance": "oven"}),
                    ("set_temperature", {"appliance": "oven", "temperature": replied(degrees)}),
                ),
                {"oven"},
            )
        ]
    if s.microwave.status == "running":
        return None
    name = rng.choice(r.MICROWAVE_PRESETS)
    seconds = s.microwave_presets[name].seconds
    level = other(rng, r.MICROWAVE_LEVELS, s.microwave_presets[name].power_level)
    microwave, preset, lv = slot("microwave"), words(name), slot(level)
    return [
        ask(
            (
                f"look up the {microwave}'s {preset} preset and program the same time at {lv} power",
                f"check the {preset} preset and set the {microwave} for that long at {lv} power",
            ),
            f"use the {preset} preset's time on the {microwave}, but at {lv} power",
            (
                ("list_presets", {"appliance": "microwave"}),
                ("set_microwave", {"power_level": level, "seconds": replied(seconds)}),
            ),
            {"microwave"},
        )
    ]


CHAINS: tuple[Chain, ...] = (
    oven_chain,
    fridge_chain,
    dishwasher_chain,
    microwave_chain,
    cooktop_chain,
    coffee_chain,
    kettle_chain,
    timer_copy_chain,
    timer_shortest_chain,
    preset_copy_chain,
)


# --- drafting ----------------------------------------------------------------------------------

PLAN = family_plan(SIM, r.question, PICKERS, COMPOUND_PICKERS, CHAINS)
"""Drafts per seed by template family (:data:`~toolprism.domains._plan.FAMILY_COUNTS`, 126 in all)."""


def drafts(state: KitchenState, world_seed: int) -> list[TaskDraft]:
    """The kitchen's drafts on the fresh world ``state`` of ``world_seed``, family by family.

    Deterministic: one RNG seeded with ``"kitchen/tasks/{world_seed}"``. Yields :data:`PLAN`'s
    counts unless a family runs out of distinct candidates.
    """
    return draft_plan(random.Random(f"kitchen/tasks/{world_seed}"), state, PLAN, accept=replays_growing(SIM, state))
