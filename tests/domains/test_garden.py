"""Tests of the garden domain: state, operations, refusal rules and task generation."""

from __future__ import annotations

import functools
import random

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains.garden import Garden
from toolprism.domains.garden import _ops as ops
from toolprism.domains.garden._state import LAWNS, LIGHTS, ZONES
from toolprism.domains.garden._tasks import COMPOSITIONAL, MIX, QUESTIONS, WRITES
from toolprism.errors import DomainError

DOMAIN = Garden()
SPACE = Garden.action_space()


@functools.cache
def tasks_of(seed):
    return DOMAIN.tasks(seed)


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def world(seed=0, lawn=None, **zones):
    """The world of ``seed`` with the mower on ``lawn`` (None: docked) and some zones' watering set."""
    state = DOMAIN.initial_state(seed)
    state.mower.lawn = lawn
    for zone, watering in zones.items():
        state.zones[zone].watering = watering
    return state


def env_of(state):
    env = DOMAIN.environment(0)
    env.state = state
    return env


# --- registration and action space -------------------------------------------------------------


def test_registered_with_eight_described_operations():
    assert DOMAINS.get("garden") is Garden
    assert [op.name for op in SPACE.operations if op.kind == "read"] == ["get_garden", "get_zone"]
    assert len(SPACE.operations) == 8
    assert all(op.description and op.group for op in SPACE.operations)
    assert 80 <= len(Garden.policy) <= 1500


def test_parameters_are_required_described_and_mostly_enumerated():
    params = [p for op in SPACE.operations for p in op.params]
    assert all(p.required and p.description for p in params)
    assert sum(p.enum is not None for p in params) == len(params) - 1  # all but the run time in minutes
    for op in SPACE.operations:
        jsonschema.Draft202012Validator.check_schema(op.tool().parameters)


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_run_time", {"zone": "front_lawn", "minutes": 4}),
        ("set_run_time", {"zone": "front_lawn", "minutes": 61}),
        ("start_mower", {"lawn": "vegetable_bed"}),
        ("set_spray", {"zone": "front_lawn", "spray": "fog"}),
        ("set_light", {"light": "garage", "power": "on"}),
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
    state = DOMAIN.initial_state(seed)
    assert [z for z in ZONES if state.zones[z].spray is not None] == list(LAWNS)
    lawn = state.mower.lawn
    assert lawn is None or state.zones[lawn].watering == "off"


def test_same_seed_same_tasks_and_different_seeds_differ():
    assert DOMAIN.tasks(3) == type(DOMAIN)().tasks(3)
    assert [t.query for t in tasks_of(0)] != [t.query for t in tasks_of(1)]


# --- tasks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_130_drafts_in_the_seed_000_kind_mix(seed):
    tasks = tasks_of(seed)
    easy = [t for t in tasks if t.form == "easy"]
    assert len(easy) == sum(MIX.values()) == 130 and len(tasks) == 2 * len(easy)
    assert {k: sum(t.kind == k for t in easy) for k in MIX} == MIX
    assert all(1 <= len(t.gold) <= 6 for t in easy)
    templates = {t.id.split("/")[1].split("+")[0] for t in tasks}
    assert "compound" in templates and len(templates & set(WRITES)) >= 4 and len(templates & set(COMPOSITIONAL)) >= 4
    assert templates & set(QUESTIONS)


# the gold-write, compound and compositional rules are in test_conformance.py (every device domain)


# --- writes change state as documented ---------------------------------------------------------


def test_watering_run_time_and_spray():
    env = env_of(world(front_lawn="off"))
    assert run(env, "set_watering", zone="front_lawn", watering="on")["watering"] == "on"
    run(env, "set_watering", zone="front_lawn", watering="off")
    minutes = 60 if env.state.zones["front_lawn"].minutes != 60 else 5
    assert run(env, "set_run_time", zone="front_lawn", minutes=minutes)["minutes"] == minutes
    spray = "jet" if env.state.zones["front_lawn"].spray != "jet" else "mist"
    assert run(env, "set_spray", zone="front_lawn", spray=spray) == {
        "zone": "front_lawn",
        "watering": "off",
        "minutes": minutes,
        "spray": spray,
    }


def test_the_mower_and_the_lights():
    env = env_of(world(back_lawn="off"))
    assert run(env, "start_mower", lawn="back_lawn")["status"] == "mowing"
    assert run(env, "dock_mower") == {"status": "docked", "lawn": None, "battery": env.state.mower.battery}
    light = LIGHTS[0]
    power = "on" if env.state.lights[light] == "off" else "off"
    assert run(env, "set_light", light=light, power=power) == {"light": light, "power": power}


def test_reads_describe_the_state_and_change_nothing():
    env = DOMAIN.environment(0)
    before = env.state_hash()
    garden = run(env, "get_garden")
    assert [z["zone"] for z in garden["zones"]] == list(ZONES)
    assert "spray" not in garden["zones"][2] and [light["light"] for light in garden["lights"]] == list(LIGHTS)
    assert run(env, "get_zone", zone="flower_bed") == {"zone": "flower_bed", **garden["zones"][3]}
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------

REFUSALS = [
    ("water under the mower", {"lawn": "front_lawn", "front_lawn": "off"}, "set_watering", "front_lawn", "dock it"),
    ("watering already on", {"flower_bed": "on"}, "set_watering", ("flower_bed", "on"), "already on"),
    ("run time while watering", {"vegetable_bed": "on"}, "set_run_time", "vegetable_bed", "turn it off first"),
    ("spray on a drip bed", {}, "set_spray", "flower_bed", "drip line"),
    ("mow a watered lawn", {"back_lawn": "on"}, "start_mower", "back_lawn", "being watered"),
    ("mow while mowing", {"lawn": "front_lawn", "front_lawn": "off"}, "start_mower", "back_lawn", "already mowing"),
    ("dock a docked mower", {}, "dock_mower", None, "already docked"),
]
ARGS = {
    "set_watering": lambda where: (
        {"zone": where, "watering": "on"} if isinstance(where, str) else {"zone": where[0], "watering": where[1]}
    ),
    "set_run_time": lambda zone: {"zone": zone, "minutes": 25},
    "set_spray": lambda zone: {"zone": zone, "spray": "mist"},
    "start_mower": lambda lawn: {"lawn": lawn},
    "dock_mower": lambda _: {},
}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("label", "setup", "op", "where", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_is_explained_and_leaves_state_unchanged(seed, label, setup, op, where, message):
    state = world(seed, **setup)
    args = ARGS[op](where)
    env = env_of(state.model_copy(deep=True))
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and message in reply["error"], (label, reply)
    assert env.state_hash() == before
    with pytest.raises(DomainError):  # the operation itself refuses before mutating anything
        getattr(ops, op)(state, **args)
    assert state == world(seed, **setup)


def test_same_value_and_low_battery_are_refused():
    state = world(front_lawn="off")
    env = env_of(state.model_copy(deep=True))
    zone = env.state.zones["front_lawn"]
    assert "already waters" in run(env, "set_run_time", zone="front_lawn", minutes=zone.minutes)["error"]
    assert "already" in run(env, "set_spray", zone="front_lawn", spray=zone.spray)["error"]
    light = LIGHTS[1]
    assert "already" in run(env, "set_light", light=light, power=env.state.lights[light])["error"]
    env.state.mower.battery = 25
    assert "battery" in run(env, "start_mower", lawn="front_lawn")["error"]
