"""The kitchen's native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError`, checked before any mutation:

- the oven and the dishwasher take a mode (or oven preset) only while on; each appliance takes
  only its own modes; the dishwasher's program cannot change while it runs;
- temperatures must lie in the appliance's range: the oven's depends on its mode
  (:data:`~._state.OVEN_RANGE`), the fridge 1-8 °C, the freezer -24 to -14 °C, the kettle 40-100 °C;
  the oven takes a temperature only while on;
- switching a power or the child lock to the state it is already in is refused;
- no burner can be changed while the cooktop's child lock is on;
- at most four timers run at once; cancelling a timer that does not run is refused;
- the microwave cannot be reprogrammed while it runs; only a running program can be paused,
  only an idle or paused one started; the dishwasher must be on to start;
- the coffee maker must be on to brew.

Other writes are idempotent. Every reply is the affected appliance's new state.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import discard, dumped, listing, refuse_if, require_on, rows, switch, transition
from toolprism.domains.kitchen._state import (
    MODES,
    OVEN_RANGE,
    TEMPERATURE_RANGE,
    TIMER_CAPACITY,
    Appliance,
    Brew,
    Burner,
    BurnerLevel,
    CupSize,
    Drink,
    KitchenState,
    MicrowaveLevel,
    Mode,
    ModeAppliance,
    Power,
    PoweredAppliance,
    PresetAppliance,
    PresetName,
    ProgramAppliance,
    Strength,
    TemperatureAppliance,
    TimerLabel,
)

TimerArg = Annotated[TimerLabel, Field(description="The timer's label: what it is timing.")]
ProgramArg = Annotated[ProgramAppliance, Field(description="The appliance that runs the program.")]


def _status(state: KitchenState, appliance: str) -> dict:
    """``appliance``'s state as a reply; the freezer is part of the fridge."""
    if appliance == "freezer":
        appliance = "fridge"
    return dumped("appliance", appliance, getattr(state, appliance))


def _timers(state: KitchenState) -> dict:
    return {"timers": rows(state.timers, "label", "minutes"), "capacity": TIMER_CAPACITY}


def _require_on(state: KitchenState, appliance: PoweredAppliance, doing: str) -> None:
    require_on(getattr(state, appliance), f"the {appliance} is off; turn it on before {doing}")


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(
    state: KitchenState, appliance: Annotated[Appliance, Field(description="The appliance to read.")]
) -> dict:
    """Get an appliance's current state: power, mode, temperatures (°C), program and status."""
    return _status(state, appliance)


@operation(kind="read", group="presets")
def list_presets(
    state: KitchenState, appliance: Annotated[PresetAppliance, Field(description="Whose presets to list.")]
) -> dict:
    """List the oven's presets (mode and °C) or the microwave's (power level and seconds)."""
    presets = state.oven_presets if appliance == "oven" else state.microwave_presets
    return {"appliance": appliance, "presets": listing(presets)}


@operation(kind="read", group="timers")
def list_timers(state: KitchenState) -> dict:
    """List the running kitchen timers with the minutes left on each."""
    return _timers(state)


# --- power, modes and temperatures -------------------------------------------------------------


@operation(kind="write", group="power")
def set_power(
    state: KitchenState,
    appliance: Annotated[PoweredAppliance, Field(description="The appliance to switch.")],
    power: Annotated[Power, Field(description="Switch it on or off.")],
) -> dict:
    """Switch an appliance on or off; switching off the dishwasher cancels its program."""
    device = getattr(state, appliance)
    switch(device, "power", power, f"the {appliance} is already {power}")
    if appliance == "dishwasher" and power == "off":
        device.status = "idle"
    return _status(state, appliance)


@operation(kind="write", group="modes")
def set_mode(
    state: KitchenState,
    appliance: Annotated[ModeAppliance, Field(description="The appliance whose mode to set.")],
    mode: Annotated[
        Mode,
        Field(
            description="Oven: bake, convection, grill, roast, warm, defrost; fridge: normal, eco, "
            "vacation, super_cool; dishwasher program: auto, eco, intensive, quick, glass."
        ),
    ],
) -> dict:
    """Set the oven's cooking mode, the fridge's mode or the dishwasher's program."""
    modes = MODES[appliance]
    refuse_if(mode not in modes, f"the {appliance} has no {mode!r} mode; its modes are {', '.join(modes)}")
    if appliance in ("oven", "dishwasher"):
        _require_on(state, appliance, "setting its mode")
    running = appliance == "dishwasher" and state.dishwasher.status == "running"
    refuse_if(running, "the dishwasher is running; pause it before changing its program")
    if appliance == "oven":
        low, high = OVEN_RANGE[mode]
        state.oven.temperature = min(max(state.oven.temperature, low), high)
        state.oven.mode = mode
    elif appliance == "fridge":
        state.fridge.mode = mode
    else:
        state.dishwasher.program = mode
    return _status(state, appliance)


@operation(kind="write", group="temperature")
def set_temperature(
    state: KitchenState,
    appliance: Annotated[TemperatureAppliance, Field(description="The appliance or compartment to set.")],
    temperature: Annotated[
        int,
        Field(
            ge=-24,
            le=250,
            description="Target in °C: oven 30-250 depending on its mode, fridge 1-8, freezer -24 to -14, "
            "kettle 40-100.",
        ),
    ],
) -> dict:
    """Set the target temperature of the oven (must be on), fridge, freezer or kettle."""
    if appliance == "oven":
        _require_on(state, "oven", "setting its temperature")
        low, high = OVEN_RANGE[state.oven.mode]
        where = f"in {state.oven.mode} mode the oven"
    else:
        low, high = TEMPERATURE_RANGE[appliance]
        where = f"the {appliance}"
    refuse_if(not low <= temperature <= high, f"{where} takes {low} to {high} °C, not {temperature}")
    if appliance == "oven":
        state.oven.temperature = temperature
    elif appliance == "kettle":
        state.kettle.temperature = temperature
    else:
        setattr(state.fridge, f"{appliance}_temperature", temperature)
    return _status(state, appliance)


# --- cooktop -----------------------------------------------------------------------------------


@operation(kind="write", group="cooktop")
def set_burner(
    state: KitchenState,
    burner: Annotated[Burner, Field(description="The cooktop burner.")],
    level: Annotated[BurnerLevel, Field(description="Heat level, from simmer up to boost, or off.")],
) -> dict:
    """Set a cooktop burner's heat level; refused while the child lock is on."""
    refuse_if(state.cooktop.child_lock == "on", "the cooktop's child lock is on; turn it off before changing a burner")
    state.cooktop.burners[burner] = level
    return _status(state, "cooktop")


@operation(kind="write", group="cooktop")
def set_child_lock(
    state: KitchenState, lock: Annotated[Power, Field(description="Turn the cooktop's child lock on or off.")]
) -> dict:
    """Turn the cooktop's child lock on or off (while on, the burners cannot be changed)."""
    switch(state.cooktop, "child_lock", lock, f"the child lock is already {lock}")
    return _status(state, "cooktop")


# --- timers ------------------------------------------------------------------------------------


@operation(kind="write", group="timers")
def set_timer(
    state: KitchenState,
    label: TimerArg,
    minutes: Annotated[int, Field(ge=1, le=240, description="Duration in minutes (1-240).")],
) -> dict:
    """Start a labelled kitchen timer, or reset the one with that label; at most four run at once."""
    full = label not in state.timers and len(state.timers) >= TIMER_CAPACITY
    refuse_if(full, f"{TIMER_CAPACITY} timers are already running; cancel one first")
    state.timers[label] = minutes
    return _timers(state)


@operation(kind="write", group="timers")
def cancel_timer(state: KitchenState, label: TimerArg) -> dict:
    """Cancel a running kitchen timer."""
    discard(state.timers, label, f"no {label} timer is running")
    return _timers(state)


# --- programs: microwave and dishwasher --------------------------------------------------------


@operation(kind="write", group="microwave")
def set_microwave(
    state: KitchenState,
    power_level: Annotated[MicrowaveLevel, Field(description="Microwave power level.")],
    seconds: Annotated[int, Field(ge=10, le=3600, description="Cooking time in seconds (10-3600).")],
) -> dict:
    """Program the microwave's power level and time (start it separately); refused while it runs."""
    refuse_if(state.microwave.status == "running", "the microwave is running; pause it before changing its program")
    state.microwave.power_level = power_level
    state.microwave.seconds = seconds
    return _status(state, "microwave")


@operation(kind="write", group="programs")
def start(state: KitchenState, appliance: ProgramArg) -> dict:
    """Start (or resume) the programmed microwave or the dishwasher's selected program."""
    device = getattr(state, appliance)
    refuse_if(device.status == "running", f"the {appliance} is already running")
    if appliance == "dishwasher":
        _require_on(state, "dishwasher", "starting it")
    device.status = "running"
    return _status(state, appliance)


@operation(kind="write", group="programs")
def pause(state: KitchenState, appliance: ProgramArg) -> dict:
    """Pause the running microwave or dishwasher (start resumes it)."""
    device = getattr(state, appliance)
    transition(device, "status", "running", "paused", f"the {appliance} is not running (it is {device.status})")
    return _status(state, appliance)


# --- coffee and presets ------------------------------------------------------------------------


@operation(kind="write", group="coffee")
def brew_coffee(
    state: KitchenState,
    drink: Annotated[Drink, Field(description="The coffee drink.")],
    size: Annotated[CupSize, Field(description="Cup size.")],
    strength: Annotated[Strength, Field(description="Coffee strength.")],
) -> dict:
    """Brew one coffee; the coffee maker must be on."""
    _require_on(state, "coffee_maker", "brewing")
    maker = state.coffee_maker
    maker.last_brew = Brew(drink=drink, size=size, strength=strength)
    maker.cups_brewed += 1
    return _status(state, "coffee_maker")


@operation(kind="write", group="presets")
def apply_preset(
    state: KitchenState, preset: Annotated[PresetName, Field(description="An oven or microwave preset.")]
) -> dict:
    """Apply a preset: an oven preset sets the oven's mode and temperature (the oven must be on);
    a microwave preset programs the microwave (it must not be running)."""
    if preset in state.oven_presets:
        _require_on(state, "oven", "applying an oven preset")
        setting = state.oven_presets[preset]
        state.oven.mode, state.oven.temperature = setting.mode, setting.temperature
        return {"preset": preset, **_status(state, "oven")}
    refuse_if(state.microwave.status == "running", "the microwave is running; pause it before applying a preset")
    setting = state.microwave_presets[preset]
    state.microwave.power_level, state.microwave.seconds = setting.power_level, setting.seconds
    return {"preset": preset, **_status(state, "microwave")}


OPERATIONS = (
    get_status,
    list_presets,
    list_timers,
    set_power,
    set_mode,
    set_temperature,
    set_burner,
    set_child_lock,
    set_timer,
    cancel_timer,
    set_microwave,
    start,
    pause,
    brew_coffee,
    apply_preset,
)
"""All operations, in the order the action space lists them."""
