"""Tests of the navigation domain: action space, rules, state changes and task generation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprism.domains import DOMAINS
from toolprism.domains._drafting import MAX_CALLS
from toolprism.domains.navigation import Navigation
from toolprism.domains.navigation import _ops as ops
from toolprism.domains.navigation._state import (
    AVOID_MINUTES,
    CATEGORIES,
    CONTACTS,
    MAX_WAYPOINTS,
    PREFERENCE_MINUTES,
    eta_minutes,
)
from toolprism.errors import DomainError, RejectedCall

DOMAIN = Navigation()
SPACE = Navigation.action_space()
SHARED_NAMES = {"get_status", "start", "pause", "resume", "stop", "set_mode", "set_volume"}


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def idle(seed=0):
    """An environment with no route in progress and no ETA share."""
    env = DOMAIN.environment(seed)
    if env.state.route.status != "idle":
        run(env, "stop")
    return env


def navigating(seed=0, waypoints=()):
    """An environment navigating home with exactly ``waypoints`` as stops."""
    env = idle(seed)
    run(env, "start", destination="home", route="fastest")
    for stop in waypoints:
        run(env, "add_waypoint", stop=stop, position="last")
    return env


# --- action space ------------------------------------------------------------------------------


def test_registered_with_reads_writes_and_shared_names():
    assert DOMAINS.get("navigation") is Navigation
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    assert 3 <= sum(op.kind == "read" for op in operations) <= 4
    assert SHARED_NAMES <= {op.name for op in operations}
    assert all(op.description and op.group for op in operations)
    assert 80 <= len(Navigation.policy) <= 1500


def test_mostly_enumerated_required_and_described_parameters():
    params = [p for op in SPACE.operations for p in op.params]
    enumerated = [p for p in params if p.enum is not None]
    assert len(enumerated) >= 10 and len(enumerated) > len(params) / 2
    assert all(p.required and p.description for p in params)
    assert not any(p.schema.get("type") == "boolean" for p in params)


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_volume", {"volume": 101}),
        ("set_volume", {"volume": -1}),
        ("start", {"destination": "mars", "route": "fastest"}),
        ("start", {"destination": "home"}),
        ("add_waypoint", {"stop": "voltpark", "position": "middle"}),
        ("share_eta", {"contact": "alex", "setting": True}),
        ("pause", {"now": "yes"}),
    ],
)
def test_out_of_range_and_malformed_arguments_are_rejected_by_the_schema(op, args):
    with pytest.raises(RejectedCall, match="invalid_arguments"):
        SPACE.action(op, args)


# --- refusals ----------------------------------------------------------------------------------


def _muted(seed):
    env = idle(seed)
    run(env, "set_voice_guidance", level="muted", language="english")
    return env


def _paused(seed):
    env = navigating(seed)
    run(env, "pause")
    return env


REFUSALS = [
    ("start while navigating", navigating, "start", {"destination": "work", "route": "eco"}, "stop it"),
    ("pause while idle", idle, "pause", {}, "nothing to pause"),
    ("pause while paused", _paused, "pause", {}, "nothing to pause"),
    ("resume while navigating", navigating, "resume", {}, "nothing to resume"),
    ("stop while idle", idle, "stop", {}, "no route"),
    ("stop added while idle", idle, "add_waypoint", {"stop": "voltpark", "position": "last"}, "no route"),
    (
        "stop already on the route",
        lambda seed: navigating(seed, ["voltpark"]),
        "add_waypoint",
        {"stop": "voltpark", "position": "first"},
        "already",
    ),
    (
        "more than three stops",
        lambda seed: navigating(seed, ["voltpark", "quickfuel", "olive_tree"]),
        "add_waypoint",
        {"stop": "noodle_bar", "position": "last"},
        "remove one",
    ),
    ("removing a stop not on the route", navigating, "remove_waypoint", {"stop": "plugstop"}, "not a stop"),
    ("preference while idle", idle, "set_route_preference", {"route": "scenic"}, "no route"),
    ("sharing while idle", idle, "share_eta", {"contact": "mom", "setting": "start"}, "no route"),
    ("volume while muted", _muted, "set_volume", {"volume": 40}, "muted"),
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("label", "setup", "op", "args", "why"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_rule_refuses_with_a_reason_and_changes_nothing(seed, label, setup, op, args, why):
    env = setup(seed)
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and why in reply["error"], (label, reply)
    assert env.state_hash() == before
    # The operation itself checks before mutating (not only the environment's copy).
    state = env.state.model_copy(deep=True)
    with pytest.raises(DomainError):
        getattr(ops, op)(state, **args)
    assert state == env.state


def test_what_the_rules_still_allow():
    env = idle()
    assert run(env, "share_eta", contact="alex", setting="stop")["sharing"] == "off"  # stopping always works
    assert run(env, "set_avoid", feature="ferries", setting="avoid")["eta_minutes"] is None
    assert "error" not in run(env, "set_mode", mode="satellite")
    env = _muted(0)
    assert run(env, "set_voice_guidance", level="alerts_only", language="french")["voice"]["level"] == "alerts_only"
    assert run(env, "set_volume", volume=35)["voice"]["volume"] == 35


# --- state changes -----------------------------------------------------------------------------


def test_route_life_cycle_and_eta():
    env = idle()
    for feature in AVOID_MINUTES:
        run(env, "set_avoid", feature=feature, setting="allow")
    route = run(env, "start", destination="gym", route="scenic")["route"]
    drive = env.state.places["gym"].drive_minutes
    assert (route["status"], route["destination"], route["waypoints"]) == ("navigating", "gym", [])
    assert route["eta_minutes"] == drive + PREFERENCE_MINUTES["scenic"]
    run(env, "add_waypoint", stop="voltpark", position="last")
    route = run(env, "add_waypoint", stop="bean_there", position="first")["route"]
    assert route["waypoints"] == ["bean_there", "voltpark"]
    detours = env.state.pois["voltpark"].detour_minutes + env.state.pois["bean_there"].detour_minutes
    assert route["eta_minutes"] == drive + PREFERENCE_MINUTES["scenic"] + detours
    assert run(env, "set_avoid", feature="tolls", setting="avoid")["eta_minutes"] == route["eta_minutes"] + 5
    assert run(env, "pause")["route"]["status"] == "paused"
    assert run(env, "resume")["route"]["status"] == "navigating"
    assert run(env, "remove_waypoint", stop="bean_there")["route"]["waypoints"] == ["voltpark"]


def test_stopping_clears_the_route_and_every_share():
    env = navigating(0, ["olive_tree"])
    run(env, "share_eta", contact="team", setting="start")
    reply = run(env, "stop")
    assert reply["route"]["status"] == "idle" and reply["route"]["destination"] is None
    assert reply["route"]["waypoints"] == [] and reply["route"]["eta_minutes"] is None
    assert set(reply["sharing"].values()) == {"off"}


@pytest.mark.parametrize("category", CATEGORIES)
def test_find_poi_orders_results_by_the_sort_key(category):
    env = idle()
    nearest = run(env, "find_poi", category=category, sort="distance")["results"]
    best = run(env, "find_poi", category=category, sort="rating")["results"]
    assert {r["name"] for r in nearest} == {r["name"] for r in best} and len(nearest) == 3
    assert all(env.state.pois[r["name"]].category == category for r in nearest)
    distances = [r["distance_km"] for r in nearest]
    ratings = [r["rating"] for r in best]
    assert distances == sorted(distances) and len(set(distances)) == 3
    assert ratings == sorted(ratings, reverse=True) and len(set(ratings)) == 3


def test_reads_change_nothing():
    env = navigating(1, ["chargehub"])
    before = env.state_hash()
    assert run(env, "get_status", section="route")["route"]["eta_minutes"] == eta_minutes(env.state)
    assert run(env, "get_status", section="display") == {"display": {"map_mode": env.state.map_mode}}
    assert run(env, "get_status", section="voice")["voice"]["language"] == env.state.voice.language
    assert set(run(env, "get_status", section="sharing")["sharing"]) == set(CONTACTS)
    assert len(run(env, "list_saved_places")["places"]) == len(env.state.places)
    assert env.state_hash() == before


# --- world and determinism ---------------------------------------------------------------------


def _assert_invariants(state):
    route = state.route
    assert (route.status == "idle") == (route.destination is None)
    assert len(route.waypoints) <= MAX_WAYPOINTS and len(set(route.waypoints)) == len(route.waypoints)
    if route.status == "idle":
        assert route.waypoints == [] and set(state.sharing.values()) == {"off"}


def test_initial_state_is_deterministic_valid_and_differs_across_seeds():
    random.seed(1)
    first = DOMAIN.environment(7).state_hash()
    random.seed(2)
    assert DOMAIN.environment(7).state_hash() == first
    assert len({DOMAIN.environment(s).state_hash() for s in range(10)}) == 10
    for seed in range(30):
        state = DOMAIN.initial_state(seed)
        _assert_invariants(state)
        drives = [p.drive_minutes for p in state.places.values()]
        assert len(set(drives)) == len(drives)  # "the shortest drive" is unique


def test_same_seed_same_tasks_and_different_seeds_differ():
    assert DOMAIN.tasks(3) == Navigation().tasks(3)
    assert [t.query for t in DOMAIN.tasks(0)] != [t.query for t in DOMAIN.tasks(1)]


# --- tasks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_at_least_120_drafts_in_the_seed_000_kind_mix(seed):
    tasks = DOMAIN.tasks(seed)
    easy = [t for t in tasks if t.form == "easy"]
    assert len(easy) >= 120 and len(tasks) == 2 * len(easy)
    calls = [len(t.gold) for t in easy]
    assert all(1 <= n <= MAX_CALLS <= 6 for n in calls)
    assert sum(n in (3, 4) for n in calls) >= len(easy) // 4
    assert max(calls) >= 5  # 6-call tasks occur on some seeds, not all


@pytest.mark.parametrize("seed", [0, 1])
def test_questions_are_single_reads_and_compounds_only_write(seed):
    for task in DOMAIN.tasks(seed):
        op_kinds = [SPACE.get(a.op).kind for a in task.gold]
        if "write" not in op_kinds:
            assert task.kind == "single", task.id
        if task.kind == "compound":
            assert set(op_kinds) == {"write"}, task.id


def _replay(seed, actions):
    env = DOMAIN.environment(seed)
    replies = [env.execute(a) for a in actions]
    return replies, env.state_hash()


@pytest.mark.parametrize("seed", [0, 1])
def test_compound_requests_are_independent(seed):
    # Any order gives the same final state without a refusal.
    for task in (t for t in DOMAIN.tasks(seed) if t.kind == "compound" and t.form == "easy"):
        replies, reversed_hash = _replay(seed, task.gold[::-1])
        assert not any("error" in r for r in replies), task.id
        assert reversed_hash == _replay(seed, task.gold)[1], task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_compositional_tasks_depend_on_order_or_on_a_read(seed):
    for task in (t for t in DOMAIN.tasks(seed) if t.kind == "compositional" and t.form == "easy"):
        has_read = any(SPACE.get(a.op).kind == "read" for a in task.gold)
        replies, reversed_hash = _replay(seed, task.gold[::-1])
        order_matters = any("error" in r for r in replies) or reversed_hash != _replay(seed, task.gold)[1]
        assert has_read or order_matters, task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_found_places_are_the_top_search_result(seed):
    for task in (t for t in DOMAIN.tasks(seed) if t.form == "easy"):
        for step, following in zip(task.reference, task.reference[1:], strict=False):
            if step.action.op == "find_poi" and following.action.op == "add_waypoint":
                assert following.action.arguments["stop"] == step.reply["results"][0]["name"], task.id


# --- any schema-valid action sequence is deterministic and keeps the rules ---------------------


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


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 50), actions=st.lists(_ACTIONS, max_size=12))
def test_random_action_sequences_are_deterministic_and_keep_the_rules(seed, actions):
    first, second = DOMAIN.environment(seed), DOMAIN.environment(seed)
    for action in actions:
        before = first.state_hash()
        reply = first.execute(action)
        assert reply == second.execute(action)
        if "error" in reply or SPACE.get(action.op).kind == "read":
            assert first.state_hash() == before
        _assert_invariants(first.state)
    assert first.state_hash() == second.state_hash()
