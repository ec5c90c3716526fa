"""Tests of the smartwatch domain: action space, rules, state changes and task generation."""

from __future__ import annotations

import random
from collections import Counter

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprism.domains import DOMAINS
from toolprism.domains.smartwatch import Smartwatch
from toolprism.domains.smartwatch import _ops as ops
from toolprism.domains.smartwatch._state import (
    ALARMS,
    GOAL_RANGE,
    MAX_TIMERS,
    MINIMAL_COLORS,
    POWER_SAVER_MAX_BRIGHTNESS,
    SLEEP_HOURS,
    TIMERS,
    sleep_hours,
)
from toolprism.errors import DomainError, RejectedCall

DOMAIN = Smartwatch()
SPACE = Smartwatch.action_space()
SHARED_NAMES = {"get_status", "set_mode", "set_brightness", "set_timer", "cancel_timer", "set_schedule"}
SHARED_NAMES |= {"start", "pause", "resume", "stop"}


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def ok(env, op, **args):
    reply = run(env, op, **args)
    assert "error" not in reply, (op, args, reply)
    return reply


def no_workout(env):
    if env.state.workout is not None:
        ok(env, "stop", save="discard")


def in_mode(env, mode):
    no_workout(env)
    if env.state.mode != mode:
        ok(env, "set_mode", mode=mode)


# --- registration and action space -------------------------------------------------------------


def test_registered_with_a_short_policy():
    assert DOMAINS.get("smartwatch") is Smartwatch
    assert 80 <= len(Smartwatch.policy) <= 1500


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
    assert all({"minimum", "maximum"} <= set(p.schema) for p in params if p.enum is None)


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_brightness", {"level": 0}),
        ("set_brightness", {"level": 11}),
        ("set_alarm", {"alarm": "gym", "hour": 24, "minute": "00", "repeat": "daily"}),
        ("set_alarm", {"alarm": "gym", "hour": 7, "minute": "10", "repeat": "daily"}),
        ("set_timer", {"label": "tea", "minutes": 0}),
        ("set_timer", {"label": "tea", "minutes": 181}),
        ("set_schedule", {"days": "weekdays", "bedtime": 18, "wake": 6}),
        ("set_goal", {"metric": "steps", "value": 30001}),
        ("start", {"activity": "ski", "goal": "open"}),
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
    assert len({DOMAIN.environment(s).state_hash() for s in range(8)}) == 8
    for seed in range(20):
        state = DOMAIN.initial_state(seed)
        on = [(a.hour, a.minute) for a in state.alarms.values() if a.power == "on"]
        assert len(on) == len(set(on)), seed
        assert len(state.timers) <= MAX_TIMERS
        assert state.mode != "power_saver" or state.brightness <= POWER_SAVER_MAX_BRIGHTNESS
        assert state.mode != "sleep" or state.workout is None
        assert state.face != "minimal" or state.color in MINIMAL_COLORS
        assert all(GOAL_RANGE[m][0] <= v <= GOAL_RANGE[m][1] for m, v in state.goals.items())
        assert all(SLEEP_HOURS[0] <= sleep_hours(w) <= SLEEP_HOURS[1] for w in state.sleep.values())


def test_tasks_are_deterministic_and_differ_across_seeds():
    assert DOMAIN.tasks(2) == Smartwatch().tasks(2)
    assert [t.query for t in DOMAIN.tasks(2)] != [t.query for t in DOMAIN.tasks(3)]


# --- state changes -----------------------------------------------------------------------------


def test_workout_lifecycle_and_history():
    env = DOMAIN.environment(0)
    in_mode(env, "normal")
    saved = list(env.state.saved_workouts)
    assert ok(env, "start", activity="swim", goal="distance")["workout"]["status"] == "running"
    assert ok(env, "pause")["workout"]["status"] == "paused"
    assert ok(env, "resume")["workout"]["status"] == "running"
    assert ok(env, "stop", save="save")["saved_workouts"] == [*saved, "swim"]
    assert env.state.workout is None
    ok(env, "start", activity="yoga", goal="open")
    ok(env, "stop", save="discard")
    assert env.state.saved_workouts == [*saved, "swim"]


def test_power_saver_dims_and_modes_gate_brightness():
    env = DOMAIN.environment(1)
    in_mode(env, "normal")
    ok(env, "set_brightness", level=9)
    assert ok(env, "set_mode", mode="power_saver") == {"mode": "power_saver", "brightness": POWER_SAVER_MAX_BRIGHTNESS}
    assert ok(env, "set_brightness", level=2)["brightness"] == 2
    ok(env, "set_mode", mode="theater")
    assert ok(env, "set_brightness", level=10)["brightness"] == 10


def test_alarms_timers_face_goals_and_sleep():
    env = DOMAIN.environment(2)
    reply = ok(env, "set_alarm", alarm="nap", hour=23, minute="45", repeat="weekends")
    assert (reply["time"], reply["power"], reply["repeat"]) == ("23:45", "on", "weekends")
    for label in list(env.state.timers):
        ok(env, "cancel_timer", label=label)
    assert ok(env, "set_timer", label="tea", minutes=4) == {"timers": [{"label": "tea", "minutes": 4}]}
    assert ok(env, "cancel_timer", label="tea") == {"timers": []}
    assert ok(env, "set_watch_face", face="minimal", color="black") == {"face": "minimal", "color": "black"}
    assert ok(env, "set_goal", metric="stand_hours", value=16)["goals"]["stand_hours"] == 16
    assert ok(env, "set_schedule", days="weekends", bedtime=23, wake=11)["hours"] == 12
    assert ok(env, "get_health")["sleep_schedule"]["weekends"] == {"bedtime": 23, "wake": 11, "hours": 12}


def test_reads_describe_the_state_and_change_nothing():
    env = DOMAIN.environment(0)
    before = env.state_hash()
    status = ok(env, "get_status")
    assert (status["mode"], status["brightness"]) == (env.state.mode, env.state.brightness)
    assert [t["label"] for t in status["timers"]] == list(env.state.timers)
    alarms = ok(env, "get_alarms")["alarms"]
    assert [a["alarm"] for a in alarms] == list(ALARMS)
    assert all(a["time"] == f"{a['hour']:02d}:{a['minute']}" for a in alarms)
    assert ok(env, "get_health")["goals"] == env.state.goals
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _workout_running(env):
    if env.state.workout is None:
        in_mode(env, "normal")
        ok(env, "start", activity="run", goal="time")
    elif env.state.workout.status == "paused":
        ok(env, "resume")


def _full_timers(env):
    for label in TIMERS:
        if len(env.state.timers) < MAX_TIMERS and label not in env.state.timers:
            ok(env, "set_timer", label=label, minutes=5)
    return next(t for t in TIMERS if t not in env.state.timers)


def _alarm_clash(env):
    ok(env, "set_alarm", alarm="gym", hour=7, minute="15", repeat="daily")
    return {"alarm": "nap", "hour": 7, "minute": "15", "repeat": "once"}


REFUSALS = {
    "brightness in sleep mode": lambda env: (in_mode(env, "sleep"), "set_brightness", {"level": 3}),
    "brightness above 4 in power saver": lambda env: (in_mode(env, "power_saver"), "set_brightness", {"level": 5}),
    "sleep mode during a workout": lambda env: (_workout_running(env), "set_mode", {"mode": "sleep"}),
    "start a workout in sleep mode": lambda env: (
        in_mode(env, "sleep"),
        "start",
        {"activity": "walk", "goal": "open"},
    ),
    "start a second workout": lambda env: (_workout_running(env), "start", {"activity": "cycle", "goal": "calories"}),
    "pause a paused workout": lambda env: (_workout_running(env), ok(env, "pause"), "pause", {})[1:],
    "resume a running workout": lambda env: (_workout_running(env), "resume", {}),
    "pause without a workout": lambda env: (no_workout(env), "pause", {}),
    "stop without a workout": lambda env: (no_workout(env), "stop", {"save": "save"}),
    "minimal face in red": lambda env: (None, "set_watch_face", {"face": "minimal", "color": "red"}),
    "two alarms at one time": lambda env: (None, "set_alarm", _alarm_clash(env)),
    "a timer label twice": lambda env: (
        None,
        "set_timer",
        {"label": (_full_timers(env), next(iter(env.state.timers)))[1], "minutes": 9},
    ),
    "a fourth timer": lambda env: (None, "set_timer", {"label": _full_timers(env), "minutes": 9}),
    "cancel a timer that is not running": lambda env: (
        None,
        "cancel_timer",
        {"label": next(t for t in TIMERS if t not in env.state.timers)},
    ),
    "steps goal below range": lambda env: (None, "set_goal", {"metric": "steps", "value": 999}),
    "stand hours above range": lambda env: (None, "set_goal", {"metric": "stand_hours", "value": 17}),
    "sleep window under 6 hours": lambda env: (None, "set_schedule", {"days": "weekdays", "bedtime": 23, "wake": 4}),
    "sleep window over 12 hours": lambda env: (None, "set_schedule", {"days": "weekends", "bedtime": 20, "wake": 9}),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("label", list(REFUSALS))
def test_refusal_is_explained_and_leaves_state_unchanged(seed, label):
    env = DOMAIN.environment(seed)
    _, op, args = REFUSALS[label](env)
    before, snapshot = env.state_hash(), env.state.model_copy(deep=True)
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and len(reply["error"]) > 15, label
    assert env.state_hash() == before
    with pytest.raises(DomainError):  # the operation checks before it mutates
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


def test_compound_tasks_only_write_and_compositional_tasks_write():
    for task in DOMAIN.tasks(0):
        kinds = {SPACE.get(a.op).kind for a in task.gold}
        assert task.kind != "compound" or kinds == {"write"}, task.id
        assert task.kind != "compositional" or "write" in kinds, task.id


# --- any schema-valid action either succeeds or is refused cleanly ----------------------------


def _argument(param):
    if param.enum is not None:
        return st.sampled_from(param.enum)
    return st.integers(param.schema["minimum"], param.schema["maximum"])


_ACTIONS = st.one_of(
    *[
        st.fixed_dictionaries({p.name: _argument(p) for p in op.params}).map(
            lambda a, name=op.name: SPACE.action(name, a)
        )
        for op in SPACE.operations
    ]
)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 30), actions=st.lists(_ACTIONS, max_size=10))
def test_random_action_sequences_are_deterministic_and_keep_the_rules(seed, actions):
    first, second = DOMAIN.environment(seed), DOMAIN.environment(seed)
    for action in actions:
        before = first.state_hash()
        reply = first.execute(action)
        assert reply == second.execute(action)
        if "error" in reply or SPACE.get(action.op).kind == "read":
            assert first.state_hash() == before
        state = type(first.state).model_validate(first.state.model_dump())
        on = [(a.hour, a.minute) for a in state.alarms.values() if a.power == "on"]
        assert len(on) == len(set(on))
        assert len(state.timers) <= MAX_TIMERS
        assert state.mode != "power_saver" or state.brightness <= POWER_SAVER_MAX_BRIGHTNESS
        assert state.mode != "sleep" or state.workout is None
    assert first.state_hash() == second.state_hash()
