"""What a calendar user may ask for, one :class:`~toolprism.domains._phrasing.Request` at a time.

Each maker reads the fresh world through a :class:`Plan` and returns a request whose gold
actions all succeed and each change the state, or None when the world offers no subject for it.
A plan claims the events, slots and settings its requests touch, so that the requests of one
compound task stay independent: they succeed and end in the same state in any order. Slots are
claimed conservatively (an event's old slot stays busy after it moves or is cancelled).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from toolprism.domains._drafting import other
from toolprism.domains._grammar import slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains.calendar._state import (
    DAY_END_MINUTE,
    DAYS,
    EMAIL_MIN_LEAD_MINUTES,
    EVENTS,
    GUESTS,
    LEAD_MINUTES,
    MAX_GUESTS,
    METHODS,
    MIN_WORKDAY_HOURS,
    MODES,
    CalendarState,
    Day,
    Event,
    EventName,
    Guest,
    Lead,
    Method,
    span,
)

Maker = Callable[["Plan", int], Request | None]
"""``maker(plan, most_calls)``: a request of at most ``most_calls`` gold actions, or None."""


def at(hour: int) -> str:
    """A whole hour on a 24-hour clock, the hour a slot (``9`` → ``"9:00"``)."""
    return f"{slot(hour)}:00"


def day_name(day: Day) -> str:
    """A day as a query writes it, a slot (``"monday"`` → ``"Monday"``)."""
    return slot(day, day.capitalize())


def names(guests: list[Guest]) -> str:
    """Guests as a query lists them, each a slot (``"Bob, Carol and Dave"``)."""
    shown = [slot(g, g.capitalize()) for g in guests]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def valid_reminders() -> list[tuple[Lead, Method]]:
    """Every (lead, method) pair the calendar accepts (email needs 30 minutes or more)."""
    return [
        (lead, method)
        for lead, minutes in LEAD_MINUTES.items()
        for method in METHODS
        if method != "email" or minutes >= EMAIL_MIN_LEAD_MINUTES
    ]


def new_reminder(rng: random.Random, event: Event) -> tuple[Lead, Method]:
    """A random accepted (lead, method) pair other than ``event``'s current reminder."""
    current = (event.reminder.lead, event.reminder.method) if event.reminder else None
    return other(rng, valid_reminders(), current)


@dataclass
class Plan:
    """One task under construction: the fresh world, the task RNG and what its requests claimed."""

    state: CalendarState
    rng: random.Random
    events: set[EventName] = field(default_factory=set)
    slots: list[tuple[Day, int, int]] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)

    def event(self, test: Callable[[Event], bool]) -> EventName | None:
        """A random unclaimed event passing ``test`` (claimed on return), or None."""
        options = [n for n in EVENTS if n not in self.events and test(self.state.events[n])]
        if not options:
            return None
        name = self.rng.choice(options)
        self.events.add(name)
        return name

    def free(self, day: Day, start: int, end: int, ignore: EventName | None = None) -> bool:
        """Whether ``[start, end)`` minutes on ``day`` is clear of every event's initial slot and every claim."""
        if end > DAY_END_MINUTE:
            return False
        busy = [(e.day, *span(e)) for n, e in self.state.events.items() if e.scheduled and n != ignore]
        return all(d != day or end <= s or e <= start for d, s, e in [*busy, *self.slots])

    def slot(self, name: EventName, minutes: int, days: tuple[Day, ...] = DAYS) -> tuple[Day, int] | None:
        """A random free start (day, hour 7-20) for ``name`` lasting ``minutes`` (claimed), or None."""
        current = self.state.events[name]
        options = [
            (d, h)
            for d in days
            for h in range(7, 21)
            if (d, h) != (current.day, current.hour) and self.free(d, h * 60, h * 60 + minutes, ignore=name)
        ]
        if not options:
            return None
        day, hour = self.rng.choice(options)
        self.slots.append((day, hour * 60, hour * 60 + minutes))
        return day, hour

    def key(self, key: str) -> bool:
        """Claim a setting (``"mode"``, ``"hours:monday"``); False if already claimed."""
        if key in self.keys:
            return False
        self.keys.add(key)
        return True


# --- placing events ----------------------------------------------------------------------------


def move(plan: Plan, most: int) -> Request | None:
    """Move an event on the calendar to a free slot."""
    name = plan.event(lambda e: e.scheduled)
    if name is None or (where := plan.slot(name, plan.state.events[name].minutes)) is None:
        return None
    day, hour = where
    e, d, t = slot(name), day_name(day), at(hour)
    return request(
        (f"move the {e} to {d} at {t}", f"reschedule the {e} for {d} at {t}", f"shift the {e} to {t} on {d}"),
        (
            f"push the {e} over to {d} at {t}, something came up at the old time",
            f"find the {e} a new home on {d} at {t}, the current slot no longer works for me",
        ),
        ("move_event", {"event": name, "day": day, "hour": hour}),
    )


def add(plan: Plan, most: int) -> Request | None:
    """Put an event that is not on the calendar on a free slot."""
    name = plan.event(lambda e: not e.scheduled)
    minutes = plan.rng.choice((30, 45, 60, 90, 120))
    if name is None or (where := plan.slot(name, minutes)) is None:
        return None
    day, hour = where
    e, d, t, m = slot(name), day_name(day), at(hour), f"{slot(minutes)} minutes"
    return request(
        (
            f"add the {e} on {d} at {t} for {m}",
            f"put the {e} on my calendar for {d} at {t}, {m} long",
            f"schedule the {e} on {d} at {t}, lasting {m}",
        ),
        (
            f"make room for the {e}, which I just booked for {d} at {t} and which takes {m}",
            f"get the {e} into my week on {d} at {t}, it needs {m}",
        ),
        ("add_event", {"event": name, "day": day, "hour": hour, "minutes": minutes}),
    )


def cancel(plan: Plan, most: int) -> Request | None:
    """Take an event off the calendar."""
    name = plan.event(lambda e: e.scheduled)
    if name is None:
        return None
    e = slot(name)
    return request(
        (f"cancel the {e}", f"delete the {e} from my calendar", f"take the {e} off my calendar"),
        (f"clear the {e} away, it isn't happening this week", f"drop the {e} from my week since it was called off"),
        ("cancel_event", {"event": name}),
    )


def duration(plan: Plan, most: int) -> Request | None:
    """Make an event on the calendar longer or shorter, into free time."""
    name = plan.event(lambda e: e.scheduled)
    if name is None:
        return None
    event = plan.state.events[name]
    start, _ = span(event)
    options = [
        m
        for m in (30, 45, 60, 75, 90, 120, 150)
        if m != event.minutes and plan.free(event.day, start, start + m, ignore=name)
    ]
    if not options:
        return None
    minutes = plan.rng.choice(options)
    plan.slots.append((event.day, start, start + minutes))
    e, m = slot(name), f"{slot(minutes)} minutes"
    reason = (
        f"give the {e} {m} in total, it always runs over"
        if minutes > event.minutes
        else f"trim the {e} down to {m}, we never need the full slot"
    )
    return request(
        (f"make the {e} {m} long", f"change the length of the {e} to {m}", f"set the {e} to last {m}"),
        (reason, f"let the {e} take {m} from now on"),
        ("set_event_duration", {"event": name, "minutes": minutes}),
    )


# --- reminders and presets ---------------------------------------------------------------------


def reminder(plan: Plan, most: int) -> Request | None:
    """Give an event on the calendar a different reminder."""
    name = plan.event(lambda e: e.scheduled)
    if name is None:
        return None
    lead, method = new_reminder(plan.rng, plan.state.events[name])
    e, r, by = slot(name), f"{slot(lead)} before", slot(method)
    return request(
        (
            f"set a reminder {r} the {e} by {by}",
            f"remind me {r} the {e} by {by}",
            f"change the {e} reminder to {r}, by {by}",
        ),
        (
            f"make sure I get a reminder by {by} {r} the {e}, I keep forgetting it",
            f"nudge me by {by} {r} the {e} so I don't miss it",
        ),
        ("set_reminder", {"event": name, "lead": lead, "method": method}),
    )


def preset(plan: Plan, most: int) -> Request | None:
    """Apply a preset that changes an event on the calendar and fits its slot."""
    name = plan.event(lambda e: e.scheduled)
    if name is None:
        return None
    event = plan.state.events[name]
    start, _ = span(event)
    options = [
        p
        for p, chosen in plan.state.presets.items()
        if (chosen.minutes, chosen.reminder) != (event.minutes, event.reminder)
        and plan.free(event.day, start, start + chosen.minutes, ignore=name)
    ]
    if not options:
        return None
    chosen = plan.rng.choice(options)
    plan.slots.append((event.day, start, start + plan.state.presets[chosen].minutes))
    e, p = slot(name), slot(chosen)
    return request(
        (f"apply the {p} preset to the {e}", f"use the {p} preset for the {e}", f"give the {e} the {p} preset"),
        (f"set the {e} up like my usual {p}, using that preset", f"treat the {e} as a {p} and use that preset"),
        ("apply_preset", {"event": name, "preset": chosen}),
    )


# --- guests and visibility ---------------------------------------------------------------------


def invite(plan: Plan, most: int) -> Request | None:
    """Invite one or two new guests to a public event on the calendar."""
    name = plan.event(lambda e: e.scheduled and e.visibility == "public" and len(e.guests) < MAX_GUESTS)
    if name is None:
        return None
    event = plan.state.events[name]
    count = plan.rng.randint(1, min(2, most, MAX_GUESTS - len(event.guests)))
    guests = plan.rng.sample([g for g in GUESTS if g not in event.guests], count)
    e, g = slot(name), names(guests)
    return request(
        (f"invite {g} to the {e}", f"add {g} to the guest list of the {e}", f"send {g} an invitation to the {e}"),
        (f"get {g} along to the {e} as well, they should be there", f"bring {g} into the {e}, they need to hear it"),
        *[("invite_guest", {"event": name, "guest": guest}) for guest in guests],
    )


def uninvite(plan: Plan, most: int) -> Request | None:
    """Remove one guest from an event's guest list."""
    name = plan.event(lambda e: bool(e.guests))
    if name is None:
        return None
    guest = plan.rng.choice(plan.state.events[name].guests)
    e, g = slot(name), names([guest])
    return request(
        (f"remove {g} from the {e}", f"take {g} off the {e} guest list", f"uninvite {g} from the {e}"),
        (f"let {g} off the hook for the {e}, they can't make it", f"drop {g} from the {e} because they are away"),
        ("remove_guest", {"event": name, "guest": guest}),
    )


def visibility(plan: Plan, most: int) -> Request | None:
    """Make a private event public, or a public event without guests private."""
    name = plan.event(lambda e: e.visibility == "private" or not e.guests)
    if name is None:
        return None
    value = "public" if plan.state.events[name].visibility == "private" else "private"
    e, v = slot(name), slot(value)
    indirect = (
        (f"keep the {e} to myself by making it {v}", f"hide the {e} from colleagues, {v} is fine")
        if value == "private"
        else (f"let colleagues see the {e}, it can be {v}", f"open up the {e} so it is {v} for the team")
    )
    return request(
        (f"make the {e} {v}", f"set the {e} to {v}", f"change the visibility of the {e} to {v}"),
        indirect,
        ("set_visibility", {"event": name, "visibility": value}),
    )


# --- availability ------------------------------------------------------------------------------

_MODE_REASONS = {
    "available": "show me as {} again, I'm back at my desk",
    "busy": "mark me as {}, I'm swamped today",
    "do_not_disturb": "put me on {} so I can concentrate",
    "out_of_office": "set me to {}, I'm off on holiday",
}


def mode(plan: Plan, most: int) -> Request | None:
    """Change the availability mode."""
    if not plan.key("mode"):
        return None
    value = other(plan.rng, MODES, plan.state.mode)
    m = slot(value)
    return request(
        (f"set my status to {m}", f"change my availability to {m}", f"switch my mode to {m}"),
        (_MODE_REASONS[value].format(m), f"let people know I'm {m} from now on"),
        ("set_mode", {"mode": value}),
    )


def hours(plan: Plan, most: int) -> Request | None:
    """Change one day's working hours."""
    days = [d for d in DAYS if f"hours:{d}" not in plan.keys]
    if not days:
        return None
    day = plan.rng.choice(days)
    plan.key(f"hours:{day}")
    current = plan.state.working_hours[day]
    start, end = plan.rng.choice(
        [
            (s, e)
            for s in range(7, 11)
            for e in range(15, 21)
            if e - s >= MIN_WORKDAY_HOURS and (s, e) != (current.start, current.end)
        ]
    )
    d, s, t = day_name(day), at(start), at(end)
    return request(
        (
            f"set my working hours on {d} to {s} until {t}",
            f"change my {d} working hours to {s} through {t}",
            f"make my working day on {d} run from {s} to {t}",
        ),
        (
            f"let people book me on {d} only between {s} and {t}",
            f"adjust {d} so my working day starts at {s} and finishes at {t}",
        ),
        ("set_schedule", {"day": day, "start": start, "end": end}),
    )


WRITES: dict[str, Maker] = {
    "move": move,
    "add": add,
    "cancel": cancel,
    "duration": duration,
    "reminder": reminder,
    "preset": preset,
    "invite": invite,
    "uninvite": uninvite,
    "visibility": visibility,
    "mode": mode,
    "hours": hours,
}
"""Request makers of one write each (``invite`` may make two when ``most_calls`` allows), by template name.
The actions of every request are independent of each other too, so a compound gold succeeds in any order."""
