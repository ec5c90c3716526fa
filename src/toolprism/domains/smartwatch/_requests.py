"""What a smartwatch user may ask for, one :class:`~toolprism.domains._phrasing.Request` at a time.

Each maker reads the fresh world through a :class:`Plan` and returns a request whose gold
actions all succeed and each change the state, or None when the world offers nothing to ask. A
request declares the parts of the state it reads and writes; a plan admits a request only when
it neither writes what an earlier request of the task reads or writes nor reads what one writes,
so the requests of a compound task succeed and end in the same state in any order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from toolprism.domains._drafting import other
from toolprism.domains._grammar import slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains.smartwatch._state import (
    ACTIVITIES,
    ALARMS,
    COLORS,
    DAYS,
    FACES,
    GOAL_RANGE,
    GOALS,
    MAX_TIMERS,
    METRICS,
    MINIMAL_COLORS,
    MINUTES,
    MODES,
    POWER_SAVER_MAX_BRIGHTNESS,
    REPEATS,
    SLEEP_HOURS,
    TIMERS,
    Minute,
    SleepWindow,
    WatchState,
    sleep_hours,
)

Maker = Callable[["Plan"], Request | None]
ALARM_HOURS = {"wake_up": (5, 9), "medication": (7, 21), "gym": (6, 20), "nap": (12, 16)}
"""Hours (inclusive) a task sets each alarm to."""


def clock(hour: int, minute: str) -> str:
    """An alarm time as a query writes it, hour and minute slots (``(6, "30")`` → ``"6:30"``)."""
    return f"{slot(hour)}:{slot(minute)}"


def article(word: str) -> str:
    """The indefinite article of ``word``."""
    return "an" if word[0] in "aeiou" else "a"


@dataclass
class Plan:
    """One task under construction: the fresh world, the task RNG, and what its requests read and write."""

    state: WatchState
    rng: random.Random
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    alarm_times: set[tuple[int, str]] = field(default_factory=set)
    new_timers: int = 0

    def claim(self, reads: set[str], writes: set[str]) -> bool:
        """Admit a request reading ``reads`` and writing ``writes`` if it is independent of the others."""
        if writes & (self.reads | self.writes) or reads & self.writes:
            return False
        self.reads |= reads
        self.writes |= writes
        return True

    def free_time(self, alarm: str, hour: int, minute: str) -> bool:
        """Whether no other alarm that is on (initially or by this task) rings at ``hour:minute``."""
        taken = {(a.hour, a.minute) for n, a in self.state.alarms.items() if n != alarm and a.power == "on"}
        return (hour, minute) not in taken | self.alarm_times


# --- display -----------------------------------------------------------------------------------

_MODE_REASONS = {
    "normal": "bring the watch back to {} mode so everything works as usual",
    "power_saver": "stretch the battery through the day with {} mode",
    "theater": "get the watch ready for the show I'm heading into with {} mode",
    "sleep": "settle the watch into {} mode, I'm going to bed",
}


def mode(plan: Plan) -> Request | None:
    """Change the watch mode (sleep only without a workout)."""
    options = [m for m in MODES if m != plan.state.mode and (m != "sleep" or plan.state.workout is None)]
    if not plan.claim({"workout"}, {"mode", "brightness"}):
        return None
    value = plan.rng.choice(options)
    m = slot(value)
    return request(
        (f"switch the watch to {m} mode", f"set the watch mode to {m}", f"put my watch in {m} mode"),
        (_MODE_REASONS[value].format(m), f"change how the watch behaves to {m} mode"),
        ("set_mode", {"mode": value}),
    )


def brightness(plan: Plan) -> Request | None:
    """Change the screen brightness (never in sleep mode; at most 4 in power saver)."""
    if plan.state.mode == "sleep" or not plan.claim({"mode"}, {"brightness"}):
        return None
    top = POWER_SAVER_MAX_BRIGHTNESS if plan.state.mode == "power_saver" else 10
    value = other(plan.rng, range(1, top + 1), plan.state.brightness)
    level = slot(value)
    reason = (
        f"turn the screen up to {level}, it is too dim to read outside"
        if value > plan.state.brightness
        else f"bring the screen down to {level}, it is glaring at me"
    )
    return request(
        (
            f"set the brightness to {level}",
            f"change the screen brightness to level {level}",
            f"make the screen brightness {level}",
        ),
        (reason, f"adjust the display so its brightness sits at {level}"),
        ("set_brightness", {"level": value}),
    )


def face(plan: Plan) -> Request | None:
    """Change the watch face and accent color."""
    if not plan.claim(set(), {"face"}):
        return None
    options = [
        (f, c)
        for f in FACES
        for c in (MINIMAL_COLORS if f == "minimal" else COLORS)
        if (f, c) != (plan.state.face, plan.state.color)
    ]
    value, color = plan.rng.choice(options)
    f, c = slot(value), slot(color)
    return request(
        (
            f"change the watch face to {f} in {c}",
            f"switch to the {f} face with a {c} accent",
            f"use the {f} watch face in {c}",
        ),
        (
            f"give me the {f} face with {c} accents, I'm bored of the current look",
            f"freshen up the watch with the {f} face in {c}",
        ),
        ("set_watch_face", {"face": value, "color": color}),
    )


# --- alarms and timers -------------------------------------------------------------------------


def alarm(plan: Plan) -> Request | None:
    """Set an alarm to a new time or repetition at a time no other alarm that is on uses."""
    name = plan.rng.choice(ALARMS)
    if not plan.claim(set(), {f"alarm:{name}"}):
        return None
    current = plan.state.alarms[name]
    hours = ALARM_HOURS[name]
    options = [
        (h, m, r)
        for h in range(hours[0], hours[1] + 1)
        for m in MINUTES
        for r in REPEATS
        if plan.free_time(name, h, m)
        and (current.power == "off" or (h, m, r) != (current.hour, current.minute, current.repeat))
    ]
    if not options:
        return None
    hour, minute, repeat = plan.rng.choice(options)
    plan.alarm_times.add((hour, minute))
    return alarm_request(name, hour, minute, repeat)


def when(repeat: str) -> str:
    """A repetition as a query writes it, a slot (``"on weekdays"``)."""
    return {"once": "just {}", "weekdays": "on {}", "weekends": "on {}", "daily": "{}"}[repeat].format(slot(repeat))


def alarm_request(name: str, hour: int, minute: Minute, repeat: str) -> Request:
    """Set alarm ``name`` to ``hour:minute``, repeating ``repeat``."""
    a, t, w = slot(name), clock(hour, minute), when(repeat)
    return request(
        (f"set the {a} alarm for {t} {w}", f"make the {a} alarm ring at {t} {w}", f"change the {a} alarm to {t}, {w}"),
        (f"have the {a} alarm go off at {t} {w} from now on", f"get the {a} alarm ringing at {t} {w}"),
        ("set_alarm", {"alarm": name, "hour": hour, "minute": minute, "repeat": repeat}),
    )


def timer(plan: Plan) -> Request | None:
    """Start a timer that is not running, while fewer than 3 run (counting this task's)."""
    idle = [t for t in TIMERS if t not in plan.state.timers and f"timer:{t}" not in plan.writes]
    if not idle or len(plan.state.timers) + plan.new_timers >= MAX_TIMERS:
        return None
    label = plan.rng.choice(idle)
    plan.claim(set(), {f"timer:{label}"})
    plan.new_timers += 1
    minutes = plan.rng.choice((2, 4, 5, 8, 10, 12, 15, 20, 25, 30, 40, 45, 60, 90))
    t, n = slot(label), slot(minutes)
    m = f"{n} minutes"
    return request(
        (f"set a {t} timer for {m}", f"start a {n}-minute timer called {t}", f"time {m} for the {t}"),
        (f"count down {m} for the {t} so I don't forget it", f"keep an eye on the {t} for me, {m} from now"),
        ("set_timer", {"label": label, "minutes": minutes}),
    )


def two_timers(plan: Plan) -> Request | None:
    """Start two timers that are not running, while at most 3 run (counting this task's)."""
    idle = [t for t in TIMERS if t not in plan.state.timers and f"timer:{t}" not in plan.writes]
    if len(idle) < 2 or len(plan.state.timers) + plan.new_timers + 2 > MAX_TIMERS:
        return None
    labels = plan.rng.sample(idle, 2)
    plan.claim(set(), {f"timer:{t}" for t in labels})
    plan.new_timers += 2
    minutes = plan.rng.sample((2, 4, 5, 8, 10, 12, 15, 20, 25, 30, 40, 45, 60, 90), 2)
    (la, lb), (ma, mb) = labels, minutes
    a, b, m, n = slot(la), slot(lb), slot(ma), slot(mb)
    return request(
        (
            f"set a {a} timer for {m} minutes and a {b} timer for {n} minutes",
            f"start two timers: {a} for {m} minutes and {b} for {n} minutes",
        ),
        f"count down {m} minutes for the {a} and {n} minutes for the {b}, I'm juggling both",
        ("set_timer", {"label": la, "minutes": ma}),
        ("set_timer", {"label": lb, "minutes": mb}),
    )


def cancel(plan: Plan) -> Request | None:
    """Cancel a running timer."""
    running = [t for t in plan.state.timers if f"timer:{t}" not in plan.writes]
    if not running:
        return None
    label = plan.rng.choice(running)
    plan.claim(set(), {f"timer:{label}"})
    t = slot(label)
    return request(
        (f"cancel the {t} timer", f"stop the {t} timer", f"turn off the {t} timer"),
        (
            f"forget about the {t} timer, I already took care of it",
            f"drop the {t} timer, it is not needed anymore",
        ),
        ("cancel_timer", {"label": label}),
    )


# --- workouts ----------------------------------------------------------------------------------


def workout(plan: Plan) -> Request | None:
    """Start, pause, resume or stop the workout, whichever the current one allows."""
    current = plan.state.workout
    if current is None and plan.state.mode == "sleep":
        return None
    if not plan.claim({"mode"}, {"workout"}):
        return None
    if current is None:
        return start_request(plan.rng.choice(ACTIVITIES), plan.rng.choice(GOALS))
    if plan.rng.random() < 0.5:
        return stop_request(current.activity, plan.rng.choice(("save", "discard")))
    if current.status == "running":
        return request(
            ("pause my workout", f"pause the {current.activity} workout"),
            (
                f"hold the {current.activity} workout for a moment, I need a breather",
                "put my workout on hold while I tie my shoe",
            ),
            ("pause", {}),
        )
    return request(
        ("resume my workout", f"resume the paused {current.activity} workout"),
        (f"get the {current.activity} workout going again, I'm ready", "pick my workout back up where I left off"),
        ("resume", {}),
    )


def start_request(activity: str, goal: str) -> Request:
    """Start an ``activity`` workout with ``goal``."""
    w, g = slot(activity), f"{article(goal)} {slot(goal)} goal"
    return request(
        (f"start a {w} workout with {g}", f"begin a {w} session with {g}", f"start tracking a {w} with {g}"),
        (f"track the {w} I'm heading out for now, with {g}", f"log the {w} I'm about to do, with {g}"),
        ("start", {"activity": activity, "goal": goal}),
    )


def stop_request(activity: str, save: str) -> Request:
    """Stop the ``activity`` workout, saving or discarding it."""
    keep = f"{slot(save)} it"
    return request(
        (f"stop my workout and {keep}", f"end the {activity} workout and {keep}"),
        (
            f"wrap up the {activity}, I'm done, and {keep}",
            f"that's enough {activity} for today, finish the workout and {keep}",
        ),
        ("stop", {"save": save}),
    )


# --- health ------------------------------------------------------------------------------------


def new_goal(plan: Plan, metric: str) -> int:
    """A value for ``metric``'s goal in its range, on a round step, other than the current one."""
    low, high = GOAL_RANGE[metric]
    step = {"steps": 500, "active_minutes": 5, "calories": 50, "stand_hours": 1}[metric]
    return other(plan.rng, range(low, high + 1, step), plan.state.goals[metric])


def two_goals(plan: Plan) -> Request | None:
    """Change two daily goals in one request."""
    metrics = plan.rng.sample(METRICS, 2)
    if not plan.claim(set(), {f"goal:{m}" for m in metrics}):
        return None
    (ma, mb), (va, vb) = metrics, [new_goal(plan, m) for m in metrics]
    a, b, x, y = slot(ma), slot(mb), slot(va), slot(vb)
    return request(
        (
            f"set my {a} goal to {x} and my {b} goal to {y}",
            f"change my daily goals to {x} {a} and {y} {b}",
        ),
        f"step things up by aiming for {x} {a} and {y} {b} a day",
        ("set_goal", {"metric": ma, "value": va}),
        ("set_goal", {"metric": mb, "value": vb}),
    )


def goal(plan: Plan) -> Request | None:
    """Change a daily goal to another value in its range."""
    metric = plan.rng.choice(METRICS)
    if not plan.claim(set(), {f"goal:{metric}"}):
        return None
    value = new_goal(plan, metric)
    m, v = slot(metric), slot(value)
    return request(
        (f"set my daily {m} goal to {v}", f"change my {m} goal to {v}", f"make my {m} target {v} a day"),
        (f"push me to aim for {v} {m} every day", f"give me a daily target of {v} {m}"),
        ("set_goal", {"metric": metric, "value": value}),
    )


def sleep(plan: Plan) -> Request | None:
    """Change the weekday or weekend sleep schedule to another 6-12 hour window."""
    days = plan.rng.choice(DAYS)
    if not plan.claim(set(), {f"sleep:{days}"}):
        return None
    current = plan.state.sleep[days]
    low, high = SLEEP_HOURS
    options = [
        (b, w)
        for b in range(20, 24)
        for w in range(5, 10)
        if (b, w) != (current.bedtime, current.wake) and low <= sleep_hours(SleepWindow(bedtime=b, wake=w)) <= high
    ]
    bedtime, wake = plan.rng.choice(options)
    return sleep_request(days, bedtime, wake)


def sleep_request(days: str, bedtime: int, wake: int) -> Request:
    """Set the ``days`` sleep schedule to ``bedtime``-``wake``."""
    b, w, d = f"{slot(bedtime)}:00", f"{slot(wake)}:00", slot(days)
    return request(
        (
            f"set my {d} sleep schedule to bedtime {b} and wake up {w}",
            f"change my sleep schedule on {d} to {b} until {w}",
        ),
        (
            f"get me to bed by {b} and up at {w} on {d}, I need a steadier routine",
            f"help me sleep better on {d}: bed at {b}, up at {w}",
        ),
        ("set_schedule", {"days": days, "bedtime": bedtime, "wake": wake}),
    )


WRITES: dict[str, Maker] = {
    "mode": mode,
    "brightness": brightness,
    "face": face,
    "alarm": alarm,
    "timer": timer,
    "cancel_timer": cancel,
    "workout": workout,
    "goal": goal,
    "sleep": sleep,
}
"""Request makers of one write each, by template name."""
