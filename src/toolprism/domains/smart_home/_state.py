"""Typed state of the smart-home world: house layout, device models, seeded initial state.

The layout (which rooms have blinds, a fan or a speaker, which thermostat zone serves a room) is
fixed; device settings and scene presets are drawn from ``random.Random(world_seed)``.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

Room = Literal["living_room", "kitchen", "bedroom", "bathroom", "office", "hallway", "garage"]
Color = Literal["warm_white", "cool_white", "daylight", "red", "orange", "yellow", "green", "blue", "purple", "pink"]
Power = Literal["on", "off"]
Position = Literal["open", "half", "closed"]
FanSpeed = Literal["off", "low", "medium", "high"]
Playlist = Literal["jazz", "classical", "pop", "rock", "lofi", "ambient"]
Zone = Literal["downstairs", "upstairs"]
Mode = Literal["heat", "cool", "auto", "off"]
LockName = Literal["front_door", "back_door", "garage_door"]
LockState = Literal["locked", "unlocked"]
SceneName = Literal["movie_night", "good_morning", "good_night", "away", "dinner"]

ROOMS: tuple[Room, ...] = get_args(Room)
COLORS: tuple[Color, ...] = get_args(Color)
POSITIONS: tuple[Position, ...] = get_args(Position)
FAN_SPEEDS: tuple[FanSpeed, ...] = get_args(FanSpeed)
PLAYLISTS: tuple[Playlist, ...] = get_args(Playlist)
ZONES: tuple[Zone, ...] = get_args(Zone)
MODES: tuple[Mode, ...] = get_args(Mode)
LOCKS: tuple[LockName, ...] = get_args(LockName)
SCENES: tuple[SceneName, ...] = get_args(SceneName)

BLINDS_ROOMS: tuple[Room, ...] = ("living_room", "kitchen", "bedroom", "office")
FAN_ROOMS: tuple[Room, ...] = ("living_room", "bedroom", "office")
SPEAKER_ROOMS: tuple[Room, ...] = ("living_room", "kitchen", "office")
ZONE_OF: dict[Room, Zone] = {
    "living_room": "downstairs",
    "kitchen": "downstairs",
    "office": "downstairs",
    "hallway": "downstairs",
    "garage": "downstairs",
    "bedroom": "upstairs",
    "bathroom": "upstairs",
}
TEMPERATURE_RANGE: dict[Mode, tuple[int, int]] = {
    "heat": (10, 28),
    "cool": (16, 32),
    "auto": (16, 28),
}
"""Target temperatures (°C, inclusive) each active mode accepts; an off thermostat accepts none."""

Brightness = Annotated[int, Field(ge=1, le=100)]
Temperature = Annotated[int, Field(ge=10, le=32)]


class Light(StateModel):
    """A room's light. Brightness and color are kept while the light is off."""

    power: Power
    brightness: Brightness
    color: Color


class Speaker(StateModel):
    """A room's speaker; ``playlist`` is None when nothing is playing."""

    playlist: Playlist | None
    volume: Percent


class RoomState(StateModel):
    """One room's devices; a device the room lacks is None."""

    light: Light
    blinds: Position | None
    fan: FanSpeed | None
    speaker: Speaker | None


class Thermostat(StateModel):
    """One zone's thermostat; ``current_temperature`` is measured, not settable."""

    mode: Mode
    target_temperature: Temperature
    current_temperature: int


class LightPreset(StateModel):
    """A scene's light setting; None fields keep the light's current value."""

    power: Power
    brightness: Brightness | None = None
    color: Color | None = None


class ThermostatPreset(StateModel):
    """A scene's thermostat setting; a None target keeps the current target."""

    mode: Mode
    target_temperature: Temperature | None = None


class Scene(StateModel):
    """A named preset applied to several devices at once."""

    description: str
    lights: dict[Room, LightPreset] = {}
    blinds: dict[Room, Position] = {}
    locks: dict[LockName, LockState] = {}
    thermostats: dict[Zone, ThermostatPreset] = {}


class HomeState(StateModel):
    """The whole house."""

    rooms: dict[Room, RoomState]
    thermostats: dict[Zone, Thermostat]
    locks: dict[LockName, LockState]
    scenes: dict[SceneName, Scene]
    active_scene: SceneName | None = None


def initial_state(world_seed: int) -> HomeState:
    """The house for ``world_seed``: device settings and scene presets drawn from one seeded RNG."""
    rng = random.Random(world_seed)
    rooms = {room: _room(rng, room) for room in ROOMS}
    thermostats = {zone: _thermostat(rng) for zone in ZONES}
    locks = {lock: rng.choice(("locked", "unlocked")) for lock in LOCKS}
    return HomeState(rooms=rooms, thermostats=thermostats, locks=locks, scenes=_scenes(rng))


def _room(rng: random.Random, room: Room) -> RoomState:
    light = Light(
        power=rng.choice(("on", "off")),
        brightness=rng.randrange(10, 101, 10),
        color=rng.choice(COLORS),
    )
    blinds = rng.choice(POSITIONS) if room in BLINDS_ROOMS else None
    fan = rng.choice(FAN_SPEEDS) if room in FAN_ROOMS else None
    speaker = None
    if room in SPEAKER_ROOMS:
        speaker = Speaker(playlist=rng.choice((None, *PLAYLISTS)), volume=rng.randrange(10, 81, 5))
    return RoomState(light=light, blinds=blinds, fan=fan, speaker=speaker)


def _thermostat(rng: random.Random) -> Thermostat:
    # Never "off" initially, so every thermostat accepts a new target temperature.
    return Thermostat(
        mode=rng.choice(("heat", "cool", "auto")),
        target_temperature=rng.randint(19, 24),
        current_temperature=rng.randint(16, 27),
    )


def _scenes(rng: random.Random) -> dict[SceneName, Scene]:
    all_off = {room: LightPreset(power="off") for room in ROOMS}
    all_locked: dict[LockName, LockState] = {lock: "locked" for lock in LOCKS}
    return {
        "movie_night": Scene(
            description="Dim, colored living-room light, blinds closed; kitchen and hallway dark.",
            lights={
                "living_room": LightPreset(
                    power="on",
                    brightness=rng.choice((10, 15, 20, 25)),
                    color=rng.choice(("warm_white", "purple", "blue")),
                ),
                "kitchen": LightPreset(power="off"),
                "hallway": LightPreset(power="off"),
            },
            blinds={"living_room": "closed"},
        ),
        "good_morning": Scene(
            description="Bright bedroom and kitchen, blinds open, upstairs heating on.",
            lights={
                "bedroom": LightPreset(power="on", brightness=rng.choice((60, 70, 80)), color="daylight"),
                "kitchen": LightPreset(power="on", brightness=100, color="cool_white"),
            },
            blinds={"bedroom": "open", "kitchen": "open"},
            thermostats={"upstairs": ThermostatPreset(mode="heat", target_temperature=rng.randint(20, 22))},
        ),
        "good_night": Scene(
            description="All lights off, blinds closed, doors locked, upstairs heating lowered.",
            lights=all_off,
            blinds={room: "closed" for room in BLINDS_ROOMS},
            locks=all_locked,
            thermostats={"upstairs": ThermostatPreset(mode="heat", target_temperature=rng.randint(17, 19))},
        ),
        "away": Scene(
            description="All lights off, all doors locked, both thermostats off.",
            lights=all_off,
            locks=all_locked,
            thermostats={zone: ThermostatPreset(mode="off") for zone in ZONES},
        ),
        "dinner": Scene(
            description="Warm light in the kitchen and living room.",
            lights={
                "kitchen": LightPreset(power="on", brightness=rng.choice((60, 70, 80)), color="warm_white"),
                "living_room": LightPreset(power="on", brightness=rng.choice((40, 50)), color="warm_white"),
            },
        ),
    }
