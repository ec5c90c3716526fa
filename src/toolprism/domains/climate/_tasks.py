"""Task templates of the climate domain.

Every task is built from :class:`~toolprism.domains._phrasing.Request`s phrased from the fresh
world's state, and kept only if its gold replays with no refusal, every gold write changes the
state, and both of its forms are new. Single tasks ask one thing; compound tasks ask two to five
independent things of different zones or whole-home devices; compositional tasks read before they
act ("set the bedroom to the living room's temperature"), branch on the state ("if it is warmer
than 24 degrees, switch to cool") or need a prerequisite (turning a unit on before setting it).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Candidate, Simulator, chain, flip, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Builder, Quota, draft_plan
from toolprism.domains.climate._ops import OPERATIONS
from toolprism.domains.climate._state import (
    DAYS,
    DURATIONS,
    FAN_SPEEDS,
    MODES,
    PRESETS,
    PROGRAMS,
    PURIFIER_LEVELS,
    TEMPERATURE_RANGE,
    ZONES,
    ClimateState,
    Zone,
)

ZoneBuilder = Callable[[random.Random, ClimateState, Zone], Request | None]
HomeBuilder = Callable[[random.Random, ClimateState], Request | None]
"""What a template proposes: its requests (None: not applicable to this world) and kind."""

SIM = Simulator(OPERATIONS)


# --- zone requests: one change each, phrased from the unit's current state ---------------------


POWER = AskKind(
    "set_power",
    ("turn {power} the {zone} unit", "switch the {zone} heat pump {power}"),
    {
        "off": (
            "shut the {zone} unit {power}, nobody is using that room right now",
            "let the {zone} unit go {power} for now",
        ),
        "on": (
            "get the {zone} unit {power}, we will be spending time in there",
            "switch the {zone} unit {power} before we get there",
        ),
    },
    key="power",
)


def _power(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit = state.zones[zone]
    if unit.power == "off" and unit.vent == "closed":
        return None
    return POWER.request(zone=zone, power=flip(unit.power))


MODE = AskKind(
    "set_mode",
    ("set the {zone} unit to {mode} mode", "switch the {zone} to {mode} mode"),
    {
        "heat": "put the {zone} on {mode} mode, it's freezing in there",
        "cool": "run the {zone} in {mode} mode, the room is stuffy",
        "auto": "let the {zone} unit choose heating or cooling by itself in {mode} mode",
        "dry": "put the {zone} unit in {mode} mode, the room feels damp",
        "fan_only": "just move some air around the {zone} in {mode} mode",
    },
    key="mode",
)


def _mode(rng: random.Random, state: ClimateState, zone: Zone, mode: str | None = None) -> Request | None:
    unit = state.zones[zone]
    if unit.power == "off":
        return None
    return MODE.request(zone=zone, mode=mode or other(rng, MODES, unit.mode))


def _temperature_choices(state: ClimateState, zone: Zone) -> list[int]:
    unit = state.zones[zone]
    if unit.power == "off" or unit.mode not in TEMPERATURE_RANGE:
        return []
    low, high = TEMPERATURE_RANGE[unit.mode]
    return [t for t in range(max(low, 17), min(high, 28) + 1) if t != unit.target_temperature]


def _temperature(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    choices = _temperature_choices(state, zone)
    if not choices:
        return None
    degrees = rng.choice(choices)
    z, t = slot(zone), slot(degrees)
    if degrees > state.zones[zone].target_temperature:
        goals = [f"warm the {z} up to {t} degrees, it's a little chilly"]
        goals.append(f"bring the {z} up to {t} degrees")
    else:
        goals = [f"cool the {z} down to {t} degrees, it's too warm in there"]
        goals.append(f"bring the {z} down to {t} degrees")
    return request(
        [f"set the {z} to {t} degrees", f"change the {z} target temperature to {t} degrees"],
        goals,
        ("set_temperature", {"zone": zone, "temperature": degrees}),
    )


FAN = AskKind(
    "set_fan_speed",
    ("set the {zone} fan to {speed}", "change the {zone} fan speed to {speed}"),
    {
        "high": "run the {zone} fan on {speed}, the air in there barely moves",
        "low": "drop the {zone} fan to {speed}, it's too noisy",
        "medium": "put the {zone} fan on {speed}, somewhere in between",
        "auto": "let the {zone} fan choose its own speed on {speed}",
    },
    key="speed",
)


def _fan(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit = state.zones[zone]
    if unit.power == "off" or unit.mode == "dry":
        return None
    return FAN.draw(rng, FAN_SPEEDS, unit.fan_speed, zone=zone)


_VENT_WORDS = {"open": "fully {position}", "half": "{position} open", "closed": "{position}"}
VENT = AskKind(
    "set_vent",
    {p: (f"set the {{zone}} vent to {w}", f"move the {{zone}} vent to {w}") for p, w in _VENT_WORDS.items()},
    {
        "open": "leave the {zone} vent fully {position} so the room gets all the airflow",
        "half": "set the {zone} vent {position} open, it gets a bit too much air",
        "closed": "keep the {zone} vent {position}, no air needs to go in there",
    },
    key="position",
)


def _vent(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit = state.zones[zone]
    positions = [p for p in _VENT_WORDS if p != unit.vent and not (p == "closed" and unit.power == "on")]
    return VENT.request(zone=zone, position=rng.choice(positions))


def _child_lock(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    value = flip(state.zones[zone].child_lock)
    z, v = slot(zone), slot(value)
    goal = (
        f"switch the {z} child lock {v}, the kids keep fiddling with that panel"
        if value == "on"
        else f"switch the {z} child lock {v}, the grown-ups need that panel back"
    )
    return request(
        [f"turn {v} the child lock on the {z} panel", f"set the {z} child lock to {v}"],
        goal,
        ("set_child_lock", {"zone": zone, "lock": value}),
    )


def _timer(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit, z = state.zones[zone], slot(zone)
    action = "turn_off" if unit.power == "on" else "turn_on"
    taken = unit.timer.duration if unit.timer is not None and unit.timer.action == action else None
    duration = other(rng, DURATIONS, taken)
    a, d = slot(action), slot(duration)
    goal = (
        f"make sure the {z} unit will {a} by itself in {d}, I'll be asleep by then"
        if action == "turn_off"
        else f"have the {z} unit {a} in {d} so it's comfortable when we get back"
    )
    return request(
        [f"set a timer to {a} the {z} unit in {d}", f"have the {z} unit {a} after {d}"],
        goal,
        ("set_timer", {"zone": zone, "action": action, "duration": duration}),
    )


def _cancel_timer(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    if state.zones[zone].timer is None:
        return None
    z = slot(zone)
    return request(
        [f"cancel the {z} timer", f"clear the timer on the {z} unit"],
        [
            f"drop the pending timer on the {z} unit, plans have changed",
            f"get rid of the {z} timer, we no longer need it",
        ],
        ("cancel_timer", {"zone": zone}),
    )


SCHEDULE = AskKind(
    "set_schedule",
    ("set the {zone} {days} schedule to {program}", "put the {zone} on the {program} program on {days}"),
    {
        "home": "run the {zone} on the {program} program on {days}, someone is in all day",
        "away": "switch the {zone} to the {program} program on {days}, the room sits empty then",
        "night": "use the {program} program for the {zone} on {days}, it's only used in the evenings",
        "vacation": "put the {zone} on the {program} program on {days} while we're travelling",
    },
    key="program",
)


def _schedule(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    days = rng.choice(DAYS)
    return SCHEDULE.draw(rng, PROGRAMS, state.zones[zone].schedule[days], zone=zone, days=days)


PRESET = AskKind(
    "apply_preset",
    ("apply the {preset} preset to the {zone}", "use the {preset} preset in the {zone}"),
    {
        "comfort": "make the {zone} cosy with the {preset} preset",
        "eco": "save energy in the {zone} with the {preset} preset",
        "sleep": "get the {zone} ready for bedtime with the {preset} preset",
        "boost": "give the {zone} a quick blast with the {preset} preset",
        "quiet": "keep the {zone} hushed with the {preset} preset",
    },
    key="preset",
)


def _preset(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit = state.zones[zone]
    return None if unit.power == "off" else PRESET.draw(rng, PRESETS, unit.preset, zone=zone)


ZONE_STATUS = AskKind(
    "get_status",
    ("tell me what the {zone} unit is set to", "check the status of the {zone} unit"),
    ("find out whether I need a sweater in the {zone} by checking its unit", "look up how warm the {zone} is now"),
)


# --- whole-home requests -----------------------------------------------------------------------


def _humidity(rng: random.Random, state: ClimateState) -> Request | None:
    current = state.humidity
    target = other(rng, range(30, 61, 5), current.current_humidity)
    modes = ["auto", "humidify" if target > current.current_humidity else "dehumidify"]
    mode = rng.choice([m for m in modes if (m, target) != (current.mode, current.target_humidity)])
    m, t = slot(mode), slot(target)
    direct = {
        "humidify": [f"{m} the house up to {t}% humidity"],
        "dehumidify": [f"{m} the house down to {t}% humidity"],
        "auto": [f"keep the humidity at {t}% on {m}"],
    }[mode] + [f"set the humidity control to {m} with a target of {t}%"]
    goal = {
        "humidify": f"{m} the air up to {t}%, it's so dry my skin is cracking",
        "dehumidify": f"{m} down to {t}%, it's muggy in here",
        "auto": f"hold the humidity around {t}% on {m} so it stays pleasant",
    }[mode]
    return request(direct, goal, ("set_humidity", {"mode": mode, "target_percent": target}))


PURIFIER = AskKind(
    "set_purifier",
    {
        "off": ("turn {level} the air purifier", "switch the purifier {level}"),
        None: ("set the air purifier to {level}", "switch the purifier to {level}"),
    },
    {
        "turbo": "run the air purifier on {level}, someone burnt the toast",
        "sleep": "keep the purifier quiet on its {level} level",
        "auto": "let the purifier adjust itself on {level}",
        "off": "switch the purifier {level}, the air is clean enough",
    },
    key="level",
)


def _purifier(rng: random.Random, state: ClimateState) -> Request | None:
    return PURIFIER.draw(rng, PURIFIER_LEVELS, state.purifier)


AIR_STATUS = AskKind(
    "get_air_status",
    ("tell me the current humidity and purifier level", "check the air status"),
    ("find out how humid the house is right now", "look up whether the air purifier is running"),
)
LIST_PRESETS = AskKind(
    "list_presets",
    ("list the climate presets", "show me what each preset does"),
    ("walk me through the presets, I never remember what they do", "remind me which presets there are"),
)


ZONE_WRITES: tuple[ZoneBuilder, ...] = (
    _power,
    _mode,
    _temperature,
    _fan,
    _vent,
    _child_lock,
    _timer,
    _cancel_timer,
    _schedule,
    _preset,
)
HOME_WRITES: dict[str, HomeBuilder] = {"humidity": _humidity, "purifier": _purifier}


def _slot_request(rng: random.Random, state: ClimateState, target: str) -> Request | None:
    """One write request on a target (a zone, or a whole-home device), trying builders in random order."""
    if target in HOME_WRITES:
        return HOME_WRITES[target](rng, state)
    for builder in rng.sample(ZONE_WRITES, len(ZONE_WRITES)):
        made = builder(rng, state, target)  # type: ignore[arg-type]
        if made is not None:
            return made
    return None


# --- templates ---------------------------------------------------------------------------------


def _single(rng: random.Random, state: ClimateState) -> Candidate:
    return [_slot_request(rng, state, rng.choice([*ZONES, *HOME_WRITES]))]


def _question(rng: random.Random, state: ClimateState) -> Candidate:
    if rng.random() < 0.6:
        return [ZONE_STATUS.request(zone=rng.choice(ZONES))]
    return [rng.choice((AIR_STATUS, LIST_PRESETS)).request()]


def _compound(count: int) -> Builder:
    def template(rng: random.Random, state: ClimateState) -> Candidate:
        targets = rng.sample([*ZONES, *HOME_WRITES], count)
        return [_slot_request(rng, state, target) for target in targets]

    return template


def _power_then_settings(rng: random.Random, state: ClimateState) -> Candidate:
    """An off unit: (open its vent,) turn it on, then set one to three of mode, temperature, fan."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "off"] or [None])
    if zone is None:
        return None
    steps: list[Callable[[ClimateState], Request | None]] = []
    if state.zones[zone].vent == "closed":
        steps.append(lambda s: _vent(rng, s, zone))
    steps.append(lambda s: _power(rng, s, zone))
    settings = [_mode, _temperature, _fan]
    chosen = sorted(rng.sample(range(3), rng.randint(1, 3)))
    steps.extend(lambda s, b=settings[i]: b(rng, s, zone) for i in chosen)
    return chain(SIM, state, steps)


def _full_setup(rng: random.Random, state: ClimateState) -> Candidate:
    """An off unit set up end to end in six calls: power, mode, target, fan, timer, plus vent or lock."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "off"] or [None])
    if zone is None:
        return None
    unit = state.zones[zone]
    mode = other(rng, TEMPERATURE_RANGE, unit.mode)
    steps: list[Callable[[ClimateState], Request | None]] = [
        lambda s: _power(rng, s, zone),
        lambda s: _mode(rng, s, zone, mode),
        lambda s: _temperature(rng, s, zone),
        lambda s: _fan(rng, s, zone),
        lambda s: _timer(rng, s, zone),
    ]
    if unit.vent == "closed":
        steps.insert(0, lambda s: _vent(rng, s, zone))
    else:
        steps.append(lambda s: _child_lock(rng, s, zone))
    return chain(SIM, state, steps)


def _off_then_close_vent(rng: random.Random, state: ClimateState) -> Candidate:
    """A running unit: turn it off, close its vent (which needs it off), maybe a turn-on timer."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "on"] or [None])
    if zone is None:
        return None
    z, closed = slot(zone), slot("closed")
    close = request(
        [f"close the {z} vent so it's {closed}", f"set the {z} vent to {closed}"],
        f"keep the {z} vent {closed} afterwards",
        ("set_vent", {"zone": zone, "position": "closed"}),
    )
    steps = [lambda s: _power(rng, s, zone), lambda s: close]
    if rng.random() < 0.5:
        steps.append(lambda s: _timer(rng, s, zone))
    return chain(SIM, state, steps)


_COPY = {
    "temperature": (
        "target_temperature",
        "set_temperature",
        "temperature",
        ["set the {b} to the same target temperature as the {a}", "match the {b} target temperature to the {a}'s"],
        "make the {b} as warm as the {a} is set to",
    ),
    "mode": (
        "mode",
        "set_mode",
        "mode",
        ["put the {b} in the same mode as the {a}", "switch the {b} to whatever mode the {a} uses"],
        "have the {b} run the way the {a} does, in the same mode",
    ),
    "fan": (
        "fan_speed",
        "set_fan_speed",
        "speed",
        ["run the {b} fan at the same speed as the {a}'s", "match the {b} fan speed to the {a}'s"],
        "give the {b} the same airflow as the {a}, with the same fan speed",
    ),
}


def _copy_setting(rng: random.Random, state: ClimateState) -> Candidate:
    """Read zone A, then give one or two other zones A's temperature, mode or fan speed."""
    what = rng.choice(list(_COPY))
    field, op, arg, direct, indirect = _COPY[what]
    source, *targets = rng.sample(ZONES, rng.choice((2, 3, 4)))
    a = slot(source)
    value = getattr(state.zones[source], field)
    steps: list[Callable[[ClimateState], Request | None]] = [
        lambda s: request(
            [f"check what the {a} unit is set to", f"look up the {a} settings"],
            f"find out how the {a} unit is set",
            ("get_status", {"zone": source}),
        )
    ]
    for target in targets:
        if state.zones[target].power == "off" and rng.random() < 0.5:
            steps.append(lambda s, t=target: _power(rng, s, t))
        b = slot(target)
        steps.append(
            lambda s, b=b, t=target: request(
                [d.format(a=a, b=b) for d in direct], indirect.format(a=a, b=b), (op, {"zone": t, arg: replied(value)})
            )
        )
    return chain(SIM, state, steps)


def _read_zone(zone: Zone) -> Request:
    z = slot(zone)
    return request(
        [f"check the {z} unit", f"look at the {z} status"],
        f"have a look at how the {z} unit is doing",
        ("get_status", {"zone": zone}),
    )


def _check_power(rng: random.Random, state: ClimateState) -> Candidate:
    """Read a zone, switch its unit on if it is off, then set its fan."""
    zone = rng.choice(ZONES)
    turn_on = () if state.zones[zone].power == "on" else (("set_power", {"zone": zone, "power": "on"}),)
    z, on = slot(zone), slot("on") if turn_on else "on"
    conditional = request(
        [f"turn the {z} unit {on} if it is off", f"if the {z} unit is off, turn it {on}"],
        f"make sure the {z} unit is running, turning it {on} if it is off",
        *turn_on,
    )
    steps = [lambda s: _read_zone(zone), lambda s: conditional, lambda s: _fan(rng, s, zone)]
    return chain(SIM, state, steps)


def _heat_or_cool(rng: random.Random, state: ClimateState) -> Candidate:
    """Read a running zone and pick cool or heat mode from its measured temperature, maybe a target."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "on"] or [None])
    if zone is None:
        return None
    unit, z = state.zones[zone], slot(zone)
    threshold = rng.randint(unit.current_temperature - 3, unit.current_temperature + 2)
    mode = "cool" if unit.current_temperature > threshold else "heat"
    cool, heat = (slot(m) if m == mode else m for m in ("cool", "heat"))
    conditional = request(
        [
            f"if it is warmer than {threshold} degrees in the {z}, switch it to {cool} mode, otherwise to {heat} mode",
            f"put the {z} in {cool} mode if it is above {threshold} degrees there, or in {heat} mode if not",
        ],
        f"have the {z} cool in {cool} mode if it is over {threshold} degrees, and heat in {heat} mode if not",
        ("set_mode", {"zone": zone, "mode": mode}),
    )
    steps = [lambda s: _read_zone(zone), lambda s: conditional]
    if rng.random() < 0.5:
        steps.append(lambda s: _temperature(rng, s, zone))
    return chain(SIM, state, steps)


def _check_timer(rng: random.Random, state: ClimateState) -> Candidate:
    """Read a zone and set a timer that switches its unit the other way."""
    zone = rng.choice(ZONES)
    duration = rng.choice(DURATIONS)
    action = "turn_off" if state.zones[zone].power == "on" else "turn_on"
    z, d = slot(zone), slot(duration)
    off, on = (slot(a) if a == action else a.replace("_", " ") for a in ("turn_off", "turn_on"))
    conditional = request(
        [
            f"if the {z} unit is on, set it to {off} in {d}, otherwise set it to {on} in {d}",
            f"set a timer so the {z} unit will {off} in {d} if it is on, or {on} in {d} if it is off",
        ],
        f"have the {z} unit switch the other way in {d}: {off} if it is on now, {on} if it is off",
        ("set_timer", {"zone": zone, "action": action, "duration": duration}),
    )
    return chain(SIM, state, [lambda s: _read_zone(zone), lambda s: conditional])


def _humidity_check(rng: random.Random, state: ClimateState) -> Candidate:
    """Read the air status, then humidify or dehumidify towards a target, maybe start the purifier."""
    current = state.humidity.current_humidity
    target = other(rng, range(35, 56, 5), current)
    mode = "dehumidify" if current > target else "humidify"
    read = request(["check the humidity", "look up the air status"], "find out how humid it is", ("get_air_status", {}))
    t = slot(target)
    dry, wet = (slot(m) if m == mode else m for m in ("dehumidify", "humidify"))
    conditional = request(
        [
            f"if the humidity is above {t}%, {dry} to {t}%, otherwise {wet} to {t}%",
            f"{wet} to {t}% if the air is drier than that, or {dry} to {t}% if it is more humid",
        ],
        f"bring the humidity to {t}%, to {dry} if it is higher and to {wet} if it is lower",
        ("set_humidity", {"mode": mode, "target_percent": target}),
    )
    steps = [lambda s: read, lambda s: conditional]
    if rng.random() < 0.5:
        start = () if state.purifier != "off" else (("set_purifier", {"level": "auto"}),)
        auto = slot("auto") if start else "auto"
        steps.append(
            lambda s: request(
                [f"if the purifier is off, set it to {auto}", f"set the purifier to {auto} if it is off"],
                f"make sure the purifier runs, on {auto} if it is off",
                *start,
            )
        )
    return chain(SIM, state, steps)


def _sweep(rng: random.Random, state: ClimateState) -> Candidate:
    """Check two or three zones and switch on (or off) each one that is not."""
    power = rng.choice(("on", "off"))
    opposite = flip(power)
    steps = []
    zones = rng.sample(ZONES, rng.choice((2, 3, 3, 3)))
    if all(state.zones[zone].power == power for zone in zones):
        return None
    for zone in zones:
        z = slot(zone)
        switch = () if state.zones[zone].power == power else (("set_power", {"zone": zone, "power": power}),)
        p = slot(power) if switch else power
        steps.append(
            lambda s, z=z, p=p, zone=zone, switch=switch: request(
                [
                    f"check the {z} unit and turn it {p} if it is {opposite}",
                    f"turn the {z} unit {p} if it's {opposite}",
                ],
                f"make sure the {z} unit is {p}, switching it {p} if it is {opposite}",
                ("get_status", {"zone": zone}),
                *switch,
            )
        )
    return chain(SIM, state, steps)


def _preset_then_adjust(rng: random.Random, state: ClimateState) -> Candidate:
    """Apply a preset (found by its target temperature, or named), then adjust the result."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "on" or state.zones[z].vent != "closed"])
    z = slot(zone)
    steps: list[Callable[[ClimateState], Request | None]] = []
    if state.zones[zone].power == "off":
        steps.append(lambda s: _power(rng, s, zone))
    targets = [p.target_temperature for p in state.presets.values()]
    unique = [n for n, p in state.presets.items() if targets.count(p.target_temperature) == 1]
    if unique and rng.random() < 0.5:
        name = rng.choice(unique)
        degrees = state.presets[name].target_temperature
        steps.insert(
            0,
            lambda s: request(
                ["list the presets", "look up the presets"], "find out what the presets do", ("list_presets", {})
            ),
        )
        steps.append(
            lambda s: request(
                [
                    f"apply the preset that targets {degrees} degrees to the {z}",
                    f"use the preset with a {degrees} degree target in the {z}",
                ],
                f"use whichever preset aims for {degrees} degrees in the {z}",
                ("apply_preset", {"zone": zone, "preset": replied(name)}),
            )
        )
    else:
        steps.append(lambda s: _preset(rng, s, zone))
    steps.append(lambda s: rng.choice((_temperature, _fan))(rng, s, zone))
    return chain(SIM, state, steps)


PLAN = (
    Quota("single", _single, 20),
    Quota("question", _question, 8),
    Quota("compound_2", _compound(2), 20, "compound"),
    Quota("compound_3", _compound(3), 25, "compound"),
    Quota("compound_4", _compound(4), 20, "compound"),
    Quota("compound_5", _compound(5), 11, "compound"),
    Quota("power_then_settings", _power_then_settings, 3, "compositional"),
    Quota("off_then_close_vent", _off_then_close_vent, 2, "compositional"),
    Quota("full_setup", _full_setup, 2, "compositional"),
    Quota("copy_setting", _copy_setting, 4, "compositional"),
    Quota("check_power", _check_power, 2, "compositional"),
    Quota("heat_or_cool", _heat_or_cool, 2, "compositional"),
    Quota("check_timer", _check_timer, 2, "compositional"),
    Quota("humidity_check", _humidity_check, 2, "compositional"),
    Quota("sweep", _sweep, 3, "compositional"),
    Quota("preset_then_adjust", _preset_then_adjust, 3, "compositional"),
)
"""Template, drafts wanted per seed, builder of one candidate, kind."""


def drafts(state: ClimateState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``, in template order (deterministic).

    A template proposes candidates until it has its count (or a bounded number of tries); a
    candidate is kept if it is applicable, replays without refusal, changes the state with every
    write, and has two queries not seen before.
    """
    rng = random.Random(f"climate/tasks/{world_seed}")
    return draft_plan(rng, state, PLAN, accept=lambda d: SIM.replays(state, d.gold))
