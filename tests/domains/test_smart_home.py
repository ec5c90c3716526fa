"""Tests of the smart_home domain: state, operations, rules and task generation."""

from __future__ import annotations

import random
import time
import typing

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains.smart_home import SmartHome
from toolprism.domains.smart_home import _ops as ops
from toolprism.domains.smart_home._state import LOCKS, ROOMS, SCENES
from toolprism.domains.smart_home._tasks import MAX_CALLS
from toolprism.errors import DomainError

DOMAIN = SmartHome()
SPACE = SmartHome.action_space()


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def enum_values(fn, name):
    """The Literal values of parameter ``name`` of operation ``fn``, or None."""
    hint = typing.get_type_hints(fn, include_extras=True)[name]
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
    return list(typing.get_args(base)) if typing.get_origin(base) is typing.Literal else None


# --- registration and action space -------------------------------------------------------------


def test_registered_under_its_name():
    assert DOMAINS.get("smart_home") is SmartHome
    assert SmartHome.name == "smart_home"
    assert "home assistant" in SmartHome.policy


def test_at_least_14_operations_with_reads_and_writes():
    operations = SPACE.operations
    assert len(operations) >= 14
    kinds = {op.kind for op in operations}
    assert kinds == {"read", "write"}
    assert all(op.description and op.group for op in operations)


def test_tool_schemas_are_valid_and_show_every_enum():
    for fn in SmartHome.operations:
        tool = SPACE.get(fn.__name__).tool()
        schema = tool.openai()["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert sorted(schema["required"]) == sorted(schema["properties"])  # every argument required
        for name, prop in schema["properties"].items():
            assert prop.get("description"), (fn.__name__, name)
            values = enum_values(fn, name)
            if values is not None:
                assert prop["enum"] == values, (fn.__name__, name)


def test_integer_ranges_are_in_the_schema():
    brightness = SPACE.get("set_light_brightness").param("brightness").schema
    assert (brightness["type"], brightness["minimum"], brightness["maximum"]) == ("integer", 1, 100)
    with pytest.raises(Exception, match="invalid_arguments"):
        SPACE.action("set_light_brightness", {"room": "kitchen", "brightness": 101})


def test_at_least_half_of_parameters_are_enumerated():
    params = [p for op in SPACE.operations for p in op.params]
    enumerated = [p for p in params if p.enum is not None]
    assert len(enumerated) / len(params) >= 0.5


# --- world and determinism ---------------------------------------------------------------------


def test_initial_state_is_deterministic_and_ignores_global_random():
    random.seed(1)
    first = DOMAIN.environment(7).state_hash()
    random.seed(2)
    assert DOMAIN.environment(7).state_hash() == first
    assert DOMAIN.environment(8).state_hash() != first


@pytest.mark.parametrize("seed", [0, 1])
def test_at_least_120_drafts_in_the_seed_000_kind_mix(seed):
    tasks = DOMAIN.tasks(seed)
    easy = [t for t in tasks if t.form == "easy"]
    assert len(easy) >= 120 and len(tasks) == 2 * len(easy)
    calls = [len(t.gold) for t in easy]
    assert all(1 <= n <= MAX_CALLS <= 6 for n in calls)
    assert sum(n in (3, 4) for n in calls) >= len(easy) // 4  # plenty of 3-4 call tasks
    assert max(calls) >= 5  # 6-call tasks occur on some seeds, not all
    assert len({t.id.split("/")[1] for t in tasks}) >= 12


def test_drafts_take_well_under_a_second():
    start = time.perf_counter()
    DOMAIN.tasks(5)
    assert time.perf_counter() - start < 1.0


def test_same_seed_gives_identical_tasks_replies_and_hashes():
    first, second = DOMAIN.tasks(3), DOMAIN.tasks(3)
    assert first == second
    assert [replay_hash(t) for t in first] == [replay_hash(t) for t in second]


def test_different_seeds_give_different_tasks():
    assert [t.query for t in DOMAIN.tasks(0)] != [t.query for t in DOMAIN.tasks(1)]
    assert [t.gold for t in DOMAIN.tasks(0)] != [t.gold for t in DOMAIN.tasks(1)]


def test_limit_truncates():
    assert len(DOMAIN.tasks(0, limit=5)) == 5


def replay_hash(task):
    env = DOMAIN.environment(task.world_seed)
    for action in task.gold:
        env.execute(action)
    return env.state_hash()


# --- gold quality ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_replaying_gold_reproduces_reference_and_every_write_changes_state(seed):
    for task in DOMAIN.tasks(seed):
        env = DOMAIN.environment(seed)
        for step in task.reference:
            before = env.state_hash()
            reply = env.execute(step.action)
            assert reply == step.reply, task.id
            assert "error" not in reply, task.id
            kind = SPACE.get(step.action.op).kind
            changed = env.state_hash() != before
            assert changed == (kind == "write"), (task.id, str(step.action))


def replay(gold, seed):
    """Run ``gold`` on a fresh world: (any refusal, final state hash)."""
    env = DOMAIN.environment(seed)
    refused = any("error" in env.execute(action) for action in gold)
    return refused, env.state_hash()


@pytest.mark.parametrize("seed", [0, 1])
def test_questions_are_single_reads_and_other_tasks_write(seed):
    for task in DOMAIN.tasks(seed):
        kinds_ = [SPACE.get(a.op).kind for a in task.gold]
        if "write" not in kinds_:
            assert task.kind == "single" and kinds_ == ["read"], task.id
        else:
            assert task.kind == "single" or len(kinds_) >= 2, task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_compound_requests_are_independent(seed):
    # independent requests on disjoint devices: any order gives the same world
    for task in DOMAIN.tasks(seed):
        if task.kind == "compound" and task.form == "easy":
            assert replay(task.gold[::-1], seed) == replay(task.gold, seed), task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_compositional_tasks_depend_on_an_earlier_step(seed):
    # a read whose reply a later call uses, or an order that matters (reversed: refused or different)
    for task in DOMAIN.tasks(seed):
        if task.kind == "compositional" and task.form == "easy":
            ops_ = [SPACE.get(a.op).kind for a in task.gold]
            reads_first = "read" in ops_ and ops_.index("read") < len(ops_) - 1
            assert reads_first or replay(task.gold[::-1], seed) != replay(task.gold, seed), task.id


# --- writes change state as documented ---------------------------------------------------------


def fresh():
    return DOMAIN.environment(0)


def test_light_power_brightness_and_color():
    env = fresh()
    run(env, "set_light_power", room="garage", power="on")
    run(env, "set_light_brightness", room="garage", brightness=35)
    reply = run(env, "set_light_color", room="garage", color="green")
    assert reply == {"room": "garage", "light": {"power": "on", "brightness": 35, "color": "green"}}
    run(env, "set_light_power", room="garage", power="off")
    light = env.state.rooms["garage"].light
    assert (light.power, light.brightness, light.color) == ("off", 35, "green")


def test_blinds_fan_and_music():
    env = fresh()
    assert run(env, "set_blinds", room="bedroom", position="half") == {
        "room": "bedroom",
        "blinds": "half",
    }
    assert env.state.rooms["bedroom"].blinds == "half"
    run(env, "set_fan_speed", room="office", speed="high")
    assert env.state.rooms["office"].fan == "high"
    run(env, "play_music", room="kitchen", playlist="rock")
    run(env, "set_volume", room="kitchen", volume=0)
    assert env.state.rooms["kitchen"].speaker.model_dump() == {"playlist": "rock", "volume": 0}
    run(env, "stop_music", room="kitchen")
    assert env.state.rooms["kitchen"].speaker.playlist is None


def test_thermostat_mode_and_temperature():
    env = fresh()
    run(env, "set_mode", zone="upstairs", mode="cool")
    reply = run(env, "set_temperature", zone="upstairs", temperature=30)
    assert reply["mode"] == "cool" and reply["target_temperature"] == 30
    # Switching to heat clamps the target into heat's range (at most 28).
    assert run(env, "set_mode", zone="upstairs", mode="heat")["target_temperature"] == 28
    assert env.state.thermostats["downstairs"] == DOMAIN.initial_state(0).thermostats["downstairs"]


def test_lock_and_unlock():
    env = fresh()
    for lock in LOCKS:
        op = "unlock_door" if env.state.locks[lock] == "locked" else "lock_door"
        expected = "unlocked" if op == "unlock_door" else "locked"
        assert run(env, op, lock=lock) == {"lock": lock, "state": expected}
        assert run(env, "get_lock_status", lock=lock) == {"lock": lock, "state": expected}


@pytest.mark.parametrize("scene", SCENES)
def test_activate_scene_applies_its_preset(scene):
    env = fresh()
    preset = env.state.scenes[scene]
    reply = run(env, "activate_scene", scene=scene)
    assert reply["scene"] == scene and env.state.active_scene == scene
    for room, light in preset.lights.items():
        actual = env.state.rooms[room].light.model_dump()
        assert {k: actual[k] for k, v in light.model_dump(exclude_none=True).items()} == light.model_dump(
            exclude_none=True
        )
    for room, position in preset.blinds.items():
        assert env.state.rooms[room].blinds == position
    for lock, value in preset.locks.items():
        assert env.state.locks[lock] == value
    for zone, setting in preset.thermostats.items():
        assert env.state.thermostats[zone].mode == setting.mode
    assert run(env, "activate_scene", scene=scene)["changed"] == []  # idempotent


def test_reads_describe_the_state_and_change_nothing():
    env = fresh()
    before = env.state_hash()
    room = run(env, "get_room_status", room="bathroom")
    assert room["zone"] == "upstairs" and room["blinds"] is None and room["speaker"] is None
    assert room["light"] == env.state.rooms["bathroom"].light.model_dump()
    assert {s["name"] for s in run(env, "list_scenes")["scenes"]} == set(SCENES)
    assert run(env, "get_thermostat", zone="downstairs")["zone"] == "downstairs"
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _off_light_room(state):
    return next(r for r in ROOMS if state.rooms[r].light.power == "off")


REFUSALS = [
    (
        "brightness on an off light",
        lambda s: ("set_light_brightness", {"room": _off_light_room(s), "brightness": 50}),
    ),
    (
        "color on an off light",
        lambda s: ("set_light_color", {"room": _off_light_room(s), "color": "red"}),
    ),
    ("no blinds", lambda s: ("set_blinds", {"room": "bathroom", "position": "open"})),
    ("no fan", lambda s: ("set_fan_speed", {"room": "kitchen", "speed": "low"})),
    ("no speaker", lambda s: ("play_music", {"room": "bedroom", "playlist": "jazz"})),
    ("no speaker volume", lambda s: ("set_volume", {"room": "garage", "volume": 20})),
    (
        "heat above 28",
        lambda s: (
            ("set_temperature", {"zone": "upstairs", "temperature": 31})
            if s.thermostats["upstairs"].mode == "heat"
            else ("set_temperature", {"zone": "upstairs", "temperature": 11})
        ),
    ),
    (
        "already locked",
        lambda s: (
            "lock_door" if s.locks["front_door"] == "locked" else "unlock_door",
            {"lock": "front_door"},
        ),
    ),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("label", "make"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_leaves_state_unchanged(seed, label, make):
    env = DOMAIN.environment(seed)
    op, args = make(env.state)
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and reply["error"], label
    assert env.state_hash() == before
    # The operation itself validates before mutating (not only the environment's copy).
    state = DOMAIN.initial_state(seed)
    with pytest.raises(DomainError):
        getattr(ops, op)(state, **args)
    assert state == DOMAIN.initial_state(seed)


def test_refusals_after_a_state_change():
    env = fresh()
    run(env, "set_mode", zone="downstairs", mode="off")
    before = env.state_hash()
    assert "error" in run(env, "set_temperature", zone="downstairs", temperature=21)
    assert env.state_hash() == before
    for room in ("living_room", "kitchen", "office"):
        if env.state.rooms[room].speaker.playlist is not None:
            run(env, "stop_music", room=room)
        before = env.state_hash()
        assert "error" in run(env, "stop_music", room=room)
        assert env.state_hash() == before
