"""The car-cabin native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- the climate mode, zone temperatures and fan speed can only be set while the climate is on;
- in ``fan_only`` mode no target temperature can be set; in ``auto`` mode the fan speed is automatic;
- a seat's heating and ventilation are never both on, and only the front seats have ventilation;
- a rear window opens at most to ``vent`` while that door's child lock is on;
- the sunroof cannot open (only tilt or close) while the rain sensor reports rain;
- the ambient lighting's color and brightness can only be set while it is on.

Other writes are idempotent: repeating one changes nothing and succeeds.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, listing, refuse_if, require_on, words
from toolprism.domains.car_cabin._state import (
    CHILD_SAFE_POSITIONS,
    TEMPERATURE_MAX,
    TEMPERATURE_MIN,
    VENTILATED_SEATS,
    CabinState,
    Climate,
    ClimateMode,
    Color,
    FanSpeed,
    Level,
    Lighting,
    Power,
    PresetName,
    RearDoor,
    Seat,
    Section,
    SunroofPosition,
    System,
    Window,
    WindowPosition,
    Zone,
)

SeatArg = Annotated[Seat, Field(description="The seat.")]
LevelArg = Annotated[Level, Field(description="The level, or off.")]


def _climate_reply(state: CabinState) -> dict:
    return {"climate": state.climate.model_dump(mode="json")}


def _climate(state: CabinState, what: str) -> Climate:
    """The climate, refusing if it is off."""
    return require_on(state.climate, f"the climate is off; turn it on before setting the {what}")


def _lighting(state: CabinState, what: str) -> Lighting:
    """The ambient lighting, refusing if it is off."""
    return require_on(state.lighting, f"the ambient lighting is off; turn it on before setting its {what}")


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(
    state: CabinState,
    section: Annotated[
        Section,
        Field(
            description="What to read: climate (incl. defroster and steering heater), windows "
            "(incl. sunroof and rain sensor), lighting, or doors (child locks)."
        ),
    ],
) -> dict:
    """Get the current settings of one part of the cabin (seats have their own status tool)."""
    if section == "climate":
        return _climate_reply(state)
    if section == "windows":
        return {"windows": state.openings.model_dump(mode="json")}
    if section == "lighting":
        return {"lighting": state.lighting.model_dump(mode="json")}
    return {"child_locks": dict(state.child_locks)}


@operation(kind="read", group="seats")
def get_seat_status(state: CabinState, seat: SeatArg) -> dict:
    """Get a seat's heating and ventilation levels (ventilation is null on rear seats)."""
    return dumped("seat", seat, state.seats[seat])


@operation(kind="read", group="presets")
def list_presets(state: CabinState) -> dict:
    """List the comfort presets with what each one sets, and the last applied preset."""
    return {"presets": listing(state.presets, exclude_defaults=True), "active_preset": state.active_preset}


# --- power and climate -------------------------------------------------------------------------


@operation(kind="write", group="power")
def set_power(
    state: CabinState,
    system: Annotated[System, Field(description="The system to switch.")],
    power: Annotated[Power, Field(description="Turn it on or off.")],
) -> dict:
    """Turn the climate, ambient lighting, rear defroster or steering heater on or off."""
    if system == "climate":
        state.climate.power = power
    elif system == "ambient_lighting":
        state.lighting.power = power
    elif system == "rear_defroster":
        state.climate.rear_defroster = power
    else:
        state.climate.steering_heater = power
    return {"system": system, "power": power}


@operation(kind="write", group="climate")
def set_mode(
    state: CabinState,
    mode: Annotated[ClimateMode, Field(description="Climate mode: auto, cool, heat or fan_only.")],
) -> dict:
    """Set the climate mode; the climate must be on."""
    _climate(state, "mode").mode = mode
    return _climate_reply(state)


@operation(kind="write", group="climate")
def set_temperature(
    state: CabinState,
    zone: Annotated[Zone, Field(description="The climate zone.")],
    temperature: Annotated[
        int,
        Field(
            ge=TEMPERATURE_MIN,
            le=TEMPERATURE_MAX,
            description=f"Target temperature in °C ({TEMPERATURE_MIN}-{TEMPERATURE_MAX}).",
        ),
    ],
) -> dict:
    """Set a climate zone's target temperature; the climate must be on and not in fan_only mode."""
    climate = _climate(state, "temperature")
    refuse_if(
        climate.mode == "fan_only", "in fan_only mode the climate neither heats nor cools; choose another mode first"
    )
    climate.targets[zone] = temperature
    return _climate_reply(state)


@operation(kind="write", group="climate")
def set_fan_speed(
    state: CabinState,
    speed: Annotated[FanSpeed, Field(description="Blower speed.")],
) -> dict:
    """Set the climate blower speed; the climate must be on and not in auto mode."""
    climate = _climate(state, "fan speed")
    refuse_if(climate.mode == "auto", "in auto mode the fan speed is automatic; choose another mode first")
    climate.fan_speed = speed
    return _climate_reply(state)


# --- seats -------------------------------------------------------------------------------------


@operation(kind="write", group="seats")
def set_seat_heating(state: CabinState, seat: SeatArg, level: LevelArg) -> dict:
    """Set a seat's heating level; refused while that seat's ventilation is on."""
    target = state.seats[seat]
    refuse_if(
        level != "off" and target.ventilation not in (None, "off"),
        f"the {words(seat)} seat ventilation is on; turn it off before heating the seat",
    )
    target.heating = level
    return dumped("seat", seat, target)


@operation(kind="write", group="seats")
def set_seat_ventilation(state: CabinState, seat: SeatArg, level: LevelArg) -> dict:
    """Set a front seat's ventilation level; refused while that seat's heating is on."""
    target = state.seats[seat]
    refuse_if(seat not in VENTILATED_SEATS, f"the {words(seat)} seat has no ventilation; only the front seats do")
    refuse_if(
        level != "off" and target.heating != "off",
        f"the {words(seat)} seat heating is on; turn it off before ventilating the seat",
    )
    target.ventilation = level
    return dumped("seat", seat, target)


# --- windows, sunroof, child locks -------------------------------------------------------------


@operation(kind="write", group="windows")
def set_window(
    state: CabinState,
    window: Annotated[Window, Field(description="The window.")],
    position: Annotated[WindowPosition, Field(description="Where to move it: closed, vent, half or open.")],
) -> dict:
    """Move a window; a rear window opens at most to vent while its child lock is on."""
    refuse_if(
        state.child_locks.get(window) == "on" and position not in CHILD_SAFE_POSITIONS,
        f"the {words(window)} child lock is on; that window opens at most to vent until it is off",
    )
    state.openings.windows[window] = position
    return {"window": window, "position": position}


@operation(kind="write", group="windows")
def set_sunroof(
    state: CabinState,
    position: Annotated[SunroofPosition, Field(description="Where to move it: closed, tilt or open.")],
) -> dict:
    """Move the sunroof; it cannot open (only tilt or close) while the rain sensor reports rain."""
    raining = state.openings.rain_sensor == "raining"
    refuse_if(position == "open" and raining, "the rain sensor reports rain; the sunroof can only tilt or close")
    state.openings.sunroof = position
    return {"sunroof": position, "rain_sensor": state.openings.rain_sensor}


@operation(kind="write", group="doors")
def set_child_lock(
    state: CabinState,
    door: Annotated[RearDoor, Field(description="The rear door.")],
    setting: Annotated[Power, Field(description="Turn the child lock on or off.")],
) -> dict:
    """Turn a rear door's child lock on or off."""
    state.child_locks[door] = setting
    return {"door": door, "child_lock": setting}


# --- ambient lighting --------------------------------------------------------------------------


@operation(kind="write", group="lighting")
def set_brightness(
    state: CabinState,
    brightness: Annotated[int, Field(ge=1, le=100, description="Ambient lighting brightness in percent (1-100).")],
) -> dict:
    """Set the ambient lighting brightness; the lighting must be on."""
    _lighting(state, "brightness").brightness = brightness
    return {"lighting": state.lighting.model_dump(mode="json")}


@operation(kind="write", group="lighting")
def set_ambient_color(
    state: CabinState,
    color: Annotated[Color, Field(description="The ambient lighting color.")],
) -> dict:
    """Set the ambient lighting color; the lighting must be on."""
    _lighting(state, "color").color = color
    return {"lighting": state.lighting.model_dump(mode="json")}


# --- presets -----------------------------------------------------------------------------------


def _apply_seats(state: CabinState, heating: dict[Seat, Level], ventilation: dict[Seat, Level]) -> None:
    for seat, level in heating.items():
        state.seats[seat].heating = level
        if level != "off" and state.seats[seat].ventilation is not None:
            state.seats[seat].ventilation = "off"
    for seat, level in ventilation.items():
        state.seats[seat].ventilation = level
        if level != "off":
            state.seats[seat].heating = "off"


@operation(kind="write", group="presets")
def apply_preset(
    state: CabinState,
    preset: Annotated[PresetName, Field(description="The preset to apply (see list_presets).")],
) -> dict:
    """Apply a comfort preset: every setting it names, turning the climate or lighting on as needed."""
    p = state.presets[preset]
    before = state.model_dump(mode="json")
    climate = state.climate
    if p.mode is not None or p.fan_speed is not None or p.temperature is not None:
        climate.power = "on"
    climate.mode = p.mode or climate.mode
    climate.fan_speed = p.fan_speed or climate.fan_speed
    if p.temperature is not None:
        climate.targets = {zone: p.temperature for zone in climate.targets}
    climate.steering_heater = p.steering_heater or climate.steering_heater
    climate.rear_defroster = p.rear_defroster or climate.rear_defroster
    _apply_seats(state, p.seat_heating, p.seat_ventilation)
    state.openings.windows.update(p.windows)
    state.openings.sunroof = p.sunroof or state.openings.sunroof
    if p.color is not None or p.brightness is not None:
        state.lighting.power = "on"
    state.lighting.color = p.color or state.lighting.color
    state.lighting.brightness = p.brightness or state.lighting.brightness
    state.active_preset = preset
    after = state.model_dump(mode="json")
    changed = sorted(key for key in after if key != "active_preset" and after[key] != before[key])
    return {"preset": preset, "changed": changed}


OPERATIONS = (
    get_status,
    get_seat_status,
    list_presets,
    set_power,
    set_mode,
    set_temperature,
    set_fan_speed,
    set_seat_heating,
    set_seat_ventilation,
    set_window,
    set_sunroof,
    set_child_lock,
    set_brightness,
    set_ambient_color,
    apply_preset,
)
"""All operations, in the order the action space lists them."""
