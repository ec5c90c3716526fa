"""Task templates of the car-cabin domain.

Every request is built from the state it will run on, so each gold write succeeds and changes
something: a verb comes from the current setting ("turn on" a system that is off) and a requested
value always differs from the current one. Compound tasks join requests that touch disjoint
settings and do not depend on each other's settings (see :class:`Ask`), so any order works.
Compositional tasks build their requests on a scratch copy of the state, one after another: a
request may need an earlier one (turn the climate on, then set a zone) or copy a value that an
earlier read returns ("give the passenger zone the same temperature as the driver zone").
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import (
    Ask,
    Scratch,
    Simulator,
    compose_families,
    flip,
    other,
    requests_of,
    shuffled_compound,
)
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Each, Quota, Rounds, draft_plan
from toolprism.domains.car_cabin._ops import OPERATIONS
from toolprism.domains.car_cabin._state import (
    CHILD_SAFE_POSITIONS,
    COLORS,
    FAN_SPEEDS,
    LEVELS,
    MODES,
    PRESETS,
    REAR_DOORS,
    SEATS,
    SECTIONS,
    SUNROOF_POSITIONS,
    SYSTEMS,
    VENTILATED_SEATS,
    WINDOW_POSITIONS,
    WINDOWS,
    ZONES,
    CabinState,
)

SINGLE_WRITES = 20
"""Single-call write tasks per seed (the questions add nine more single tasks)."""
COMPOUND = 76
COMPOSITIONAL = 25
COMPOUND_SIZES = {2: 25, 3: 32, 4: 28, 5: 15}
"""Number of requests in a compound task → relative weight."""


def _ask(name: str, direct, indirect, gold, writes, reads=()) -> Ask:  # noqa: ANN001
    return Ask(request(direct, indirect, *gold), frozenset(writes), frozenset(reads), name)


_CLIMATE = ("power.climate", "climate.mode")

# --- single-call requests, each phrased from the current state --------------------------------

_POWER_GOALS = {
    ("climate", "on"): "get the {system} turned {power}, the air in here is stale and stuffy",
    ("climate", "off"): "switch the {system} {power}, nobody needs heating or cooling right now",
    ("ambient_lighting", "on"): "turn {power} the {system}, the cabin feels gloomy after dark",
    ("ambient_lighting", "off"): "turn the {system} {power}, it's distracting me",
    ("rear_defroster", "on"): "turn {power} the {system}, I can't see a thing out of the back window",
    ("rear_defroster", "off"): "let the {system} go {power} now that the back window is clear",
    ("steering_heater", "on"): "switch the {system} {power} because my hands are freezing on the wheel",
    ("steering_heater", "off"): "turn the {system} {power}, the wheel is getting too hot to hold",
}


def _power_of(state: CabinState, system: str) -> str:
    return {
        "climate": state.climate.power,
        "ambient_lighting": state.lighting.power,
        "rear_defroster": state.climate.rear_defroster,
        "steering_heater": state.climate.steering_heater,
    }[system]


def _power(rng: random.Random, state: CabinState, system: str, new: str | None = None) -> Ask | None:
    new = new or flip(_power_of(state, system))
    if _power_of(state, system) == new:
        return None
    name, power = slot(system), slot(new)
    return _ask(
        "set_power",
        (f"turn {power} the {name}", f"switch the {name} {power}"),
        _POWER_GOALS[(system, new)].format(system=name, power=power),
        [("set_power", {"system": system, "power": new})],
        [f"power.{system}"],
    )


_MODE_GOALS = {
    "auto": "let the car work it out by itself and put the climate in {} mode",
    "cool": "switch the climate to {} mode, it's boiling in here",
    "heat": "put the climate in {} mode because I'm shivering",
    "fan_only": "just move some air with {} mode on the climate, no heating or cooling",
}


def _mode(rng: random.Random, state: CabinState, choices: tuple = MODES) -> Ask | None:
    options = [m for m in choices if m != state.climate.mode]
    if state.climate.power == "off" or not options:
        return None
    new = rng.choice(options)
    m = slot(new)
    return _ask(
        "set_mode",
        (f"set the climate to {m} mode", f"switch the climate mode to {m}"),
        _MODE_GOALS[new].format(m),
        [("set_mode", {"mode": new})],
        ["climate.mode"],
        ["power.climate"],
    )


def _temperature(rng: random.Random, state: CabinState, zone: str) -> Ask | None:
    if state.climate.power == "off" or state.climate.mode == "fan_only":
        return None
    current = state.climate.targets[zone]
    degrees = other(rng, range(17, 29), current)
    z, t = slot(zone), slot(degrees)
    if degrees > current:
        indirect = (
            f"warm the {z} zone up to {t} degrees, it's too chilly there",
            f"bring the {z} zone up to {t} degrees for whoever is cold there",
        )
    else:
        indirect = (
            f"cool the {z} zone down to {t} degrees, it's too warm there",
            f"bring the {z} zone down to {t} degrees since it's stuffy there",
        )
    return _ask(
        "set_temperature",
        (f"set the {z} zone to {t} degrees", f"change the {z} zone temperature to {t} degrees"),
        indirect,
        [("set_temperature", {"zone": zone, "temperature": degrees})],
        [f"temp.{zone}"],
        _CLIMATE,
    )


def _fan(rng: random.Random, state: CabinState) -> Ask | None:
    if state.climate.power == "off" or state.climate.mode == "auto":
        return None
    current = state.climate.fan_speed
    speed = other(rng, FAN_SPEEDS, current)
    v = slot(speed)
    if FAN_SPEEDS.index(speed) > FAN_SPEEDS.index(current):
        indirect = f"turn the fan up to {v} because I can barely feel any air"
    else:
        indirect = f"turn the fan down to {v}, the blower is so loud I can't hear the radio"
    return _ask(
        "set_fan_speed",
        (f"set the fan speed to {v}", f"put the fan on {v}"),
        indirect,
        [("set_fan_speed", {"speed": speed})],
        ["climate.fan"],
        _CLIMATE,
    )


def _level_options(current: str, other_side: str | None, levels: tuple | None) -> list[str]:
    options = [lv for lv in (levels or LEVELS) if lv != current]
    if other_side not in (None, "off"):
        options = [lv for lv in options if lv == "off"]
    return options


_SEAT_GOALS = {
    "heating": {
        "off": "let the {where} heating go {v}, the seat is warm enough now",
        "up": "warm up the {where} by putting its heating on {v}, it feels cold",
        "down": "lower the {where} heating to {v}, it's getting too hot",
    },
    "ventilation": {
        "off": "let the {where} ventilation go {v}, the seat doesn't need cooling any more",
        "up": "cool my back in the {where} with its ventilation on {v}",
        "down": "turn the {where} ventilation down to {v}, it's too chilly",
    },
}
"""Indirect phrasings of a seat's heating or ventilation level: off, up from the current level, or down."""


def _seat_level(
    rng: random.Random, state: CabinState, seat: str, feature: str, levels: tuple | None = None
) -> Ask | None:
    """Set a seat's ``feature`` (``heating`` or ``ventilation``) to another allowed level (one
    ``rng.choice``); the seat's other feature must be off for it to go on."""
    partner = "ventilation" if feature == "heating" else "heating"
    current = getattr(state.seats[seat], feature)
    if current is None:
        return None
    options = _level_options(current, getattr(state.seats[seat], partner), levels)
    if not options:
        return None
    level = rng.choice(options)
    where, v = f"{slot(seat)} seat", slot(level)
    if level == "off":
        direct = (f"turn {v} the {where} {feature}", f"switch the {where} {feature} {v}")
        goal = "off"
    else:
        direct = (f"set the {where} {feature} to {v}", f"put the {where} {feature} on {v}")
        goal = "up" if LEVELS.index(level) > LEVELS.index(current) else "down"
    op = f"set_seat_{feature}"
    return _ask(
        op,
        direct,
        _SEAT_GOALS[feature][goal].format(where=where, v=v),
        [(op, {"seat": seat, "level": level})],
        [f"seat.{seat}.{feature}"],
        [f"seat.{seat}.{partner}"],
    )


WINDOW = AskKind(
    "set_window",
    {
        "closed": ("{position:close} the {window} window", "{position:shut} the {window} window"),
        "vent": ("open the {window} window to {position}", "set the {window} window to {position}"),
        "half": ("open the {window} window {position} way", "put the {window} window {position} open"),
        "open": ("{position} the {window} window fully", "{position} the {window} window all the way"),
    },
    {
        "closed": "get the {window} window {position:shut}, it's getting noisy in here",
        "vent": "let just a little air in through the {window} window, a {position} is enough",
        "half": "have the {window} window {position} open so we get some fresh air",
        "open": "{position} the {window} window all the way, I want to feel the breeze",
    },
    key="position",
)


def _window(rng: random.Random, state: CabinState, name: str, positions: tuple | None = None) -> Ask | None:
    allowed = CHILD_SAFE_POSITIONS if state.child_locks.get(name) == "on" else WINDOW_POSITIONS
    options = [p for p in (positions or allowed) if p in allowed and p != state.openings.windows[name]]
    if not options:
        return None
    reads = [f"child.{name}"] if name in REAR_DOORS else []
    asked = WINDOW.request(window=name, position=rng.choice(options))
    return Ask(asked, frozenset({f"window.{name}"}), frozenset(reads), "set_window")


SUNROOF = AskKind(
    "set_sunroof",
    {
        "closed": ("{position:close} the sunroof", "{position:shut} the sunroof"),
        "tilt": ("{position} the sunroof", "set the sunroof to {position}"),
        "open": ("{position} the sunroof", "slide the sunroof {position}"),
    },
    {
        "closed": "{position:close} the sunroof, the wind noise from the roof is too loud",
        "tilt": "{position} the sunroof to let the hot air escape through the roof",
        "open": "{position} the sunroof, it's a lovely day for some sky",
    },
    key="position",
)


def _sunroof(rng: random.Random, state: CabinState) -> Ask | None:
    allowed = ("closed", "tilt") if state.openings.rain_sensor == "raining" else SUNROOF_POSITIONS
    asked = SUNROOF.request(position=other(rng, allowed, state.openings.sunroof))
    return Ask(asked, frozenset({"sunroof"}), frozenset({"rain"}), "set_sunroof")


def _child_lock(rng: random.Random, state: CabinState, door: str) -> Ask:
    new = flip(state.child_locks[door])
    where, v = slot(door), slot(new)
    if new == "on":
        indirect = f"turn {v} the {where} child lock since the kids are riding in the back"
    else:
        indirect = f"switch the {where} child lock {v}, an adult is sitting in the {where} seat now"
    return _ask(
        "set_child_lock",
        (f"turn {v} the {where} child lock", f"switch the {where} child lock {v}"),
        indirect,
        [("set_child_lock", {"door": door, "setting": new})],
        [f"child.{door}"],
    )


def _brightness(rng: random.Random, state: CabinState) -> Ask | None:
    if state.lighting.power == "off":
        return None
    current = state.lighting.brightness
    level = other(rng, range(10, 101, 10), current)
    b = slot(level)
    if level > current:
        indirect = f"brighten the ambient lighting to {b}% so I can see the console"
    else:
        indirect = f"dim the ambient lighting to {b}%, it glares in the dark"
    return _ask(
        "set_brightness",
        (f"set the ambient lighting brightness to {b}%", f"change the ambient lighting to {b}% brightness"),
        indirect,
        [("set_brightness", {"brightness": level})],
        ["light.brightness"],
        ["power.ambient_lighting"],
    )


def _color(rng: random.Random, state: CabinState) -> Ask | None:
    if state.lighting.power == "off":
        return None
    color = other(rng, COLORS, state.lighting.color)
    c = slot(color)
    return _ask(
        "set_ambient_color",
        (f"change the ambient lighting color to {c}", f"make the ambient lighting {c}"),
        (
            f"make the ambient lighting {c} for a calmer mood",
            f"go {c} on the ambient lighting, I'm bored of the current look",
        ),
        [("set_ambient_color", {"color": color})],
        ["light.color"],
        ["power.ambient_lighting"],
    )


_PRESET_GOALS = {
    "winter_morning": "warm the car up with the {} preset, it's a frosty start",
    "summer_cooling": "bring out the {} preset, it's a scorcher today",
    "night_drive": "set things up with the {} preset since we're heading out after dark",
    "fresh_air": "air the cabin out with the {} preset, it smells stale",
}


def _preset(rng: random.Random, state: CabinState, name: str) -> Ask | None:
    if state.active_preset == name:
        return None
    where = slot(name)
    return _ask(
        "apply_preset",
        (f"apply the {where} preset", f"switch to the {where} preset"),
        _PRESET_GOALS[name].format(where),
        [("apply_preset", {"preset": name})],
        ["*"],
    )


def write_asks(rng: random.Random, state: CabinState) -> list[Ask]:
    """One single-call write for every setting that can change now (presets excluded)."""
    asks = [
        *(_power(rng, state, system) for system in SYSTEMS),
        _mode(rng, state),
        *(_temperature(rng, state, zone) for zone in ZONES),
        _fan(rng, state),
        *(_seat_level(rng, state, seat, "heating") for seat in SEATS),
        *(_seat_level(rng, state, seat, "ventilation") for seat in VENTILATED_SEATS),
        *(_window(rng, state, name) for name in WINDOWS),
        _sunroof(rng, state),
        *(_child_lock(rng, state, door) for door in REAR_DOORS),
        _brightness(rng, state),
        _color(rng, state),
    ]
    return [a for a in asks if a is not None]


# --- questions (one read each) -----------------------------------------------------------------


STATUS = AskKind(
    "get_status",
    {
        "climate": ("what is the {section} set to right now?", "how is the {section} configured at the moment?"),
        "windows": ("which {section} are open right now?", "what position are the {section} and the sunroof in?"),
        "lighting": ("what color and brightness is the ambient {section}?", "is the ambient {section} on?"),
        "doors": (
            "are the child locks on for the rear {section}?",
            "what are the rear {section}' child lock settings?",
        ),
    },
    {
        "climate": "tell me how the {section} is set, I'm wondering whether I need my jacket",
        "windows": "check whether any {section} or the sunroof are open, I think rain is coming",
        "lighting": "tell me what the ambient {section} is doing right now, I'm curious about the mood light",
        "doors": "check how the child lock on each of the {section} is set, the kids are getting in the back",
    },
    key="section",
)
LIST_PRESETS = AskKind(
    "list_presets",
    ("which comfort presets are available?", "list the presets for me"),
    "remind me which presets this car has and what each one does",
)
SEAT_STATUS = AskKind(
    "get_seat_status",
    ("how are the {seat} seat heating and ventilation set?", "what level is the {seat} seat heating on?"),
    "check how the {seat} seat is heated or ventilated, someone says it feels odd",
)


def questions() -> list[Request]:
    """Read-only questions: one per status section, the preset list, and one per seat."""
    return [
        *(STATUS.request(section=section) for section in SECTIONS),
        LIST_PRESETS.request(),
        *(SEAT_STATUS.request(seat=seat) for seat in SEATS),
    ]


# --- compositional requests: built one after another on a scratch state -----------------------


Plan = list[Request]
SIM = Simulator(OPERATIONS)


def climate_setup(rng: random.Random, state: CabinState) -> Plan | None:
    """Turn the climate on or leave auto/fan-only mode, then set what that unlocks."""
    s = Scratch(SIM, state)
    if state.climate.power == "off":
        s.add(_power(rng, s.state, "climate", "on"))
        want_mode = rng.random() < 0.6
    elif state.climate.mode in ("auto", "fan_only"):
        want_mode = True
    else:
        return None
    # With the climate already on, only a fan speed (after leaving auto) or a temperature (after
    # leaving fan_only) depends on the mode change.
    want_fan = state.climate.mode == "auto" if state.climate.power == "on" else rng.random() < 0.5
    fewest = 1 if state.climate.mode == "fan_only" or not want_fan else 0
    zones = rng.sample(ZONES, rng.randint(fewest, 3))
    if want_mode or (want_fan and s.state.climate.mode == "auto") or (zones and s.state.climate.mode == "fan_only"):
        choices = tuple(m for m in ("cool", "heat", "auto") if not (want_fan and m == "auto"))
        if not zones:
            choices += ("fan_only",)
        s.add(_mode(rng, s.state, choices))
    if want_fan:
        s.add(_fan(rng, s.state))
    for zone in zones:
        s.add(_temperature(rng, s.state, zone))
    return s.plan if len(s.plan) >= 2 else None


def lighting_setup(rng: random.Random, state: CabinState) -> Plan | None:
    """Turn the ambient lighting on, then set its color and/or brightness."""
    if state.lighting.power == "on":
        return None
    s = Scratch(SIM, state)
    s.add(_power(rng, s.state, "ambient_lighting", "on"))
    for build in rng.sample([_color, _brightness], rng.randint(1, 2)):
        s.add(build(rng, s.state))
    return s.plan


def copy_temperature(rng: random.Random, state: CabinState) -> Plan | None:
    """Read the climate, then give one or two zones the target of another zone."""
    s = Scratch(SIM, state)
    if state.climate.power == "off":
        s.add(_power(rng, s.state, "climate", "on"))
    if state.climate.mode == "fan_only":
        s.add(_mode(rng, s.state, ("cool", "heat", "auto")))
    source = rng.choice(ZONES)
    t = s.state.climate.targets[source]
    targets = [z for z in ZONES if s.state.climate.targets[z] != t]
    if not targets:
        return None
    targets = rng.sample(targets, rng.randint(1, len(targets)))
    names = " and ".join(f"the {slot(z)} zone" for z in targets)
    gold = [("get_status", {"section": "climate"})] + [
        ("set_temperature", {"zone": z, "temperature": replied(t)}) for z in targets
    ]
    climate = slot("climate")
    s.add(
        request(
            (
                f"check the {climate} and set {names} to the same temperature as the {source} zone",
                f"look up the {climate} settings and give {names} the {source} zone's temperature",
            ),
            f"check the {climate} and match {names} to the {source} zone, which feels just right",
            *gold,
        )
    )
    return s.plan


def copy_seat_heating(rng: random.Random, state: CabinState) -> Plan | None:
    """Read one seat, then give another seat its heating level (ventilation off first if needed)."""
    source, target = rng.sample(SEATS, 2)
    level = state.seats[source].heating
    if state.seats[target].heating == level:
        return None
    s = Scratch(SIM, state)
    if level != "off" and state.seats[target].ventilation not in (None, "off"):
        s.add(_seat_level(rng, s.state, target, "ventilation", ("off",)))
    src, dst = f"{slot(source)} seat", f"{slot(target)} seat"
    s.add(
        request(
            (
                f"check the {src} and give the {dst} the same heating level",
                f"set the {dst} heating to whatever the {src} heating is on",
            ),
            f"look up the {src} and copy its heating level over to the {dst} so both feel the same",
            ("get_seat_status", {"seat": source}),
            ("set_seat_heating", {"seat": target, "level": replied(level)}),
        )
    )
    return s.plan


def unlock_and_open(rng: random.Random, state: CabinState) -> Plan | None:
    """Turn a rear child lock off, then open that window past vent (one or both rear doors)."""
    doors = [d for d in REAR_DOORS if state.child_locks[d] == "on"]
    if not doors:
        return None
    s = Scratch(SIM, state)
    for door in rng.sample(doors, rng.randint(1, len(doors))):
        s.add(_child_lock(rng, s.state, door))
        s.add(_window(rng, s.state, door, ("half", "open")))
    return s.plan


def swap_seat_comfort(rng: random.Random, state: CabinState) -> Plan | None:
    """Switch a front seat from heating to ventilation or back (one or both front seats)."""
    s = Scratch(SIM, state)
    seats = [x for x in VENTILATED_SEATS if "off" in (state.seats[x].heating, state.seats[x].ventilation)]
    seats = [x for x in seats if state.seats[x].heating != state.seats[x].ventilation]
    if not seats:
        return None
    for seat in rng.sample(seats, rng.randint(1, len(seats))):
        on_levels = ("low", "medium", "high")
        if s.state.seats[seat].heating != "off":
            s.add(_seat_level(rng, s.state, seat, "heating", ("off",)))
            s.add(_seat_level(rng, s.state, seat, "ventilation", on_levels))
        else:
            s.add(_seat_level(rng, s.state, seat, "ventilation", ("off",)))
            s.add(_seat_level(rng, s.state, seat, "heating", on_levels))
    return s.plan


def rain_sunroof(rng: random.Random, state: CabinState) -> Plan | None:
    """Check the rain sensor; tilt the sunroof if it rains, else open it."""
    target = "tilt" if state.openings.rain_sensor == "raining" else "open"
    if state.openings.sunroof == target:
        return None
    sensor = slot("windows", "rain sensor")
    opened, tilt = (slot(p) if p == target else p for p in ("open", "tilt"))
    return [
        request(
            (
                f"check the {sensor} and {opened} the sunroof if it's dry, or {tilt} it if it's raining",
                f"look at the {sensor}: if it's raining {tilt} the sunroof, otherwise {opened} it",
            ),
            f"check the {sensor} and {opened} the sunroof if it's dry but only {tilt} it if it's raining, "
            "I'd love some air from the roof",
            ("get_status", {"section": "windows"}),
            ("set_sunroof", {"position": target}),
        )
    ]


def toggle_child_lock(rng: random.Random, state: CabinState) -> Plan | None:
    """Check a rear child lock and switch it to the other setting."""
    door = rng.choice(REAR_DOORS)
    new = flip(state.child_locks[door])
    where, lock = slot(door), slot("doors", "child lock")
    off, on = (slot(v) if v == new else v for v in ("off", "on"))
    return [
        request(
            (
                f"check the {where} {lock} and flip it: if it's on turn it {off}, if it's off turn it {on}",
                f"look up the {where} {lock} and toggle it, {off} if it's on or {on} if it's off",
            ),
            f"look up how the {where} {lock} is set and switch it to the other setting, {off} if it's on "
            f"and {on} if it's off, I can never remember which it is",
            ("get_status", {"section": "doors"}),
            ("set_child_lock", {"door": door, "setting": new}),
        )
    ]


COMPOSITIONAL_TEMPLATES: dict[str, Callable[[random.Random, CabinState], Plan | None]] = {
    "climate_setup": climate_setup,
    "lighting_setup": lighting_setup,
    "copy_temperature": copy_temperature,
    "copy_seat_heating": copy_seat_heating,
    "unlock_and_open": unlock_and_open,
    "swap_seat_comfort": swap_seat_comfort,
    "rain_sunroof": rain_sunroof,
    "toggle_child_lock": toggle_child_lock,
}
"""Template name → builder of an ordered plan of dependent requests (None: not possible here)."""
FAMILY = {
    "climate_setup": "climate",
    "copy_temperature": "climate",
    "lighting_setup": "lighting",
    "copy_seat_heating": "seats",
    "swap_seat_comfort": "seats",
    "unlock_and_open": "doors",
    "toggle_child_lock": "doors",
    "rain_sunroof": "sunroof",
}
"""Two plans are chained into one task only when their templates belong to different families."""


def _compositional(rng: random.Random, state: CabinState) -> tuple[str, Plan] | None:
    """One plan, often followed by a plan of another family built on the state the first leaves."""
    return compose_families(rng, SIM, state, COMPOSITIONAL_TEMPLATES, FAMILY, chance=0.6, first_calls=3)


# --- assembly ----------------------------------------------------------------------------------


def _compound(rng: random.Random, state: CabinState, size: int) -> list[Ask] | None:
    """``size`` pairwise independent asks from a shuffled pool of the world's write asks."""
    return shuffled_compound(rng, write_asks(rng, state), size)


def _single_asks(rng: random.Random, state: CabinState) -> list[Ask]:
    return write_asks(rng, state) + [a for p in PRESETS if (a := _preset(rng, state, p))]


def _sized_compound(rng: random.Random, state: CabinState) -> list[Request] | None:
    return requests_of(_compound(rng, state, rng.choices(*zip(*COMPOUND_SIZES.items(), strict=True))[0]))


PLAN = (
    Each("question", lambda rng, s: [[q] for q in questions()], "single"),
    Rounds(_single_asks, SINGLE_WRITES),
    Quota("compound", _sized_compound, COMPOUND, "compound", tries=20),
    Quota("", _compositional, COMPOSITIONAL, "compositional", tries=40),
)
"""Questions, one-call writes, compound tasks, then compositional ones."""


def drafts(state: CabinState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``: 29 single, 76 compound and 25
    compositional drafts (fewer only if the world runs out of distinct requests), deterministic.
    """
    return draft_plan(random.Random(f"car_cabin/tasks/{world_seed}"), state, PLAN)
