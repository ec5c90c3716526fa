"""The garden native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- a lawn cannot be watered while the mower is on it, and the mower cannot start on a lawn being
  watered (or below 30 % battery, or while it is already mowing);
- a zone's run time cannot change while it is watering;
- a drip bed has no spray pattern;
- a write that would leave a setting as it is (watering already on, the same run time, spray or
  light, docking a docked mower) is refused.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import dumped, listing, refuse_if, switch, words
from toolprism.domains.garden._state import (
    MIN_BATTERY,
    GardenState,
    Lawn,
    LightName,
    Minutes,
    Spray,
    Switch,
    ZoneName,
)

ZoneArg = Annotated[ZoneName, Field(description="The irrigation zone (two lawns with sprinklers, two drip beds).")]


def _mower(state: GardenState) -> dict:
    mower = state.mower
    return {"status": "docked" if mower.lawn is None else "mowing", **mower.model_dump(mode="json")}


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="garden")
def get_garden(state: GardenState) -> dict:
    """Get every zone's watering, run time and spray, the mower's status and battery, and the lights."""
    zones = listing(state.zones, "zone", exclude_none=True)
    lights = [{"light": name, "power": power} for name, power in state.lights.items()]
    return {"zones": zones, "mower": _mower(state), "lights": lights}


@operation(kind="read", group="irrigation")
def get_zone(state: GardenState, zone: ZoneArg) -> dict:
    """Get one zone's watering (on or off), run time in minutes and spray pattern."""
    return dumped("zone", zone, state.zones[zone], exclude_none=True)


# --- irrigation --------------------------------------------------------------------------------


@operation(kind="write", group="irrigation")
def set_watering(
    state: GardenState,
    zone: ZoneArg,
    watering: Annotated[Switch, Field(description="on: the zone waters for its run time; off: it stops.")],
) -> dict:
    """Turn a zone's watering on or off; a lawn cannot be watered while the mower is on it."""
    refuse_if(
        watering == "on" and state.mower.lawn == zone, f"the mower is on the {words(zone)}; dock it before watering"
    )
    switch(state.zones[zone], "watering", watering, f"the {words(zone)} watering is already {watering}")
    return dumped("zone", zone, state.zones[zone], exclude_none=True)


@operation(kind="write", group="irrigation")
def set_run_time(
    state: GardenState,
    zone: ZoneArg,
    minutes: Annotated[Minutes, Field(description="How long the zone waters each time, in minutes (5-60).")],
) -> dict:
    """Set how long a zone waters; not while it is watering."""
    refuse_if(state.zones[zone].watering == "on", f"the {words(zone)} is watering; turn it off first")
    switch(state.zones[zone], "minutes", minutes, f"the {words(zone)} already waters for {minutes} minutes")
    return dumped("zone", zone, state.zones[zone], exclude_none=True)


@operation(kind="write", group="irrigation")
def set_spray(
    state: GardenState,
    zone: ZoneArg,
    spray: Annotated[Spray, Field(description="The sprinkler pattern: a fine mist, a shower or a strong jet.")],
) -> dict:
    """Set a lawn sprinkler's spray pattern; the beds have drip lines without one."""
    refuse_if(state.zones[zone].spray is None, f"the {words(zone)} has a drip line; it has no spray pattern")
    switch(state.zones[zone], "spray", spray, f"the {words(zone)} spray is already {spray}")
    return dumped("zone", zone, state.zones[zone], exclude_none=True)


# --- mower and lights --------------------------------------------------------------------------


@operation(kind="write", group="mower")
def start_mower(state: GardenState, lawn: Annotated[Lawn, Field(description="The lawn to mow.")]) -> dict:
    """Send the mower out to mow a lawn; not onto a lawn being watered."""
    mower = state.mower
    refuse_if(mower.lawn is not None, f"the mower is already mowing the {words(mower.lawn or '')}; dock it first")
    refuse_if(state.zones[lawn].watering == "on", f"the {words(lawn)} is being watered; turn the watering off first")
    refuse_if(mower.battery < MIN_BATTERY, f"the mower battery is at {mower.battery}%; let it charge first")
    mower.lawn = lawn
    return _mower(state)


@operation(kind="write", group="mower")
def dock_mower(state: GardenState) -> dict:
    """Stop mowing and send the mower back to its dock."""
    refuse_if(state.mower.lawn is None, "the mower is already docked")
    state.mower.lawn = None
    return _mower(state)


@operation(kind="write", group="lights")
def set_light(
    state: GardenState,
    light: Annotated[LightName, Field(description="The outdoor light.")],
    power: Annotated[Switch, Field(description="on or off.")],
) -> dict:
    """Turn an outdoor light on or off."""
    refuse_if(state.lights[light] == power, f"the {light} light is already {power}")
    state.lights[light] = power
    return {"light": light, "power": power}


OPERATIONS = (get_garden, get_zone, set_watering, set_run_time, set_spray, start_mower, dock_mower, set_light)
"""All operations, in the order the action space lists them."""
