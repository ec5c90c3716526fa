"""Task templates of the smartwatch domain: questions, single writes, compound and compositional tasks.

Every template reads the fresh world of the seed, so each gold write succeeds and changes the
state; compound tasks join independent requests (see :class:`._requests.Plan`); compositional
tasks read first and act on what they read (the values they use are in the earlier reply), or
need one write before another (a workout stops before sleep mode or a new workout, a running
timer is cancelled before it restarts). Per seed: 8 questions, 20 single writes, 72 compound and
24 compositional drafts (124).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import MAX_CALLS, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._opkit import words
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import draft_plan, rotation_plan
from toolprism.domains.smartwatch._requests import (
    ALARM_HOURS,
    WRITES,
    Plan,
    clock,
    start_request,
    stop_request,
    two_goals,
    two_timers,
    when,
)
from toolprism.domains.smartwatch._state import (
    ACTIVITIES,
    ALARMS,
    DAYS,
    GOALS,
    METRICS,
    MINUTES,
    POWER_SAVER_MAX_BRIGHTNESS,
    REPEATS,
    TIMERS,
    WatchState,
)

Composer = Callable[[Plan], list[Request] | None]
_TIMER_MINUTES = (3, 5, 8, 10, 12, 15, 20, 25, 30, 45)


# --- questions (one read each) -----------------------------------------------------------------


def _ask(direct: tuple[str, ...], indirect: str, op: str) -> Composer:
    return lambda plan: [request(direct, indirect, (op, {}))]


def ask_alarm(plan: Plan) -> list[Request] | None:
    """Ask when one alarm rings."""
    a = words(plan.rng.choice(ALARMS))
    return [
        request(
            (f"tell me when the {a} alarm rings", f"show me the time of my {a} alarm"),
            f"check whether the {a} alarm is on and when it goes off",
            ("get_alarms", {}),
        )
    ]


def ask_goal(plan: Plan) -> list[Request] | None:
    """Ask for one daily goal."""
    m = words(plan.rng.choice(METRICS))
    return [
        request(
            (f"tell me my daily {m} goal", f"show me what my {m} goal is"),
            f"find out how many {m} I'm supposed to hit each day",
            ("get_health", {}),
        )
    ]


QUESTION_TEMPLATES: dict[str, Composer] = {
    "ask_battery": _ask(
        ("tell me how much battery is left", "show me the battery level"),
        "check whether the watch will last until tonight by looking at the battery",
        "get_status",
    ),
    "ask_workout": _ask(
        ("tell me whether a workout is in progress", "show me my current workout"),
        "check if the watch is still tracking a workout",
        "get_status",
    ),
    "ask_timers": _ask(
        ("tell me which timers are running", "list my running timers"),
        "look up what I have counting down right now",
        "get_status",
    ),
    "ask_alarm": ask_alarm,
    "ask_goal": ask_goal,
    "ask_sleep": _ask(
        ("tell me my sleep schedule", "show me my bedtime and wake-up hours"),
        "remind me when I'm meant to go to bed and get up",
        "get_health",
    ),
}


# --- compositional -----------------------------------------------------------------------------


def stop_then_start(plan: Plan) -> list[Request] | None:
    """Stop the workout in progress, then start another (one workout at a time)."""
    current = plan.state.workout
    if current is None:
        return None
    activity = other(plan.rng, ACTIVITIES, current.activity)
    return [
        stop_request(current.activity, plan.rng.choice(("save", "discard"))),
        start_request(activity, plan.rng.choice(GOALS)),
    ]


def stop_then_sleep(plan: Plan) -> list[Request] | None:
    """Stop the workout in progress, then enter sleep mode (not allowed during a workout)."""
    current = plan.state.workout
    if current is None or plan.state.mode == "sleep":
        return None
    return [
        stop_request(current.activity, plan.rng.choice(("save", "discard"))),
        request(
            (f"put the watch in {slot('sleep')} mode", f"switch the watch to {slot('sleep')} mode"),
            f"let the watch go into {slot('sleep')} mode for the night",
            ("set_mode", {"mode": "sleep"}),
        ),
    ]


def if_workout(plan: Plan) -> list[Request] | None:
    """Check the workout and pause it if running, or resume it if paused."""
    current = plan.state.workout
    if current is None:
        return None
    if current.status == "running":
        direct = (
            "check my workout and, if it is still running, pause it",
            "look at my workout and pause it if it's running",
        )
        indirect, op = "see whether the workout is still running and, if so, put it on pause", "pause"
    else:
        direct = ("check my workout and, if it is paused, resume it", "look at my workout and resume it if it's paused")
        indirect, op = "see whether my workout got paused and, if it did, resume it", "resume"
    return [request(direct, indirect, ("get_status", {}), (op, {}))]


def wake_up_watch(plan: Plan) -> list[Request] | None:
    """Leave sleep or power-saver mode for normal, then raise the brightness (and maybe start a workout)."""
    if plan.state.mode not in ("sleep", "power_saver"):
        return None
    low = 0 if plan.state.mode == "sleep" else POWER_SAVER_MAX_BRIGHTNESS
    level = other(plan.rng, range(low + 1, 11), plan.state.brightness)
    normal, v = slot("normal"), slot(level)
    requests = [
        request(
            (f"switch the watch to {normal} mode", f"set the watch mode back to {normal}"),
            f"bring the watch back to {normal} mode",
            ("set_mode", {"mode": "normal"}),
        ),
        request(
            (f"set the brightness to {v}", f"turn the screen brightness up to {v}"),
            f"make the screen bright enough to read, level {v}",
            ("set_brightness", {"level": level}),
        ),
    ]
    if plan.state.workout is None and plan.rng.random() < 0.5:
        requests.append(start_request(plan.rng.choice(ACTIVITIES), plan.rng.choice(GOALS)))
    return requests


def restart_timer(plan: Plan) -> list[Request] | None:
    """Cancel one or two running timers and start them again with new lengths."""
    running = list(plan.state.timers)
    if not running:
        return None
    labels = plan.rng.sample(running, min(len(running), plan.rng.choice((1, 1, 2))))
    minutes = [other(plan.rng, _TIMER_MINUTES, plan.state.timers[t]) for t in labels]
    parts = " and ".join(f"the {slot(t)} timer at {slot(m)} minutes" for t, m in zip(labels, minutes, strict=True))
    return [
        request(
            (f"restart {parts}", f"cancel and start again {parts}"),
            f"reset {parts}, since the old countdown is wrong",
            *[("cancel_timer", {"label": t}) for t in labels],
            *[("set_timer", {"label": t, "minutes": m}) for t, m in zip(labels, minutes, strict=True)],
        )
    ]


def clear_timers(plan: Plan) -> list[Request] | None:
    """Read the running timers, cancel them all, then start one or two new ones."""
    running = list(plan.state.timers)
    if not running:
        return None
    labels = plan.rng.sample(TIMERS, plan.rng.choice((1, 1, 2)))
    minutes = [plan.rng.choice(_TIMER_MINUTES) for _ in labels]
    new = " and ".join(f"a {slot(t)} timer for {slot(m)} minutes" for t, m in zip(labels, minutes, strict=True))
    return [
        request(
            ("check which timers are running", "look up my running timers"),
            "see what is counting down right now",
            ("get_status", {}),
        ),
        request(
            ("cancel all of them", "cancel every one of them"),
            "get rid of all of those countdowns",
            *[("cancel_timer", {"label": replied(t)}) for t in running],
        ),
        request(
            (f"start {new}", f"set {new}"),
            f"count down {new} instead",
            *[("set_timer", {"label": t, "minutes": m}) for t, m in zip(labels, minutes, strict=True)],
        ),
    ]


def if_timer(plan: Plan) -> list[Request] | None:
    """Check whether a timer runs and cancel it (it does)."""
    if not plan.state.timers:
        return None
    label = plan.rng.choice(list(plan.state.timers))
    t = slot(label)
    return [
        request(
            (
                f"check whether the {t} timer is running and, if so, cancel it",
                f"look at my timers and cancel the {t} one if it's running",
            ),
            f"see if the {t} timer is still going and if it is, cancel it",
            ("get_status", {}),
            ("cancel_timer", {"label": label}),
        )
    ]


def dim_if_bright(plan: Plan) -> list[Request] | None:
    """Check the brightness and lower it when it is above a stated level (it is)."""
    level = plan.state.brightness
    if plan.state.mode == "sleep" or level < 3:
        return None
    threshold = plan.rng.randint(1, level - 1)
    target = plan.rng.randint(1, threshold)
    v = slot(target)
    return [
        request(
            (
                f"check the brightness and, if it is above {threshold}, turn it down to {v}",
                f"look at the screen brightness and set it to {v} if it's higher than {threshold}",
            ),
            f"see whether the screen is brighter than {threshold} and if it is, dim it to {v}",
            ("get_status", {}),
            ("set_brightness", {"level": target}),
        )
    ]


def copy_alarm_time(plan: Plan) -> list[Request] | None:
    """Set an alarm to the time of an alarm that is off (so the times do not clash)."""
    alarms = plan.state.alarms
    sources = [n for n in ALARMS if alarms[n].power == "off"]
    if not sources:
        return None
    source = plan.rng.choice(sources)
    hour, minute = alarms[source].hour, alarms[source].minute
    targets = [
        n
        for n in ALARMS
        if n != source and plan.free_time(n, hour, minute) and (alarms[n].hour, alarms[n].minute) != (hour, minute)
    ]
    if not targets:
        return None
    target, repeat = plan.rng.choice(targets), plan.rng.choice(REPEATS)
    s, t, w = words(source), slot(target), when(repeat)
    return [
        request(
            (f"look up the time of the {s} alarm", f"check when the {s} alarm is set for"),
            f"find out what time the {s} alarm has",
            ("get_alarms", {}),
        ),
        request(
            (f"set the {t} alarm to that same time {w}", f"make the {t} alarm ring at that time {w}"),
            f"have the {t} alarm go off at that time {w}",
            ("set_alarm", {"alarm": target, "hour": replied(hour), "minute": replied(minute), "repeat": repeat}),
        ),
    ]


def alarm_if_off(plan: Plan) -> list[Request] | None:
    """Check an alarm and turn it on at a stated time when it is off (it is)."""
    off = [n for n in ALARMS if plan.state.alarms[n].power == "off"]
    if not off:
        return None
    name = plan.rng.choice(off)
    low, high = ALARM_HOURS[name]
    options = [(h, m) for h in range(low, high + 1) for m in MINUTES if plan.free_time(name, h, m)]
    hour, minute = plan.rng.choice(options)
    repeat = plan.rng.choice(REPEATS)
    a, t, w = slot(name), clock(hour, minute), when(repeat)
    return [
        request(
            (
                f"check whether the {a} alarm is on and, if it is off, set it for {t} {w}",
                f"look at my {a} alarm and if it's off, make it ring at {t} {w}",
            ),
            f"make sure the {a} alarm is active; if it's off, set it for {t} {w}",
            ("get_alarms", {}),
            ("set_alarm", {"alarm": name, "hour": hour, "minute": minute, "repeat": repeat}),
        )
    ]


def copy_sleep(plan: Plan) -> list[Request] | None:
    """Give weekends the weekday sleep schedule, or the other way round."""
    source, target = plan.rng.sample(DAYS, 2)
    window = plan.state.sleep[source]
    if window == plan.state.sleep[target]:
        return None
    t = slot(target)
    return [
        request(
            (
                f"make my {t} sleep schedule the same as on {source}",
                f"check my {source} sleep schedule and use it on {t} too",
            ),
            f"line up my {t} sleep with my {source} routine",
            ("get_health", {}),
            ("set_schedule", {"days": target, "bedtime": replied(window.bedtime), "wake": replied(window.wake)}),
        )
    ]


def goal_if_low(plan: Plan) -> list[Request] | None:
    """Check a goal and raise it to a stated value when it is below that value (it is)."""
    metric = plan.rng.choice(METRICS)
    current = plan.state.goals[metric]
    step = {"steps": 1000, "active_minutes": 10, "calories": 100, "stand_hours": 1}[metric]
    value = current - current % step + step * plan.rng.randint(1, 3)
    m, v = slot(metric), slot(value)
    return [
        request(
            (
                f"check my {m} goal and, if it is below {v}, raise it to {v}",
                f"look at my daily {m} goal and set it to {v} if it's lower",
            ),
            f"see whether my {m} target is under {v} and if so, bump it up to {v}",
            ("get_health", {}),
            ("set_goal", {"metric": metric, "value": value}),
        )
    ]


COMPOSITIONAL_TEMPLATES: dict[str, Composer] = {
    "stop_then_start": stop_then_start,
    "stop_then_sleep": stop_then_sleep,
    "if_workout": if_workout,
    "wake_up_watch": wake_up_watch,
    "restart_timer": restart_timer,
    "clear_timers": clear_timers,
    "if_timer": if_timer,
    "dim_if_bright": dim_if_bright,
    "copy_alarm_time": copy_alarm_time,
    "alarm_if_off": alarm_if_off,
    "copy_sleep": copy_sleep,
    "goal_if_low": goal_if_low,
}


# --- compound: independent writes --------------------------------------------------------------

COMPOUND_WEIGHTS: dict[str, int] = {
    "mode": 1,
    "brightness": 2,
    "face": 2,
    "alarm": 3,
    "timer": 2,
    "cancel_timer": 2,
    "workout": 2,
    "goal": 3,
    "sleep": 2,
    "two_timers": 1,
    "two_goals": 1,
}


def compound(plan: Plan) -> list[Request] | None:
    """Two to five independent writes (one call each, two for ``two_timers``), at most six calls."""
    count = plan.rng.choice((2, 3, 3, 3, 4, 4, 4, 5, 5, 5))
    requests: list[Request] = []
    calls = 0
    for _ in range(4 * count):
        if len(requests) == count:
            break
        name = plan.rng.choices(list(COMPOUND_WEIGHTS), weights=list(COMPOUND_WEIGHTS.values()))[0]
        if name.startswith("two_") and calls + 2 + (count - len(requests) - 1) > MAX_CALLS:
            continue
        made = {"two_timers": two_timers, "two_goals": two_goals}.get(name, WRITES.get(name))(plan)
        if made is not None:
            requests.append(made)
            calls += len(made.gold)
    return requests if len(requests) >= 2 else None


# --- assembly ----------------------------------------------------------------------------------


PLAN = rotation_plan(Plan, QUESTION_TEMPLATES, WRITES, compound, COMPOSITIONAL_TEMPLATES)
"""Questions, one-call writes, compound tasks, then compositional ones, the templates of each in turn."""


def drafts(state: WatchState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed`` (deterministic, 124 drafts).

    The task RNG is ``random.Random(f"smartwatch/tasks/{world_seed}")``, apart from the world's.
    """
    return draft_plan(random.Random(f"smartwatch/tasks/{world_seed}"), state, PLAN)
