"""The smartwatch native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- the screen is off in sleep mode (no brightness change), and power-saver mode allows brightness
  up to 4 (entering power saver dims a brighter screen to 4);
- sleep mode cannot start during a workout, and a workout cannot start in sleep mode;
- one workout at a time: pause a running one, resume a paused one, stop (save or discard) an
  active one;
- two alarms that are on never ring at the same time;
- a timer label runs once at a time, at most 3 timers run, and only a running timer is cancelled;
- the minimal face supports only white or black;
- goals stay in each metric's range (steps 1000-30000, active minutes 10-240, calories
  100-1500, stand hours 4-16), and a sleep window lasts 6 to 12 hours.

Other writes are idempotent: repeating one succeeds and changes nothing.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import discard, refuse_if, rows, transition
from toolprism.domains.smartwatch._state import (
    GOAL_RANGE,
    MAX_TIMERS,
    MINIMAL_COLORS,
    POWER_SAVER_MAX_BRIGHTNESS,
    SLEEP_HOURS,
    Activity,
    Alarm,
    AlarmName,
    Color,
    Days,
    Face,
    Goal,
    Metric,
    Minute,
    Mode,
    Repeat,
    Save,
    SleepWindow,
    TimerLabel,
    WatchState,
    Workout,
    sleep_hours,
)
from toolprism.errors import DomainError

TimerArg = Annotated[TimerLabel, Field(description="The timer's label.")]


def status_reply(state: WatchState) -> dict:
    """Display, battery, the workout in progress (null if none) and running timers."""
    return {
        "mode": state.mode,
        "brightness": state.brightness,
        "face": state.face,
        "color": state.color,
        "battery_percent": state.battery_percent,
        "workout": state.workout.model_dump(mode="json") if state.workout else None,
        "timers": rows(state.timers, "label", "minutes"),
        "saved_workouts": list(state.saved_workouts),
    }


def alarm_reply(state: WatchState, name: AlarmName) -> dict:
    """An alarm with its time written ``"HH:MM"`` as well."""
    alarm = state.alarms[name]
    return {"alarm": name, "time": f"{alarm.hour:02d}:{alarm.minute}", **alarm.model_dump(mode="json")}


def _workout(state: WatchState, action: str) -> Workout:
    refuse_if(state.workout is None, f"no workout is in progress to {action}")
    return state.workout


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(state: WatchState) -> dict:
    """Get the mode, brightness, watch face, battery, the workout in progress and the running timers."""
    return status_reply(state)


@operation(kind="read", group="alarms")
def get_alarms(state: WatchState) -> dict:
    """List the alarms with their time, repetition and whether each is on."""
    return {"alarms": [alarm_reply(state, name) for name in state.alarms]}


@operation(kind="read", group="health")
def get_health(state: WatchState) -> dict:
    """Get the daily goals and the sleep schedule for weekdays and weekends."""
    return {
        "goals": dict(state.goals),
        "sleep_schedule": {
            days: {**window.model_dump(mode="json"), "hours": sleep_hours(window)}
            for days, window in state.sleep.items()
        },
    }


# --- display -----------------------------------------------------------------------------------


@operation(kind="write", group="display")
def set_mode(state: WatchState, mode: Annotated[Mode, Field(description="The watch mode.")]) -> dict:
    """Set the watch mode; power saver dims the screen to at most 4, sleep needs no workout running."""
    if mode == "sleep" and state.workout is not None:
        raise DomainError(f"a {state.workout.activity} workout is in progress; stop it before sleep mode")
    state.mode = mode
    if mode == "power_saver":
        state.brightness = min(state.brightness, POWER_SAVER_MAX_BRIGHTNESS)
    return {"mode": mode, "brightness": state.brightness}


@operation(kind="write", group="display")
def set_brightness(
    state: WatchState,
    level: Annotated[int, Field(ge=1, le=10, description="Screen brightness level (1-10; at most 4 in power saver).")],
) -> dict:
    """Set the screen brightness; not in sleep mode, at most 4 in power-saver mode."""
    refuse_if(state.mode == "sleep", "the screen is off in sleep mode; switch to another mode first")
    refuse_if(
        state.mode == "power_saver" and level > POWER_SAVER_MAX_BRIGHTNESS,
        f"power saver allows brightness up to {POWER_SAVER_MAX_BRIGHTNESS}; leave it first",
    )
    state.brightness = level
    return {"mode": state.mode, "brightness": level}


@operation(kind="write", group="display")
def set_watch_face(
    state: WatchState,
    face: Annotated[Face, Field(description="The watch face.")],
    color: Annotated[Color, Field(description="The accent color (the minimal face: white or black only).")],
) -> dict:
    """Set the watch face and its accent color."""
    refuse_if(
        face == "minimal" and color not in MINIMAL_COLORS,
        f"the minimal face comes only in {' or '.join(MINIMAL_COLORS)}, not {color}",
    )
    state.face, state.color = face, color
    return {"face": face, "color": color}


# --- alarms and timers -------------------------------------------------------------------------


@operation(kind="write", group="alarms")
def set_alarm(
    state: WatchState,
    alarm: Annotated[AlarmName, Field(description="The alarm.")],
    hour: Annotated[int, Field(ge=0, le=23, description="Hour on a 24-hour clock (0-23).")],
    minute: Annotated[Minute, Field(description="Minutes past the hour.")],
    repeat: Annotated[Repeat, Field(description="Which days it rings.")],
) -> dict:
    """Set an alarm's time and repetition and turn it on."""
    for other, value in state.alarms.items():
        if other != alarm and value.power == "on" and (value.hour, value.minute) == (hour, minute):
            raise DomainError(f"the {other} alarm already rings at {hour:02d}:{minute}; pick another time")
    state.alarms[alarm] = Alarm(hour=hour, minute=minute, repeat=repeat, power="on")
    return alarm_reply(state, alarm)


@operation(kind="write", group="timers")
def set_timer(
    state: WatchState,
    label: TimerArg,
    minutes: Annotated[int, Field(ge=1, le=180, description="Countdown length in minutes (1-180).")],
) -> dict:
    """Start a labelled countdown timer (at most 3 run at once)."""
    refuse_if(label in state.timers, f"the {label} timer is already running; cancel it first")
    refuse_if(len(state.timers) >= MAX_TIMERS, f"{MAX_TIMERS} timers are already running; cancel one first")
    state.timers[label] = minutes
    return {"timers": rows(state.timers, "label", "minutes")}


@operation(kind="write", group="timers")
def cancel_timer(state: WatchState, label: TimerArg) -> dict:
    """Cancel a running timer."""
    discard(state.timers, label, f"no {label} timer is running")
    return {"timers": rows(state.timers, "label", "minutes")}


# --- workouts ----------------------------------------------------------------------------------


@operation(kind="write", group="workout")
def start(
    state: WatchState,
    activity: Annotated[Activity, Field(description="The kind of workout.")],
    goal: Annotated[Goal, Field(description="What the workout tracks progress against (open: no target).")],
) -> dict:
    """Start a workout; none may be in progress and the watch may not be in sleep mode."""
    if state.workout is not None:
        raise DomainError(f"a {state.workout.activity} workout is already {state.workout.status}; stop it first")
    refuse_if(state.mode == "sleep", "the watch is in sleep mode; switch to another mode before a workout")
    state.workout = Workout(activity=activity, goal=goal, status="running")
    return {"workout": state.workout.model_dump(mode="json")}


@operation(kind="write", group="workout")
def pause(state: WatchState) -> dict:
    """Pause the running workout."""
    workout = _workout(state, "pause")
    transition(workout, "status", "running", "paused", f"the {workout.activity} workout is already paused")
    return {"workout": workout.model_dump(mode="json")}


@operation(kind="write", group="workout")
def resume(state: WatchState) -> dict:
    """Resume the paused workout."""
    workout = _workout(state, "resume")
    transition(workout, "status", "paused", "running", f"the {workout.activity} workout is already running")
    return {"workout": workout.model_dump(mode="json")}


@operation(kind="write", group="workout")
def stop(
    state: WatchState, save: Annotated[Save, Field(description="Keep the workout in the history or throw it away.")]
) -> dict:
    """End the workout in progress, saving it to the history or discarding it."""
    workout = _workout(state, "stop")
    if save == "save":
        state.saved_workouts.append(workout.activity)
    state.workout = None
    return {"stopped": workout.activity, "saved": save, "saved_workouts": list(state.saved_workouts)}


# --- health ------------------------------------------------------------------------------------


@operation(kind="write", group="health")
def set_goal(
    state: WatchState,
    metric: Annotated[Metric, Field(description="The daily goal to set.")],
    value: Annotated[
        int,
        Field(
            ge=1,
            le=30000,
            description="Target: steps 1000-30000, active minutes 10-240, kcal 100-1500, stand hours 4-16.",
        ),
    ],
) -> dict:
    """Set a daily activity goal within the metric's range."""
    low, high = GOAL_RANGE[metric]
    refuse_if(not low <= value <= high, f"a {metric} goal must be between {low} and {high}, not {value}")
    state.goals[metric] = value
    return {"goals": dict(state.goals)}


@operation(kind="write", group="health")
def set_schedule(
    state: WatchState,
    days: Annotated[Days, Field(description="Which nights the sleep schedule applies to.")],
    bedtime: Annotated[int, Field(ge=19, le=23, description="Bedtime hour (19-23, 24-hour clock).")],
    wake: Annotated[int, Field(ge=4, le=11, description="Wake-up hour the next morning (4-11).")],
) -> dict:
    """Set the sleep schedule for weekdays or weekends (6 to 12 hours of sleep)."""
    window = SleepWindow(bedtime=bedtime, wake=wake)
    low, high, hours = *SLEEP_HOURS, sleep_hours(window)
    refuse_if(not low <= hours <= high, f"a sleep window must last {low} to {high} hours, not {hours}")
    state.sleep[days] = window
    return {"days": days, "bedtime": bedtime, "wake": wake, "hours": hours}


OPERATIONS = (
    get_status,
    get_alarms,
    get_health,
    set_mode,
    set_brightness,
    set_watch_face,
    set_alarm,
    set_timer,
    cancel_timer,
    start,
    pause,
    resume,
    stop,
    set_goal,
    set_schedule,
)
"""All operations, in the order the action space lists them."""
