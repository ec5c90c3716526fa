"""The robot-vacuum native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- a clean starts only from the dock or idle, on a room of the active map (or the whole map), with
  at least 20 % battery, and never in mop-only mode on a carpeted room (or a whole map with one);
- pause needs a running clean, resume a paused one, stop either;
- the map can only be switched while no clean is running or paused;
- the mop modes (and presets using them) need the mop pad attached; suction is unused in mop-only
  mode and the water level in vacuum-only mode, so setting them there is refused;
- a no-go zone cannot be changed while a clean of its room is in progress, and switching it to
  the state it already has is refused;
- a scheduled clean cannot start during the do-not-disturb hours (22:00-07:00).

Other writes are idempotent: repeating one changes nothing and succeeds.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import listing, refuse_if, transition, words
from toolprism.domains.vacuum._state import (
    FLOOR_OF,
    MAP_OF,
    MIN_BATTERY,
    MOP_MODES,
    PRESET_TABLE,
    QUIET_HOURS,
    ZONE_ROOM,
    After,
    Day,
    Job,
    MapName,
    Mode,
    PresetName,
    Room,
    ScheduledClean,
    Suction,
    Switch,
    Target,
    VacuumState,
    WaterLevel,
    ZoneName,
    rooms_of,
)
from toolprism.errors import DomainError

ModeArg = Annotated[Mode, Field(description="Cleaning mode: vacuum only, mop only, or both at once.")]


def _status(state: VacuumState) -> dict:
    robot = state.robot.model_dump(mode="json")
    schedule = {day: (s.model_dump(mode="json") if s else None) for day, s in state.schedule.items()}
    return {"robot": robot, "schedule": schedule}


def _settings(state: VacuumState) -> dict:
    r = state.robot
    return {"mode": r.mode, "suction": r.suction, "water_level": r.water_level}


def _robot_reply(state: VacuumState) -> dict:
    r = state.robot
    return {"status": r.status, "job": r.job.model_dump(mode="json") if r.job else None, "active_map": r.active_map}


def _needs_pad(state: VacuumState, mode: Mode, what: str) -> None:
    detached = state.robot.mop_pad == "detached"
    refuse_if(mode in MOP_MODES and detached, f"the mop pad is detached; attach it before using {what}")


def _carpets(target: Target, map_name: MapName) -> list[Room]:
    rooms = rooms_of(map_name) if target == "whole_map" else (target,)
    return [r for r in rooms if FLOOR_OF[r] == "carpet"]


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(state: VacuumState) -> dict:
    """Get the robot's status, battery, settings, active map, current clean and weekly schedule."""
    return _status(state)


@operation(kind="read", group="rooms")
def get_room(state: VacuumState, room: Annotated[Room, Field(description="The room.")]) -> dict:
    """Get a room's map, floor type, when it was last cleaned and its no-go zones (on or off)."""
    info = state.rooms[room]
    zones = {z: state.zones[z] for z, r in ZONE_ROOM.items() if r == room}
    return {"room": room, **info.model_dump(mode="json"), "no_go_zones": zones}


@operation(kind="read", group="presets")
def list_presets(state: VacuumState) -> dict:
    """List the cleaning presets and the settings each one applies."""
    return {"presets": listing(PRESET_TABLE, exclude_none=True), "current": _settings(state)}


# --- cleaning ----------------------------------------------------------------------------------


@operation(kind="write", group="cleaning")
def start(
    state: VacuumState,
    room: Annotated[Target, Field(description="The room to clean, or whole_map for every room on the active map.")],
    passes: Annotated[int, Field(ge=1, le=3, description="How many times to go over the floor (1-3).")],
) -> dict:
    """Start cleaning a room (or the whole active map) with the current mode and settings."""
    robot = state.robot
    if robot.status == "cleaning":
        raise DomainError(f"the robot is already cleaning the {words(robot.job.target)}; stop it first")
    if robot.status == "paused":
        raise DomainError(f"a clean of the {words(robot.job.target)} is paused; resume or stop it first")
    if room != "whole_map" and MAP_OF[room] != robot.active_map:
        raise DomainError(f"the {words(room)} is on the {MAP_OF[room]} map; switch to that map first")
    refuse_if(
        robot.battery < MIN_BATTERY, f"the battery is at {robot.battery}%; let the robot charge to {MIN_BATTERY}% first"
    )
    if robot.mode == "mop" and (carpets := _carpets(room, robot.active_map)):
        raise DomainError(f"mop-only mode would soak the carpet in the {words(carpets[0])}; change the mode first")
    robot.status, robot.job = "cleaning", Job(target=room, passes=passes)
    return _robot_reply(state)


@operation(kind="write", group="cleaning")
def pause(state: VacuumState) -> dict:
    """Pause the running clean; the robot waits where it is."""
    refusal = f"the robot is {state.robot.status}, not cleaning; there is nothing to pause"
    transition(state.robot, "status", "cleaning", "paused", refusal)
    return _robot_reply(state)


@operation(kind="write", group="cleaning")
def resume(state: VacuumState) -> dict:
    """Resume a paused clean."""
    refusal = f"the robot is {state.robot.status}; only a paused clean can be resumed"
    transition(state.robot, "status", "paused", "cleaning", refusal)
    return _robot_reply(state)


@operation(kind="write", group="cleaning")
def stop(
    state: VacuumState,
    then: Annotated[After, Field(description="Afterwards: go back to the dock, or stay where it is.")],
) -> dict:
    """Stop the running or paused clean, then return to the dock or stay put."""
    refuse_if(state.robot.job is None, f"the robot is {state.robot.status}; there is no clean to stop")
    state.robot.status = "docked" if then == "dock" else "idle"
    state.robot.job = None
    return _robot_reply(state)


@operation(kind="write", group="maps")
def set_map(state: VacuumState, map: Annotated[MapName, Field(description="The floor map to use.")]) -> dict:
    """Switch the active floor map; no clean may be running or paused."""
    refuse_if(state.robot.job is not None, f"a clean is {state.robot.status}; stop it before switching maps")
    state.robot.active_map = map
    return {"active_map": map, "rooms": list(rooms_of(map))}


# --- settings ----------------------------------------------------------------------------------


@operation(kind="write", group="settings")
def set_mode(state: VacuumState, mode: ModeArg) -> dict:
    """Set the cleaning mode; the mop modes need the mop pad attached."""
    _needs_pad(state, mode, f"{words(mode)} mode")
    state.robot.mode = mode
    return _settings(state)


@operation(kind="write", group="settings")
def set_suction(
    state: VacuumState,
    level: Annotated[Suction, Field(description="Suction power, from quiet to max.")],
) -> dict:
    """Set the suction power; refused in mop-only mode (suction is unused there)."""
    refuse_if(state.robot.mode == "mop", "suction is unused in mop mode; switch to vacuum or vacuum_and_mop first")
    state.robot.suction = level
    return _settings(state)


@operation(kind="write", group="settings")
def set_water_level(
    state: VacuumState,
    level: Annotated[WaterLevel, Field(description="How wet the mop runs.")],
) -> dict:
    """Set the mop's water level; refused in vacuum-only mode (the mop is unused there)."""
    refuse_if(state.robot.mode == "vacuum", "the mop is unused in vacuum mode; switch to mop or vacuum_and_mop first")
    state.robot.water_level = level
    return _settings(state)


@operation(kind="write", group="settings")
def set_child_lock(
    state: VacuumState,
    lock: Annotated[Switch, Field(description="on: the robot's buttons are locked; off: they work.")],
) -> dict:
    """Turn the child lock on the robot's buttons on or off."""
    state.robot.child_lock = lock
    return {"child_lock": lock}


@operation(kind="write", group="presets")
def apply_preset(state: VacuumState, preset: Annotated[PresetName, Field(description="The preset to apply.")]) -> dict:
    """Apply a preset's mode, suction and water level (see list_presets)."""
    chosen = PRESET_TABLE[preset]
    _needs_pad(state, chosen.mode, f"the {words(preset)} preset")
    robot = state.robot
    robot.mode = chosen.mode
    robot.suction = chosen.suction or robot.suction
    robot.water_level = chosen.water_level or robot.water_level
    return {"preset": preset, **_settings(state)}


# --- zones and schedule ------------------------------------------------------------------------


@operation(kind="write", group="zones")
def set_no_go_zone(
    state: VacuumState,
    zone: Annotated[ZoneName, Field(description="The no-go zone (each lies in one room; see get_room).")],
    status: Annotated[Switch, Field(description="on: the robot keeps out; off: it cleans there.")],
) -> dict:
    """Turn a no-go zone on or off; not while a clean of its room is in progress."""
    room, job = ZONE_ROOM[zone], state.robot.job
    if job is not None and job.target in (room, "whole_map") and MAP_OF[room] == state.robot.active_map:
        raise DomainError(
            f"the robot is cleaning the {words(job.target)}; stop the clean before changing {words(zone)}"
        )
    refuse_if(state.zones[zone] == status, f"the {words(zone)} no-go zone is already {status}")
    state.zones[zone] = status
    return {"zone": zone, "room": room, "status": status}


@operation(kind="write", group="schedule")
def set_schedule(
    state: VacuumState,
    day: Annotated[Day, Field(description="The day of the week.")],
    hour: Annotated[int, Field(ge=0, le=23, description="Start hour, 24-hour clock (7-21 outside quiet hours).")],
    mode: ModeArg,
) -> dict:
    """Schedule the weekly clean of the active map for a day, at an hour, in a mode (replaces that day's)."""
    late, early = QUIET_HOURS
    refuse_if(
        hour >= late or hour < early, f"{hour}:00 is within do-not-disturb hours ({late}:00-0{early}:00); pick 7 to 21"
    )
    state.schedule[day] = ScheduledClean(hour=hour, mode=mode)
    return {"day": day, "scheduled": state.schedule[day].model_dump(mode="json")}


OPERATIONS = (
    get_status,
    get_room,
    list_presets,
    start,
    pause,
    resume,
    stop,
    set_map,
    set_mode,
    set_suction,
    set_water_level,
    set_child_lock,
    apply_preset,
    set_no_go_zone,
    set_schedule,
)
"""All operations, in the order the action space lists them."""
