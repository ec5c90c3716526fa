"""Typed state of the kitchen world: appliance models, their settings and the seeded initial state.

The kitchen has an oven, a four-burner cooktop with a child lock, a microwave, a fridge with a
freezer, a dishwasher, a kettle, a coffee maker, up to four labelled kitchen timers, and named
presets for the oven and the microwave. Temperatures are in °C, durations in minutes (timers) or
seconds (microwave). Settings are drawn from ``random.Random(f"kitchen/world/{world_seed}")``.
"""

from __future__ import annotations

import random
from typing import Literal, get_args

from toolprism.domains._device import StateModel

Appliance = Literal["oven", "cooktop", "microwave", "fridge", "dishwasher", "kettle", "coffee_maker"]
PoweredAppliance = Literal["oven", "dishwasher", "kettle", "coffee_maker"]
"""Appliances with a power switch (the fridge is always on; the microwave runs programs)."""
ProgramAppliance = Literal["microwave", "dishwasher"]
"""Appliances that run a program: they can be started, paused and resumed."""
ModeAppliance = Literal["oven", "fridge", "dishwasher"]
TemperatureAppliance = Literal["oven", "fridge", "freezer", "kettle"]
PresetAppliance = Literal["oven", "microwave"]

Power = Literal["on", "off"]
OvenMode = Literal["bake", "convection", "grill", "roast", "warm", "defrost"]
FridgeMode = Literal["normal", "eco", "vacation", "super_cool"]
DishwasherProgram = Literal["auto", "eco", "intensive", "quick", "glass"]
Mode = Literal[OvenMode, FridgeMode, DishwasherProgram]
"""Every mode ``set_mode`` accepts; each appliance takes only its own (see :data:`MODES`)."""
Status = Literal["idle", "running", "paused"]
Burner = Literal["front_left", "front_right", "back_left", "back_right"]
BurnerLevel = Literal["off", "simmer", "low", "medium", "high", "boost"]
MicrowaveLevel = Literal["low", "medium_low", "medium", "medium_high", "high"]
Drink = Literal["espresso", "americano", "cappuccino", "latte", "flat_white", "mocha"]
CupSize = Literal["small", "medium", "large"]
Strength = Literal["mild", "regular", "strong", "extra_strong"]
TimerLabel = Literal["pasta", "rice", "eggs", "potatoes", "cake", "tea"]
OvenPreset = Literal["pizza", "bread", "roast_chicken", "cookies", "lasagna"]
MicrowavePreset = Literal["popcorn", "reheat_plate", "melt_butter", "baked_potato", "hot_drink"]
PresetName = Literal[OvenPreset, MicrowavePreset]

OVEN_MODES: tuple[OvenMode, ...] = get_args(OvenMode)
FRIDGE_MODES: tuple[FridgeMode, ...] = get_args(FridgeMode)
DISHWASHER_PROGRAMS: tuple[DishwasherProgram, ...] = get_args(DishwasherProgram)
MODES: dict[ModeAppliance, tuple[str, ...]] = {
    "oven": OVEN_MODES,
    "fridge": FRIDGE_MODES,
    "dishwasher": DISHWASHER_PROGRAMS,
}
"""The modes each appliance accepts."""
BURNERS: tuple[Burner, ...] = get_args(Burner)
BURNER_LEVELS: tuple[BurnerLevel, ...] = get_args(BurnerLevel)
MICROWAVE_LEVELS: tuple[MicrowaveLevel, ...] = get_args(MicrowaveLevel)
DRINKS: tuple[Drink, ...] = get_args(Drink)
CUP_SIZES: tuple[CupSize, ...] = get_args(CupSize)
STRENGTHS: tuple[Strength, ...] = get_args(Strength)
TIMER_LABELS: tuple[TimerLabel, ...] = get_args(TimerLabel)
OVEN_PRESETS: tuple[OvenPreset, ...] = get_args(OvenPreset)
MICROWAVE_PRESETS: tuple[MicrowavePreset, ...] = get_args(MicrowavePreset)
APPLIANCES: tuple[Appliance, ...] = get_args(Appliance)

OVEN_RANGE: dict[OvenMode, tuple[int, int]] = {
    "bake": (100, 250),
    "convection": (100, 230),
    "grill": (150, 250),
    "roast": (120, 250),
    "warm": (50, 100),
    "defrost": (30, 50),
}
"""Oven temperatures (°C, inclusive) each mode accepts; changing mode clamps the temperature."""
TEMPERATURE_RANGE: dict[str, tuple[int, int]] = {"fridge": (1, 8), "freezer": (-24, -14), "kettle": (40, 100)}
"""Temperatures (°C, inclusive) of the other appliances ``set_temperature`` covers."""
TIMER_CAPACITY = 4
"""At most this many kitchen timers run at once."""


class Oven(StateModel):
    """The oven; mode and temperature are kept while it is off."""

    power: Power
    mode: OvenMode
    temperature: int


class Cooktop(StateModel):
    """Four burners; while the child lock is on no burner can be changed."""

    child_lock: Power
    burners: dict[Burner, BurnerLevel]


class Microwave(StateModel):
    """The microwave's program (power level, duration in seconds) and whether it runs."""

    status: Status
    power_level: MicrowaveLevel
    seconds: int


class Fridge(StateModel):
    """The fridge (always on) and its freezer compartment."""

    mode: FridgeMode
    fridge_temperature: int
    freezer_temperature: int


class Dishwasher(StateModel):
    """The dishwasher; an appliance that is off is idle."""

    power: Power
    status: Status
    program: DishwasherProgram


class Kettle(StateModel):
    """The kettle: on means heating to its target temperature."""

    power: Power
    temperature: int


class Brew(StateModel):
    """One coffee the machine made."""

    drink: Drink
    size: CupSize
    strength: Strength


class CoffeeMaker(StateModel):
    """The coffee maker and what it brewed last (None before the first brew)."""

    power: Power
    last_brew: Brew | None = None
    cups_brewed: int = 0


class OvenSetting(StateModel):
    """An oven preset: mode and temperature (°C)."""

    mode: OvenMode
    temperature: int


class MicrowaveSetting(StateModel):
    """A microwave preset: power level and duration (seconds)."""

    power_level: MicrowaveLevel
    seconds: int


class KitchenState(StateModel):
    """The whole kitchen. ``timers`` maps a running timer's label to its minutes left."""

    oven: Oven
    cooktop: Cooktop
    microwave: Microwave
    fridge: Fridge
    dishwasher: Dishwasher
    kettle: Kettle
    coffee_maker: CoffeeMaker
    timers: dict[TimerLabel, int]
    oven_presets: dict[OvenPreset, OvenSetting]
    microwave_presets: dict[MicrowavePreset, MicrowaveSetting]


MICROWAVE_SECONDS: tuple[int, ...] = (30, 45, 60, 90, 120, 150, 180, 240, 300, 420, 600)
"""Durations the world and the task generator draw microwave programs from."""
KETTLE_TEMPERATURES: tuple[int, ...] = (60, 70, 75, 80, 85, 90, 95, 100)

_OVEN_PRESET_MODES: dict[OvenPreset, tuple[OvenMode, ...]] = {
    "pizza": ("bake", "convection"),
    "bread": ("bake", "convection"),
    "roast_chicken": ("roast", "convection"),
    "cookies": ("bake", "convection"),
    "lasagna": ("bake", "roast"),
}
_MICROWAVE_PRESET_LEVELS: dict[MicrowavePreset, tuple[MicrowaveLevel, ...]] = {
    "popcorn": ("high", "medium_high"),
    "reheat_plate": ("medium_high", "medium"),
    "melt_butter": ("low", "medium_low"),
    "baked_potato": ("high", "medium_high"),
    "hot_drink": ("high", "medium_high"),
}


def initial_state(world_seed: int) -> KitchenState:
    """The kitchen for ``world_seed``: every setting and preset drawn from one seeded RNG."""
    rng = random.Random(f"kitchen/world/{world_seed}")
    mode = rng.choice(OVEN_MODES[:4])
    dishwasher_power = rng.choice(("on", "off"))
    return KitchenState(
        oven=Oven(power=rng.choice(("on", "off")), mode=mode, temperature=_oven_temperature(rng, mode)),
        cooktop=Cooktop(
            child_lock=rng.choice(("on", "off")),
            burners={b: rng.choice(("off", "off", *BURNER_LEVELS[1:])) for b in BURNERS},
        ),
        microwave=Microwave(
            status=rng.choice(("idle", "idle", "running", "paused")),
            power_level=rng.choice(MICROWAVE_LEVELS),
            seconds=rng.choice(MICROWAVE_SECONDS),
        ),
        fridge=Fridge(
            mode=rng.choice(("normal", "normal", *FRIDGE_MODES[1:])),
            fridge_temperature=rng.randint(3, 6),
            freezer_temperature=rng.randint(-21, -16),
        ),
        dishwasher=Dishwasher(
            power=dishwasher_power,
            status="idle" if dishwasher_power == "off" else rng.choice(("idle", "running", "paused")),
            program=rng.choice(DISHWASHER_PROGRAMS),
        ),
        kettle=Kettle(power=rng.choice(("on", "off", "off")), temperature=rng.choice(KETTLE_TEMPERATURES)),
        coffee_maker=CoffeeMaker(power=rng.choice(("on", "off")), cups_brewed=rng.randint(0, 4)),
        timers={label: rng.randint(3, 40) for label in rng.sample(TIMER_LABELS, rng.randint(1, 3))},
        oven_presets={
            name: OvenSetting(mode=rng.choice(modes), temperature=rng.randrange(160, 231, 10))
            for name, modes in _OVEN_PRESET_MODES.items()
        },
        microwave_presets={
            name: MicrowaveSetting(power_level=rng.choice(levels), seconds=rng.choice(MICROWAVE_SECONDS))
            for name, levels in _MICROWAVE_PRESET_LEVELS.items()
        },
    )


def _oven_temperature(rng: random.Random, mode: OvenMode) -> int:
    low, high = OVEN_RANGE[mode]
    return rng.randrange(low, high + 1, 10)
