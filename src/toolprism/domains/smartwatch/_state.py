"""Typed state of the smartwatch world: display, alarms, timers, the current workout, goals and sleep.

Every setting is drawn from ``random.Random(f"smartwatch/world/{world_seed}")``. Alarm times are
an hour (24-hour clock) and a minute of ``"00"``, ``"15"``, ``"30"`` or ``"45"``; timers count
whole minutes; a sleep window runs from a bedtime hour to a wake-up hour the next morning.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import Percent, StateModel

Mode = Literal["normal", "power_saver", "theater", "sleep"]
Face = Literal["analog", "digital", "modular", "chronograph", "minimal"]
Color = Literal["white", "black", "red", "blue", "green", "orange"]
AlarmName = Literal["wake_up", "medication", "gym", "nap"]
Minute = Literal["00", "15", "30", "45"]
Repeat = Literal["once", "weekdays", "weekends", "daily"]
Power = Literal["on", "off"]
TimerLabel = Literal["tea", "pasta", "laundry", "stretch", "parking"]
Activity = Literal["run", "walk", "cycle", "swim", "yoga", "strength"]
Goal = Literal["open", "distance", "time", "calories"]
WorkoutStatus = Literal["running", "paused"]
Save = Literal["save", "discard"]
Metric = Literal["steps", "active_minutes", "calories", "stand_hours"]
Days = Literal["weekdays", "weekends"]

MODES: tuple[Mode, ...] = get_args(Mode)
FACES: tuple[Face, ...] = get_args(Face)
COLORS: tuple[Color, ...] = get_args(Color)
ALARMS: tuple[AlarmName, ...] = get_args(AlarmName)
MINUTES: tuple[Minute, ...] = get_args(Minute)
REPEATS: tuple[Repeat, ...] = get_args(Repeat)
TIMERS: tuple[TimerLabel, ...] = get_args(TimerLabel)
ACTIVITIES: tuple[Activity, ...] = get_args(Activity)
GOALS: tuple[Goal, ...] = get_args(Goal)
METRICS: tuple[Metric, ...] = get_args(Metric)
DAYS: tuple[Days, ...] = get_args(Days)

POWER_SAVER_MAX_BRIGHTNESS = 4
"""Brightness levels above this are refused in power-saver mode (entering it clamps to this)."""
MAX_TIMERS = 3
"""Timers that may run at once."""
MINIMAL_COLORS: tuple[Color, ...] = ("white", "black")
"""The only accent colors the minimal face supports."""
GOAL_RANGE: dict[Metric, tuple[int, int]] = {
    "steps": (1000, 30000),
    "active_minutes": (10, 240),
    "calories": (100, 1500),
    "stand_hours": (4, 16),
}
"""Accepted goal per metric (inclusive): steps, minutes, kilocalories, hours."""
SLEEP_HOURS = (6, 12)
"""A sleep window lasts at least 6 and at most 12 hours."""

Brightness = Annotated[int, Field(ge=1, le=10)]


class Alarm(StateModel):
    """An alarm's time, repetition and whether it is on."""

    hour: Annotated[int, Field(ge=0, le=23)]
    minute: Minute
    repeat: Repeat
    power: Power


class Workout(StateModel):
    """The workout in progress."""

    activity: Activity
    goal: Goal
    status: WorkoutStatus


class SleepWindow(StateModel):
    """Bedtime (19-23 h) and wake-up hour (4-11 h) the next morning."""

    bedtime: Annotated[int, Field(ge=19, le=23)]
    wake: Annotated[int, Field(ge=4, le=11)]


class WatchState(StateModel):
    """The whole watch."""

    mode: Mode
    brightness: Brightness
    face: Face
    color: Color
    battery_percent: Percent
    alarms: dict[AlarmName, Alarm]
    timers: dict[TimerLabel, int]
    """Running timers: label → minutes set."""
    workout: Workout | None
    saved_workouts: list[Activity]
    goals: dict[Metric, int]
    sleep: dict[Days, SleepWindow]


def sleep_hours(window: SleepWindow) -> int:
    """Hours from bedtime to wake-up the next morning."""
    return 24 - window.bedtime + window.wake


def initial_state(world_seed: int) -> WatchState:
    """The watch for ``world_seed``: settings drawn from one seeded RNG, every rule satisfied."""
    rng = random.Random(f"smartwatch/world/{world_seed}")
    workout = None
    if rng.random() < 0.5:
        workout = Workout(
            activity=rng.choice(ACTIVITIES), goal=rng.choice(GOALS), status=rng.choice(("running", "paused"))
        )
    mode = rng.choice(MODES[:3] if workout else MODES)
    brightness = rng.randint(1, POWER_SAVER_MAX_BRIGHTNESS if mode == "power_saver" else 10)
    face = rng.choice(FACES)
    color = rng.choice(MINIMAL_COLORS if face == "minimal" else COLORS)
    return WatchState(
        mode=mode,
        brightness=brightness,
        face=face,
        color=color,
        battery_percent=rng.randint(15, 100),
        alarms=_alarms(rng),
        timers={label: rng.choice((3, 5, 10, 20, 45)) for label in rng.sample(TIMERS, rng.choice((0, 1, 1, 2, 2, 3)))},
        workout=workout,
        saved_workouts=rng.sample(ACTIVITIES, 2),
        goals={m: rng.randrange(lo, hi // 2, 10 if hi > 100 else 1) for m, (lo, hi) in GOAL_RANGE.items()},
        sleep={d: SleepWindow(bedtime=rng.randint(21, 23), wake=rng.randint(6, 8)) for d in DAYS},
    )


def _alarms(rng: random.Random) -> dict[AlarmName, Alarm]:
    """Alarms at distinct times: wake-up and gym in the morning, medication any time, nap after lunch."""
    hours = {"wake_up": (5, 8), "medication": (8, 21), "gym": (6, 19), "nap": (13, 16)}
    alarms: dict[AlarmName, Alarm] = {}
    taken: set[tuple[int, str]] = set()
    for name in ALARMS:
        while (time := (rng.randint(*hours[name]), rng.choice(MINUTES))) in taken:
            pass
        taken.add(time)
        alarms[name] = Alarm(hour=time[0], minute=time[1], repeat=rng.choice(REPEATS), power=rng.choice(("on", "off")))
    return alarms
