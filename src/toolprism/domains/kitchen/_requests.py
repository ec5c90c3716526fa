"""The kitchen's requests: every thing a user may ask, phrased directly and indirectly.

Each function here turns explicit values into an :class:`Ask` (a :class:`Request` plus the parts
of the kitchen it touches); each ``pick_*`` function reads the state, chooses values that change
it (a new level, the other power) and returns an ask, or None where the state allows none. Every
phrasing states every gold value literally (``"super cool"`` for ``super_cool``).
"""

from __future__ import annotations

import random

from toolprism.domains._drafting import Ask, ask, flip, other
from toolprism.domains._grammar import slot
from toolprism.domains.kitchen._state import (
    BURNER_LEVELS,
    BURNERS,
    CUP_SIZES,
    DISHWASHER_PROGRAMS,
    DRINKS,
    FRIDGE_MODES,
    KETTLE_TEMPERATURES,
    MICROWAVE_LEVELS,
    MICROWAVE_PRESETS,
    MICROWAVE_SECONDS,
    OVEN_MODES,
    OVEN_PRESETS,
    OVEN_RANGE,
    STRENGTHS,
    TEMPERATURE_RANGE,
    TIMER_CAPACITY,
    TIMER_LABELS,
    KitchenState,
)


def oven_temperatures(mode: str) -> list[int]:
    """Oven temperatures a task may ask for in ``mode`` (°C, steps of 10)."""
    low, high = OVEN_RANGE[mode]
    return list(range(low, high + 1, 10))


# --- power -------------------------------------------------------------------------------------

_POWER_WHY = {
    ("oven", "on"): "I'm about to start cooking",
    ("oven", "off"): "everything is out of it now",
    ("dishwasher", "on"): "it's full of dirty plates",
    ("dishwasher", "off"): "it doesn't need to run today",
    ("kettle", "on"): "I'm dying for a cup of tea",
    ("kettle", "off"): "nobody wants tea after all",
    ("coffee_maker", "on"): "I'll want a coffee soon",
    ("coffee_maker", "off"): "we've had enough caffeine for today",
}


def power(appliance: str, value: str) -> Ask:
    """Switch ``appliance`` on or off."""
    name, v = slot(appliance), slot(value)
    return ask(
        (f"turn {v} the {name}", f"switch the {name} {v}"),
        (
            f"switch the {name} {v}, {_POWER_WHY[appliance, value]}",
            f"get the {name} {v} since {_POWER_WHY[appliance, value]}",
        ),
        (("set_power", {"appliance": appliance, "power": value}),),
        {appliance},
    )


def pick_power(appliance: str):
    """A picker that switches ``appliance`` to the other power state."""

    def pick(rng: random.Random, s: KitchenState) -> Ask:
        return power(appliance, flip(getattr(s, appliance).power))

    pick.__name__ = f"{appliance}_power"
    return pick


# --- oven --------------------------------------------------------------------------------------

_OVEN_MODE_WHY = {
    "bake": "the cake batter is ready to go in",
    "convection": "I have two trays of biscuits that should cook evenly",
    "grill": "the cheese on the gratin needs browning",
    "roast": "the vegetables need roasting",
    "warm": "dinner is done but the guests are late",
    "defrost": "the frozen rolls need thawing first",
}
_DISH = {
    "bake": "a sponge cake",
    "convection": "a batch of croissants",
    "grill": "cheese on toast",
    "roast": "a leg of lamb",
    "warm": "keeping the plates hot",
    "defrost": "thawing the frozen berries",
}


def oven_mode(mode: str) -> Ask:
    """Switch the (on) oven to ``mode``."""
    oven, m = slot("oven"), slot(mode)
    return ask(
        (f"set the {oven} to {m} mode", f"switch the {oven} to {m}"),
        f"put the {oven} on {m}, {_OVEN_MODE_WHY[mode]}",
        (("set_mode", {"appliance": "oven", "mode": mode}),),
        {"oven"},
    )


def oven_temperature(temperature: int, hotter: bool) -> Ask:
    """Set the (on) oven's temperature; ``hotter`` says which way it moves (for the goal)."""
    why = "the recipe wants a hotter oven" if hotter else "the top is browning too fast"
    oven, t = slot("oven"), slot(temperature)
    return ask(
        (f"set the {oven} to {t} degrees", f"change the {oven} temperature to {t} degrees"),
        f"bring the {oven} to {t} degrees, {why}",
        (("set_temperature", {"appliance": "oven", "temperature": temperature}),),
        {"oven"},
    )


def oven_mode_temperature(mode: str, temperature: int) -> Ask:
    """Set the (on) oven's mode, then its temperature."""
    oven, m, t = slot("oven"), slot(mode), slot(temperature)
    return ask(
        (f"set the {oven} to {m} at {t} degrees", f"put the {oven} on {m} mode at {t} degrees"),
        f"get the {oven} ready for {_DISH[mode]}, {m} at {t} degrees",
        (
            ("set_mode", {"appliance": "oven", "mode": mode}),
            ("set_temperature", {"appliance": "oven", "temperature": temperature}),
        ),
        {"oven"},
    )


def preset(name: str, appliance: str) -> Ask:
    """Apply the oven or microwave preset ``name``."""
    text = slot(name)
    return ask(
        (f"apply the {text} preset on the {appliance}", f"use the {appliance}'s {text} preset"),
        f"set the {appliance} up with its {text} preset, it has just the settings I want",
        (("apply_preset", {"preset": name}),),
        {appliance},
    )


def pick_oven_mode(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask switching the oven to another mode; None while the oven is off."""
    return oven_mode(other(rng, OVEN_MODES, s.oven.mode)) if s.oven.power == "on" else None


def pick_oven_temperature(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask moving the oven to another temperature its mode allows; None while the oven is off."""
    if s.oven.power == "off":
        return None
    temperature = other(rng, oven_temperatures(s.oven.mode), s.oven.temperature)
    return oven_temperature(temperature, temperature > s.oven.temperature)


def pick_oven_mode_temperature(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask setting a new oven mode and temperature together; None while the oven is off."""
    if s.oven.power == "off":
        return None
    return choose_oven_mode_temperature(rng, s)


def choose_oven_mode_temperature(rng: random.Random, s: KitchenState) -> Ask:
    """A new mode for the oven and a temperature that differs from the one the mode change leaves."""
    mode = other(rng, OVEN_MODES, s.oven.mode)
    low, high = OVEN_RANGE[mode]
    clamped = min(max(s.oven.temperature, low), high)
    return oven_mode_temperature(mode, other(rng, oven_temperatures(mode), clamped))


def pick_oven_preset(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask applying an oven preset that differs from the current mode and temperature; None while the oven is off."""
    if s.oven.power == "off":
        return None
    current = (s.oven.mode, s.oven.temperature)
    names = [n for n in OVEN_PRESETS if (s.oven_presets[n].mode, s.oven_presets[n].temperature) != current]
    return preset(rng.choice(names), "oven")


# --- fridge, freezer, kettle -------------------------------------------------------------------

_FRIDGE_MODE_WHY = {
    "normal": "we're back home and it's business as usual",
    "eco": "I want to save some energy",
    "vacation": "we're leaving for two weeks",
    "super_cool": "I've just unloaded a huge grocery shop",
}


def fridge_mode(mode: str) -> Ask:
    """Switch the fridge to ``mode``."""
    fridge, m = slot("fridge"), slot(mode)
    return ask(
        (f"switch the {fridge} to {m} mode", f"set the {fridge} to {m}"),
        f"put the {fridge} in {m} mode, {_FRIDGE_MODE_WHY[mode]}",
        (("set_mode", {"appliance": "fridge", "mode": mode}),),
        {"fridge_mode"},
    )


def compartment_temperature(compartment: str, temperature: int, colder: bool) -> Ask:
    """Set the fridge's or the freezer's temperature; ``colder`` says which way it moves."""
    if compartment == "fridge":
        why = (
            "turn the {c} down to {t} degrees, the milk keeps going off"
            if colder
            else ("let the {c} warm up to {t} degrees, the lettuce is freezing at the back")
        )
    else:
        why = (
            "make the {c} colder, {t} degrees, the ice cream is too soft"
            if colder
            else ("raise the {c} to {t} degrees, it's colder than it needs to be")
        )
    c, t = slot(compartment), slot(temperature)
    return ask(
        (f"set the {c} to {t} degrees", f"change the {c} temperature to {t} degrees"),
        why.format(c=c, t=t),
        (("set_temperature", {"appliance": compartment, "temperature": temperature}),),
        {compartment},
    )


def pick_fridge_mode(rng: random.Random, s: KitchenState) -> Ask:
    """An ask switching the fridge to another mode."""
    return fridge_mode(other(rng, FRIDGE_MODES, s.fridge.mode))


def pick_compartment(compartment: str):
    """A picker that moves the fridge's or freezer's temperature to another value in its range."""

    def pick(rng: random.Random, s: KitchenState) -> Ask:
        current = getattr(s.fridge, f"{compartment}_temperature")
        low, high = TEMPERATURE_RANGE[compartment]
        temperature = other(rng, range(low, high + 1), current)
        return compartment_temperature(compartment, temperature, temperature < current)

    pick.__name__ = f"{compartment}_temperature"
    return pick


def kettle_temperature(temperature: int) -> Ask:
    """Set the kettle's target temperature."""
    why = "it's for green tea" if temperature <= 80 else "it's for the pour-over coffee"
    if temperature == 100:
        why = "it's for black tea"
    kettle, t = slot("kettle"), slot(temperature)
    return ask(
        (f"set the {kettle} to {t} degrees", f"change the {kettle} temperature to {t} degrees"),
        f"heat the {kettle} to {t} degrees, {why}",
        (("set_temperature", {"appliance": "kettle", "temperature": temperature}),),
        {"kettle"},
    )


def pick_kettle_temperature(rng: random.Random, s: KitchenState) -> Ask:
    """An ask setting the kettle to another target temperature."""
    return kettle_temperature(other(rng, KETTLE_TEMPERATURES, s.kettle.temperature))


# --- cooktop -----------------------------------------------------------------------------------

_BURNER_WHY = {
    "off": "the soup is done",
    "simmer": "the sauce only needs to simmer",
    "low": "the onions need to soften slowly",
    "medium": "the pancakes are cooking unevenly",
    "high": "the pasta water should come to a boil",
    "boost": "I need to sear the steak fast",
}


def burner(name: str, level: str) -> Ask:
    """Set burner ``name`` to ``level`` (the child lock must be off)."""
    where, v = slot(name), slot(level)
    if level == "off":
        direct = (f"turn {v} the {where} burner", f"switch the {where} burner {v}")
        indirect = f"switch the {where} burner {v}, {_BURNER_WHY[level]}"
    else:
        direct = (f"set the {where} burner to {v}", f"turn the {where} burner to {v}")
        indirect = f"put the {where} burner on {v}, {_BURNER_WHY[level]}"
    return ask(direct, indirect, (("set_burner", {"burner": name, "level": level}),), {name})


def choose_burner(rng: random.Random, s: KitchenState, name: str | None = None) -> Ask:
    """A burner (``name`` or any) set to a level other than its current one, lock or not."""
    name = name or rng.choice(BURNERS)
    return burner(name, other(rng, BURNER_LEVELS, s.cooktop.burners[name]))


def pick_burner(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask setting a burner to another level; None while the cooktop's child lock is on."""
    return choose_burner(rng, s) if s.cooktop.child_lock == "off" else None


def child_lock(value: str) -> Ask:
    """Turn the cooktop's child lock on or off."""
    why = "my nephew is visiting and loves pressing buttons" if value == "on" else "I need to use the cooktop"
    v = slot(value)
    return ask(
        (f"turn {v} the child lock", f"switch the cooktop child lock {v}"),
        f"switch the child lock {v}, {why}",
        (("set_child_lock", {"lock": value}),),
        {"lock", *BURNERS},
    )


def pick_child_lock(rng: random.Random, s: KitchenState) -> Ask:
    """An ask flipping the cooktop's child lock."""
    return child_lock(flip(s.cooktop.child_lock))


# --- timers ------------------------------------------------------------------------------------

TIMER_MINUTES = {
    "pasta": range(8, 15),
    "rice": range(10, 21),
    "eggs": range(3, 11),
    "potatoes": range(15, 31),
    "cake": range(25, 61, 5),
    "tea": range(3, 6),
}
"""Plausible durations (minutes) per timer label."""


def timer(label: str, minutes: int, running: bool) -> Ask:
    """Start the ``label`` timer, or reset it when it is ``running``."""
    gold = (("set_timer", {"label": label, "minutes": minutes}),)
    what, m = slot(label), slot(minutes)
    if running:
        return ask(
            (f"change the {what} timer to {m} minutes", f"reset the {what} timer to {m} minutes"),
            f"give the {what} {m} minutes on its timer instead, I misjudged it",
            gold,
            {f"timer:{label}"},
        )
    return ask(
        (f"set a {what} timer for {m} minutes", f"start a {m} minute timer for the {what}"),
        f"remind me in {m} minutes to check on the {what}",
        gold,
        {f"timer:{label}", "timers"},
    )


def cancel(label: str) -> Ask:
    """Cancel the running ``label`` timer."""
    said = slot(label)
    return ask(
        (f"cancel the {said} timer", f"stop the {said} timer"),
        f"cancel the {said} timer, the {said} came off early",
        (("cancel_timer", {"label": label}),),
        {f"timer:{label}", "timers"},
    )


def pick_timer(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask setting a timer (a new one while there is room, or a running one to other minutes)."""
    labels = [t for t in TIMER_LABELS if t in s.timers or len(s.timers) < TIMER_CAPACITY]
    label = rng.choice(labels)
    minutes = other(rng, TIMER_MINUTES[label], s.timers.get(label))
    return timer(label, minutes, label in s.timers)


def pick_cancel(rng: random.Random, s: KitchenState) -> Ask:
    """An ask cancelling one running timer (the state must have one)."""
    return cancel(rng.choice(sorted(s.timers)))


# --- microwave and dishwasher ------------------------------------------------------------------


def microwave(level: str, seconds: int) -> Ask:
    """Program the microwave (it must not be running)."""
    lv, sec = slot(level), slot(seconds)
    return ask(
        (
            f"set the microwave to {lv} power for {sec} seconds",
            f"program the microwave for {sec} seconds at {lv} power",
        ),
        f"set the microwave up to warm my soup, {lv} power for {sec} seconds",
        (("set_microwave", {"power_level": level, "seconds": seconds}),),
        {"microwave"},
    )


def choose_microwave(rng: random.Random, s: KitchenState) -> Ask:
    """A microwave program other than the current one."""
    current = (s.microwave.power_level, s.microwave.seconds)
    pairs = [(lvl, sec) for lvl in MICROWAVE_LEVELS for sec in MICROWAVE_SECONDS if (lvl, sec) != current]
    return microwave(*rng.choice(pairs))


def choose_microwave_preset(rng: random.Random, s: KitchenState) -> Ask | None:
    """A microwave preset whose program differs from the current one."""
    current = (s.microwave.power_level, s.microwave.seconds)
    names = [n for n in MICROWAVE_PRESETS if tuple(s.microwave_presets[n].model_dump().values()) != current]
    return preset(rng.choice(names), "microwave") if names else None


def pick_microwave(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask choosing another microwave program; None while the microwave runs."""
    return choose_microwave(rng, s) if s.microwave.status != "running" else None


def pick_microwave_preset(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask choosing a microwave preset with another program; None while the microwave runs."""
    return choose_microwave_preset(rng, s) if s.microwave.status != "running" else None


_START_WHY = {"microwave": "the soup is inside", "dishwasher": "it's fully loaded"}
_RESUME_WHY = {"microwave": "I've stirred the soup", "dishwasher": "I've added the last pan"}
_PAUSE_WHY = {"microwave": "I need to stir the food", "dishwasher": "I forgot a pan"}


def start(appliance: str, paused: bool) -> Ask:
    """Start the microwave or dishwasher, or resume it when ``paused``."""
    a = slot(appliance)
    if paused:
        direct = (f"resume the {a}", f"restart the paused {a}")
        indirect = f"start the {a} again, {_RESUME_WHY[appliance]}"
    else:
        direct = (f"start the {a}", f"run the {a}")
        indirect = f"get the {a} going, {_START_WHY[appliance]}"
    return ask(direct, indirect, (("start", {"appliance": appliance}),), {appliance})


def pause(appliance: str) -> Ask:
    """Pause the running microwave or dishwasher."""
    a = slot(appliance)
    return ask(
        (f"pause the {a}", f"put the {a} on pause"),
        f"pause the {a} for a moment, {_PAUSE_WHY[appliance]}",
        (("pause", {"appliance": appliance}),),
        {appliance},
    )


def pick_start(appliance: str):
    """A picker that starts or resumes ``appliance`` when it may be started."""

    def pick(rng: random.Random, s: KitchenState) -> Ask | None:
        device = getattr(s, appliance)
        if device.status == "running" or getattr(device, "power", "on") == "off":
            return None
        return start(appliance, device.status == "paused")

    pick.__name__ = f"{appliance}_start"
    return pick


def pick_pause(appliance: str):
    """A picker that pauses ``appliance`` when it runs."""

    def pick(rng: random.Random, s: KitchenState) -> Ask | None:
        return pause(appliance) if getattr(s, appliance).status == "running" else None

    pick.__name__ = f"{appliance}_pause"
    return pick


_PROGRAM_WHY = {
    "auto": "it can work out how dirty things are",
    "eco": "there's no hurry and I want to save water",
    "intensive": "the roasting tin is caked on",
    "quick": "I need the glasses back within the hour",
    "glass": "it's only wine glasses this time",
}


def dishwasher_program(program: str) -> Ask:
    """Select the dishwasher's program (it must be on and not running)."""
    dw, p = slot("dishwasher"), slot(program)
    return ask(
        (f"set the {dw} to the {p} program", f"switch the {dw} to {p}"),
        f"pick the {p} program on the {dw}, {_PROGRAM_WHY[program]}",
        (("set_mode", {"appliance": "dishwasher", "mode": program}),),
        {"dishwasher"},
    )


def pick_dishwasher_program(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask choosing another dishwasher program; None while the dishwasher is off or running."""
    if s.dishwasher.power == "off" or s.dishwasher.status == "running":
        return None
    return dishwasher_program(other(rng, DISHWASHER_PROGRAMS, s.dishwasher.program))


# --- coffee ------------------------------------------------------------------------------------


def brew(drink: str, size: str, strength: str) -> Ask:
    """Brew one coffee (the coffee maker must be on)."""
    d, z, st = slot(drink), slot(size), slot(strength)
    return ask(
        (f"make a {z} {st} {d}", f"brew a {z} {d} at {st} strength"),
        f"make me a {z} {d}, {st}, I really need waking up",
        (("brew_coffee", {"drink": drink, "size": size, "strength": strength}),),
        {"coffee"},
    )


def choose_brew(rng: random.Random) -> Ask:
    """An ask brewing a random drink, cup size and strength."""
    return brew(rng.choice(DRINKS), rng.choice(CUP_SIZES), rng.choice(STRENGTHS))


def pick_brew(rng: random.Random, s: KitchenState) -> Ask | None:
    """An ask brewing a random drink, cup size and strength; None while the coffee maker is off."""
    return choose_brew(rng) if s.coffee_maker.power == "on" else None


# --- questions ---------------------------------------------------------------------------------

_STATUS_INDIRECT = {
    "oven": "check whether the {} is hot yet",
    "cooktop": "tell me which burners on the {} are still on",
    "microwave": "check whether the {} has finished",
    "fridge": "tell me what temperature the {} is keeping",
    "dishwasher": "find out if the {} is done",
    "kettle": "check if the {} is on",
    "coffee_maker": "check whether the {} is switched on",
}


def question(rng: random.Random, s: KitchenState) -> Ask:
    """A read-only question: an appliance's status, its presets, or the running timers."""
    kind = rng.choice(("status", "status", "status", "presets", "timers"))
    if kind == "status":
        appliance = rng.choice(sorted(_STATUS_INDIRECT))
        name = slot(appliance)
        return ask(
            (f"check the status of the {name}", f"tell me how the {name} is set", f"show me the {name} settings"),
            _STATUS_INDIRECT[appliance].format(name),
            (("get_status", {"appliance": appliance}),),
            set(),
        )
    if kind == "presets":
        appliance = rng.choice(("oven", "microwave"))
        a = slot(appliance)
        return ask(
            (f"list the {a} presets", f"tell me which presets the {a} has"),
            f"show me the {a} presets, I'm looking for ideas",
            (("list_presets", {"appliance": appliance}),),
            set(),
        )
    return ask(
        ("list the running timers", "tell me which kitchen timers are running"),
        "check how long is left on the kitchen timers",
        (("list_timers", {}),),
        set(),
    )
