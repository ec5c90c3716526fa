"""Tests of the calendar domain: action space, rules, state changes and task generation."""

from __future__ import annotations

import random
from collections import Counter

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains.calendar import Calendar
from toolprism.domains.calendar import _ops as ops
from toolprism.domains.calendar._state import DAYS, EVENTS, GUESTS, MAX_GUESTS, span
from toolprism.errors import DomainError, RejectedCall

DOMAIN = Calendar()
SPACE = Calendar.action_space()
SHARED_NAMES = {"get_status", "set_mode", "set_schedule", "list_presets", "apply_preset", "set_timer", "set_power"}


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def ok(env, op, **args):
    reply = run(env, op, **args)
    assert "error" not in reply, (op, args, reply)
    return reply


def scheduled(state):
    return [n for n in EVENTS if state.events[n].scheduled]


def unscheduled(state):
    return [n for n in EVENTS if not state.events[n].scheduled]


# --- registration and action space -------------------------------------------------------------


def test_registered_with_a_short_policy():
    assert DOMAINS.get("calendar") is Calendar
    assert 80 <= len(Calendar.policy) <= 1500
    assert 2 <= Calendar.policy.count(". ") + 1 <= 5


def test_operations_reads_writes_and_shared_names():
    kinds = Counter(op.kind for op in SPACE.operations)
    assert 13 <= len(SPACE.operations) <= 15
    assert 3 <= kinds["read"] <= 4
    assert len(SHARED_NAMES & {op.name for op in SPACE.operations}) >= 4
    assert all(op.description and op.group for op in SPACE.operations)


def test_schemas_require_and_describe_every_parameter_with_many_enums():
    params = []
    for op in SPACE.operations:
        schema = op.tool().parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert sorted(schema.get("required", [])) == sorted(schema["properties"]), op.name
        assert all(p.description for p in op.params), op.name
        params += op.params
    enumerated = [p for p in params if p.enum is not None]
    assert len(enumerated) >= 10 and len(enumerated) > len(params) / 2
    assert all(p.schema.get("type") != "boolean" for p in params)
    numeric = [p for p in params if p.enum is None]
    assert numeric and all({"minimum", "maximum"} <= set(p.schema) for p in numeric)


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("add_event", {"event": "standup", "day": "monday", "hour": 23, "minutes": 30}),
        ("add_event", {"event": "standup", "day": "monday", "hour": 9, "minutes": 10}),
        ("set_event_duration", {"event": "standup", "minutes": 181}),
        ("set_schedule", {"day": "monday", "start": 4, "end": 17}),
        ("set_schedule", {"day": "monday", "start": 9, "end": 23}),
        ("move_event", {"event": "standup", "day": "someday", "hour": 9}),
        ("set_reminder", {"event": "standup", "lead": "2_hours", "method": "email"}),
    ],
)
def test_schema_rejects_out_of_range_values(op, args):
    with pytest.raises(RejectedCall, match="invalid_arguments"):
        SPACE.action(op, args)


# --- world and determinism ---------------------------------------------------------------------


def test_initial_state_is_deterministic_valid_and_seed_dependent():
    random.seed(1)
    first = DOMAIN.environment(5).state_hash()
    random.seed(2)
    assert DOMAIN.environment(5).state_hash() == first
    assert len({DOMAIN.environment(s).state_hash() for s in range(6)}) == 6
    for seed in range(6):
        state = DOMAIN.initial_state(seed)
        slots = sorted((e.day, *span(e)) for e in state.events.values() if e.scheduled)
        assert all(a[0] != b[0] or a[2] <= b[1] for a, b in zip(slots, slots[1:], strict=False)), seed
        assert all(not e.guests for e in state.events.values() if e.visibility == "private")
        assert len({p.minutes for p in state.presets.values()}) == len(state.presets)


def test_tasks_are_deterministic_and_differ_across_seeds():
    assert DOMAIN.tasks(2) == Calendar().tasks(2)
    assert [t.query for t in DOMAIN.tasks(2)] != [t.query for t in DOMAIN.tasks(3)]


# --- state changes -----------------------------------------------------------------------------


def test_add_move_resize_and_cancel_an_event():
    env = DOMAIN.environment(0)
    name = unscheduled(env.state)[0]
    assert all(env.state.events[n].day != "sunday" for n in EVENTS)  # no event starts on Sunday at first
    reply = ok(env, "add_event", event=name, day="sunday", hour=20, minutes=45)
    assert (reply["day"], reply["start"], reply["end"], reply["on_calendar"]) == ("sunday", "20:00", "20:45", "yes")
    reply = ok(env, "move_event", event=name, day="sunday", hour=9)
    assert (reply["start"], reply["minutes"]) == ("09:00", 45)
    assert ok(env, "set_event_duration", event=name, minutes=150)["end"] == "11:30"
    reply = ok(env, "cancel_event", event=name)
    assert (reply["on_calendar"], reply["day"], reply["start"]) == ("no", None, None)
    assert name in ok(env, "get_status")["not_on_calendar"]


def test_reminder_guests_visibility_mode_and_hours():
    env = DOMAIN.environment(1)
    name = next(n for n in scheduled(env.state) if env.state.events[n].visibility == "public")
    assert ok(env, "set_reminder", event=name, lead="1_day", method="email")["reminder"] == {
        "lead": "1_day",
        "method": "email",
    }
    for guest in list(env.state.events[name].guests):
        ok(env, "remove_guest", event=name, guest=guest)
    assert ok(env, "invite_guest", event=name, guest="grace")["guests"] == ["grace"]
    ok(env, "remove_guest", event=name, guest="grace")
    assert ok(env, "set_visibility", event=name, visibility="private")["visibility"] == "private"
    other = next(m for m in ("busy", "available") if m != env.state.mode)
    assert ok(env, "set_mode", mode=other) == {"mode": other}
    assert ok(env, "set_schedule", day="saturday", start=11, end=15) == {"day": "saturday", "start": 11, "end": 15}
    assert ok(env, "get_status")["working_hours"]["saturday"] == {"start": 11, "end": 15}


def test_apply_preset_copies_its_duration_and_reminder():
    env = DOMAIN.environment(0)
    for name in scheduled(env.state):
        for preset, values in env.state.presets.items():
            reply = run(env, "apply_preset", event=name, preset=preset)
            if "error" in reply:
                continue
            assert reply["preset"] == preset and reply["minutes"] == values.minutes
            assert reply["reminder"] == values.reminder.model_dump()
            return
    pytest.fail("no preset applies anywhere")


def test_reads_describe_the_state_and_change_nothing():
    env = DOMAIN.environment(0)
    before = env.state_hash()
    for day in DAYS:
        listed = ok(env, "list_events", day=day)["events"]
        assert [e["start"] for e in listed] == sorted(e["start"] for e in listed)
        assert {e["event"] for e in listed} == {n for n, e in env.state.events.items() if e.day == day}
    status = ok(env, "get_status")
    assert sorted(status["on_calendar"] + status["not_on_calendar"]) == sorted(EVENTS)
    assert [p["preset"] for p in ok(env, "list_presets")["presets"]] == list(env.state.presets)
    assert ok(env, "get_event", event="standup")["event"] == "standup"
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _free_sunday(env):
    """Clear Sunday (no event starts there initially) and return two events on it: 9:00-10:00, 10:00-11:00."""
    a, b = scheduled(env.state)[:2]
    ok(env, "move_event", event=a, day="sunday", hour=9)
    ok(env, "set_event_duration", event=a, minutes=60)
    ok(env, "move_event", event=b, day="sunday", hour=10)
    ok(env, "set_event_duration", event=b, minutes=60)
    return a, b


def _add_over(env):
    _free_sunday(env)
    return unscheduled(env.state)[0]


def _full_event(env):
    name = next(n for n in scheduled(env.state) if env.state.events[n].visibility == "public")
    for guest in GUESTS:
        if len(env.state.events[name].guests) < MAX_GUESTS and guest not in env.state.events[name].guests:
            ok(env, "invite_guest", event=name, guest=guest)
    return name, next(g for g in GUESTS if g not in env.state.events[name].guests)


def _private(env):
    name = scheduled(env.state)[0]
    for guest in list(env.state.events[name].guests):
        ok(env, "remove_guest", event=name, guest=guest)
    if env.state.events[name].visibility == "public":
        ok(env, "set_visibility", event=name, visibility="private")
    return name


REFUSALS = {
    "add an event already on the calendar": lambda env: (
        "add_event",
        {"event": scheduled(env.state)[0], "day": "sunday", "hour": 12, "minutes": 30},
    ),
    "add over another event": lambda env: (
        "add_event",
        {"event": _add_over(env), "day": "sunday", "hour": 9, "minutes": 30},
    ),
    "add ending after 23:00": lambda env: (
        "add_event",
        {"event": unscheduled(env.state)[0], "day": "sunday", "hour": 22, "minutes": 90},
    ),
    "add with a duration off the 15-minute step": lambda env: (
        "add_event",
        {"event": unscheduled(env.state)[0], "day": "sunday", "hour": 12, "minutes": 50},
    ),
    "move an event not on the calendar": lambda env: (
        "move_event",
        {"event": unscheduled(env.state)[0], "day": "sunday", "hour": 12},
    ),
    "move to the slot it has": lambda env: (
        "move_event",
        {"event": (n := scheduled(env.state)[0]), "day": env.state.events[n].day, "hour": env.state.events[n].hour},
    ),
    "move onto another event": lambda env: (
        "move_event",
        {"event": _free_sunday(env)[0], "day": "sunday", "hour": 10},
    ),
    "cancel an event not on the calendar": lambda env: ("cancel_event", {"event": unscheduled(env.state)[0]}),
    "lengthen into the next event": lambda env: (
        "set_event_duration",
        {"event": _free_sunday(env)[0], "minutes": 75},
    ),
    "email reminder with 5 minutes' notice": lambda env: (
        "set_reminder",
        {"event": scheduled(env.state)[0], "lead": "5_minutes", "method": "email"},
    ),
    "reminder on an event not on the calendar": lambda env: (
        "set_reminder",
        {"event": unscheduled(env.state)[0], "lead": "1_hour", "method": "sms"},
    ),
    "invite to a private event": lambda env: ("invite_guest", {"event": _private(env), "guest": "alice"}),
    "invite a guest twice": lambda env: (
        "invite_guest",
        {"event": (n := _full_event(env)[0]), "guest": env.state.events[n].guests[0]},
    ),
    "invite a fifth guest": lambda env: ("invite_guest", dict(zip(("event", "guest"), _full_event(env), strict=True))),
    "remove a guest who is not invited": lambda env: ("remove_guest", {"event": _private(env), "guest": "bob"}),
    "make an event with guests private": lambda env: (
        "set_visibility",
        {"event": _full_event(env)[0], "visibility": "private"},
    ),
    "working hours under 4 hours": lambda env: ("set_schedule", {"day": "friday", "start": 12, "end": 15}),
    "preset on an event not on the calendar": lambda env: (
        "apply_preset",
        {"event": unscheduled(env.state)[0], "preset": "quick_sync"},
    ),
    "preset too long for the slot": lambda env: (
        "apply_preset",
        {"event": _free_sunday(env)[0], "preset": "focus_block"},
    ),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("label", list(REFUSALS))
def test_refusal_is_explained_and_leaves_state_unchanged(seed, label):
    env = DOMAIN.environment(seed)
    op, args = REFUSALS[label](env)
    before, snapshot = env.state_hash(), env.state.model_copy(deep=True)
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and len(reply["error"]) > 15, label
    assert env.state_hash() == before
    # the operation checks before it mutates (not only the environment's copy)
    with pytest.raises(DomainError):
        getattr(ops, op)(snapshot, **args)
    assert snapshot == env.state


# --- tasks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_kinds_mix_and_gold_lengths(seed):
    easy = [t for t in DOMAIN.tasks(seed) if t.form == "easy"]
    assert len(easy) >= 120
    lengths = Counter(len(t.gold) for t in easy)
    assert set(lengths) <= set(range(1, 7))
    assert lengths[3] + lengths[4] >= len(easy) / 3
    assert lengths[5] >= 5 and lengths[6] >= 1


@pytest.mark.parametrize("seed", [0, 1])
def test_every_gold_write_changes_state(seed):
    for task in DOMAIN.tasks(seed):
        if task.form == "hard":
            continue
        env = DOMAIN.environment(seed)
        for step in task.reference:
            before = env.state_hash()
            assert env.execute(step.action) == step.reply
            assert (env.state_hash() != before) == (SPACE.get(step.action.op).kind == "write"), task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_compound_requests_are_independent_of_order(seed):
    for task in DOMAIN.tasks(seed):
        if task.kind != "compound" or task.form == "hard":
            continue
        hashes = set()
        for order in (task.gold, task.gold[::-1], random.Random(task.id).sample(task.gold, len(task.gold))):
            env = DOMAIN.environment(seed)
            replies = [env.execute(action) for action in order]
            assert not any("error" in r for r in replies), (task.id, replies)
            hashes.add(env.state_hash())
        assert len(hashes) == 1, task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_compositional_tasks_read_first_or_need_their_first_step(seed):
    for task in DOMAIN.tasks(seed):
        if task.kind != "compositional" or task.form == "hard":
            continue
        first, rest = task.gold[0], task.gold[1:]
        if SPACE.get(first.op).kind == "read":
            continue
        env = DOMAIN.environment(seed)
        assert any("error" in env.execute(action) for action in rest), task.id


def test_questions_are_single_reads_and_commands_write():
    for task in DOMAIN.tasks(0):
        kinds = {SPACE.get(a.op).kind for a in task.gold}
        assert task.kind != "compound" or kinds == {"write"}, task.id
        assert task.kind != "compositional" or "write" in kinds, task.id
