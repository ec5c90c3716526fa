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

from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Builder, Candidate, Quota, Simulator, chain, draft_plan
from toolprism.domains._phrasing import Request, request
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
from toolprism.schema import JSON

Gold = tuple[tuple[str, dict[str, JSON]], ...]
ZoneBuilder = Callable[[random.Random, ClimateState, Zone], Request | None]
HomeBuilder = Callable[[random.Random, ClimateState], Request | None]
"""What a template proposes: its requests (None: not applicable to this world) and kind."""

SIM = Simulator(OPERATIONS)


def _w(value: str) -> str:
    return value.replace("_", " ")


# --- zone requests: one change each, phrased from the unit's current state ---------------------


def _power(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit, z = state.zones[zone], _w(zone)
    gold = ("set_power", {"zone": zone, "power": "off" if unit.power == "on" else "on"})
    if unit.power == "on":
        return request(
            [f"turn off the {z} unit", f"switch the {z} heat pump off"],
            [f"shut the {z} unit off, nobody is using that room right now", f"let the {z} unit go off for now"],
            gold,
        )
    if unit.vent == "closed":
        return None
    return request(
        [f"turn on the {z} unit", f"switch the {z} heat pump on"],
        [f"get the {z} unit on, we will be spending time in there", f"switch the {z} unit on before we get there"],
        gold,
    )


_MODE_GOALS = {
    "heat": "put the {} on heat mode, it's freezing in there",
    "cool": "run the {} in cool mode, the room is stuffy",
    "auto": "let the {} unit choose heating or cooling by itself in auto mode",
    "dry": "put the {} unit in dry mode, the room feels damp",
    "fan_only": "just move some air around the {} in fan only mode",
}


def _mode(rng: random.Random, state: ClimateState, zone: Zone, mode: str | None = None) -> Request | None:
    unit, z = state.zones[zone], _w(zone)
    if unit.power == "off":
        return None
    mode = mode or rng.choice([m for m in MODES if m != unit.mode])
    return request(
        [f"set the {z} unit to {_w(mode)} mode", f"switch the {z} to {_w(mode)} mode"],
        _MODE_GOALS[mode].format(z),
        ("set_mode", {"zone": zone, "mode": mode}),
    )


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
    degrees, z = rng.choice(choices), _w(zone)
    if degrees > state.zones[zone].target_temperature:
        goals = [f"warm the {z} up to {degrees} degrees, it's a little chilly"]
        goals.append(f"bring the {z} up to {degrees} degrees")
    else:
        goals = [f"cool the {z} down to {degrees} degrees, it's too warm in there"]
        goals.append(f"bring the {z} down to {degrees} degrees")
    return request(
        [f"set the {z} to {degrees} degrees", f"change the {z} target temperature to {degrees} degrees"],
        goals,
        ("set_temperature", {"zone": zone, "temperature": degrees}),
    )


_FAN_GOALS = {
    "high": "run the {} fan on high, the air in there barely moves",
    "low": "drop the {} fan to low, it's too noisy",
    "medium": "put the {} fan on medium, somewhere in between",
    "auto": "let the {} fan choose its own speed on auto",
}


def _fan(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit, z = state.zones[zone], _w(zone)
    if unit.power == "off" or unit.mode == "dry":
        return None
    speed = rng.choice([s for s in FAN_SPEEDS if s != unit.fan_speed])
    return request(
        [f"set the {z} fan to {speed}", f"change the {z} fan speed to {speed}"],
        _FAN_GOALS[speed].format(z),
        ("set_fan_speed", {"zone": zone, "speed": speed}),
    )


_VENT_WORDS = {"open": "fully open", "half": "half open", "closed": "closed"}
_VENT_GOALS = {
    "open": "leave the {} vent fully open so the room gets all the airflow",
    "half": "set the {} vent half open, it gets a bit too much air",
    "closed": "keep the {} vent closed, no air needs to go in there",
}


def _vent(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit, z = state.zones[zone], _w(zone)
    positions = [p for p in _VENT_WORDS if p != unit.vent and not (p == "closed" and unit.power == "on")]
    position = rng.choice(positions)
    word = _VENT_WORDS[position]
    return request(
        [f"set the {z} vent to {word}", f"move the {z} vent to {word}"],
        _VENT_GOALS[position].format(z),
        ("set_vent", {"zone": zone, "position": position}),
    )


def _child_lock(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    z = _w(zone)
    value = "off" if state.zones[zone].child_lock == "on" else "on"
    goal = (
        f"switch the {z} child lock on, the kids keep fiddling with that panel"
        if value == "on"
        else f"switch the {z} child lock off, the grown-ups need that panel back"
    )
    return request(
        [f"turn {value} the child lock on the {z} panel", f"set the {z} child lock to {value}"],
        goal,
        ("set_child_lock", {"zone": zone, "lock": value}),
    )


def _timer(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit, z = state.zones[zone], _w(zone)
    action = "turn_off" if unit.power == "on" else "turn_on"
    taken = unit.timer.duration if unit.timer is not None and unit.timer.action == action else None
    duration = rng.choice([d for d in DURATIONS if d != taken])
    a, d = _w(action), _w(duration)
    goal = (
        f"make sure the {z} unit will turn off by itself in {d}, I'll be asleep by then"
        if action == "turn_off"
        else f"have the {z} unit turn on in {d} so it's comfortable when we get back"
    )
    return request(
        [f"set a timer to {a} the {z} unit in {d}", f"have the {z} unit {a} after {d}"],
        goal,
        ("set_timer", {"zone": zone, "action": action, "duration": duration}),
    )


def _cancel_timer(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    if state.zones[zone].timer is None:
        return None
    z = _w(zone)
    return request(
        [f"cancel the {z} timer", f"clear the timer on the {z} unit"],
        [
            f"drop the pending timer on the {z} unit, plans have changed",
            f"get rid of the {z} timer, we no longer need it",
        ],
        ("cancel_timer", {"zone": zone}),
    )


_PROGRAM_GOALS = {
    "home": "run the {} on the home program on {}, someone is in all day",
    "away": "switch the {} to the away program on {}, the room sits empty then",
    "night": "use the night program for the {} on {}, it's only used in the evenings",
    "vacation": "put the {} on the vacation program on {} while we're travelling",
}


def _schedule(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    days = rng.choice(DAYS)
    program = rng.choice([p for p in PROGRAMS if p != state.zones[zone].schedule[days]])
    z = _w(zone)
    return request(
        [f"set the {z} {days} schedule to {program}", f"put the {z} on the {program} program on {days}"],
        _PROGRAM_GOALS[program].format(z, days),
        ("set_schedule", {"zone": zone, "days": days, "program": program}),
    )


_PRESET_GOALS = {
    "comfort": "make the {} cosy with the comfort preset",
    "eco": "save energy in the {} with the eco preset",
    "sleep": "get the {} ready for bedtime with the sleep preset",
    "boost": "give the {} a quick blast with the boost preset",
    "quiet": "keep the {} hushed with the quiet preset",
}


def _preset(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    unit, z = state.zones[zone], _w(zone)
    if unit.power == "off":
        return None
    preset = rng.choice([p for p in PRESETS if p != unit.preset])
    return request(
        [f"apply the {preset} preset to the {z}", f"use the {preset} preset in the {z}"],
        _PRESET_GOALS[preset].format(z),
        ("apply_preset", {"zone": zone, "preset": preset}),
    )


def _status(rng: random.Random, state: ClimateState, zone: Zone) -> Request | None:
    z = _w(zone)
    return request(
        [f"tell me what the {z} unit is set to", f"check the status of the {z} unit"],
        [f"find out whether I need a sweater in the {z} by checking its unit", f"look up how warm the {z} is now"],
        ("get_status", {"zone": zone}),
    )


# --- whole-home requests -----------------------------------------------------------------------


def _humidity(rng: random.Random, state: ClimateState) -> Request | None:
    current = state.humidity
    target = rng.choice([t for t in range(30, 61, 5) if t != current.current_humidity])
    modes = ["auto", "humidify" if target > current.current_humidity else "dehumidify"]
    mode = rng.choice([m for m in modes if (m, target) != (current.mode, current.target_humidity)])
    direct = {
        "humidify": [f"humidify the house up to {target}% humidity"],
        "dehumidify": [f"dehumidify the house down to {target}% humidity"],
        "auto": [f"keep the humidity at {target}% on auto"],
    }[mode] + [f"set the humidity control to {mode} with a target of {target}%"]
    goal = {
        "humidify": f"humidify the air up to {target}%, it's so dry my skin is cracking",
        "dehumidify": f"dehumidify down to {target}%, it's muggy in here",
        "auto": f"hold the humidity around {target}% on auto so it stays pleasant",
    }[mode]
    return request(direct, goal, ("set_humidity", {"mode": mode, "target_percent": target}))


_PURIFIER_GOALS = {
    "turbo": "run the air purifier on turbo, someone burnt the toast",
    "sleep": "keep the purifier quiet on its sleep level",
    "auto": "let the purifier adjust itself on auto",
    "off": "switch the purifier off, the air is clean enough",
}


def _purifier(rng: random.Random, state: ClimateState) -> Request | None:
    level = rng.choice([v for v in PURIFIER_LEVELS if v != state.purifier])
    direct = (
        ["turn off the air purifier", "switch the purifier off"]
        if level == "off"
        else [f"set the air purifier to {level}", f"switch the purifier to {level}"]
    )
    return request(direct, _PURIFIER_GOALS[level], ("set_purifier", {"level": level}))


def _air_status(rng: random.Random, state: ClimateState) -> Request | None:
    return request(
        ["tell me the current humidity and purifier level", "check the air status"],
        ["find out how humid the house is right now", "look up whether the air purifier is running"],
        ("get_air_status", {}),
    )


def _list_presets(rng: random.Random, state: ClimateState) -> Request | None:
    return request(
        ["list the climate presets", "show me what each preset does"],
        ["walk me through the presets, I never remember what they do", "remind me which presets there are"],
        ("list_presets", {}),
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


def _slot_request(rng: random.Random, state: ClimateState, slot: str) -> Request | None:
    """One write request on a slot (a zone, or a whole-home device), trying builders in random order."""
    if slot in HOME_WRITES:
        return HOME_WRITES[slot](rng, state)
    for builder in rng.sample(ZONE_WRITES, len(ZONE_WRITES)):
        made = builder(rng, state, slot)  # type: ignore[arg-type]
        if made is not None:
            return made
    return None


# --- templates ---------------------------------------------------------------------------------


def _single(rng: random.Random, state: ClimateState) -> Candidate:
    return [_slot_request(rng, state, rng.choice([*ZONES, *HOME_WRITES]))]


def _question(rng: random.Random, state: ClimateState) -> Candidate:
    if rng.random() < 0.6:
        return [_status(rng, state, rng.choice(ZONES))]
    return [rng.choice((_air_status, _list_presets))(rng, state)]


def _compound(count: int) -> Builder:
    def template(rng: random.Random, state: ClimateState) -> Candidate:
        slots = rng.sample([*ZONES, *HOME_WRITES], count)
        return [_slot_request(rng, state, slot) for slot in slots]

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
    mode = rng.choice([m for m in TEMPERATURE_RANGE if m != unit.mode])
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
    z = _w(zone)
    close = request(
        [f"close the {z} vent so it's closed", f"set the {z} vent to closed"],
        f"keep the {z} vent closed afterwards",
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
    a = _w(source)
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
        b = _w(target)
        steps.append(
            lambda s, b=b, t=target: request(
                [d.format(a=a, b=b) for d in direct], indirect.format(a=a, b=b), (op, {"zone": t, arg: value})
            )
        )
    return chain(SIM, state, steps)


def _read_zone(zone: Zone) -> Request:
    z = _w(zone)
    return request(
        [f"check the {z} unit", f"look at the {z} status"],
        f"have a look at how the {z} unit is doing",
        ("get_status", {"zone": zone}),
    )


def _check_power(rng: random.Random, state: ClimateState) -> Candidate:
    """Read a zone, switch its unit on if it is off, then set its fan."""
    zone = rng.choice(ZONES)
    z = _w(zone)
    turn_on = () if state.zones[zone].power == "on" else (("set_power", {"zone": zone, "power": "on"}),)
    conditional = request(
        [f"turn the {z} unit on if it is off", f"if the {z} unit is off, turn it on"],
        f"make sure the {z} unit is running, turning it on if it is off",
        *turn_on,
    )
    steps = [lambda s: _read_zone(zone), lambda s: conditional, lambda s: _fan(rng, s, zone)]
    return chain(SIM, state, steps)


def _heat_or_cool(rng: random.Random, state: ClimateState) -> Candidate:
    """Read a running zone and pick cool or heat mode from its measured temperature, maybe a target."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "on"] or [None])
    if zone is None:
        return None
    unit, z = state.zones[zone], _w(zone)
    threshold = rng.randint(unit.current_temperature - 3, unit.current_temperature + 2)
    mode = "cool" if unit.current_temperature > threshold else "heat"
    conditional = request(
        [
            f"if it is warmer than {threshold} degrees in the {z}, switch it to cool mode, otherwise to heat mode",
            f"put the {z} in cool mode if it is above {threshold} degrees there, or in heat mode if not",
        ],
        f"have the {z} cool in cool mode if it is over {threshold} degrees, and heat in heat mode if not",
        ("set_mode", {"zone": zone, "mode": mode}),
    )
    steps = [lambda s: _read_zone(zone), lambda s: conditional]
    if rng.random() < 0.5:
        steps.append(lambda s: _temperature(rng, s, zone))
    return chain(SIM, state, steps)


def _check_timer(rng: random.Random, state: ClimateState) -> Candidate:
    """Read a zone and set a timer that switches its unit the other way."""
    zone = rng.choice(ZONES)
    z = _w(zone)
    duration = rng.choice(DURATIONS)
    d = _w(duration)
    action = "turn_off" if state.zones[zone].power == "on" else "turn_on"
    conditional = request(
        [
            f"if the {z} unit is on, set it to turn off in {d}, otherwise set it to turn on in {d}",
            f"set a timer so the {z} unit will turn off in {d} if it is on, or turn on in {d} if it is off",
        ],
        f"have the {z} unit switch the other way in {d}: turn off if it is on now, turn on if it is off",
        ("set_timer", {"zone": zone, "action": action, "duration": duration}),
    )
    return chain(SIM, state, [lambda s: _read_zone(zone), lambda s: conditional])


def _humidity_check(rng: random.Random, state: ClimateState) -> Candidate:
    """Read the air status, then humidify or dehumidify towards a target, maybe start the purifier."""
    current = state.humidity.current_humidity
    target = rng.choice([t for t in range(35, 56, 5) if t != current])
    mode = "dehumidify" if current > target else "humidify"
    read = request(["check the humidity", "look up the air status"], "find out how humid it is", ("get_air_status", {}))
    conditional = request(
        [
            f"if the humidity is above {target}%, dehumidify to {target}%, otherwise humidify to {target}%",
            f"humidify to {target}% if the air is drier than that, or dehumidify to {target}% if it is more humid",
        ],
        f"bring the humidity to {target}%, to dehumidify if it is higher and to humidify if it is lower",
        ("set_humidity", {"mode": mode, "target_percent": target}),
    )
    steps = [lambda s: read, lambda s: conditional]
    if rng.random() < 0.5:
        start = () if state.purifier != "off" else (("set_purifier", {"level": "auto"}),)
        steps.append(
            lambda s: request(
                ["if the purifier is off, set it to auto", "set the purifier to auto if it is off"],
                "make sure the purifier runs, on auto if it is off",
                *start,
            )
        )
    return chain(SIM, state, steps)


def _sweep(rng: random.Random, state: ClimateState) -> Candidate:
    """Check two or three zones and switch on (or off) each one that is not."""
    power = rng.choice(("on", "off"))
    other = "off" if power == "on" else "on"
    steps = []
    zones = rng.sample(ZONES, rng.choice((2, 3, 3, 3)))
    if all(state.zones[zone].power == power for zone in zones):
        return None
    for zone in zones:
        z = _w(zone)
        switch = () if state.zones[zone].power == power else (("set_power", {"zone": zone, "power": power}),)
        steps.append(
            lambda s, z=z, zone=zone, switch=switch: request(
                [
                    f"check the {z} unit and turn it {power} if it is {other}",
                    f"turn the {z} unit {power} if it's {other}",
                ],
                f"make sure the {z} unit is {power}, switching it {power} if it is {other}",
                ("get_status", {"zone": zone}),
                *switch,
            )
        )
    return chain(SIM, state, steps)


def _preset_then_adjust(rng: random.Random, state: ClimateState) -> Candidate:
    """Apply a preset (found by its target temperature, or named), then adjust the result."""
    zone = rng.choice([z for z in ZONES if state.zones[z].power == "on" or state.zones[z].vent != "closed"])
    z = _w(zone)
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
                ("apply_preset", {"zone": zone, "preset": name}),
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
