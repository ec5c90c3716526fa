"""Typed state of the robot-vacuum world: home layout, robot, no-go zones, schedule and presets.

The layout (which map each room is on, its floor type, which room holds each no-go zone) and
the presets (:data:`PRESET_TABLE`) are fixed; the robot's status, settings, zone states, weekly
schedule and cleaning history are drawn from ``random.Random(f"vacuum/world/{world_seed}")``.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

Room = Literal["kitchen", "living_room", "dining_room", "hallway", "bedroom", "office", "bathroom"]
Target = Literal["kitchen", "living_room", "dining_room", "hallway", "bedroom", "office", "bathroom", "whole_map"]
MapName = Literal["ground_floor", "upper_floor"]
Floor = Literal["carpet", "tile", "wood"]
Status = Literal["docked", "cleaning", "paused", "idle"]
Mode = Literal["vacuum", "mop", "vacuum_and_mop"]
Suction = Literal["quiet", "standard", "turbo", "max"]
WaterLevel = Literal["low", "medium", "high"]
Switch = Literal["on", "off"]
Pad = Literal["attached", "detached"]
After = Literal["dock", "stay"]
Day = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
ZoneName = Literal["pet_bowls", "rug", "desk_cables", "bath_mat", "shoe_rack", "toy_corner"]
PresetName = Literal["quick", "deep", "quiet_night", "pet_hair", "mop_only"]
LastCleaned = Literal["today", "yesterday", "this_week", "last_week"]

ROOMS: tuple[Room, ...] = get_args(Room)
MAPS: tuple[MapName, ...] = get_args(MapName)
MODES: tuple[Mode, ...] = get_args(Mode)
SUCTIONS: tuple[Suction, ...] = get_args(Suction)
WATER_LEVELS: tuple[WaterLevel, ...] = get_args(WaterLevel)
DAYS: tuple[Day, ...] = get_args(Day)
ZONES: tuple[ZoneName, ...] = get_args(ZoneName)
PRESETS: tuple[PresetName, ...] = get_args(PresetName)

MAP_OF: dict[Room, MapName] = {
    "kitchen": "ground_floor",
    "living_room": "ground_floor",
    "dining_room": "ground_floor",
    "hallway": "ground_floor",
    "bedroom": "upper_floor",
    "office": "upper_floor",
    "bathroom": "upper_floor",
}
FLOOR_OF: dict[Room, Floor] = {
    "kitchen": "tile",
    "living_room": "carpet",
    "dining_room": "wood",
    "hallway": "wood",
    "bedroom": "carpet",
    "office": "carpet",
    "bathroom": "tile",
}
ZONE_ROOM: dict[ZoneName, Room] = {
    "pet_bowls": "kitchen",
    "rug": "living_room",
    "desk_cables": "office",
    "bath_mat": "bathroom",
    "shoe_rack": "hallway",
    "toy_corner": "bedroom",
}
MOP_MODES: tuple[Mode, ...] = ("mop", "vacuum_and_mop")
MIN_BATTERY = 20
"""Battery (%) below which the robot refuses to start a clean."""
QUIET_HOURS = (22, 7)
"""Do-not-disturb window: no scheduled clean may start at or after 22:00 or before 07:00."""

Hour = Annotated[int, Field(ge=0, le=23)]
Passes = Annotated[int, Field(ge=1, le=3)]


class Job(StateModel):
    """The clean in progress (running or paused)."""

    target: Target
    passes: Passes


class Robot(StateModel):
    """The robot and its settings; ``job`` is None unless cleaning or paused."""

    status: Status
    battery: Percent
    mode: Mode
    suction: Suction
    water_level: WaterLevel
    mop_pad: Pad
    child_lock: Switch
    active_map: MapName
    job: Job | None = None


class RoomInfo(StateModel):
    """A room: its map, floor type and when it was last cleaned."""

    map: MapName
    floor: Floor
    last_cleaned: LastCleaned


class ScheduledClean(StateModel):
    """A day's scheduled clean of the whole active map."""

    hour: Hour
    mode: Mode


class Preset(StateModel):
    """A named bundle of settings; a None field keeps the current value."""

    description: str
    mode: Mode
    suction: Suction | None = None
    water_level: WaterLevel | None = None


class VacuumState(StateModel):
    """The whole world."""

    robot: Robot
    rooms: dict[Room, RoomInfo]
    zones: dict[ZoneName, Switch]
    schedule: dict[Day, ScheduledClean | None]


PRESET_TABLE: dict[PresetName, Preset] = {
    "quick": Preset(description="A fast vacuum-only pass at standard suction.", mode="vacuum", suction="standard"),
    "deep": Preset(
        description="Vacuum and mop at max suction with high water.",
        mode="vacuum_and_mop",
        suction="max",
        water_level="high",
    ),
    "quiet_night": Preset(description="Vacuum only, at quiet suction.", mode="vacuum", suction="quiet"),
    "pet_hair": Preset(description="Vacuum only, at turbo suction for pet hair.", mode="vacuum", suction="turbo"),
    "mop_only": Preset(description="Mop only, with medium water.", mode="mop", water_level="medium"),
}
"""The robot's built-in presets (the same in every world)."""


def initial_state(world_seed: int) -> VacuumState:
    """The world for ``world_seed``, drawn from one seeded RNG (deterministic)."""
    rng = random.Random(f"vacuum/world/{world_seed}")
    return VacuumState(
        robot=_robot(rng),
        rooms={
            room: RoomInfo(
                map=MAP_OF[room],
                floor=FLOOR_OF[room],
                last_cleaned=rng.choice(get_args(LastCleaned)),
            )
            for room in ROOMS
        },
        zones={zone: rng.choice(("on", "off")) for zone in ZONES},
        schedule={day: _scheduled(rng) for day in DAYS},
    )


def _robot(rng: random.Random) -> Robot:
    pad = rng.choices(("attached", "detached"), weights=(3, 1))[0]
    status = rng.choices(("docked", "cleaning", "paused", "idle"), weights=(5, 2, 1, 2))[0]
    active_map = rng.choice(MAPS)
    mode = rng.choice(MODES if pad == "attached" else ("vacuum",))
    job = None
    if status in ("cleaning", "paused"):
        target = rng.choice([r for r in ROOMS if MAP_OF[r] == active_map and not _soaks(mode, r)])
        job = Job(target=target, passes=rng.randint(1, 3))
    return Robot(
        status=status,
        battery=rng.randrange(35, 101, 5),
        mode=mode,
        suction=rng.choice(SUCTIONS),
        water_level=rng.choice(WATER_LEVELS),
        mop_pad=pad,
        child_lock=rng.choice(("on", "off")),
        active_map=active_map,
        job=job,
    )


def _soaks(mode: Mode, room: Room) -> bool:
    return mode == "mop" and FLOOR_OF[room] == "carpet"


def _scheduled(rng: random.Random) -> ScheduledClean | None:
    if rng.random() < 0.4:
        return None
    return ScheduledClean(hour=rng.randint(8, 20), mode=rng.choice(MODES))


def rooms_of(map_name: MapName) -> tuple[Room, ...]:
    """The rooms on ``map_name``, in layout order."""
    return tuple(r for r in ROOMS if MAP_OF[r] == map_name)
