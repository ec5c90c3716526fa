"""Typed state of the calendar world: one person's week of events, availability and presets.

The catalogue of events, guests and presets is fixed; which events are on the calendar, when,
for how long, with whom, and every other setting are drawn from
``random.Random(f"calendar/world/{world_seed}")``. Times are whole hours (24-hour clock) and
durations minutes; every event ends by :data:`DAY_END_MINUTE` (23:00).
"""

from __future__ import annotations

import random
from typing import Annotated, Literal, get_args

from pydantic import Field

from toolprism.domains._device import StateModel

Day = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
EventName = Literal[
    "standup",
    "dentist_visit",
    "project_review",
    "budget_meeting",
    "yoga_class",
    "book_club",
    "client_call",
    "piano_lesson",
]
Guest = Literal["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
Lead = Literal["5_minutes", "10_minutes", "30_minutes", "1_hour", "1_day"]
Method = Literal["notification", "email", "sms"]
Visibility = Literal["public", "private"]
Mode = Literal["available", "busy", "do_not_disturb", "out_of_office"]
PresetName = Literal["quick_sync", "standard_meeting", "workshop", "focus_block"]

DAYS: tuple[Day, ...] = get_args(Day)
EVENTS: tuple[EventName, ...] = get_args(EventName)
GUESTS: tuple[Guest, ...] = get_args(Guest)
LEADS: tuple[Lead, ...] = get_args(Lead)
METHODS: tuple[Method, ...] = get_args(Method)
VISIBILITIES: tuple[Visibility, ...] = get_args(Visibility)
MODES: tuple[Mode, ...] = get_args(Mode)
PRESETS: tuple[PresetName, ...] = get_args(PresetName)

LEAD_MINUTES: dict[Lead, int] = {"5_minutes": 5, "10_minutes": 10, "30_minutes": 30, "1_hour": 60, "1_day": 1440}
EMAIL_MIN_LEAD_MINUTES = 30
"""An email reminder needs at least this much notice (minutes)."""
MAX_GUESTS = 4
"""Guests an event may have."""
DAY_END_MINUTE = 23 * 60
"""Every event ends by 23:00 (minutes after midnight)."""
MIN_WORKDAY_HOURS = 4
"""Working hours on a day span at least this many hours."""
DURATION_STEP_MINUTES = 15

Hour = Annotated[int, Field(ge=6, le=22)]
Minutes = Annotated[int, Field(ge=15, le=180)]
StartHour = Annotated[int, Field(ge=5, le=12)]
EndHour = Annotated[int, Field(ge=13, le=22)]


class Reminder(StateModel):
    """When and how the calendar reminds the user of an event."""

    lead: Lead
    method: Method


class Event(StateModel):
    """One event of the catalogue; ``day`` and ``hour`` are None while it is not on the calendar."""

    day: Day | None
    hour: Hour | None
    minutes: Minutes
    reminder: Reminder | None
    guests: list[Guest]
    """In the order of :data:`GUESTS`."""
    visibility: Visibility

    @property
    def scheduled(self) -> bool:
        """Whether the event is on the calendar."""
        return self.day is not None


class WorkingHours(StateModel):
    """The hours (24-hour clock) others may book the user on one day."""

    start: StartHour
    end: EndHour


class Preset(StateModel):
    """A meeting template: a duration and a reminder applied together."""

    minutes: Minutes
    reminder: Reminder


class CalendarState(StateModel):
    """The whole calendar."""

    events: dict[EventName, Event]
    mode: Mode
    working_hours: dict[Day, WorkingHours]
    presets: dict[PresetName, Preset]


def span(event: Event) -> tuple[int, int]:
    """``(start, end)`` of a scheduled event in minutes after midnight."""
    start = event.hour * 60
    return start, start + event.minutes


def clock(minute: int) -> str:
    """Minutes after midnight as ``"HH:MM"`` (``570`` → ``"09:30"``)."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


def initial_state(world_seed: int) -> CalendarState:
    """The calendar for ``world_seed``: six of the eight events placed without overlaps."""
    rng = random.Random(f"calendar/world/{world_seed}")
    events: dict[EventName, Event] = {}
    placed: list[tuple[Day, int, int]] = []
    scheduled = set(rng.sample(EVENTS, 6))
    for name in EVENTS:
        events[name] = _event(rng, placed if name in scheduled else None)
    working_hours = {day: WorkingHours(start=rng.randint(7, 10), end=rng.randint(16, 19)) for day in DAYS}
    return CalendarState(events=events, mode=rng.choice(MODES), working_hours=working_hours, presets=_presets(rng))


def _event(rng: random.Random, placed: list[tuple[Day, int, int]] | None) -> Event:
    """A random event; placed on a free slot (and recorded in ``placed``) unless ``placed`` is None."""
    minutes = rng.choice((30, 45, 60, 60, 90, 120))
    visibility: Visibility = "private" if rng.random() < 0.3 else "public"
    count = 0 if visibility == "private" else rng.choice((0, 1, 1, 2, 2, 3, 3, 4))
    guests = sorted(rng.sample(GUESTS, count), key=GUESTS.index)
    reminder = None
    if rng.random() < 0.75:
        lead = rng.choice(LEADS)
        methods = METHODS if LEAD_MINUTES[lead] >= EMAIL_MIN_LEAD_MINUTES else ("notification", "sms")
        reminder = Reminder(lead=lead, method=rng.choice(methods))
    day, hour = None, None
    if placed is not None:
        while True:
            day, hour = rng.choice(DAYS[:5]), rng.randint(8, 19)
            start, end = hour * 60, hour * 60 + minutes
            if all(d != day or end <= s or e <= start for d, s, e in placed):
                break
        placed.append((day, start, end))
    return Event(day=day, hour=hour, minutes=minutes, reminder=reminder, guests=guests, visibility=visibility)


def _presets(rng: random.Random) -> dict[PresetName, Preset]:
    """Four presets with distinct durations."""
    return {
        "quick_sync": Preset(
            minutes=rng.choice((15, 30)),
            reminder=Reminder(lead=rng.choice(("5_minutes", "10_minutes")), method="notification"),
        ),
        "standard_meeting": Preset(
            minutes=60, reminder=Reminder(lead=rng.choice(("10_minutes", "30_minutes")), method="notification")
        ),
        "workshop": Preset(
            minutes=rng.choice((120, 180)), reminder=Reminder(lead=rng.choice(("1_hour", "1_day")), method="email")
        ),
        "focus_block": Preset(
            minutes=90, reminder=Reminder(lead="5_minutes", method=rng.choice(("notification", "sms")))
        ),
    }
