"""Typed state of the security world: alarm panel, door locks, contact sensors, cameras, floodlights.

The layout (four doors, six contact sensors, four cameras, three floodlights) is fixed; settings,
which sensors read open, and the recent event log are drawn from
``random.Random(f"security/world/{world_seed}")``. The event log and the contact readings are
measured, never set by an operation.
"""

from __future__ import annotations

import random
from typing import Literal, get_args

from toolprism.domains._device import Percent, StateModel

AlarmMode = Literal["disarmed", "home", "away", "night"]
Door = Literal["front_door", "back_door", "patio_door", "garage_door"]
Sensor = Literal["front_door", "back_door", "patio_door", "garage_door", "kitchen_window", "bedroom_window"]
LockState = Literal["locked", "unlocked"]
Contact = Literal["open", "closed"]
SensorStatus = Literal["monitored", "bypassed"]
EntryDelay = Literal["15_seconds", "30_seconds", "45_seconds", "60_seconds"]
Days = Literal["weekdays", "weekends"]
ScheduleMode = Literal["off", "home", "away", "night"]
Camera = Literal["driveway", "backyard", "porch", "garage"]
Power = Literal["on", "off"]
Recording = Literal["continuous", "motion", "off"]
Sensitivity = Literal["low", "medium", "high"]
Floodlight = Literal["driveway", "backyard", "porch"]
FloodlightMode = Literal["off", "on", "motion"]
EventKind = Literal["motion", "person", "package", "vehicle"]

ARMED: tuple[AlarmMode, ...] = ("home", "away", "night")
"""Alarm modes that count as armed."""
LOCKED_WHEN_ARMED: tuple[AlarmMode, ...] = ("away", "night")
"""Armed modes in which a door cannot be unlocked."""
DOORS: tuple[Door, ...] = get_args(Door)
SENSORS: tuple[Sensor, ...] = get_args(Sensor)
ENTRY_DELAYS: tuple[EntryDelay, ...] = get_args(EntryDelay)
DAYS: tuple[Days, ...] = get_args(Days)
SCHEDULE_MODES: tuple[ScheduleMode, ...] = get_args(ScheduleMode)
CAMERAS: tuple[Camera, ...] = get_args(Camera)
RECORDINGS: tuple[Recording, ...] = get_args(Recording)
SENSITIVITIES: tuple[Sensitivity, ...] = get_args(Sensitivity)
FLOODLIGHTS: tuple[Floodlight, ...] = get_args(Floodlight)
FLOODLIGHT_MODES: tuple[FloodlightMode, ...] = get_args(FloodlightMode)
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)


class DoorState(StateModel):
    """A door's smart lock."""

    lock: LockState


class SensorState(StateModel):
    """A contact sensor: what it reads (measured) and whether arming checks it."""

    contact: Contact
    status: SensorStatus


class CameraState(StateModel):
    """A camera; recording and sensitivity are kept while it is off."""

    power: Power
    recording: Recording
    sensitivity: Sensitivity


class FloodlightState(StateModel):
    """An outdoor floodlight; brightness (percent) is kept while it is off."""

    mode: FloodlightMode
    brightness: Percent


class Event(StateModel):
    """One entry of the recent event log (newest last)."""

    time: str
    source: Floodlight
    kind: EventKind


class SecurityState(StateModel):
    """The whole security system."""

    mode: AlarmMode
    siren_volume: Percent
    entry_delay: EntryDelay
    schedule: dict[Days, ScheduleMode]
    doors: dict[Door, DoorState]
    sensors: dict[Sensor, SensorState]
    cameras: dict[Camera, CameraState]
    floodlights: dict[Floodlight, FloodlightState]
    events: list[Event]


def initial_state(world_seed: int) -> SecurityState:
    """The security system for ``world_seed``, drawn from one seeded RNG (deterministic).

    Invariants every world satisfies: one or two sensors read open; an armed alarm has no open
    sensor that is monitored; in away or night mode every door is locked or its sensor bypassed;
    an armed alarm's siren is not muted.
    """
    rng = random.Random(f"security/world/{world_seed}")
    mode = rng.choice(("disarmed", "disarmed", "home", "night", "away"))
    open_sensors = set(rng.sample(SENSORS, rng.randint(1, 2)))
    sensors = {
        s: SensorState(
            contact="open" if s in open_sensors else "closed",
            status="bypassed" if s in open_sensors and (mode != "disarmed" or rng.random() < 0.3) else "monitored",
        )
        for s in SENSORS
    }
    doors = {d: DoorState(lock=rng.choice(("locked", "unlocked"))) for d in DOORS}
    for door, state in doors.items():
        if sensors[door].contact == "open":
            state.lock = "unlocked"  # an open door's bolt cannot be thrown
        elif mode in LOCKED_WHEN_ARMED:
            state.lock = "locked"
    cameras = {
        c: CameraState(
            power="on" if rng.random() < 0.75 else "off",
            recording=rng.choice(RECORDINGS),
            sensitivity=rng.choice(SENSITIVITIES),
        )
        for c in CAMERAS
    }
    floodlights = {
        f: FloodlightState(mode=rng.choice(FLOODLIGHT_MODES), brightness=rng.randrange(30, 101, 10))
        for f in FLOODLIGHTS
    }
    return SecurityState(
        mode=mode,
        siren_volume=rng.randrange(40, 101, 10),
        entry_delay=rng.choice(ENTRY_DELAYS),
        schedule={days: rng.choice(SCHEDULE_MODES) for days in DAYS},
        doors=doors,
        sensors=sensors,
        cameras=cameras,
        floodlights=floodlights,
        events=_events(rng),
    )


def _events(rng: random.Random) -> list[Event]:
    minutes = sorted(rng.sample(range(6 * 60, 23 * 60), 5))
    return [
        Event(time=f"{m // 60:02d}:{m % 60:02d}", source=rng.choice(FLOODLIGHTS), kind=rng.choice(EVENT_KINDS))
        for m in minutes
    ]
