"""Typed state of the garden world: four irrigation zones, a robot lawn mower and three outdoor lights.

The layout is fixed: the two lawns have sprinklers (a spray pattern) and are where the mower
works; the two beds have drip lines (no spray pattern). Each zone's watering, run time and spray,
the mower and the lights are drawn from ``random.Random(f"garden/world/{world_seed}")``; the mower
never mows a lawn that is being watered.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

ZoneName = Literal["front_lawn", "back_lawn", "vegetable_bed", "flower_bed"]
Lawn = Literal["front_lawn", "back_lawn"]
Spray = Literal["mist", "shower", "jet"]
Switch = Literal["on", "off"]
LightName = Literal["path", "patio", "pond"]
Minutes = Annotated[int, Field(ge=5, le=60)]

ZONES: tuple[ZoneName, ...] = get_args(ZoneName)
LAWNS: tuple[Lawn, ...] = get_args(Lawn)
SPRAYS: tuple[Spray, ...] = get_args(Spray)
LIGHTS: tuple[LightName, ...] = get_args(LightName)
RUN_TIMES: tuple[int, ...] = (5, 10, 15, 20, 30, 45, 60)
"""The run times the world and the tasks use (any 5-60 is accepted)."""
MIN_BATTERY = 30
"""Mower battery (%) below which it refuses to start."""


class Zone(StateModel):
    """An irrigation zone; ``spray`` is None on a drip bed."""

    watering: Switch
    minutes: Minutes
    spray: Spray | None = None


class Mower(StateModel):
    """The robot mower: docked (``lawn`` None) or mowing a lawn."""

    lawn: Lawn | None = None
    battery: Percent


class GardenState(StateModel):
    """The whole world."""

    zones: dict[ZoneName, Zone]
    mower: Mower
    lights: dict[LightName, Switch]


def initial_state(world_seed: int) -> GardenState:
    """The world for ``world_seed``, drawn from one seeded RNG (deterministic)."""
    rng = random.Random(f"garden/world/{world_seed}")
    zones = {
        zone: Zone(
            watering=rng.choices(("on", "off"), weights=(1, 2))[0],
            minutes=rng.choice(RUN_TIMES),
            spray=rng.choice(SPRAYS) if zone in LAWNS else None,
        )
        for zone in ZONES
    }
    dry = [lawn for lawn in LAWNS if zones[lawn].watering == "off"]
    lawn = rng.choice(dry) if dry and rng.random() < 0.4 else None
    mower = Mower(lawn=lawn, battery=rng.randrange(40, 101, 5))
    return GardenState(zones=zones, mower=mower, lights={light: rng.choice(("on", "off")) for light in LIGHTS})
