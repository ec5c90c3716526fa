"""Typed state of the climate world: five zoned heat pumps, whole-home humidity and air purifier.

The layout (five zones, one humidity controller, one purifier, five presets) is fixed; every
setting, every measured value and the preset contents are drawn from
``random.Random(f"climate/world/{world_seed}")``. Temperatures are whole °C, humidity whole percent.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

Zone = Literal["living_room", "bedroom", "office", "nursery", "basement"]
Power = Literal["on", "off"]
Mode = Literal["heat", "cool", "auto", "dry", "fan_only"]
FanSpeed = Literal["auto", "low", "medium", "high"]
VentPosition = Literal["open", "half", "closed"]
TimerAction = Literal["turn_on", "turn_off"]
Duration = Literal["30_minutes", "1_hour", "2_hours", "4_hours", "8_hours"]
Days = Literal["weekdays", "weekends"]
Program = Literal["home", "away", "night", "vacation"]
PresetName = Literal["comfort", "eco", "sleep", "boost", "quiet"]
HumidityMode = Literal["off", "humidify", "dehumidify", "auto"]
PurifierLevel = Literal["off", "sleep", "auto", "turbo"]

ZONES: tuple[Zone, ...] = get_args(Zone)
MODES: tuple[Mode, ...] = get_args(Mode)
FAN_SPEEDS: tuple[FanSpeed, ...] = get_args(FanSpeed)
VENT_POSITIONS: tuple[VentPosition, ...] = get_args(VentPosition)
DURATIONS: tuple[Duration, ...] = get_args(Duration)
DAYS: tuple[Days, ...] = get_args(Days)
PROGRAMS: tuple[Program, ...] = get_args(Program)
PRESETS: tuple[PresetName, ...] = get_args(PresetName)
PURIFIER_LEVELS: tuple[PurifierLevel, ...] = get_args(PurifierLevel)

TEMPERATURE_RANGE: dict[Mode, tuple[int, int]] = {"heat": (16, 26), "cool": (18, 30), "auto": (18, 28)}
"""Target temperatures (°C, inclusive) each mode accepts; ``dry`` and ``fan_only`` hold no target."""
HUMIDITY_RANGE: tuple[int, int] = (30, 60)
"""Target relative humidity (percent, inclusive) the humidity controller accepts."""

Temperature = Annotated[int, Field(ge=16, le=30)]


class Timer(StateModel):
    """A pending switch of a zone's unit: what it will do and after how long."""

    action: TimerAction
    duration: Duration


class ZoneUnit(StateModel):
    """One zone's heat pump and its air vent.

    ``target_temperature`` is kept in dry and fan-only mode but not used; ``preset`` names the
    last preset applied, cleared by any manual change of mode, target or fan speed;
    ``current_temperature`` is measured, never set.
    """

    power: Power
    mode: Mode
    target_temperature: Temperature
    current_temperature: int
    fan_speed: FanSpeed
    vent: VentPosition
    child_lock: Power
    timer: Timer | None
    schedule: dict[Days, Program]
    preset: PresetName | None = None


class Preset(StateModel):
    """What applying a preset sets on a zone's unit."""

    mode: Mode
    target_temperature: Temperature
    fan_speed: FanSpeed


class HumidityControl(StateModel):
    """The whole-home humidity controller; ``current_humidity`` is measured (percent)."""

    mode: HumidityMode
    target_humidity: Percent
    current_humidity: Percent


class ClimateState(StateModel):
    """The whole climate system."""

    zones: dict[Zone, ZoneUnit]
    humidity: HumidityControl
    purifier: PurifierLevel
    presets: dict[PresetName, Preset]


def initial_state(world_seed: int) -> ClimateState:
    """The climate system for ``world_seed``, drawn from one seeded RNG (deterministic).

    Invariants every world satisfies: two to four of the five units run; a running unit's vent is
    not closed; a unit in dry mode runs its fan on low; every target lies in its mode's range; a
    timer never repeats the unit's power.
    """
    rng = random.Random(f"climate/world/{world_seed}")
    running = set(rng.sample(ZONES, rng.randint(2, 4)))
    zones = {zone: _unit(rng, "on" if zone in running else "off") for zone in ZONES}
    humidity = HumidityControl(
        mode=rng.choice(get_args(HumidityMode)),
        target_humidity=rng.randrange(35, 56, 5),
        current_humidity=rng.randint(28, 68),
    )
    return ClimateState(zones=zones, humidity=humidity, purifier=rng.choice(PURIFIER_LEVELS), presets=_presets(rng))


def _unit(rng: random.Random, power: Power) -> ZoneUnit:
    mode = rng.choice(("heat", "cool", "auto") * 2 + ("dry", "fan_only"))
    low, high = TEMPERATURE_RANGE.get(mode, (18, 28))
    vents = ("open", "half") if power == "on" else VENT_POSITIONS
    timer = None
    if rng.random() < 0.35:
        timer = Timer(action="turn_off" if power == "on" else "turn_on", duration=rng.choice(DURATIONS))
    return ZoneUnit(
        power=power,
        mode=mode,
        target_temperature=rng.randint(max(low, 19), min(high, 25)),
        current_temperature=rng.randint(15, 29),
        fan_speed="low" if mode == "dry" else rng.choice(FAN_SPEEDS),
        vent=rng.choice(vents),
        child_lock=rng.choice(("on", "off")),
        timer=timer,
        schedule={days: rng.choice(PROGRAMS) for days in DAYS},
    )


def _presets(rng: random.Random) -> dict[PresetName, Preset]:
    eco_mode = rng.choice(("heat", "cool"))
    return {
        "comfort": Preset(mode="auto", target_temperature=rng.randint(21, 23), fan_speed="auto"),
        "eco": Preset(
            mode=eco_mode,
            target_temperature=rng.randint(17, 19) if eco_mode == "heat" else rng.randint(26, 28),
            fan_speed="low",
        ),
        "sleep": Preset(mode="auto", target_temperature=rng.randint(18, 20), fan_speed="low"),
        "boost": Preset(mode="heat", target_temperature=rng.randint(24, 26), fan_speed="high"),
        "quiet": Preset(mode="cool", target_temperature=rng.randint(22, 25), fan_speed="low"),
    }
