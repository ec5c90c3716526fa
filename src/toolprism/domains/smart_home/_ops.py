"""The smart-home native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- brightness and color can only be set on a light that is on;
- blinds, fans and speakers exist only in some rooms;
- a thermostat that is off accepts no target temperature, and each mode accepts its own range
  (heat 10-28 °C, cool 16-32 °C, auto 16-28 °C);
- locking a locked door (or unlocking an unlocked one) is refused;
- stopping music where nothing plays is refused.

Other writes are idempotent: repeating one changes nothing and succeeds.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, listing, refuse_if, require_on
from toolprism.domains.smart_home._state import (
    TEMPERATURE_RANGE,
    ZONE_OF,
    Color,
    FanSpeed,
    HomeState,
    Light,
    LockName,
    LockState,
    Mode,
    Playlist,
    Position,
    Power,
    Room,
    SceneName,
    Speaker,
    Zone,
)

RoomArg = Annotated[Room, Field(description="The room.")]
ZoneArg = Annotated[Zone, Field(description="The thermostat zone (the bedroom and bathroom are upstairs).")]
LockArg = Annotated[LockName, Field(description="The door lock.")]


def _device_reply(state: HomeState, room: Room, device: Literal["light", "speaker"]) -> dict:
    return {"room": room, device: getattr(state.rooms[room], device).model_dump(mode="json")}


def _lit(state: HomeState, room: Room, what: str) -> Light:
    """The room's light, refusing if it is off (brightness and color need the light on)."""
    return require_on(state.rooms[room].light, f"the {room} light is off; turn it on before setting its {what}")


def _room_reply(state: HomeState, room: Room) -> dict:
    r = state.rooms[room]
    return {
        "room": room,
        "zone": ZONE_OF[room],
        "light": r.light.model_dump(mode="json"),
        "blinds": r.blinds,
        "fan": r.fan,
        "speaker": r.speaker.model_dump(mode="json") if r.speaker else None,
    }


def _thermostat_reply(state: HomeState, zone: Zone) -> dict:
    return dumped("zone", zone, state.thermostats[zone])


def _set_fixture(state: HomeState, room: Room, fixture: Literal["blinds", "fan"], value: str) -> dict:
    """Set the room's blinds or fan, refusing if the room has none."""
    refuse_if(getattr(state.rooms[room], fixture) is None, f"the {room} has no {fixture}")
    setattr(state.rooms[room], fixture, value)
    return {"room": room, fixture: value}


def _speaker(state: HomeState, room: Room) -> Speaker:
    """The room's speaker, refusing if the room has none."""
    speaker = state.rooms[room].speaker
    refuse_if(speaker is None, f"the {room} has no speaker")
    return speaker


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="rooms")
def get_room_status(state: HomeState, room: RoomArg) -> dict:
    """Get the state of every device in a room: light, blinds, fan and speaker (null if absent)."""
    return _room_reply(state, room)


@operation(kind="read", group="climate")
def get_thermostat(state: HomeState, zone: ZoneArg) -> dict:
    """Get a thermostat's mode, target temperature and measured temperature (°C)."""
    return _thermostat_reply(state, zone)


@operation(kind="read", group="locks")
def get_lock_status(state: HomeState, lock: LockArg) -> dict:
    """Get whether a door is locked or unlocked."""
    return {"lock": lock, "state": state.locks[lock]}


@operation(kind="read", group="scenes")
def list_scenes(state: HomeState) -> dict:
    """List the available scenes with what each one sets, and the last activated scene."""
    return {"scenes": listing(state.scenes, exclude_defaults=True), "active_scene": state.active_scene}


# --- lights ------------------------------------------------------------------------------------


@operation(kind="write", group="lights")
def set_light_power(
    state: HomeState,
    room: RoomArg,
    power: Annotated[Power, Field(description="Turn the light on or off.")],
) -> dict:
    """Turn a room's light on or off (it keeps its brightness and color)."""
    state.rooms[room].light.power = power
    return _device_reply(state, room, "light")


@operation(kind="write", group="lights")
def set_light_brightness(
    state: HomeState,
    room: RoomArg,
    brightness: Annotated[int, Field(ge=1, le=100, description="Brightness in percent (1-100).")],
) -> dict:
    """Set the brightness of a room's light; the light must be on."""
    _lit(state, room, "brightness").brightness = brightness
    return _device_reply(state, room, "light")


@operation(kind="write", group="lights")
def set_light_color(
    state: HomeState, room: RoomArg, color: Annotated[Color, Field(description="The light color.")]
) -> dict:
    """Set the color of a room's light; the light must be on."""
    _lit(state, room, "color").color = color
    return _device_reply(state, room, "light")


# --- blinds, fans, speakers --------------------------------------------------------------------


@operation(kind="write", group="blinds")
def set_blinds(
    state: HomeState,
    room: RoomArg,
    position: Annotated[Position, Field(description="Where to move the blinds.")],
) -> dict:
    """Open, half-open or close a room's blinds (the living room, kitchen, bedroom, office)."""
    return _set_fixture(state, room, "blinds", position)


@operation(kind="write", group="fans")
def set_fan_speed(
    state: HomeState,
    room: RoomArg,
    speed: Annotated[FanSpeed, Field(description="Fan speed, or off.")],
) -> dict:
    """Set a room's ceiling fan speed (living room, bedroom and office have fans)."""
    return _set_fixture(state, room, "fan", speed)


@operation(kind="write", group="media")
def play_music(
    state: HomeState,
    room: RoomArg,
    playlist: Annotated[Playlist, Field(description="The playlist to play.")],
) -> dict:
    """Play a playlist on a room's speaker (living room, kitchen and office have speakers)."""
    _speaker(state, room).playlist = playlist
    return _device_reply(state, room, "speaker")


@operation(kind="write", group="media")
def stop_music(state: HomeState, room: RoomArg) -> dict:
    """Stop the music playing on a room's speaker."""
    speaker = _speaker(state, room)
    refuse_if(speaker.playlist is None, f"nothing is playing in the {room}")
    speaker.playlist = None
    return _device_reply(state, room, "speaker")


@operation(kind="write", group="media")
def set_volume(
    state: HomeState,
    room: RoomArg,
    volume: Annotated[int, Field(ge=0, le=100, description="Volume in percent (0-100).")],
) -> dict:
    """Set the volume of a room's speaker."""
    _speaker(state, room).volume = volume
    return _device_reply(state, room, "speaker")


# --- climate -----------------------------------------------------------------------------------


@operation(kind="write", group="climate")
def set_mode(
    state: HomeState,
    zone: ZoneArg,
    mode: Annotated[Mode, Field(description="Heating/cooling mode, or off.")],
) -> dict:
    """Set a thermostat's mode; a target outside the new mode's range is clamped into it."""
    thermostat = state.thermostats[zone]
    thermostat.mode = mode
    if mode != "off":
        low, high = TEMPERATURE_RANGE[mode]
        thermostat.target_temperature = min(max(thermostat.target_temperature, low), high)
    return _thermostat_reply(state, zone)


@operation(kind="write", group="climate")
def set_temperature(
    state: HomeState,
    zone: ZoneArg,
    temperature: Annotated[int, Field(ge=10, le=32, description="Target in °C: heat 10-28, cool 16-32, auto 16-28.")],
) -> dict:
    """Set a thermostat's target temperature; the thermostat must not be off."""
    thermostat = state.thermostats[zone]
    mode = thermostat.mode
    refuse_if(mode == "off", f"the {zone} thermostat is off; set a mode before a target temperature")
    low, high = TEMPERATURE_RANGE[mode]
    refuse_if(
        not low <= temperature <= high, f"in {mode} mode the target temperature must be between {low} and {high} °C"
    )
    thermostat.target_temperature = temperature
    return _thermostat_reply(state, zone)


# --- locks -------------------------------------------------------------------------------------


def _set_lock(state: HomeState, lock: LockName, value: LockState) -> dict:
    refuse_if(state.locks[lock] == value, f"the {lock} is already {value}")
    state.locks[lock] = value
    return {"lock": lock, "state": value}


@operation(kind="write", group="locks")
def lock_door(state: HomeState, lock: LockArg) -> dict:
    """Lock a door; refused if it is already locked."""
    return _set_lock(state, lock, "locked")


@operation(kind="write", group="locks")
def unlock_door(state: HomeState, lock: LockArg) -> dict:
    """Unlock a door; refused if it is already unlocked."""
    return _set_lock(state, lock, "unlocked")


# --- scenes ------------------------------------------------------------------------------------


@operation(kind="write", group="scenes")
def activate_scene(state: HomeState, scene: Annotated[SceneName, Field(description="The scene to activate.")]) -> dict:
    """Activate a scene: apply its preset to every device it covers (see list_scenes)."""
    preset = state.scenes[scene]
    changed: list[str] = []
    for room, light in preset.lights.items():
        before = state.rooms[room].light.model_copy()
        state.rooms[room].light = before.model_copy(update=light.model_dump(exclude_none=True))
        if state.rooms[room].light != before:
            changed.append(f"{room}.light")
    for room, position in preset.blinds.items():
        if state.rooms[room].blinds != position:
            state.rooms[room].blinds = position
            changed.append(f"{room}.blinds")
    for lock, value in preset.locks.items():
        if state.locks[lock] != value:
            state.locks[lock] = value
            changed.append(lock)
    for zone, setting in preset.thermostats.items():
        before = state.thermostats[zone].model_copy()
        state.thermostats[zone] = before.model_copy(update=setting.model_dump(exclude_none=True))
        if state.thermostats[zone] != before:
            changed.append(f"{zone}.thermostat")
    state.active_scene = scene
    return {"scene": scene, "changed": changed}


OPERATIONS = (
    get_room_status,
    get_thermostat,
    get_lock_status,
    list_scenes,
    set_light_power,
    set_light_brightness,
    set_light_color,
    set_blinds,
    set_fan_speed,
    play_music,
    stop_music,
    set_volume,
    set_mode,
    set_temperature,
    lock_door,
    unlock_door,
    activate_scene,
)
"""All operations, in the order the action space lists them."""
