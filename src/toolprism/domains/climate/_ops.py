"""The climate native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError`, checked before any mutation:

- mode, target temperature, fan speed and presets need the zone's unit on;
- a target temperature needs heat, cool or auto mode and lies in that mode's range
  (heat 16-26 °C, cool 18-30 °C, auto 18-28 °C); in dry mode the fan is fixed at low;
- a unit cannot run against a closed vent: turning it on needs the vent open or half open, and
  closing the vent needs the unit off;
- switching a unit on when it is on (or off when off), and setting the child lock to its current
  value, are refused; so is a timer that would switch the unit to the power it already has, and
  cancelling a timer that does not exist;
- humidifying needs a target above the measured humidity, dehumidifying one below it.

Other writes are idempotent. Switching a unit by hand clears a pending timer that would switch it
the same way; a manual change of mode, target or fan speed clears the applied preset.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, listing, refuse_if, require_on, switch, words
from toolprism.domains.climate._state import (
    HUMIDITY_RANGE,
    TEMPERATURE_RANGE,
    ClimateState,
    Days,
    Duration,
    FanSpeed,
    Mode,
    Power,
    PresetName,
    Program,
    PurifierLevel,
    Timer,
    TimerAction,
    VentPosition,
    Zone,
    ZoneUnit,
)

ZoneArg = Annotated[Zone, Field(description="The zone whose heat pump (and vent) to use.")]


def _zone_reply(state: ClimateState, zone: Zone) -> dict:
    return dumped("zone", zone, state.zones[zone])


def _running(state: ClimateState, zone: Zone, what: str) -> ZoneUnit:
    """The zone's unit, refusing if it is off."""
    return require_on(state.zones[zone], f"the {words(zone)} unit is off; turn it on before setting its {what}")


def _manual(unit: ZoneUnit, **changes: object) -> None:
    """Apply a manual change; the applied preset no longer describes the unit if anything changed."""
    if any(getattr(unit, k) != v for k, v in changes.items()):
        for key, value in changes.items():
            setattr(unit, key, value)
        unit.preset = None


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="zones")
def get_status(state: ClimateState, zone: ZoneArg) -> dict:
    """Get a zone's unit: power, mode, target and measured temperature (°C), fan, vent, lock, timer, schedule."""
    return _zone_reply(state, zone)


@operation(kind="read", group="air")
def get_air_status(state: ClimateState) -> dict:
    """Get the whole-home humidity controller (mode, target and measured humidity in %) and the purifier level."""
    return {"humidity": state.humidity.model_dump(mode="json"), "purifier": state.purifier}


@operation(kind="read", group="presets")
def list_presets(state: ClimateState) -> dict:
    """List the presets with the mode, target temperature (°C) and fan speed each one applies."""
    return {"presets": listing(state.presets)}


# --- power, mode, temperature, fan --------------------------------------------------------------


@operation(kind="write", group="zones")
def set_power(
    state: ClimateState,
    zone: ZoneArg,
    power: Annotated[Power, Field(description="Switch the unit on or off.")],
) -> dict:
    """Switch a zone's unit on or off; it cannot be switched on while its vent is closed."""
    unit = state.zones[zone]
    refuse_if(unit.power == power, f"the {words(zone)} unit is already {power}")
    refuse_if(
        power == "on" and unit.vent == "closed", f"the {words(zone)} vent is closed; open it before turning the unit on"
    )
    unit.power = power
    if unit.timer is not None and unit.timer.action == f"turn_{power}":
        unit.timer = None
    return _zone_reply(state, zone)


@operation(kind="write", group="zones")
def set_mode(
    state: ClimateState,
    zone: ZoneArg,
    mode: Annotated[Mode, Field(description="Operating mode of the unit.")],
) -> dict:
    """Set a running unit's mode; a target outside the new mode's range is clamped, dry mode fixes the fan at low."""
    unit = _running(state, zone, "mode")
    changes: dict[str, object] = {"mode": mode}
    if mode in TEMPERATURE_RANGE:
        low, high = TEMPERATURE_RANGE[mode]
        changes["target_temperature"] = min(max(unit.target_temperature, low), high)
    if mode == "dry":
        changes["fan_speed"] = "low"
    _manual(unit, **changes)
    return _zone_reply(state, zone)


@operation(kind="write", group="zones")
def set_temperature(
    state: ClimateState,
    zone: ZoneArg,
    temperature: Annotated[int, Field(ge=16, le=30, description="Target in °C: heat 16-26, cool 18-30, auto 18-28.")],
) -> dict:
    """Set a running unit's target temperature; the unit must be in heat, cool or auto mode."""
    unit = _running(state, zone, "target temperature")
    refuse_if(
        unit.mode not in TEMPERATURE_RANGE,
        f"in {words(unit.mode)} mode the {words(zone)} unit holds no target temperature; "
        "switch it to heat, cool or auto first",
    )
    low, high = TEMPERATURE_RANGE[unit.mode]
    refuse_if(
        not low <= temperature <= high,
        f"in {unit.mode} mode the target temperature must be between {low} and {high} °C",
    )
    _manual(unit, target_temperature=temperature)
    return _zone_reply(state, zone)


@operation(kind="write", group="zones")
def set_fan_speed(
    state: ClimateState,
    zone: ZoneArg,
    speed: Annotated[FanSpeed, Field(description="Fan speed of the unit.")],
) -> dict:
    """Set a running unit's fan speed; not available in dry mode, where the fan is fixed at low."""
    unit = _running(state, zone, "fan speed")
    refuse_if(unit.mode == "dry", f"in dry mode the {words(zone)} fan is fixed at low; change the mode first")
    _manual(unit, fan_speed=speed)
    return _zone_reply(state, zone)


@operation(kind="write", group="zones")
def set_vent(
    state: ClimateState,
    zone: ZoneArg,
    position: Annotated[VentPosition, Field(description="How far to open the zone's air vent.")],
) -> dict:
    """Open, half-open or close a zone's air vent; it can only be closed while the unit is off."""
    unit = state.zones[zone]
    refuse_if(
        position == "closed" and unit.power == "on",
        f"the {words(zone)} unit is running; turn it off before closing its vent",
    )
    unit.vent = position
    return _zone_reply(state, zone)


@operation(kind="write", group="zones")
def set_child_lock(
    state: ClimateState,
    zone: ZoneArg,
    lock: Annotated[Power, Field(description="Lock (on) or unlock (off) the unit's wall panel.")],
) -> dict:
    """Turn the child lock of a zone's wall panel on or off (the assistant's controls stay available)."""
    switch(state.zones[zone], "child_lock", lock, f"the {words(zone)} child lock is already {lock}")
    return _zone_reply(state, zone)


# --- timers, schedules, presets -----------------------------------------------------------------


@operation(kind="write", group="timers")
def set_timer(
    state: ClimateState,
    zone: ZoneArg,
    action: Annotated[TimerAction, Field(description="Whether the timer turns the unit on or off.")],
    duration: Annotated[Duration, Field(description="How long from now the timer fires.")],
) -> dict:
    """Set (or replace) a zone's timer that turns its unit on or off after a duration."""
    unit = state.zones[zone]
    refuse_if(
        action == f"turn_{unit.power}",
        f"the {words(zone)} unit is already {unit.power}; a {words(action)} timer would do nothing",
    )
    unit.timer = Timer(action=action, duration=duration)
    return _zone_reply(state, zone)


@operation(kind="write", group="timers")
def cancel_timer(state: ClimateState, zone: ZoneArg) -> dict:
    """Cancel a zone's pending timer."""
    unit = state.zones[zone]
    refuse_if(unit.timer is None, f"the {words(zone)} unit has no timer to cancel")
    unit.timer = None
    return _zone_reply(state, zone)


@operation(kind="write", group="schedules")
def set_schedule(
    state: ClimateState,
    zone: ZoneArg,
    days: Annotated[Days, Field(description="Which days the program applies to.")],
    program: Annotated[Program, Field(description="The weekly program to follow on those days.")],
) -> dict:
    """Choose the program a zone follows on weekdays or on weekends."""
    state.zones[zone].schedule[days] = program
    return _zone_reply(state, zone)


@operation(kind="write", group="presets")
def apply_preset(
    state: ClimateState,
    zone: ZoneArg,
    preset: Annotated[PresetName, Field(description="The preset to apply (see list_presets).")],
) -> dict:
    """Apply a preset's mode, target temperature and fan speed to a running unit."""
    unit = _running(state, zone, "preset")
    values = state.presets[preset]
    unit.mode, unit.target_temperature, unit.fan_speed = values.mode, values.target_temperature, values.fan_speed
    unit.preset = preset
    return _zone_reply(state, zone)


# --- whole-home air -----------------------------------------------------------------------------


@operation(kind="write", group="air")
def set_humidity(
    state: ClimateState,
    mode: Annotated[
        Literal["humidify", "dehumidify", "auto"], Field(description="Add moisture, remove it, or either as needed.")
    ],
    target_percent: Annotated[
        int, Field(ge=HUMIDITY_RANGE[0], le=HUMIDITY_RANGE[1], description="Target relative humidity in % (30-60).")
    ],
) -> dict:
    """Set the whole-home humidity controller's mode and target relative humidity (%)."""
    current = state.humidity.current_humidity
    refuse_if(
        mode == "humidify" and target_percent <= current,
        f"the humidity is already {current}%; humidifying needs a target above it",
    )
    refuse_if(
        mode == "dehumidify" and target_percent >= current,
        f"the humidity is already {current}%; dehumidifying needs a target below it",
    )
    state.humidity.mode, state.humidity.target_humidity = mode, target_percent
    return {"humidity": state.humidity.model_dump(mode="json")}


@operation(kind="write", group="air")
def set_purifier(
    state: ClimateState,
    level: Annotated[PurifierLevel, Field(description="Purifier level, or off.")],
) -> dict:
    """Set the whole-home air purifier's level, or switch it off."""
    state.purifier = level
    return {"purifier": level}


OPERATIONS = (
    get_status,
    get_air_status,
    list_presets,
    set_power,
    set_mode,
    set_temperature,
    set_fan_speed,
    set_vent,
    set_child_lock,
    set_timer,
    cancel_timer,
    set_schedule,
    apply_preset,
    set_humidity,
    set_purifier,
)
"""All operations, in the order the action space lists them."""
