"""Tests of the vacuum domain: state, operations, refusal rules and task generation."""

from __future__ import annotations

import functools
import random
import time

import pytest

from toolprism.domains import DOMAINS
from toolprism.domains.vacuum import Vacuum
from toolprism.domains.vacuum import _ops as ops
from toolprism.domains.vacuum._state import FLOOR_OF, MAP_OF, PRESET_TABLE, ZONE_ROOM, Job, rooms_of
from toolprism.domains.vacuum._tasks import MAX_CALLS, MIX
from toolprism.errors import DomainError

DOMAIN = Vacuum()
SPACE = Vacuum.action_space()
SHARED_NAMES = {"get_status", "set_mode", "start", "pause", "resume", "stop", "set_child_lock", "set_schedule"}


@functools.cache
def tasks_of(seed):
    return DOMAIN.tasks(seed)


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def world(seed=0, **robot):
    """The world of ``seed`` with some robot fields replaced (a docked robot by default)."""
    state = DOMAIN.initial_state(seed)
    fields = {"status": "docked", "job": None, **robot}
    state.robot = state.robot.model_copy(update=fields)
    return state


def env_of(state):
    env = DOMAIN.environment(0)
    env.state = state
    return env


# --- registration and action space -------------------------------------------------------------


def test_registered_with_reads_writes_and_shared_tool_names():
    assert DOMAINS.get("vacuum") is Vacuum
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    reads = [op for op in operations if op.kind == "read"]
    assert 3 <= len(reads) <= 4
    assert SHARED_NAMES <= {op.name for op in operations}
    assert all(op.description and op.group for op in operations)
    assert 80 <= len(Vacuum.policy) <= 1500


def test_parameters_are_required_described_and_mostly_enumerated():
    params = [p for op in SPACE.operations for p in op.params]
    assert all(p.required and p.description for p in params)
    enumerated = [p for p in params if p.enum is not None]
    assert len(enumerated) >= 10 and len(enumerated) / len(params) > 0.5
    assert not [p for p in params if p.schema.get("type") == "boolean"]


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("start", {"room": "kitchen", "passes": 0}),
        ("start", {"room": "kitchen", "passes": 4}),
        ("set_schedule", {"day": "monday", "hour": 24, "mode": "vacuum"}),
        ("set_schedule", {"day": "monday", "hour": -1, "mode": "vacuum"}),
        ("set_mode", {"mode": "sweep"}),
    ],
)
def test_schema_rejects_out_of_range_and_unknown_values(op, args):
    with pytest.raises(Exception, match="invalid_arguments"):
        SPACE.action(op, args)


# --- world and determinism ---------------------------------------------------------------------


def test_initial_state_is_deterministic_and_differs_across_seeds():
    random.seed(1)
    first = DOMAIN.environment(7).state_hash()
    random.seed(2)
    assert DOMAIN.environment(7).state_hash() == first
    assert len({DOMAIN.environment(s).state_hash() for s in range(6)}) == 6


@pytest.mark.parametrize("seed", range(20))
def test_initial_state_is_consistent(seed):
    robot = DOMAIN.initial_state(seed).robot
    assert (robot.job is None) == (robot.status in ("docked", "idle"))
    assert robot.mop_pad == "attached" or robot.mode == "vacuum"
    if robot.job is not None:
        assert MAP_OF[robot.job.target] == robot.active_map


def test_same_seed_same_tasks_and_different_seeds_differ():
    assert DOMAIN.tasks(3) == type(DOMAIN)().tasks(3)
    assert [t.query for t in tasks_of(0)] != [t.query for t in tasks_of(1)]


# --- tasks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_at_least_120_drafts_in_the_seed_000_kind_mix(seed):
    tasks = tasks_of(seed)
    easy = [t for t in tasks if t.form == "easy"]
    assert len(easy) == sum(MIX.values()) >= 120 and len(tasks) == 2 * len(easy)
    calls = [len(t.gold) for t in easy]
    assert all(1 <= n <= MAX_CALLS for n in calls)
    assert sum(n in (3, 4) for n in calls) >= len(easy) // 4
    assert max(calls) >= 5  # 6-call tasks occur on some seeds, not all
    assert len({t.id.split("/")[1] for t in tasks}) >= 15


def test_tasks_take_well_under_a_second():
    start = time.perf_counter()
    DOMAIN.tasks(4)
    assert time.perf_counter() - start < 1.0


# the gold-write, compound and compositional rules are in test_conformance.py (every device domain)


# --- writes change state as documented ---------------------------------------------------------


def test_a_clean_runs_pauses_resumes_and_stops():
    env = env_of(world(mode="vacuum", active_map="ground_floor"))
    assert run(env, "start", room="living_room", passes=2) == {
        "status": "cleaning",
        "job": {"target": "living_room", "passes": 2},
        "active_map": "ground_floor",
    }
    assert run(env, "pause")["status"] == "paused"
    assert run(env, "resume")["status"] == "cleaning"
    assert run(env, "stop", then="stay") == {"status": "idle", "job": None, "active_map": "ground_floor"}
    run(env, "start", room="whole_map", passes=1)
    assert run(env, "stop", then="dock")["status"] == "docked"


def test_maps_settings_presets_zones_and_schedule():
    env = env_of(world(mode="vacuum", mop_pad="attached", active_map="ground_floor"))
    reply = run(env, "set_map", map="upper_floor")
    assert reply == {"active_map": "upper_floor", "rooms": list(rooms_of("upper_floor"))}
    assert run(env, "set_mode", mode="mop")["mode"] == "mop"
    assert run(env, "set_water_level", level="high")["water_level"] == "high"
    reply = run(env, "apply_preset", preset="deep")
    assert (reply["mode"], reply["suction"], reply["water_level"]) == ("vacuum_and_mop", "max", "high")
    assert run(env, "apply_preset", preset="mop_only")["suction"] == "max"  # a preset without suction keeps it
    assert run(env, "set_child_lock", lock="on") == {"child_lock": "on"}
    zone = "rug"
    status = "off" if env.state.zones[zone] == "on" else "on"
    assert run(env, "set_no_go_zone", zone=zone, status=status)["room"] == ZONE_ROOM[zone]
    assert env.state.zones[zone] == status
    run(env, "set_schedule", day="friday", hour=9, mode="vacuum")
    assert env.state.schedule["friday"].model_dump() == {"hour": 9, "mode": "vacuum"}


def test_reads_describe_the_state_and_change_nothing():
    env = DOMAIN.environment(0)
    before = env.state_hash()
    status = run(env, "get_status")
    assert status["robot"]["battery"] == env.state.robot.battery and set(status["schedule"]) == set(env.state.schedule)
    room = run(env, "get_room", room="bathroom")
    assert (room["floor"], room["map"], set(room["no_go_zones"])) == ("tile", "upper_floor", {"bath_mat"})
    assert {p["name"] for p in run(env, "list_presets")["presets"]} == set(PRESET_TABLE)
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------

CLEANING = {"status": "cleaning", "job": Job(target="kitchen", passes=1), "active_map": "ground_floor"}
PAUSED = {**CLEANING, "status": "paused"}
REFUSALS = [
    ("start while cleaning", CLEANING, "start", {"room": "hallway", "passes": 1}, "already cleaning"),
    ("start while paused", PAUSED, "start", {"room": "hallway", "passes": 1}, "paused"),
    ("start off the map", {"active_map": "ground_floor"}, "start", {"room": "office", "passes": 1}, "switch to"),
    (
        "start on low battery",
        {"battery": 15, "active_map": "ground_floor"},
        "start",
        {"room": "kitchen", "passes": 1},
        "battery",
    ),
    (
        "mop on carpet",
        {"mode": "mop", "mop_pad": "attached", "active_map": "ground_floor"},
        "start",
        {"room": "living_room", "passes": 1},
        "soak",
    ),
    (
        "mop the whole map with a carpet",
        {"mode": "mop", "mop_pad": "attached", "active_map": "upper_floor"},
        "start",
        {"room": "whole_map", "passes": 2},
        "soak",
    ),
    ("pause when docked", {}, "pause", {}, "nothing to pause"),
    ("resume when cleaning", CLEANING, "resume", {}, "only a paused clean"),
    ("stop with no clean", {}, "stop", {"then": "dock"}, "no clean to stop"),
    ("switch maps mid-clean", PAUSED, "set_map", {"map": "upper_floor"}, "stop it before"),
    ("mop mode without the pad", {"mop_pad": "detached", "mode": "vacuum"}, "set_mode", {"mode": "mop"}, "mop pad"),
    (
        "mop preset without the pad",
        {"mop_pad": "detached", "mode": "vacuum"},
        "apply_preset",
        {"preset": "deep"},
        "mop pad",
    ),
    ("suction in mop mode", {"mode": "mop", "mop_pad": "attached"}, "set_suction", {"level": "max"}, "unused"),
    ("water in vacuum mode", {"mode": "vacuum"}, "set_water_level", {"level": "low"}, "unused"),
    ("zone in the room being cleaned", CLEANING, "set_no_go_zone", {"zone": "pet_bowls", "status": "on"}, "stop"),
    ("schedule in quiet hours", {}, "set_schedule", {"day": "monday", "hour": 23, "mode": "vacuum"}, "do-not-disturb"),
    ("schedule before seven", {}, "set_schedule", {"day": "monday", "hour": 6, "mode": "mop"}, "do-not-disturb"),
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("label", "robot", "op", "args", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_is_explained_and_leaves_state_unchanged(seed, label, robot, op, args, message):
    state = world(seed, **robot)
    env = env_of(state.model_copy(deep=True))
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and message in reply["error"], (label, reply)
    assert env.state_hash() == before
    # the operation itself refuses before mutating anything
    with pytest.raises(DomainError):
        getattr(ops, op)(state, **args)
    assert state == world(seed, **robot)


def test_a_zone_already_in_that_state_is_refused():
    env = env_of(world())
    zone = "shoe_rack"
    reply = run(env, "set_no_go_zone", zone=zone, status=env.state.zones[zone])
    assert "already" in reply["error"]


def test_rules_follow_the_layout():
    carpets = [r for r, floor in FLOOR_OF.items() if floor == "carpet"]
    for room in carpets:
        env = env_of(world(mode="mop", mop_pad="attached", active_map=MAP_OF[room]))
        assert "error" in run(env, "start", room=room, passes=1)
        run(env, "set_mode", mode="vacuum_and_mop")
        assert run(env, "start", room=room, passes=1)["status"] == "cleaning"
