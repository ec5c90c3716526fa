"""Typed state of the car-cabin world: climate, seats, windows, sunroof, child locks, lighting, presets.

The layout is fixed (three climate zones, four seats of which the two front ones are ventilated,
four windows, two rear child locks); settings, the rain sensor and the preset contents are drawn
from ``random.Random(f"car_cabin/world/{world_seed}")``. The initial state always satisfies the
rules the operations enforce (see :mod:`._ops`).
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import StateModel

Power = Literal["on", "off"]
System = Literal["climate", "ambient_lighting", "rear_defroster", "steering_heater"]
ClimateMode = Literal["auto", "cool", "heat", "fan_only"]
Zone = Literal["driver", "passenger", "rear"]
FanSpeed = Literal["low", "medium", "high", "max"]
Seat = Literal["driver", "passenger", "rear_left", "rear_right"]
Level = Literal["off", "low", "medium", "high"]
Window = Literal["front_left", "front_right", "rear_left", "rear_right"]
WindowPosition = Literal["closed", "vent", "half", "open"]
SunroofPosition = Literal["closed", "tilt", "open"]
RearDoor = Literal["rear_left", "rear_right"]
Color = Literal["white", "amber", "red", "blue", "green", "purple", "teal"]
PresetName = Literal["winter_morning", "summer_cooling", "night_drive", "fresh_air"]
Section = Literal["climate", "windows", "lighting", "doors"]
RainSensor = Literal["dry", "raining"]

SYSTEMS: tuple[System, ...] = get_args(System)
MODES: tuple[ClimateMode, ...] = get_args(ClimateMode)
ZONES: tuple[Zone, ...] = get_args(Zone)
FAN_SPEEDS: tuple[FanSpeed, ...] = get_args(FanSpeed)
SEATS: tuple[Seat, ...] = get_args(Seat)
LEVELS: tuple[Level, ...] = get_args(Level)
WINDOWS: tuple[Window, ...] = get_args(Window)
WINDOW_POSITIONS: tuple[WindowPosition, ...] = get_args(WindowPosition)
SUNROOF_POSITIONS: tuple[SunroofPosition, ...] = get_args(SunroofPosition)
REAR_DOORS: tuple[RearDoor, ...] = get_args(RearDoor)
COLORS: tuple[Color, ...] = get_args(Color)
PRESETS: tuple[PresetName, ...] = get_args(PresetName)
SECTIONS: tuple[Section, ...] = get_args(Section)

VENTILATED_SEATS: tuple[Seat, ...] = ("driver", "passenger")
"""Only the front seats have ventilation; a rear seat's ventilation is None."""
CHILD_SAFE_POSITIONS: tuple[WindowPosition, ...] = ("closed", "vent")
"""Where a rear window may be while its door's child lock is on."""
TEMPERATURE_MIN, TEMPERATURE_MAX = 16, 30
"""Target temperature range of every zone, °C inclusive."""

Temperature = Annotated[int, Field(ge=TEMPERATURE_MIN, le=TEMPERATURE_MAX)]
Brightness = Annotated[int, Field(ge=1, le=100)]


class Climate(StateModel):
    """The climate system; targets are kept while it is off. ``cabin_temperature`` is measured (°C)."""

    power: Power
    mode: ClimateMode
    fan_speed: FanSpeed
    targets: dict[Zone, Temperature]
    cabin_temperature: int
    rear_defroster: Power
    steering_heater: Power


class SeatState(StateModel):
    """One seat's comfort settings; heating and ventilation are never both on."""

    heating: Level
    ventilation: Level | None


class Openings(StateModel):
    """Windows, sunroof and the rain sensor (read-only)."""

    windows: dict[Window, WindowPosition]
    sunroof: SunroofPosition
    rain_sensor: RainSensor


class Lighting(StateModel):
    """Ambient lighting; color and brightness (percent) are kept while it is off."""

    power: Power
    color: Color
    brightness: Brightness


class Preset(StateModel):
    """A named comfort preset; a None field (or a missing key) leaves that setting alone.

    Applying a preset that sets a climate field turns the climate on; one that sets the lighting
    turns the ambient lighting on; a seat heating level other than off switches that seat's
    ventilation off (and the other way round).
    """

    description: str
    mode: ClimateMode | None = None
    fan_speed: FanSpeed | None = None
    temperature: Temperature | None = None
    seat_heating: dict[Seat, Level] = {}
    seat_ventilation: dict[Seat, Level] = {}
    windows: dict[Window, WindowPosition] = {}
    sunroof: SunroofPosition | None = None
    color: Color | None = None
    brightness: Brightness | None = None
    steering_heater: Power | None = None
    rear_defroster: Power | None = None


class CabinState(StateModel):
    """The whole cabin."""

    climate: Climate
    seats: dict[Seat, SeatState]
    openings: Openings
    child_locks: dict[RearDoor, Power]
    lighting: Lighting
    presets: dict[PresetName, Preset]
    active_preset: PresetName | None = None


def initial_state(world_seed: int) -> CabinState:
    """The cabin for ``world_seed`` (deterministic; differs across seeds)."""
    rng = random.Random(f"car_cabin/world/{world_seed}")
    climate = Climate(
        power=rng.choice(("on", "off")),
        mode=rng.choice(("auto", "cool", "heat", "auto", "cool", "heat", "fan_only")),
        fan_speed=rng.choice(FAN_SPEEDS),
        targets={zone: rng.randint(18, 26) for zone in ZONES},
        cabin_temperature=rng.randint(8, 34),
        rear_defroster=rng.choice(("on", "off")),
        steering_heater=rng.choice(("on", "off")),
    )
    child_locks: dict[RearDoor, Power] = {door: rng.choice(("on", "off")) for door in REAR_DOORS}
    rain: RainSensor = rng.choice(("dry", "raining"))
    windows = {w: rng.choice(CHILD_SAFE_POSITIONS if child_locks.get(w) == "on" else WINDOW_POSITIONS) for w in WINDOWS}
    sunroof = rng.choice(("closed", "tilt") if rain == "raining" else SUNROOF_POSITIONS)
    return CabinState(
        climate=climate,
        seats={seat: _seat(rng, seat) for seat in SEATS},
        openings=Openings(windows=windows, sunroof=sunroof, rain_sensor=rain),
        child_locks=child_locks,
        lighting=Lighting(
            power=rng.choice(("on", "off")), color=rng.choice(COLORS), brightness=rng.randrange(20, 101, 10)
        ),
        presets=_presets(rng),
    )


def _seat(rng: random.Random, seat: Seat) -> SeatState:
    if seat not in VENTILATED_SEATS:
        return SeatState(heating=rng.choice(LEVELS), ventilation=None)
    if rng.random() < 0.5:
        return SeatState(heating=rng.choice(LEVELS), ventilation="off")
    return SeatState(heating="off", ventilation=rng.choice(LEVELS))


def _presets(rng: random.Random) -> dict[PresetName, Preset]:
    return {
        "winter_morning": Preset(
            description="Heat at a warm target, heated front seats and wheel, rear defroster on.",
            mode="heat",
            temperature=rng.randint(22, 25),
            seat_heating={"driver": rng.choice(("medium", "high")), "passenger": rng.choice(("low", "medium"))},
            steering_heater="on",
            rear_defroster="on",
        ),
        "summer_cooling": Preset(
            description="Cool at a fresh target with a strong fan, ventilated front seats, windows closed.",
            mode="cool",
            fan_speed=rng.choice(("high", "max")),
            temperature=rng.randint(18, 21),
            seat_ventilation={"driver": rng.choice(("medium", "high")), "passenger": "medium"},
            windows={w: "closed" for w in WINDOWS},
            sunroof="closed",
        ),
        "night_drive": Preset(
            description="Dim, colored ambient lighting and automatic climate.",
            mode="auto",
            color=rng.choice(("amber", "blue", "purple")),
            brightness=rng.choice((10, 20, 30)),
        ),
        "fresh_air": Preset(
            description="Fan only, front windows and sunroof venting.",
            mode="fan_only",
            fan_speed=rng.choice(("low", "medium")),
            windows={"front_left": "vent", "front_right": "vent"},
            sunroof="tilt",
        ),
    }
