"""The calendar native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- an event is added only when it is not on the calendar, and moved, cancelled, resized, given a
  reminder, a preset or a guest only when it is;
- an event starts on the hour, lasts a multiple of 15 minutes, ends by 23:00 and overlaps no
  other event of its day (moving it to the slot it already has is refused too);
- an email reminder needs at least 30 minutes' notice;
- a private event has no guests (a guest list is kept in a fixed order, so the order of
  invitations does not matter): inviting to one is refused, and so is making an event with
  guests private; an event has at most 4 guests, each invited once;
- working hours span at least 4 hours.

Other writes (mode, visibility, reminder, preset) are idempotent: repeating one succeeds.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import discard, listing, refuse_if
from toolprism.domains.calendar._state import (
    DAY_END_MINUTE,
    DURATION_STEP_MINUTES,
    EMAIL_MIN_LEAD_MINUTES,
    GUESTS,
    LEAD_MINUTES,
    MAX_GUESTS,
    MIN_WORKDAY_HOURS,
    CalendarState,
    Day,
    Event,
    EventName,
    Guest,
    Lead,
    Method,
    Mode,
    PresetName,
    Reminder,
    Visibility,
    WorkingHours,
    clock,
    span,
)
from toolprism.errors import DomainError

EventArg = Annotated[EventName, Field(description="The event.")]
DayArg = Annotated[Day, Field(description="The day of the current week.")]
HourArg = Annotated[int, Field(ge=6, le=22, description="Start time: the hour on a 24-hour clock (6-22).")]
MinutesArg = Annotated[
    int, Field(ge=15, le=180, description="Duration in minutes (15-180, a multiple of 15); the event ends by 23:00.")
]
GuestArg = Annotated[Guest, Field(description="The guest.")]


def event_reply(state: CalendarState, name: EventName) -> dict:
    """An event as the tools show it: times as ``"HH:MM"`` (null when it is not on the calendar)."""
    event = state.events[name]
    start, end = span(event) if event.scheduled else (None, None)
    return {
        "event": name,
        "on_calendar": "yes" if event.scheduled else "no",
        "day": event.day,
        "start": clock(start) if start is not None else None,
        "end": clock(end) if end is not None else None,
        "minutes": event.minutes,
        "reminder": event.reminder.model_dump(mode="json") if event.reminder else None,
        "guests": list(event.guests),
        "visibility": event.visibility,
    }


def _scheduled(state: CalendarState, name: EventName, action: str) -> Event:
    event = state.events[name]
    refuse_if(not event.scheduled, f"the {name} is not on your calendar; add it before you {action}")
    return event


def _check_slot(state: CalendarState, name: EventName, day: Day, hour: int, minutes: int) -> None:
    """Refuse a slot that breaks the duration step, ends after 23:00 or overlaps another event."""
    step = DURATION_STEP_MINUTES
    refuse_if(minutes % step != 0, f"durations go in steps of {step} minutes; {minutes} is not one")
    start, end = hour * 60, hour * 60 + minutes
    refuse_if(end > DAY_END_MINUTE, f"the {name} would end at {clock(end)}; events must end by {clock(DAY_END_MINUTE)}")
    for other, event in state.events.items():
        if other == name or event.day != day:
            continue
        other_start, other_end = span(event)
        refuse_if(
            start < other_end and other_start < end,
            f"the {name} would overlap the {other} on {day} ({clock(other_start)}-{clock(other_end)}); "
            "pick another time",
        )


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(state: CalendarState) -> dict:
    """Get the availability mode, the working hours of each day and which events are on the calendar."""
    return {
        "mode": state.mode,
        "working_hours": {day: hours.model_dump(mode="json") for day, hours in state.working_hours.items()},
        "on_calendar": [name for name, e in state.events.items() if e.scheduled],
        "not_on_calendar": [name for name, e in state.events.items() if not e.scheduled],
    }


@operation(kind="read", group="events")
def list_events(state: CalendarState, day: DayArg) -> dict:
    """List the events of a day in order of start time, with their start and end times."""
    names = sorted((n for n, e in state.events.items() if e.day == day), key=lambda n: state.events[n].hour)
    events = [{k: event_reply(state, n)[k] for k in ("event", "start", "end", "visibility")} for n in names]
    return {"day": day, "events": events, "working_hours": state.working_hours[day].model_dump(mode="json")}


@operation(kind="read", group="events")
def get_event(state: CalendarState, event: EventArg) -> dict:
    """Get an event's day, start and end time, duration, reminder, guests and visibility."""
    return event_reply(state, event)


@operation(kind="read", group="presets")
def list_presets(state: CalendarState) -> dict:
    """List the meeting presets, each a duration in minutes and a reminder."""
    return {"presets": listing(state.presets, key="preset")}


# --- placing events ----------------------------------------------------------------------------


@operation(kind="write", group="events")
def add_event(state: CalendarState, event: EventArg, day: DayArg, hour: HourArg, minutes: MinutesArg) -> dict:
    """Put an event that is not on the calendar at a day, start hour and duration."""
    target = state.events[event]
    if target.scheduled:
        raise DomainError(
            f"the {event} is already on your calendar ({target.day} {clock(span(target)[0])}); use move_event instead"
        )
    _check_slot(state, event, day, hour, minutes)
    target.day, target.hour, target.minutes = day, hour, minutes
    return event_reply(state, event)


@operation(kind="write", group="events")
def move_event(state: CalendarState, event: EventArg, day: DayArg, hour: HourArg) -> dict:
    """Move an event on the calendar to another day or start hour, keeping its duration."""
    target = _scheduled(state, event, "move it")
    refuse_if((target.day, target.hour) == (day, hour), f"the {event} is already on {day} at {clock(hour * 60)}")
    _check_slot(state, event, day, hour, target.minutes)
    target.day, target.hour = day, hour
    return event_reply(state, event)


@operation(kind="write", group="events")
def cancel_event(state: CalendarState, event: EventArg) -> dict:
    """Take an event off the calendar (its duration, reminder, guests and visibility are kept)."""
    target = _scheduled(state, event, "cancel it")
    target.day, target.hour = None, None
    return event_reply(state, event)


@operation(kind="write", group="events")
def set_event_duration(state: CalendarState, event: EventArg, minutes: MinutesArg) -> dict:
    """Change how long an event on the calendar lasts; its start time stays."""
    target = _scheduled(state, event, "change its duration")
    _check_slot(state, event, target.day, target.hour, minutes)
    target.minutes = minutes
    return event_reply(state, event)


@operation(kind="write", group="events")
def set_reminder(
    state: CalendarState,
    event: EventArg,
    lead: Annotated[Lead, Field(description="How long before the event the reminder comes.")],
    method: Annotated[Method, Field(description="How the reminder is delivered (email needs 30 minutes or more).")],
) -> dict:
    """Set when and how the calendar reminds you of an event on the calendar."""
    target = _scheduled(state, event, "set a reminder")
    refuse_if(
        method == "email" and LEAD_MINUTES[lead] < EMAIL_MIN_LEAD_MINUTES,
        f"email reminders need at least {EMAIL_MIN_LEAD_MINUTES} minutes' notice, not {lead}",
    )
    target.reminder = Reminder(lead=lead, method=method)
    return event_reply(state, event)


# --- guests and visibility ---------------------------------------------------------------------


@operation(kind="write", group="guests")
def invite_guest(state: CalendarState, event: EventArg, guest: GuestArg) -> dict:
    """Invite a guest to a public event on the calendar (at most 4 guests)."""
    target = _scheduled(state, event, "invite guests")
    refuse_if(target.visibility == "private", f"the {event} is private; make it public before inviting guests")
    refuse_if(guest in target.guests, f"{guest} is already invited to the {event}")
    refuse_if(len(target.guests) >= MAX_GUESTS, f"the {event} already has {MAX_GUESTS} guests; remove one first")
    target.guests = sorted([*target.guests, guest], key=GUESTS.index)
    return event_reply(state, event)


@operation(kind="write", group="guests")
def remove_guest(state: CalendarState, event: EventArg, guest: GuestArg) -> dict:
    """Remove a guest from an event's guest list."""
    discard(state.events[event].guests, guest, f"{guest} is not invited to the {event}")
    return event_reply(state, event)


@operation(kind="write", group="guests")
def set_visibility(
    state: CalendarState,
    event: EventArg,
    visibility: Annotated[Visibility, Field(description="Whether others see the event's details.")],
) -> dict:
    """Make an event public or private; a private event cannot have guests."""
    target = state.events[event]
    refuse_if(
        visibility == "private" and bool(target.guests),
        f"the {event} has {len(target.guests)} guest(s); remove them before making it private",
    )
    target.visibility = visibility
    return event_reply(state, event)


# --- availability and presets ------------------------------------------------------------------


@operation(kind="write", group="status")
def set_mode(state: CalendarState, mode: Annotated[Mode, Field(description="The availability others see.")]) -> dict:
    """Set your availability mode (available, busy, do not disturb or out of office)."""
    state.mode = mode
    return {"mode": mode}


@operation(kind="write", group="status")
def set_schedule(
    state: CalendarState,
    day: DayArg,
    start: Annotated[int, Field(ge=5, le=12, description="Hour the working day starts (5-12, 24-hour clock).")],
    end: Annotated[int, Field(ge=13, le=22, description="Hour the working day ends (13-22, 24-hour clock).")],
) -> dict:
    """Set your working hours on a day; they span at least 4 hours."""
    hours = end - start
    refuse_if(hours < MIN_WORKDAY_HOURS, f"working hours must span at least {MIN_WORKDAY_HOURS} hours, not {hours}")
    state.working_hours[day] = WorkingHours(start=start, end=end)
    return {"day": day, "start": start, "end": end}


@operation(kind="write", group="presets")
def apply_preset(
    state: CalendarState,
    event: EventArg,
    preset: Annotated[PresetName, Field(description="The preset (see list_presets).")],
) -> dict:
    """Give an event on the calendar a preset's duration and reminder."""
    target = _scheduled(state, event, "apply a preset")
    chosen = state.presets[preset]
    _check_slot(state, event, target.day, target.hour, chosen.minutes)
    target.minutes = chosen.minutes
    target.reminder = chosen.reminder.model_copy()
    return {**event_reply(state, event), "preset": preset}


OPERATIONS = (
    get_status,
    list_events,
    get_event,
    list_presets,
    add_event,
    move_event,
    cancel_event,
    set_event_duration,
    set_reminder,
    invite_guest,
    remove_guest,
    set_visibility,
    set_mode,
    set_schedule,
    apply_preset,
)
"""All operations, in the order the action space lists them."""
