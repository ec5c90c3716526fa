"""Typed state of the laundry world: a washer and a dryer, their settings and the seeded initial state.

The washer runs a cycle at a wash temperature (°C) and spin speed, with options (prewash, extra
rinse, steam), an automatic detergent dispenser and a start delay (hours). The dryer runs a
program at a dryness target and heat level, with options (steam, anti-crease) and a delay. One
child lock covers both machines' start buttons. Each machine has named presets. Cycle limits are
fixed (:data:`CYCLE_LIMITS`); settings and presets are drawn from
``random.Random(f"laundry/world/{world_seed}")``.
"""

from __future__ import annotations

import random
from typing import Literal, get_args

from toolprism.domains._device import StateModel

Machine = Literal["washer", "dryer"]
Power = Literal["on", "off"]
Status = Literal["idle", "scheduled", "running", "paused"]
"""``scheduled``: started with a delay, waiting to begin; a machine that is off is idle."""
WashCycle = Literal["cotton", "synthetics", "delicates", "wool", "quick_wash", "bedding", "sportswear", "eco"]
DryProgram = Literal["cotton", "synthetics", "delicates", "wool", "mixed", "towels", "refresh"]
Mode = Literal[WashCycle, DryProgram]
"""Every mode ``set_mode`` accepts: washer cycles and dryer programs (see :data:`MODES`)."""
SpinSpeed = Literal["no_spin", "low", "medium", "high", "maximum"]
Dryness = Literal["iron_dry", "cupboard_dry", "extra_dry"]
Heat = Literal["low", "medium", "high"]
Option = Literal["prewash", "extra_rinse", "steam", "anti_crease"]
Detergent = Literal["liquid", "powder", "color", "wool_care", "sensitive"]
Dose = Literal["low", "normal", "high"]
WasherPreset = Literal["jeans", "baby_clothes", "gym_kit", "shirts", "duvet"]
DryerPreset = Literal["bath_towels", "bed_sheets", "knitwear", "outdoor_jackets"]
PresetName = Literal[WasherPreset, DryerPreset]

MACHINES: tuple[Machine, ...] = get_args(Machine)
WASH_CYCLES: tuple[WashCycle, ...] = get_args(WashCycle)
DRY_PROGRAMS: tuple[DryProgram, ...] = get_args(DryProgram)
MODES: dict[Machine, tuple[str, ...]] = {"washer": WASH_CYCLES, "dryer": DRY_PROGRAMS}
"""The modes each machine accepts."""
SPIN_SPEEDS: tuple[SpinSpeed, ...] = get_args(SpinSpeed)
"""Spin speeds, slowest first."""
DRYNESS: tuple[Dryness, ...] = get_args(Dryness)
HEATS: tuple[Heat, ...] = get_args(Heat)
"""Heat levels, lowest first."""
DETERGENTS: tuple[Detergent, ...] = get_args(Detergent)
DOSES: tuple[Dose, ...] = get_args(Dose)
OPTIONS: dict[Machine, tuple[Option, ...]] = {
    "washer": ("prewash", "extra_rinse", "steam"),
    "dryer": ("steam", "anti_crease"),
}
"""The options each machine has."""
WASHER_PRESETS: tuple[WasherPreset, ...] = get_args(WasherPreset)
DRYER_PRESETS: tuple[DryerPreset, ...] = get_args(DryerPreset)
WASH_TEMPERATURES: tuple[int, ...] = (20, 30, 40, 60, 90)
"""The usual wash temperatures (°C) the world and the tasks draw from."""
MAX_DELAY_HOURS = 24


class CycleLimits(StateModel):
    """What a washer cycle allows: the hottest wash (°C), fastest spin, prewash, and its length."""

    max_temperature: int
    max_spin: SpinSpeed
    prewash: Literal["allowed", "not_allowed"]
    duration_minutes: int


CYCLE_LIMITS: dict[WashCycle, CycleLimits] = {
    "cotton": CycleLimits(max_temperature=90, max_spin="maximum", prewash="allowed", duration_minutes=180),
    "synthetics": CycleLimits(max_temperature=60, max_spin="high", prewash="allowed", duration_minutes=120),
    "delicates": CycleLimits(max_temperature=40, max_spin="low", prewash="not_allowed", duration_minutes=70),
    "wool": CycleLimits(max_temperature=30, max_spin="low", prewash="not_allowed", duration_minutes=60),
    "quick_wash": CycleLimits(max_temperature=40, max_spin="high", prewash="not_allowed", duration_minutes=30),
    "bedding": CycleLimits(max_temperature=60, max_spin="medium", prewash="allowed", duration_minutes=150),
    "sportswear": CycleLimits(max_temperature=40, max_spin="medium", prewash="allowed", duration_minutes=80),
    "eco": CycleLimits(max_temperature=60, max_spin="high", prewash="allowed", duration_minutes=210),
}
"""Washer cycle limits (fixed, the same in every world); the coldest wash is 20 °C."""
MIN_WASH_TEMPERATURE = 20
MAX_HEAT: dict[DryProgram, Heat] = {
    "cotton": "high",
    "synthetics": "medium",
    "delicates": "low",
    "wool": "low",
    "mixed": "medium",
    "towels": "high",
    "refresh": "medium",
}
"""The hottest heat level each dryer program allows; changing program lowers the heat to it."""


class Washer(StateModel):
    """The washing machine. ``delay_hours`` applies at the next start (0: start at once)."""

    power: Power
    status: Status
    cycle: WashCycle
    temperature: int
    spin: SpinSpeed
    options: dict[Option, Power]
    detergent: Detergent
    dose: Dose
    delay_hours: int


class Dryer(StateModel):
    """The tumble dryer. ``delay_hours`` applies at the next start (0: start at once)."""

    power: Power
    status: Status
    program: DryProgram
    dryness: Dryness
    heat: Heat
    options: dict[Option, Power]
    delay_hours: int


class WasherSetting(StateModel):
    """A washer preset: cycle, temperature (°C) and spin."""

    cycle: WashCycle
    temperature: int
    spin: SpinSpeed


class DryerSetting(StateModel):
    """A dryer preset: program, dryness and heat."""

    program: DryProgram
    dryness: Dryness
    heat: Heat


class LaundryState(StateModel):
    """The whole laundry room."""

    washer: Washer
    dryer: Dryer
    child_lock: Power
    washer_presets: dict[WasherPreset, WasherSetting]
    dryer_presets: dict[DryerPreset, DryerSetting]


def slower(spin: SpinSpeed, limit: SpinSpeed) -> SpinSpeed:
    """``spin`` capped at ``limit``."""
    return SPIN_SPEEDS[min(SPIN_SPEEDS.index(spin), SPIN_SPEEDS.index(limit))]


def cooler(heat: Heat, limit: Heat) -> Heat:
    """``heat`` capped at ``limit``."""
    return HEATS[min(HEATS.index(heat), HEATS.index(limit))]


def wash_temperatures(cycle: WashCycle) -> list[int]:
    """The usual temperatures (°C) ``cycle`` allows."""
    return [t for t in WASH_TEMPERATURES if t <= CYCLE_LIMITS[cycle].max_temperature]


def spin_speeds(cycle: WashCycle) -> list[SpinSpeed]:
    """The spin speeds ``cycle`` allows, slowest first."""
    return list(SPIN_SPEEDS[: SPIN_SPEEDS.index(CYCLE_LIMITS[cycle].max_spin) + 1])


def heats(program: DryProgram) -> list[Heat]:
    """The heat levels ``program`` allows, lowest first."""
    return list(HEATS[: HEATS.index(MAX_HEAT[program]) + 1])


def initial_state(world_seed: int) -> LaundryState:
    """The laundry room for ``world_seed``: settings and presets drawn from one seeded RNG."""
    rng = random.Random(f"laundry/world/{world_seed}")
    washer, dryer = _washer(rng), _dryer(rng)
    if all(m.power == "off" or m.status == "running" for m in (washer, dryer)):
        # At least one machine takes settings, so that every world offers enough tasks.
        washer.power, washer.status, washer.delay_hours = "on", "idle", 0
    return LaundryState(
        washer=washer,
        dryer=dryer,
        child_lock=rng.choice(("on", "off")),
        washer_presets={name: _washer_preset(rng, name) for name in WASHER_PRESETS},
        dryer_presets={name: _dryer_preset(rng, name) for name in DRYER_PRESETS},
    )


def _status(rng: random.Random, power: Power) -> Status:
    return "idle" if power == "off" else rng.choice(("idle", "idle", "idle", "scheduled", "running", "paused"))


def _washer(rng: random.Random) -> Washer:
    power: Power = rng.choice(("on", "on", "off"))
    status, cycle = _status(rng, power), rng.choice(WASH_CYCLES)
    prewash = "off" if CYCLE_LIMITS[cycle].prewash == "not_allowed" else rng.choice(("on", "off"))
    return Washer(
        power=power,
        status=status,
        cycle=cycle,
        temperature=rng.choice(wash_temperatures(cycle)),
        spin=rng.choice(spin_speeds(cycle)[1:]),
        options={"prewash": prewash, "extra_rinse": rng.choice(("on", "off")), "steam": rng.choice(("on", "off"))},
        detergent=rng.choice(DETERGENTS),
        dose=rng.choice(DOSES),
        delay_hours=rng.randint(1, 8) if status == "scheduled" else 0,
    )


def _dryer(rng: random.Random) -> Dryer:
    power: Power = rng.choice(("on", "on", "off"))
    status, program = _status(rng, power), rng.choice(DRY_PROGRAMS)
    return Dryer(
        power=power,
        status=status,
        program=program,
        dryness=rng.choice(DRYNESS),
        heat=rng.choice(heats(program)),
        options={"steam": rng.choice(("on", "off")), "anti_crease": rng.choice(("on", "off"))},
        delay_hours=rng.randint(1, 8) if status == "scheduled" else 0,
    )


_WASHER_PRESET_CYCLES: dict[WasherPreset, tuple[WashCycle, ...]] = {
    "jeans": ("cotton", "synthetics"),
    "baby_clothes": ("cotton", "delicates"),
    "gym_kit": ("sportswear", "synthetics"),
    "shirts": ("synthetics", "cotton"),
    "duvet": ("bedding",),
}
_DRYER_PRESET_PROGRAMS: dict[DryerPreset, tuple[DryProgram, ...]] = {
    "bath_towels": ("towels", "cotton"),
    "bed_sheets": ("cotton", "mixed"),
    "knitwear": ("wool", "delicates"),
    "outdoor_jackets": ("synthetics", "refresh"),
}


def _washer_preset(rng: random.Random, name: WasherPreset) -> WasherSetting:
    cycle = rng.choice(_WASHER_PRESET_CYCLES[name])
    return WasherSetting(
        cycle=cycle, temperature=rng.choice(wash_temperatures(cycle)[1:]), spin=rng.choice(spin_speeds(cycle)[1:])
    )


def _dryer_preset(rng: random.Random, name: DryerPreset) -> DryerSetting:
    program = rng.choice(_DRYER_PRESET_PROGRAMS[name])
    return DryerSetting(program=program, dryness=rng.choice(DRYNESS), heat=rng.choice(heats(program)))
