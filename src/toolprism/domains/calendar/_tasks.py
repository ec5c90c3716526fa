"""Task templates of the calendar domain: questions, single writes, compound and compositional tasks.

Every template reads the fresh world of the seed, so each gold write succeeds and changes the
state; compound tasks join independent requests (see :class:`._requests.Plan`); compositional
tasks read first and act on what they read (the values they use are in the earlier reply), or
need one write before another (a private event is made public before guests are invited).
Per seed: 8 questions, 20 single writes, 72 compound and 24 compositional drafts (124).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import MAX_CALLS, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import draft_plan, rotation_plan
from toolprism.domains.calendar._requests import (
    WRITES,
    Plan,
    at,
    day_name,
    names,
    new_reminder,
    valid_reminders,
)
from toolprism.domains.calendar._state import DAYS, GUESTS, MAX_GUESTS, MODES, CalendarState, Day, span

Composer = Callable[[Plan], list[Request] | None]


# --- questions (one read each) -----------------------------------------------------------------


def ask_event(plan: Plan) -> list[Request] | None:
    """Ask about one event on the calendar."""
    name = plan.event(lambda e: e.scheduled)
    if name is None:
        return None
    e = slot(name)
    return [
        request(
            (f"tell me when the {e} is", f"show me the details of the {e}", f"look up the {e} for me"),
            (f"check when the {e} happens, I've lost track of it", f"find out who is coming to the {e} and when"),
            ("get_event", {"event": name}),
        )
    ]


def ask_day(plan: Plan) -> list[Request] | None:
    """Ask what is on one day."""
    day = plan.rng.choice(DAYS)
    d = day_name(day)
    return [
        request(
            (f"show me my events on {d}", f"list what is on my calendar on {d}", f"tell me what I have on {d}"),
            (f"check how busy my {d} looks", f"see whether I have anything going on {d}"),
            ("list_events", {"day": day}),
        )
    ]


def ask_status(plan: Plan) -> list[Request] | None:
    """Ask for the availability mode and working hours."""
    return [
        request(
            ("show me my current availability and working hours", "tell me my calendar status"),
            ("check whether people can book me right now", "find out what my working hours are this week"),
            ("get_status", {}),
        )
    ]


def ask_presets(plan: Plan) -> list[Request] | None:
    """Ask for the presets."""
    return [
        request(
            ("list my meeting presets", "show me the presets I can apply"),
            ("remind me which meeting templates I have set up", "look up what each of my presets does"),
            ("list_presets", {}),
        )
    ]


QUESTION_TEMPLATES: dict[str, Composer] = {
    "ask_event": ask_event,
    "ask_day": ask_day,
    "ask_status": ask_status,
    "ask_presets": ask_presets,
}


# --- compositional: read, then act on what was read -------------------------------------------


def copy_guests(plan: Plan) -> list[Request] | None:
    """Invite an event's guests to another public event that has none of them."""
    source = plan.event(lambda e: bool(e.guests))
    if source is None:
        return None
    guests = plan.state.events[source].guests
    target = plan.event(
        lambda e: (
            e.scheduled
            and e.visibility == "public"
            and not set(e.guests) & set(guests)
            and len(e.guests) + len(guests) <= MAX_GUESTS
        )
    )
    if target is None:
        return None
    s, t = slot(source), slot(target)
    return [
        request(
            (
                f"look up who is invited to the {s} and invite the same people to the {t}",
                f"check the guest list of the {s} and invite all of them to the {t} too",
            ),
            f"make sure everyone coming to the {s} is also invited to the {t}",
            ("get_event", {"event": source}),
            *[("invite_guest", {"event": target, "guest": replied(g)}) for g in guests],
        )
    ]


def same_day(plan: Plan) -> list[Request] | None:
    """Add or move an event to the day another event is on, at a stated hour."""
    anchor = plan.event(lambda e: e.scheduled)
    if anchor is None:
        return None
    day = plan.state.events[anchor].day
    name = plan.event(lambda e: e.day != day)
    if name is None:
        return None
    event = plan.state.events[name]
    minutes = event.minutes if event.scheduled else plan.rng.choice((30, 45, 60, 90))
    if (where := plan.slot(name, minutes, days=(day,))) is None:
        return None
    hour = where[1]
    a, e, t, m = slot(anchor), slot(name), at(hour), f"{slot(minutes)} minutes"
    read = request(
        (f"look up which day the {a} is on", f"check the day of the {a}"),
        (f"find out which day the {a} falls on", f"see what day I have the {a}"),
        ("get_event", {"event": anchor}),
    )
    if event.scheduled:
        act = request(
            (f"move the {e} to that same day at {t}", f"reschedule the {e} for that day at {t}"),
            f"line the {e} up on that day too, at {t}, so both happen together",
            ("move_event", {"event": name, "day": replied(day), "hour": hour}),
        )
    else:
        act = request(
            (f"add the {e} on that same day at {t} for {m}", f"put the {e} on that day at {t}, {m} long"),
            f"fit the {e} in on that day too, at {t} for {m}, so I only travel once",
            ("add_event", {"event": name, "day": replied(day), "hour": hour, "minutes": minutes}),
        )
    return [read, act]


def first_of_day(plan: Plan) -> list[Request] | None:
    """Cancel, or set a reminder on, the first or last event of a day with two or more events."""
    busy = [d for d in DAYS if sum(e.day == d for e in plan.state.events.values()) >= 2]
    if not busy:
        return None
    day = plan.rng.choice(busy)
    which = plan.rng.choice(("first", "last"))
    ordered = sorted(
        (n for n, e in plan.state.events.items() if e.day == day), key=lambda n: span(plan.state.events[n])
    )
    name = ordered[0] if which == "first" else ordered[-1]
    d = day_name(day)
    read = request(
        (f"show me my events on {d}", f"list what I have on {d}"),
        (f"look over my {d}", f"pull up my {d}"),
        ("list_events", {"day": day}),
    )
    if plan.rng.random() < 0.5:
        act = request(
            (f"cancel the {which} event of the day", f"cancel whichever event comes {which}"),
            f"clear out the {which} event of that day, I can't fit it in",
            ("cancel_event", {"event": replied(name)}),
        )
    else:
        lead, method = new_reminder(plan.rng, plan.state.events[name])
        r = f"{slot(lead)} before by {slot(method)}"
        act = request(
            (f"set a reminder {r} on the {which} event of the day", f"remind me {r} for the {which} event there"),
            f"make sure the {which} event that day reminds me {r}",
            ("set_reminder", {"event": replied(name), "lead": lead, "method": method}),
        )
    return [read, act]


def same_reminder(plan: Plan) -> list[Request] | None:
    """Copy an event's reminder onto one or two events whose reminder differs."""
    source = plan.event(lambda e: e.scheduled and e.reminder is not None)
    if source is None:
        return None
    copied = plan.state.events[source].reminder
    targets = [plan.event(lambda e: e.scheduled and e.reminder != copied) for _ in range(plan.rng.choice((1, 1, 2)))]
    targets = [t for t in targets if t is not None]
    if not targets:
        return None
    s = slot(source)
    t = " and the ".join(slot(n) for n in targets)
    return [
        request(
            (
                f"give the {t} the same reminder as the {s}",
                f"look up the reminder on the {s} and set the same one on the {t}",
            ),
            f"copy the reminder of the {s} over to the {t} so they match",
            ("get_event", {"event": source}),
            *[
                ("set_reminder", {"event": n, "lead": replied(copied.lead), "method": replied(copied.method)})
                for n in targets
            ],
        )
    ]


def copy_hours(plan: Plan) -> list[Request] | None:
    """Give one or two days the working hours of another day."""
    hours = plan.state.working_hours
    source = plan.rng.choice(DAYS)
    others = [d for d in DAYS if hours[d] != hours[source]]
    if not others:
        return None
    targets: list[Day] = sorted(plan.rng.sample(others, min(len(others), plan.rng.choice((1, 1, 2)))), key=DAYS.index)
    s, t = source.capitalize(), " and ".join(day_name(d) for d in targets)
    start, end = hours[source].start, hours[source].end
    return [
        request(
            (
                f"make my working hours on {t} the same as on {s}",
                f"check my {s} working hours and use them for {t} too",
            ),
            f"line up {t} with {s} so my working hours match",
            ("get_status", {}),
            *[("set_schedule", {"day": d, "start": replied(start), "end": replied(end)}) for d in targets],
        )
    ]


def add_with_reminder(plan: Plan) -> list[Request] | None:
    """Add an event that is not on the calendar, then give it a reminder (which needs it on the calendar)."""
    name = plan.event(lambda e: not e.scheduled)
    minutes = plan.rng.choice((30, 45, 60, 90, 120))
    if name is None or (where := plan.slot(name, minutes)) is None:
        return None
    day, hour = where
    lead, method = new_reminder(plan.rng, plan.state.events[name])
    e, d, t, m = slot(name), day_name(day), at(hour), f"{slot(minutes)} minutes"
    r = f"{slot(lead)} before by {slot(method)}"
    return [
        request(
            (f"add the {e} on {d} at {t} for {m}", f"put the {e} on my calendar for {d} at {t}, {m} long"),
            f"fit the {e} into my week on {d} at {t}, it takes {m}",
            ("add_event", {"event": name, "day": day, "hour": hour, "minutes": minutes}),
        ),
        request(
            (f"then set a reminder {r} for it", f"after that remind me {r}"),
            f"make sure I hear about it {r}",
            ("set_reminder", {"event": name, "lead": lead, "method": method}),
        ),
    ]


def publish_and_invite(plan: Plan) -> list[Request] | None:
    """Make a private event on the calendar public, then invite guests to it."""
    name = plan.event(lambda e: e.scheduled and e.visibility == "private")
    if name is None:
        return None
    guests = plan.rng.sample(GUESTS, plan.rng.randint(1, 3))
    e, g, public = slot(name), names(guests), slot("public")
    return [
        request(
            (f"make the {e} {public} and then invite {g}", f"switch the {e} to {public}, then send {g} an invitation"),
            f"open the {e} up as a {public} event so that {g} can come, and invite them",
            ("set_visibility", {"event": name, "visibility": "public"}),
            *[("invite_guest", {"event": name, "guest": guest}) for guest in guests],
        )
    ]


def if_missing(plan: Plan) -> list[Request] | None:
    """Check an event and fix what the check finds: add a missing reminder or publish a private event."""
    if plan.rng.random() < 0.5:
        name = plan.event(lambda e: e.scheduled and e.reminder is None)
        if name is not None:
            lead, method = plan.rng.choice(valid_reminders())
            e, r = slot(name), f"{slot(lead)} before by {slot(method)}"
            return [
                request(
                    (
                        f"check whether the {e} has a reminder and, if it has none, add one {r}",
                        f"look at the {e} and if there is no reminder set one {r}",
                    ),
                    f"make sure the {e} has some reminder, and if it lacks one, add one {r}",
                    ("get_event", {"event": name}),
                    ("set_reminder", {"event": name, "lead": lead, "method": method}),
                )
            ]
    name = plan.event(lambda e: e.visibility == "private")
    if name is None:
        return None
    e, public = slot(name), slot("public")
    return [
        request(
            (
                f"check the {e} and, if it is private, make it {public}",
                f"look at the {e} and make it {public} if it is private",
            ),
            f"find out whether the {e} is hidden from colleagues and if it is private, make it {public}",
            ("get_event", {"event": name}),
            ("set_visibility", {"event": name, "visibility": "public"}),
        )
    ]


def preset_by_length(plan: Plan) -> list[Request] | None:
    """Apply the preset of a stated length to one or two events whose slot it fits."""
    chosen = plan.rng.choice(list(plan.state.presets))
    minutes = plan.state.presets[chosen].minutes

    def fits(event_name: str) -> bool:
        event = plan.state.events[event_name]
        start, _ = span(event)
        changes = (minutes, plan.state.presets[chosen].reminder) != (event.minutes, event.reminder)
        return changes and plan.free(event.day, start, start + minutes, ignore=event_name)

    candidates = [n for n, e in plan.state.events.items() if e.scheduled and n not in plan.events and fits(n)]
    if not candidates:
        return None
    targets = sorted(plan.rng.sample(candidates, min(len(candidates), plan.rng.choice((1, 1, 2)))))
    plan.events.update(targets)
    t, m = " and the ".join(slot(n) for n in targets), f"{minutes} minutes"
    return [
        request(
            (
                f"apply whichever preset lasts {m} to the {t}",
                f"look up my presets and give the {t} the one that is {m} long",
            ),
            f"find the preset that runs for {m} and use it on the {t}",
            ("list_presets", {}),
            *[("apply_preset", {"event": n, "preset": replied(chosen)}) for n in targets],
        )
    ]


def clear_guests(plan: Plan) -> list[Request] | None:
    """Remove every guest of an event, then make it private."""
    name = plan.event(lambda e: bool(e.guests))
    if name is None:
        return None
    e, private = slot(name), slot("private")
    return [
        request(
            (
                f"look up who is invited to the {e}, remove all of them and make it {private}",
                f"check the guest list of the {e}, take everyone off it and then make it {private}",
            ),
            f"turn the {e} into a {private} event, taking everyone off its guest list first and then making it "
            f"{private}",
            ("get_event", {"event": name}),
            *[("remove_guest", {"event": name, "guest": replied(g)}) for g in plan.state.events[name].guests],
            ("set_visibility", {"event": name, "visibility": "private"}),
        )
    ]


def right_after(plan: Plan) -> list[Request] | None:
    """Add or move an event to start when another event ends (on the hour)."""
    anchor = plan.event(lambda e: e.scheduled and span(e)[1] % 60 == 0 and span(e)[1] <= 20 * 60)
    if anchor is None:
        return None
    day, end = plan.state.events[anchor].day, span(plan.state.events[anchor])[1]
    name = plan.event(lambda e: e.day != day)
    if name is None:
        return None
    event = plan.state.events[name]
    minutes = event.minutes if event.scheduled else plan.rng.choice((30, 45, 60))
    if not plan.free(day, end, end + minutes, ignore=name):
        return None
    a, e, m = slot(anchor), slot(name), f"{slot(minutes)} minutes"
    if event.scheduled:
        return [
            request(
                (
                    f"check when the {a} ends and move the {e} to start right then on the same day",
                    f"look up the {a} and move the {e} to straight after it",
                ),
                f"line the {e} up straight after the {a} so I have no gap in between",
                ("get_event", {"event": anchor}),
                ("move_event", {"event": name, "day": replied(day), "hour": replied(end // 60)}),
            )
        ]
    return [
        request(
            (
                f"check when the {a} ends and add the {e} right after it for {m}",
                f"look up the {a} and put the {e} straight after it, {m} long",
            ),
            f"fit the {e} in straight after the {a} ends, for {m}, so I have no gap",
            ("get_event", {"event": anchor}),
            ("add_event", {"event": name, "day": replied(day), "hour": replied(end // 60), "minutes": minutes}),
        )
    ]


def mode_unless(plan: Plan) -> list[Request] | None:
    """Check the availability mode and change it when it is not the stated one."""
    value = other(plan.rng, MODES, plan.state.mode)
    m = slot(value)
    return [
        request(
            (
                f"check my status and, if it is not {m}, set it to {m}",
                f"look at my availability and make it {m} if it isn't",
            ),
            f"find out whether I show as {m}, and if I don't, switch me to {m}",
            ("get_status", {}),
            ("set_mode", {"mode": value}),
        )
    ]


COMPOSITIONAL_TEMPLATES: dict[str, Composer] = {
    "copy_guests": copy_guests,
    "same_day": same_day,
    "first_of_day": first_of_day,
    "same_reminder": same_reminder,
    "copy_hours": copy_hours,
    "add_with_reminder": add_with_reminder,
    "publish_and_invite": publish_and_invite,
    "if_missing": if_missing,
    "preset_by_length": preset_by_length,
    "clear_guests": clear_guests,
    "right_after": right_after,
    "mode_unless": mode_unless,
}


# --- compound: independent writes --------------------------------------------------------------

COMPOUND_WEIGHTS: dict[str, int] = {
    "move": 3,
    "add": 2,
    "cancel": 2,
    "duration": 2,
    "reminder": 3,
    "preset": 2,
    "invite": 3,
    "uninvite": 2,
    "visibility": 2,
    "mode": 1,
    "hours": 2,
}


def compound(plan: Plan) -> list[Request] | None:
    """Two to five independent writes, at most six gold calls in all."""
    count = plan.rng.choice((2, 2, 3, 3, 3, 4, 4, 4, 5, 5))
    requests: list[Request] = []
    calls = 0
    for _ in range(4 * count):
        if len(requests) == count:
            break
        most = min(2, MAX_CALLS - calls - (count - len(requests) - 1))
        name = plan.rng.choices(list(COMPOUND_WEIGHTS), weights=list(COMPOUND_WEIGHTS.values()))[0]
        made = WRITES[name](plan, most)
        if made is not None:
            requests.append(made)
            calls += len(made.gold)
    return requests if len(requests) >= 2 else None


# --- assembly ----------------------------------------------------------------------------------


PLAN = rotation_plan(
    Plan,
    QUESTION_TEMPLATES,
    {name: (lambda plan, make=maker: make(plan, 1)) for name, maker in WRITES.items()},
    compound,
    COMPOSITIONAL_TEMPLATES,
)
"""Questions, one-call writes, compound tasks, then compositional ones, the templates of each in turn."""


def drafts(state: CalendarState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed`` (deterministic, 124 drafts).

    The task RNG is ``random.Random(f"calendar/tasks/{world_seed}")``, apart from the world's.
    """
    return draft_plan(random.Random(f"calendar/tasks/{world_seed}"), state, PLAN)
