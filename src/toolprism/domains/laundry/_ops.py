"""The laundry room's native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError`, checked before any mutation:

- a machine that is off takes no setting, schedule or start; switching a power or the child lock
  to the state it is already in is refused;
- no setting (mode, temperature, spin, dryer levels, options, detergent, preset) changes while the
  machine runs; pause it first;
- each machine takes only its own modes and options; changing the washer's cycle lowers its
  temperature and spin (and drops prewash) to what the cycle allows, changing the dryer's program
  lowers its heat; a temperature above the cycle's limit (or below 20 °C), a spin faster than the
  cycle's limit, a heat hotter than the program's limit and prewash on a cycle without it are
  refused (:data:`~._state.CYCLE_LIMITS`, :data:`~._state.MAX_HEAT`);
- a start delay can be set only before the machine starts (idle or scheduled);
- start needs the child lock off and the machine idle or paused (a delay makes it scheduled);
  only a running machine can be paused.

Other writes are idempotent. Every reply is the affected machine's new state.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, listing, refuse_if, require_on, switch, transition
from toolprism.domains.laundry._state import (
    CYCLE_LIMITS,
    MAX_DELAY_HOURS,
    MAX_HEAT,
    MIN_WASH_TEMPERATURE,
    MODES,
    OPTIONS,
    SPIN_SPEEDS,
    Detergent,
    Dose,
    Dryer,
    Dryness,
    Heat,
    LaundryState,
    Machine,
    Mode,
    Option,
    Power,
    PresetName,
    SpinSpeed,
    WashCycle,
    Washer,
    cooler,
    heats,
    slower,
)

MachineArg = Annotated[Machine, Field(description="The washer or the dryer.")]


def _status(state: LaundryState, machine: Machine) -> dict:
    return dumped("machine", machine, getattr(state, machine))


def _settable(state: LaundryState, machine: Machine, what: str) -> Washer | Dryer:
    """The machine, refusing if it is off or running (settings change only while it is not)."""
    device = require_on(getattr(state, machine), f"the {machine} is off; turn it on before changing its {what}")
    refuse_if(device.status == "running", f"the {machine} is running; pause it before changing its {what}")
    return device


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(state: LaundryState, machine: MachineArg) -> dict:
    """Get a machine's state: power, status, mode, temperature or heat, spin, options and delay."""
    return {**_status(state, machine), "child_lock": state.child_lock}


@operation(kind="read", group="presets")
def list_presets(state: LaundryState, machine: MachineArg) -> dict:
    """List a machine's presets with the settings each applies."""
    presets = state.washer_presets if machine == "washer" else state.dryer_presets
    return {"machine": machine, "presets": listing(presets)}


@operation(kind="read", group="cycles")
def get_cycle_limits(
    state: LaundryState, cycle: Annotated[WashCycle, Field(description="The washer cycle to look up.")]
) -> dict:
    """Get a washer cycle's limits: hottest temperature (°C), fastest spin, prewash, length (minutes)."""
    return {"cycle": cycle, "min_temperature": MIN_WASH_TEMPERATURE, **CYCLE_LIMITS[cycle].model_dump(mode="json")}


# --- power and modes ---------------------------------------------------------------------------


@operation(kind="write", group="power")
def set_power(
    state: LaundryState, machine: MachineArg, power: Annotated[Power, Field(description="Switch it on or off.")]
) -> dict:
    """Switch a machine on or off; switching off cancels its cycle or its scheduled start."""
    device = getattr(state, machine)
    switch(device, "power", power, f"the {machine} is already {power}")
    if power == "off":
        device.status, device.delay_hours = "idle", 0
    return _status(state, machine)


def _set_cycle(washer: Washer, cycle: WashCycle) -> None:
    limits = CYCLE_LIMITS[cycle]
    washer.cycle = cycle
    washer.temperature = min(washer.temperature, limits.max_temperature)
    washer.spin = slower(washer.spin, limits.max_spin)
    if limits.prewash == "not_allowed":
        washer.options["prewash"] = "off"


def _set_program(dryer: Dryer, program: str) -> None:
    dryer.program = program
    dryer.heat = cooler(dryer.heat, MAX_HEAT[program])


@operation(kind="write", group="modes")
def set_mode(
    state: LaundryState,
    machine: MachineArg,
    mode: Annotated[
        Mode,
        Field(
            description="Washer cycle: cotton, synthetics, delicates, wool, quick_wash, bedding, sportswear, eco; "
            "dryer program: cotton, synthetics, delicates, wool, mixed, towels, refresh."
        ),
    ],
) -> dict:
    """Set the washer's cycle or the dryer's program; settings the new one does not allow are lowered."""
    modes = MODES[machine]
    refuse_if(mode not in modes, f"the {machine} has no {mode!r} mode; its modes are {', '.join(modes)}")
    device = _settable(state, machine, "mode")
    if machine == "washer":
        _set_cycle(device, mode)
    else:
        _set_program(device, mode)
    return _status(state, machine)


# --- washer settings ---------------------------------------------------------------------------


@operation(kind="write", group="washer")
def set_temperature(
    state: LaundryState,
    temperature: Annotated[
        int, Field(ge=20, le=90, description="Wash temperature in °C (20-90, up to the cycle's limit).")
    ],
) -> dict:
    """Set the washer's wash temperature; the cycle's limit applies (see get_cycle_limits)."""
    washer = _settable(state, "washer", "temperature")
    limit = CYCLE_LIMITS[washer.cycle].max_temperature
    refuse_if(
        not MIN_WASH_TEMPERATURE <= temperature <= limit,
        f"the {washer.cycle} cycle washes at {MIN_WASH_TEMPERATURE} to {limit} °C, not {temperature}",
    )
    washer.temperature = temperature
    return _status(state, "washer")


@operation(kind="write", group="washer")
def set_spin(state: LaundryState, speed: Annotated[SpinSpeed, Field(description="Spin speed, or no_spin.")]) -> dict:
    """Set the washer's spin speed; the cycle's limit applies (see get_cycle_limits)."""
    washer = _settable(state, "washer", "spin speed")
    limit = CYCLE_LIMITS[washer.cycle].max_spin
    refuse_if(SPIN_SPEEDS.index(speed) > SPIN_SPEEDS.index(limit), f"the {washer.cycle} cycle spins at {limit} at most")
    washer.spin = speed
    return _status(state, "washer")


@operation(kind="write", group="washer")
def set_detergent(
    state: LaundryState,
    detergent: Annotated[Detergent, Field(description="Which detergent the dispenser doses.")],
    dose: Annotated[Dose, Field(description="How much detergent per wash.")],
) -> dict:
    """Choose the washer's detergent and dose for the automatic dispenser."""
    washer = _settable(state, "washer", "detergent")
    washer.detergent, washer.dose = detergent, dose
    return _status(state, "washer")


# --- dryer settings and options ----------------------------------------------------------------


@operation(kind="write", group="dryer")
def set_dryer(
    state: LaundryState,
    dryness: Annotated[Dryness, Field(description="How dry the laundry should come out.")],
    heat: Annotated[Heat, Field(description="Drying heat; the program's limit applies.")],
) -> dict:
    """Set the dryer's dryness target and heat level; delicate programs allow only lower heat."""
    dryer = _settable(state, "dryer", "dryness and heat")
    refuse_if(
        heat not in heats(dryer.program), f"the {dryer.program} program dries at {MAX_HEAT[dryer.program]} heat at most"
    )
    dryer.dryness, dryer.heat = dryness, heat
    return _status(state, "dryer")


@operation(kind="write", group="options")
def set_option(
    state: LaundryState,
    machine: MachineArg,
    option: Annotated[Option, Field(description="Washer: prewash, extra_rinse, steam; dryer: steam, anti_crease.")],
    setting: Annotated[Power, Field(description="Turn the option on or off.")],
) -> dict:
    """Turn one of a machine's options on or off."""
    options = OPTIONS[machine]
    refuse_if(option not in options, f"the {machine} has no {option} option; its options are {', '.join(options)}")
    device = _settable(state, machine, "options")
    if option == "prewash" and setting == "on":
        refuse_if(CYCLE_LIMITS[device.cycle].prewash == "not_allowed", f"the {device.cycle} cycle has no prewash")
    device.options[option] = setting
    return _status(state, machine)


# --- schedule, start, pause, lock, presets ------------------------------------------------------


@operation(kind="write", group="programs")
def set_schedule(
    state: LaundryState,
    machine: MachineArg,
    hours: Annotated[
        int, Field(ge=0, le=MAX_DELAY_HOURS, description="Delay before the cycle begins, in hours (0-24); 0: none.")
    ],
) -> dict:
    """Set how many hours after start a machine begins; only before it starts (idle or scheduled)."""
    device = require_on(getattr(state, machine), f"the {machine} is off; turn it on before scheduling it")
    started = device.status in ("running", "paused")
    refuse_if(started, f"the {machine} has already started; a delay applies only before the start")
    device.delay_hours = hours
    if device.status == "scheduled" and hours == 0:
        device.status = "idle"
    return _status(state, machine)


@operation(kind="write", group="programs")
def start(state: LaundryState, machine: MachineArg) -> dict:
    """Start (or resume) a machine; with a delay set it waits (scheduled) that many hours first."""
    device = require_on(getattr(state, machine), f"the {machine} is off; turn it on first")
    refuse_if(state.child_lock == "on", "the child lock is on; turn it off before starting a machine")
    refuse_if(device.status in ("running", "scheduled"), f"the {machine} is already {device.status}")
    resuming = device.status == "paused"
    device.status = "scheduled" if device.delay_hours > 0 and not resuming else "running"
    return _status(state, machine)


@operation(kind="write", group="programs")
def pause(state: LaundryState, machine: MachineArg) -> dict:
    """Pause a running machine (start resumes it)."""
    device = getattr(state, machine)
    transition(device, "status", "running", "paused", f"the {machine} is not running (it is {device.status})")
    return _status(state, machine)


@operation(kind="write", group="programs")
def set_child_lock(
    state: LaundryState, lock: Annotated[Power, Field(description="Turn the child lock on or off.")]
) -> dict:
    """Turn the child lock on or off (while on, neither machine can be started)."""
    switch(state, "child_lock", lock, f"the child lock is already {lock}")
    return {"child_lock": lock}


@operation(kind="write", group="presets")
def apply_preset(
    state: LaundryState, preset: Annotated[PresetName, Field(description="A washer or dryer preset.")]
) -> dict:
    """Apply a preset: a washer preset sets cycle, temperature and spin; a dryer preset sets program,
    dryness and heat. The machine must be on and not running."""
    if preset in state.washer_presets:
        washer = _settable(state, "washer", "settings")
        setting = state.washer_presets[preset]
        _set_cycle(washer, setting.cycle)
        washer.temperature, washer.spin = setting.temperature, setting.spin
        return {"preset": preset, **_status(state, "washer")}
    dryer = _settable(state, "dryer", "settings")
    setting = state.dryer_presets[preset]
    dryer.program, dryer.dryness, dryer.heat = setting.program, setting.dryness, setting.heat
    return {"preset": preset, **_status(state, "dryer")}


OPERATIONS = (
    get_status,
    list_presets,
    get_cycle_limits,
    set_power,
    set_mode,
    set_temperature,
    set_spin,
    set_detergent,
    set_dryer,
    set_option,
    set_schedule,
    start,
    pause,
    set_child_lock,
    apply_preset,
)
"""All operations, in the order the action space lists them."""
