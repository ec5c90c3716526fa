"""The laundry room's requests: every thing a user may ask, phrased directly and indirectly.

Each function here turns explicit values into an :class:`Ask` (a :class:`Request` plus the parts
of the machines it touches); each ``pick_*`` function reads the state, chooses values that change
it and returns an ask, or None where the state allows none. Every phrasing states every gold value
literally (``"quick wash"`` for ``quick_wash``).
"""

from __future__ import annotations

import random

from toolprism.domains._drafting import Ask, ask, flip, other
from toolprism.domains._grammar import slot
from toolprism.domains.laundry._state import (
    CYCLE_LIMITS,
    DETERGENTS,
    DOSES,
    DRY_PROGRAMS,
    DRYNESS,
    MAX_HEAT,
    OPTIONS,
    WASH_CYCLES,
    LaundryState,
    cooler,
    heats,
    spin_speeds,
    wash_temperatures,
)

PARTS = {
    "washer": ("cycle", "temperature", "spin", "prewash", "extra_rinse", "steam", "detergent", "schedule", "run"),
    "dryer": ("program", "heat", "steam", "anti_crease", "schedule", "run"),
}
"""The parts of each machine a request may touch; power, start and pause touch them all."""


def parts(machine: str, *names: str) -> set[str]:
    """Touch tags of ``machine``'s ``names`` (all of its parts when none are given)."""
    return {f"{machine}.{name}" for name in names or PARTS[machine]}


def settable(s: LaundryState, machine: str) -> bool:
    """Whether ``machine`` takes settings now (on and not running)."""
    device = getattr(s, machine)
    return device.power == "on" and device.status != "running"


# --- power, start, pause, lock -----------------------------------------------------------------

_POWER_WHY = {
    ("washer", "on"): "there's a full basket waiting",
    ("washer", "off"): "it won't be needed again today",
    ("dryer", "on"): "the washing will need drying soon",
    ("dryer", "off"): "everything is hanging on the line instead",
}


def power(machine: str, value: str) -> Ask:
    """Switch ``machine`` on or off."""
    m, v = slot(machine), slot(value)
    return ask(
        (f"turn {v} the {m}", f"switch the {m} {v}"),
        f"switch the {m} {v}, {_POWER_WHY[machine, value]}",
        (("set_power", {"machine": machine, "power": value}),),
        parts(machine),
    )


def start(machine: str, paused: bool) -> Ask:
    """Start ``machine``, or resume it when ``paused`` (the child lock must be off)."""
    m = slot(machine)
    if paused:
        direct = (f"resume the {m}", f"restart the paused {m}")
        indirect = f"get the {m} going again, I've added the sock I forgot"
    else:
        direct = (f"start the {m}", f"run the {m}")
        indirect = f"get the {m} going, it's all loaded up"
    return ask(direct, indirect, (("start", {"machine": machine}),), parts(machine) | {"lock"})


def pause(machine: str) -> Ask:
    """Pause the running ``machine``."""
    m = slot(machine)
    return ask(
        (f"pause the {m}", f"put the {m} on pause"),
        f"pause the {m} for a moment, I want to add something",
        (("pause", {"machine": machine}),),
        parts(machine),
    )


def child_lock(value: str) -> Ask:
    """Turn the child lock on or off."""
    why = "the grandchildren are coming round" if value == "on" else "I need to start a load"
    v = slot(value)
    return ask(
        (f"turn {v} the child lock", f"switch the laundry child lock {v}"),
        f"switch the child lock {v}, {why}",
        (("set_child_lock", {"lock": value}),),
        {"lock"},
    )


def pick_power(machine: str):
    """A picker that switches ``machine`` to the other power state."""

    def pick(rng: random.Random, s: LaundryState) -> Ask:
        return power(machine, flip(getattr(s, machine).power))

    pick.__name__ = f"{machine}_power"
    return pick


def pick_start(machine: str):
    """A picker that starts or resumes ``machine`` when nothing stands in the way."""

    def pick(rng: random.Random, s: LaundryState) -> Ask | None:
        device = getattr(s, machine)
        if device.power == "off" or s.child_lock == "on" or device.status not in ("idle", "paused"):
            return None
        return start(machine, device.status == "paused")

    pick.__name__ = f"{machine}_start"
    return pick


def pick_pause(machine: str):
    """A picker that pauses ``machine`` when it runs."""

    def pick(rng: random.Random, s: LaundryState) -> Ask | None:
        return pause(machine) if getattr(s, machine).status == "running" else None

    pick.__name__ = f"{machine}_pause"
    return pick


def pick_child_lock(rng: random.Random, s: LaundryState) -> Ask:
    """An ask flipping the laundry room's child lock."""
    return child_lock(flip(s.child_lock))


# --- washer ------------------------------------------------------------------------------------

_CYCLE_WHY = {
    "cotton": "it's a load of everyday cotton",
    "synthetics": "it's mostly polyester shirts",
    "delicates": "there's silk in this load",
    "wool": "it's my good jumpers",
    "quick_wash": "I need these clothes in half an hour",
    "bedding": "it's the sheets and pillowcases",
    "sportswear": "it's all running gear",
    "eco": "there's no rush and I'd like to save energy",
}


def cycle(name: str) -> Ask:
    """Set the washer's cycle."""
    washer, c = slot("washer"), slot(name)
    return ask(
        (f"set the {washer} to the {c} cycle", f"switch the {washer} to {c}"),
        f"choose the {c} cycle on the {washer}, {_CYCLE_WHY[name]}",
        (("set_mode", {"machine": "washer", "mode": name}),),
        parts("washer", "cycle", "temperature", "spin", "prewash"),
    )


def cycle_temperature(name: str, temperature: int) -> Ask:
    """Set the washer's cycle, then its temperature."""
    washer, c, t = slot("washer"), slot(name), slot(temperature)
    return ask(
        (f"set the {washer} to {c} at {t} degrees", f"put the {washer} on the {c} cycle at {t} degrees"),
        f"put this load through the {washer} on {c} at {t} degrees, {_CYCLE_WHY[name]}",
        (
            ("set_mode", {"machine": "washer", "mode": name}),
            ("set_temperature", {"temperature": temperature}),
        ),
        parts("washer", "cycle", "temperature", "spin", "prewash"),
    )


def temperature(value: int, hotter: bool) -> Ask:
    """Set the washer's temperature; ``hotter`` says which way it moves (for the goal)."""
    why = "this load is dirtier than I thought" if hotter else "I don't want the colours to run"
    t = slot(value)
    return ask(
        (f"set the washer to {t} degrees", f"change the wash temperature to {t} degrees"),
        f"wash at {t} degrees instead, {why}",
        (("set_temperature", {"temperature": value}),),
        parts("washer", "temperature"),
    )


_SPIN_WHY = {
    "no_spin": "these shirts crease terribly",
    "low": "this load is delicate",
    "medium": "I'd like it a bit drier than usual",
    "high": "I want the clothes to come out nearly dry",
    "maximum": "the heavy towels hold a lot of water",
}


def spin(speed: str) -> Ask:
    """Set the washer's spin speed."""
    said = slot(speed)
    text = said if speed == "no_spin" else f"{said} spin"
    return ask(
        (f"set the washer to {text}", f"change the spin speed to {said}"),
        f"use {text} on the washer, {_SPIN_WHY[speed]}",
        (("set_spin", {"speed": speed}),),
        parts("washer", "spin"),
    )


def detergent(name: str, dose: str) -> Ask:
    """Choose the washer's detergent and dose."""
    d, z = slot(name), slot(dose)
    return ask(
        (f"set the detergent to {d} with a {z} dose", f"use {d} detergent at a {z} dose"),
        f"switch the washer's dispenser to {d} detergent, {z} dose, it suits this load",
        (("set_detergent", {"detergent": name, "dose": dose}),),
        parts("washer", "detergent"),
    )


def pick_cycle(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask choosing another wash cycle; None while the washer is off or running."""
    return cycle(other(rng, WASH_CYCLES, s.washer.cycle)) if settable(s, "washer") else None


def choose_cycle_temperature(rng: random.Random, s: LaundryState) -> Ask:
    """A new cycle and a temperature that differs from the one the cycle change leaves."""
    name = other(rng, WASH_CYCLES, s.washer.cycle)
    left = min(s.washer.temperature, CYCLE_LIMITS[name].max_temperature)
    return cycle_temperature(name, other(rng, wash_temperatures(name), left))


def pick_cycle_temperature(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask setting a new wash cycle and temperature together; None while the washer is off or running."""
    return choose_cycle_temperature(rng, s) if settable(s, "washer") else None


def choose_temperature(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask setting another wash temperature the cycle allows; None if it allows no other."""
    values = [t for t in wash_temperatures(s.washer.cycle) if t != s.washer.temperature]
    if not values:
        return None
    value = rng.choice(values)
    return temperature(value, value > s.washer.temperature)


def pick_temperature(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask setting another wash temperature; None while the washer is off or running or the cycle allows no other."""
    return choose_temperature(rng, s) if settable(s, "washer") else None


def pick_spin(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask setting another spin speed the cycle allows; None while the washer is off or running."""
    return spin(other(rng, spin_speeds(s.washer.cycle), s.washer.spin)) if settable(s, "washer") else None


def pick_detergent(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask choosing another detergent and dose pair; None while the washer is off or running."""
    if not settable(s, "washer"):
        return None
    pairs = [(d, z) for d in DETERGENTS for z in DOSES if (d, z) != (s.washer.detergent, s.washer.dose)]
    return detergent(*rng.choice(pairs))


# --- dryer -------------------------------------------------------------------------------------

_PROGRAM_WHY = {
    "cotton": "it's jeans and t-shirts",
    "synthetics": "it's the sports tops",
    "delicates": "there's lingerie in there",
    "wool": "it's the woolly hats",
    "mixed": "it's a mixed load",
    "towels": "it's all bath towels",
    "refresh": "the coats just need freshening up",
}
_DRYNESS_WHY = {"iron_dry": "I'll iron them after", "cupboard_dry": "they go straight in the cupboard",
                "extra_dry": "the thick hoodies never dry properly"}  # fmt: skip


def program(name: str) -> Ask:
    """Set the dryer's program."""
    dryer, p = slot("dryer"), slot(name)
    return ask(
        (f"set the {dryer} to the {p} program", f"switch the {dryer} to {p}"),
        f"choose the {p} program on the {dryer}, {_PROGRAM_WHY[name]}",
        (("set_mode", {"machine": "dryer", "mode": name}),),
        parts("dryer", "program", "heat"),
    )


def dryer_levels(dryness: str, heat: str) -> Ask:
    """Set the dryer's dryness target and heat."""
    d, h = slot(dryness), slot(heat)
    return ask(
        (f"set the dryer to {d} at {h} heat", f"dry to {d} on {h} heat"),
        f"make the dryer go for {d} on {h} heat, {_DRYNESS_WHY[dryness]}",
        (("set_dryer", {"dryness": dryness, "heat": heat}),),
        parts("dryer", "heat"),
    )


def pick_program(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask choosing another dryer program; None while the dryer is off or running."""
    return program(other(rng, DRY_PROGRAMS, s.dryer.program)) if settable(s, "dryer") else None


def choose_dryer_levels(rng: random.Random, s: LaundryState, name: str | None = None) -> Ask:
    """Dryness and heat for program ``name`` (default: the current one) other than the current pair."""
    name = name or s.dryer.program
    current = (s.dryer.dryness, cooler(s.dryer.heat, MAX_HEAT[name]))
    pairs = [(d, h) for d in DRYNESS for h in heats(name) if (d, h) != current]
    return dryer_levels(*rng.choice(pairs))


def pick_dryer_levels(rng: random.Random, s: LaundryState) -> Ask | None:
    """An ask setting new dryer levels; None while the dryer is off or running."""
    return choose_dryer_levels(rng, s) if settable(s, "dryer") else None


# --- options, schedules, presets ---------------------------------------------------------------

_OPTION_WHY = {
    ("prewash", "on"): "the football kit is caked in mud",
    ("prewash", "off"): "this load is barely dirty",
    ("extra_rinse", "on"): "my son's skin reacts to detergent",
    ("extra_rinse", "off"): "we're trying to save water",
    ("steam", "on"): "I'd like fewer wrinkles",
    ("steam", "off"): "these fabrics don't like steam",
    ("anti_crease", "on"): "I won't be home to empty it straight away",
    ("anti_crease", "off"): "I'll be here to unload it as soon as it's done",
}


def option(machine: str, name: str, setting: str) -> Ask:
    """Turn ``machine``'s option ``name`` on or off."""
    text, v, m = slot(name), slot(setting), slot(machine)
    return ask(
        (f"turn {v} {text} on the {m}", f"switch the {m}'s {text} option {v}"),
        f"switch {text} {v} on the {m}, {_OPTION_WHY[name, setting]}",
        (("set_option", {"machine": machine, "option": name, "setting": setting}),),
        parts(machine, name),
    )


def choose_option(rng: random.Random, s: LaundryState, machine: str) -> Ask | None:
    """An option of ``machine`` switched to its other setting (prewash only where the cycle has it)."""
    device = getattr(s, machine)
    names = [o for o in OPTIONS[machine] if o != "prewash" or CYCLE_LIMITS[device.cycle].prewash == "allowed"]
    name = rng.choice(names)
    return option(machine, name, flip(device.options[name]))


def pick_option(machine: str):
    """A picker that switches one of ``machine``'s options."""

    def pick(rng: random.Random, s: LaundryState) -> Ask | None:
        return choose_option(rng, s, machine) if settable(s, machine) else None

    pick.__name__ = f"{machine}_option"
    return pick


def schedule(machine: str, hours: int) -> Ask:
    """Set ``machine``'s start delay."""
    unit, m, h = "hour" if hours == 1 else "hours", slot(machine), slot(hours)
    return ask(
        (f"delay the {m} by {h} {unit}", f"set the {m}'s start delay to {h} {unit}"),
        f"hold the {m} back {h} {unit} after I press start, electricity is cheaper later",
        (("set_schedule", {"machine": machine, "hours": hours}),),
        parts(machine, "schedule"),
    )


def pick_schedule(machine: str):
    """A picker that changes ``machine``'s delay (before it starts)."""

    def pick(rng: random.Random, s: LaundryState) -> Ask | None:
        device = getattr(s, machine)
        if device.power == "off" or device.status not in ("idle", "scheduled"):
            return None
        return schedule(machine, other(rng, range(1, 13), device.delay_hours))

    pick.__name__ = f"{machine}_schedule"
    return pick


def preset(name: str, machine: str) -> Ask:
    """Apply ``machine``'s preset ``name``."""
    touched = ("cycle", "temperature", "spin", "prewash") if machine == "washer" else ("program", "heat")
    p = slot(name)
    return ask(
        (f"apply the {p} preset on the {machine}", f"use the {machine}'s {p} preset"),
        f"set the {machine} up with its {p} preset, that's what's going in",
        (("apply_preset", {"preset": name}),),
        parts(machine, *touched),
    )


def choose_preset(rng: random.Random, s: LaundryState, machine: str) -> Ask | None:
    """A preset of ``machine`` that would change its settings."""
    device = getattr(s, machine)
    presets = s.washer_presets if machine == "washer" else s.dryer_presets
    names = [n for n, p in presets.items() if any(getattr(device, k) != v for k, v in p.model_dump().items())]
    return preset(rng.choice(names), machine) if names else None


def pick_preset(machine: str):
    """A picker that applies one of ``machine``'s presets."""

    def pick(rng: random.Random, s: LaundryState) -> Ask | None:
        return choose_preset(rng, s, machine) if settable(s, machine) else None

    pick.__name__ = f"{machine}_preset"
    return pick


# --- questions ---------------------------------------------------------------------------------

_STATUS_INDIRECT = {"washer": "check whether the {} has finished", "dryer": "find out if the {} is done yet"}


def question(rng: random.Random, s: LaundryState) -> Ask:
    """A read-only question: a machine's status, its presets, or a washer cycle's limits."""
    kind = rng.choice(("status", "presets", "limits", "limits"))
    machine = rng.choice(("washer", "dryer"))
    m = slot(machine)
    if kind == "status":
        return ask(
            (f"check the status of the {m}", f"tell me how the {m} is set"),
            _STATUS_INDIRECT[machine].format(m),
            (("get_status", {"machine": machine}),),
            set(),
        )
    if kind == "presets":
        return ask(
            (f"list the {m} presets", f"tell me which presets the {m} has"),
            f"show me the {m} presets, I'm not sure which one suits this load",
            (("list_presets", {"machine": machine}),),
            set(),
        )
    name = rng.choice(WASH_CYCLES)
    c = slot(name)
    return ask(
        (f"tell me the limits of the {c} cycle", f"look up how hot and fast the {c} cycle can go"),
        f"find out how hot I can wash on the {c} cycle",
        (("get_cycle_limits", {"cycle": name}),),
        set(),
    )
