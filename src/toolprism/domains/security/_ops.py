"""The security native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError`, checked before any mutation:

- arming (home, away or night) is refused while a monitored sensor reads open or the siren is
  muted; away and night mode also need every door locked or its sensor bypassed;
- a door that reads open cannot be locked; in away or night mode no door can be unlocked;
- sensor bypasses and the entry delay change only while the alarm is disarmed; the siren cannot be
  muted (volume 0) while armed;
- a camera cannot be switched off in away mode; recording needs the camera on, motion
  sensitivity needs it recording on motion; a floodlight's brightness needs it not off;
- switching the alarm to its current mode, a lock to its current state or a camera to its current
  power is refused.

Other writes are idempotent.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, refuse_if, require_on, words
from toolprism.domains.security._state import (
    ARMED,
    LOCKED_WHEN_ARMED,
    AlarmMode,
    Camera,
    CameraState,
    Days,
    Door,
    EntryDelay,
    Floodlight,
    FloodlightMode,
    LockState,
    Power,
    Recording,
    ScheduleMode,
    SecurityState,
    Sensitivity,
    Sensor,
    SensorStatus,
)
from toolprism.errors import DomainError

CameraArg = Annotated[Camera, Field(description="The camera.")]
LightArg = Annotated[Floodlight, Field(description="The outdoor floodlight.")]


def _status_reply(state: SecurityState) -> dict:
    return {
        "mode": state.mode,
        "siren_volume": state.siren_volume,
        "entry_delay": state.entry_delay,
        "schedule": dict(state.schedule),
        "doors": {
            d: {**s.model_dump(mode="json"), **state.sensors[d].model_dump(mode="json")} for d, s in state.doors.items()
        },
        "windows": {s: v.model_dump(mode="json") for s, v in state.sensors.items() if s not in state.doors},
    }


def _camera_reply(state: SecurityState, camera: Camera) -> dict:
    return dumped("camera", camera, state.cameras[camera])


def _light_reply(state: SecurityState, light: Floodlight) -> dict:
    return dumped("floodlight", light, state.floodlights[light])


def _disarmed(state: SecurityState, what: str) -> None:
    refuse_if(state.mode != "disarmed", f"the alarm is armed ({state.mode}); disarm it before changing {what}")


def _arming_problem(state: SecurityState, mode: AlarmMode) -> str | None:
    """Why the alarm cannot be armed in ``mode`` right now, or None."""
    if state.siren_volume == 0:
        return "the siren is muted; raise its volume before arming"
    for sensor, reading in state.sensors.items():
        if reading.contact == "open" and reading.status == "monitored":
            return f"the {words(sensor)} is open; close it or bypass its sensor before arming"
    if mode in LOCKED_WHEN_ARMED:
        for door, lock in state.doors.items():
            if lock.lock == "unlocked" and state.sensors[door].status == "monitored":
                return f"the {words(door)} is unlocked; lock it (or bypass its sensor) before arming {mode}"
    return None


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="alarm")
def get_status(state: SecurityState) -> dict:
    """Get the alarm mode, siren volume (%), entry delay, arming schedule, doors (lock, contact, sensor) and windows."""
    return _status_reply(state)


@operation(kind="read", group="cameras")
def get_camera(state: SecurityState, camera: CameraArg) -> dict:
    """Get a camera's power, recording mode and motion sensitivity."""
    return _camera_reply(state, camera)


@operation(kind="read", group="events")
def list_events(state: SecurityState) -> dict:
    """List today's recent events (time, where, what was detected), oldest first."""
    return {"events": [e.model_dump(mode="json") for e in state.events]}


# --- alarm -------------------------------------------------------------------------------------


@operation(kind="write", group="alarm")
def set_mode(
    state: SecurityState,
    mode: Annotated[AlarmMode, Field(description="Disarm the alarm, or arm it in home, away or night mode.")],
) -> dict:
    """Arm the alarm in home, away or night mode, or disarm it."""
    refuse_if(state.mode == mode, f"the alarm is already {mode if mode == 'disarmed' else 'armed ' + mode}")
    if mode in ARMED and (problem := _arming_problem(state, mode)):
        raise DomainError(problem)
    state.mode = mode
    return {"mode": mode}


@operation(kind="write", group="alarm")
def set_volume(
    state: SecurityState,
    volume: Annotated[int, Field(ge=0, le=100, description="Siren volume in percent (0-100; 0 mutes it).")],
) -> dict:
    """Set the siren volume; it cannot be muted while the alarm is armed."""
    refuse_if(volume == 0 and state.mode in ARMED, f"the alarm is armed ({state.mode}); the siren cannot be muted")
    state.siren_volume = volume
    return {"siren_volume": volume}


@operation(kind="write", group="alarm")
def set_entry_delay(
    state: SecurityState,
    delay: Annotated[EntryDelay, Field(description="Time to disarm after an entry door opens.")],
) -> dict:
    """Set how long the alarm waits after an entry door opens before the siren sounds; only while disarmed."""
    _disarmed(state, "the entry delay")
    state.entry_delay = delay
    return {"entry_delay": delay}


@operation(kind="write", group="alarm")
def set_schedule(
    state: SecurityState,
    days: Annotated[Days, Field(description="Which days the automatic arming applies to.")],
    mode: Annotated[ScheduleMode, Field(description="The mode to arm in automatically at night, or off.")],
) -> dict:
    """Choose the mode the alarm arms in automatically at night on weekdays or weekends (or off)."""
    state.schedule[days] = mode
    return {"schedule": dict(state.schedule)}


@operation(kind="write", group="sensors")
def set_bypass(
    state: SecurityState,
    sensor: Annotated[Sensor, Field(description="The door or window contact sensor.")],
    status: Annotated[SensorStatus, Field(description="Monitor the sensor, or bypass it (arming ignores it).")],
) -> dict:
    """Bypass a contact sensor (arming ignores it) or monitor it again; only while disarmed."""
    _disarmed(state, "sensor bypasses")
    state.sensors[sensor].status = status
    return dumped("sensor", sensor, state.sensors[sensor])


# --- doors -------------------------------------------------------------------------------------


@operation(kind="write", group="doors")
def set_lock(
    state: SecurityState,
    door: Annotated[Door, Field(description="The door.")],
    lock: Annotated[LockState, Field(description="Lock or unlock it.")],
) -> dict:
    """Lock or unlock a door; an open door cannot be locked, and no door unlocks in away or night mode."""
    current, contact, name = state.doors[door], state.sensors[door].contact, words(door)
    refuse_if(current.lock == lock, f"the {name} is already {lock}")
    refuse_if(lock == "locked" and contact == "open", f"the {name} is open; it cannot be locked until it is closed")
    armed = lock == "unlocked" and state.mode in LOCKED_WHEN_ARMED
    refuse_if(armed, f"the alarm is armed {state.mode}; disarm it before unlocking the {name}")
    current.lock = lock
    return {"door": door, "lock": lock, "contact": state.sensors[door].contact}


# --- cameras -----------------------------------------------------------------------------------


def _camera_on(state: SecurityState, camera: Camera, what: str) -> CameraState:
    return require_on(state.cameras[camera], f"the {camera} camera is off; turn it on before setting its {what}")


@operation(kind="write", group="cameras")
def set_power(
    state: SecurityState,
    camera: CameraArg,
    power: Annotated[Power, Field(description="Switch the camera on or off.")],
) -> dict:
    """Switch a camera on or off; cameras stay on while the alarm is armed away."""
    target = state.cameras[camera]
    refuse_if(target.power == power, f"the {camera} camera is already {power}")
    refuse_if(power == "off" and state.mode == "away", f"the alarm is armed away; the {camera} camera must stay on")
    target.power = power
    return _camera_reply(state, camera)


@operation(kind="write", group="cameras")
def set_recording(
    state: SecurityState,
    camera: CameraArg,
    recording: Annotated[Recording, Field(description="Record all the time, only on motion, or not at all.")],
) -> dict:
    """Set what a camera records; the camera must be on."""
    _camera_on(state, camera, "recording").recording = recording
    return _camera_reply(state, camera)


@operation(kind="write", group="cameras")
def set_sensitivity(
    state: SecurityState,
    camera: CameraArg,
    sensitivity: Annotated[Sensitivity, Field(description="How little movement counts as motion.")],
) -> dict:
    """Set a camera's motion sensitivity; the camera must be on and recording on motion."""
    target = _camera_on(state, camera, "sensitivity")
    refuse_if(
        target.recording != "motion",
        f"the {camera} camera records {target.recording}, not on motion; set it to motion recording first",
    )
    target.sensitivity = sensitivity
    return _camera_reply(state, camera)


# --- floodlights -------------------------------------------------------------------------------


@operation(kind="write", group="floodlights")
def set_floodlight(
    state: SecurityState,
    light: LightArg,
    mode: Annotated[FloodlightMode, Field(description="Off, always on, or on when motion is detected.")],
) -> dict:
    """Switch an outdoor floodlight off, on, or to come on with motion."""
    state.floodlights[light].mode = mode
    return _light_reply(state, light)


@operation(kind="write", group="floodlights")
def set_brightness(
    state: SecurityState,
    light: LightArg,
    brightness: Annotated[int, Field(ge=10, le=100, description="Brightness in percent (10-100).")],
) -> dict:
    """Set an outdoor floodlight's brightness; the floodlight must not be off."""
    refuse_if(
        state.floodlights[light].mode == "off",
        f"the {light} floodlight is off; switch it on or to motion before setting its brightness",
    )
    state.floodlights[light].brightness = brightness
    return _light_reply(state, light)


OPERATIONS = (
    get_status,
    get_camera,
    list_events,
    set_mode,
    set_volume,
    set_entry_delay,
    set_schedule,
    set_bypass,
    set_lock,
    set_power,
    set_recording,
    set_sensitivity,
    set_floodlight,
    set_brightness,
)
"""All operations, in the order the action space lists them."""
