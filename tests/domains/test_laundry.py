"""Tests of the laundry domain: action space, rules, state changes and task generation."""

from __future__ import annotations

import collections
import random
from collections.abc import Callable

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains._base import Environment
from toolprism.domains._drafting import MAX_CALLS
from toolprism.domains.laundry import Laundry
from toolprism.domains.laundry import _ops as ops
from toolprism.domains.laundry._state import CYCLE_LIMITS, MAX_HEAT, SPIN_SPEEDS, LaundryState, heats
from toolprism.domains.laundry._tasks import SIM
from toolprism.errors import DomainError, ToolprismError

DOMAIN = Laundry()
SPACE = Laundry.action_space()
SHARED_NAMES = {
    "get_status", "set_power", "set_mode", "set_temperature", "set_volume", "set_brightness", "set_timer",
    "cancel_timer", "set_schedule", "start", "pause", "resume", "stop", "set_child_lock", "list_presets",
    "apply_preset",
}  # fmt: skip


def run(env: Environment, op: str, **args) -> dict:
    return env.execute(SPACE.action(op, args))


def world(seed: int = 0, change: Callable[[LaundryState], None] | None = None) -> Environment:
    """An environment on the world of ``seed``, edited by ``change`` first (test set-up)."""
    state = DOMAIN.initial_state(seed)
    if change is not None:
        change(state)
    return Environment(DOMAIN, state)


def _set(**fields: object) -> Callable[[LaundryState], None]:
    """Set-up that assigns dotted fields, e.g. ``_set(**{"washer.power": "off"})``."""

    def change(state: LaundryState) -> None:
        for path, value in fields.items():
            *parents, leaf = path.split(".")
            target = state
            for parent in parents:
                target = getattr(target, parent)
            setattr(target, leaf, value)

    return change


IDLE_WASHER = {"washer.power": "on", "washer.status": "idle", "washer.delay_hours": 0, "child_lock": "off"}
IDLE_DRYER = {"dryer.power": "on", "dryer.status": "idle", "dryer.delay_hours": 0, "child_lock": "off"}


# --- registration and action space -------------------------------------------------------------


def test_registered_with_policy():
    assert DOMAINS.get("laundry") is Laundry
    assert 80 <= len(Laundry.policy) <= 1500
    assert "nothing more" in Laundry.policy and "refuses" in Laundry.policy


def test_operations_mix_reads_writes_and_shared_names():
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    assert 3 <= sum(op.kind == "read" for op in operations) <= 4
    assert len({op.name for op in operations} & SHARED_NAMES) >= 4
    assert all(op.description and op.group for op in operations)


def test_schemas_are_valid_every_argument_required_described_and_no_booleans():
    for op in SPACE.operations:
        schema = op.tool().parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert sorted(schema.get("required", [])) == sorted(schema["properties"]), op.name
        for name, prop in schema["properties"].items():
            assert prop.get("description"), (op.name, name)
            assert prop.get("type") != "boolean", (op.name, name)
            if prop.get("type") == "integer":
                assert "minimum" in prop and "maximum" in prop, (op.name, name)


def test_most_parameters_are_enumerated():
    params = [p for op in SPACE.operations for p in op.params]
    enumerated = [p for p in params if p.enum is not None]
    assert len(enumerated) >= 10
    assert len(enumerated) / len(params) > 0.5


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_temperature", {"temperature": 95}),
        ("set_temperature", {"temperature": 10}),
        ("set_schedule", {"machine": "washer", "hours": 25}),
        ("set_schedule", {"machine": "dryer", "hours": -1}),
        ("get_cycle_limits", {"cycle": "towels"}),
        ("set_power", {"machine": "iron", "power": "on"}),
        ("set_spin", {"speed": "turbo"}),
    ],
)
def test_schema_rejects_out_of_range_and_unknown_values(op, args):
    with pytest.raises(ToolprismError, match="invalid_arguments"):
        SPACE.action(op, args)


# --- world and determinism ---------------------------------------------------------------------


def test_initial_state_is_deterministic_and_differs_across_seeds():
    random.seed(1)
    first = DOMAIN.environment(5).state_hash()
    random.seed(2)
    assert DOMAIN.environment(5).state_hash() == first
    assert len({DOMAIN.environment(seed).state_hash() for seed in range(6)}) == 6


@pytest.mark.parametrize("seed", range(40))
def test_initial_world_is_consistent_and_one_machine_takes_settings(seed):
    state = DOMAIN.initial_state(seed)
    limits = CYCLE_LIMITS[state.washer.cycle]
    assert 20 <= state.washer.temperature <= limits.max_temperature
    assert SPIN_SPEEDS.index(state.washer.spin) <= SPIN_SPEEDS.index(limits.max_spin)
    assert state.dryer.heat in heats(state.dryer.program)
    for machine in (state.washer, state.dryer):
        assert machine.power == "on" or machine.status == "idle"
        assert (machine.status == "scheduled") == (machine.delay_hours > 0)
    assert any(m.power == "on" and m.status != "running" for m in (state.washer, state.dryer))


def test_tasks_are_deterministic_and_differ_across_seeds():
    assert DOMAIN.tasks(3) == Laundry().tasks(3)
    assert [t.query for t in DOMAIN.tasks(0)] != [t.query for t in DOMAIN.tasks(1)]


# --- state changes -----------------------------------------------------------------------------


def test_cycle_change_lowers_temperature_and_spin_and_drops_prewash():
    def hot_cotton(state: LaundryState) -> None:
        _set(**IDLE_WASHER)(state)
        state.washer.cycle, state.washer.temperature, state.washer.spin = "cotton", 90, "maximum"
        state.washer.options["prewash"] = "on"

    env = world(change=hot_cotton)
    reply = run(env, "set_mode", machine="washer", mode="wool")
    assert (reply["temperature"], reply["spin"], reply["options"]["prewash"]) == (30, "low", "off")
    limits = run(env, "get_cycle_limits", cycle="wool")
    assert (limits["max_temperature"], limits["max_spin"]) == (reply["temperature"], reply["spin"])


def test_dryer_program_change_lowers_heat_and_levels_follow_the_program():
    def hot(state: LaundryState) -> None:
        _set(**IDLE_DRYER)(state)
        state.dryer.program, state.dryer.heat = "cotton", "high"

    env = world(change=hot)
    assert run(env, "set_mode", machine="dryer", mode="delicates")["heat"] == MAX_HEAT["delicates"]
    reply = run(env, "set_dryer", dryness="extra_dry", heat="low")
    assert (reply["dryness"], reply["heat"]) == ("extra_dry", "low")


def test_delay_schedules_the_start_and_zero_hours_clears_it():
    env = world(change=_set(**IDLE_WASHER))
    assert run(env, "set_schedule", machine="washer", hours=3)["delay_hours"] == 3
    assert run(env, "start", machine="washer")["status"] == "scheduled"
    reply = run(env, "set_schedule", machine="washer", hours=0)
    assert (reply["status"], reply["delay_hours"]) == ("idle", 0)
    assert run(env, "start", machine="washer")["status"] == "running"


def test_pause_resume_and_power_off_cancels():
    env = world(change=_set(**IDLE_DRYER))
    run(env, "start", machine="dryer")
    assert run(env, "pause", machine="dryer")["status"] == "paused"
    assert run(env, "start", machine="dryer")["status"] == "running"
    reply = run(env, "set_power", machine="dryer", power="off")
    assert (reply["power"], reply["status"]) == ("off", "idle")


def test_presets_options_and_detergent():
    env = world(change=lambda s: (_set(**IDLE_WASHER)(s), _set(**IDLE_DRYER)(s)))
    duvet = env.state.washer_presets["duvet"]
    reply = run(env, "apply_preset", preset="duvet")
    assert (reply["cycle"], reply["temperature"], reply["spin"]) == (duvet.cycle, duvet.temperature, duvet.spin)
    towels = env.state.dryer_presets["bath_towels"]
    run(env, "apply_preset", preset="bath_towels")
    assert env.state.dryer.model_dump(include={"program", "dryness", "heat"}) == towels.model_dump()
    assert run(env, "set_option", machine="dryer", option="anti_crease", setting="on")["options"]["anti_crease"] == "on"
    reply = run(env, "set_detergent", detergent="wool_care", dose="high")
    assert (reply["detergent"], reply["dose"]) == ("wool_care", "high")


def test_reads_change_nothing_and_mirror_the_state():
    env = world()
    before = env.state_hash()
    status = run(env, "get_status", machine="washer")
    assert (status["cycle"], status["child_lock"]) == (env.state.washer.cycle, env.state.child_lock)
    assert {p["name"] for p in run(env, "list_presets", machine="dryer")["presets"]} == set(env.state.dryer_presets)
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _washer(**fields: object) -> Callable[[LaundryState], None]:
    return _set(**{**IDLE_WASHER, **{f"washer.{k}": v for k, v in fields.items()}})


def _cycle(cycle: str) -> Callable[[LaundryState], None]:
    def change(state: LaundryState) -> None:
        _washer()(state)
        limits = CYCLE_LIMITS[cycle]
        state.washer.cycle, state.washer.temperature, state.washer.spin = cycle, 20, limits.max_spin
        state.washer.options["prewash"] = "off"

    return change


REFUSALS = [
    ("mode of the other machine", _washer(), "set_mode", {"machine": "washer", "mode": "towels"}),
    ("mode while off", _washer(power="off"), "set_mode", {"machine": "washer", "mode": "eco"}),
    ("mode while running", _washer(status="running"), "set_mode", {"machine": "washer", "mode": "eco"}),
    ("temperature above the cycle's limit", _cycle("wool"), "set_temperature", {"temperature": 40}),
    ("spin above the cycle's limit", _cycle("delicates"), "set_spin", {"speed": "high"}),
    (
        "prewash on a cycle without it",
        _cycle("quick_wash"),
        "set_option",
        {"machine": "washer", "option": "prewash", "setting": "on"},
    ),
    (
        "option of the other machine",
        _washer(),
        "set_option",
        {"machine": "washer", "option": "anti_crease", "setting": "on"},
    ),
    ("detergent while running", _washer(status="running"), "set_detergent", {"detergent": "powder", "dose": "low"}),
    (
        "heat above the program's limit",
        _set(**IDLE_DRYER, **{"dryer.program": "wool", "dryer.heat": "low"}),
        "set_dryer",
        {"dryness": "iron_dry", "heat": "high"},
    ),
    ("power already on", _washer(), "set_power", {"machine": "washer", "power": "on"}),
    ("schedule after the start", _washer(status="paused"), "set_schedule", {"machine": "washer", "hours": 2}),
    ("schedule while off", _washer(power="off"), "set_schedule", {"machine": "washer", "hours": 2}),
    ("start while locked", _set(**{**IDLE_WASHER, "child_lock": "on"}), "start", {"machine": "washer"}),
    ("start while off", _washer(power="off"), "start", {"machine": "washer"}),
    ("start while scheduled", _washer(status="scheduled", delay_hours=2), "start", {"machine": "washer"}),
    ("pause while idle", _washer(), "pause", {"machine": "washer"}),
    ("child lock already off", _set(child_lock="off"), "set_child_lock", {"lock": "off"}),
    ("preset while running", _set(**{**IDLE_DRYER, "dryer.status": "running"}), "apply_preset", {"preset": "knitwear"}),
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("label", "change", "op", "args"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_explain_and_leave_the_state_unchanged(seed, label, change, op, args):
    env = world(seed, change)
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and len(reply["error"]) > 10, label
    assert env.state_hash() == before
    state = world(seed, change).state
    copy = state.model_copy(deep=True)
    with pytest.raises(DomainError):
        getattr(ops, op)(state, **args)
    assert state == copy  # the operation checks before it mutates


# --- task generation ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kind_mix_and_gold_lengths(seed):
    easy = [t for t in DOMAIN.tasks(seed) if t.form == "easy"]
    assert len(easy) >= 120
    lengths = collections.Counter(len(t.gold) for t in easy)
    assert max(lengths) <= MAX_CALLS and lengths[3] + lengths[4] >= len(easy) // 3 and lengths[5] > 0
    assert all(2 <= len(t.gold) <= MAX_CALLS for t in easy if t.kind != "single")


def test_no_task_has_more_calls_than_the_cap_and_some_reach_it():
    lengths = [len(t.gold) for seed in range(3) for t in DOMAIN.tasks(seed)]
    assert max(lengths) == MAX_CALLS


def test_multi_call_tasks_write():
    for task in DOMAIN.tasks(0):
        kinds = [SPACE.get(a.op).kind for a in task.gold]
        if task.kind == "compound":
            assert set(kinds) == {"write"}, task.id
        elif task.kind == "compositional":
            assert "write" in kinds, task.id


def _chunks(task) -> list[list]:
    """The gold split into requests: a washer cycle change and the temperature after it are one."""
    chunks: list[list] = []
    for action in task.gold:
        after_cycle = chunks and chunks[-1][-1].op == "set_mode" and chunks[-1][-1].arguments["machine"] == "washer"
        if after_cycle and action.op == "set_temperature":
            chunks[-1].append(action)
        else:
            chunks.append([action])
    return chunks


def _replay(seed, actions):
    env = DOMAIN.environment(seed)
    replies = [env.execute(a) for a in actions]
    return any("error" in reply for reply in replies), env.state_hash()


@pytest.mark.parametrize("seed", [0, 1])
def test_compound_requests_are_independent(seed):
    for task in DOMAIN.tasks(seed):
        if task.kind == "compound" and task.form == "easy":
            reordered = [a for chunk in reversed(_chunks(task)) for a in chunk]
            assert _replay(seed, reordered) == _replay(seed, task.gold), task.id


@pytest.mark.parametrize("seed", [0, 1])
def test_compositional_tasks_depend_on_order_or_on_state_read_first(seed):
    for task in DOMAIN.tasks(seed):
        if task.kind == "compositional" and task.form == "easy":
            reads_first = SPACE.get(task.gold[0].op).kind == "read"
            assert reads_first or _replay(seed, task.gold[::-1]) != _replay(seed, task.gold), task.id


def test_the_generator_filter_rejects_refused_and_no_op_gold():
    state = DOMAIN.initial_state(0)
    lock = state.child_lock
    other = "off" if lock == "on" else "on"
    assert not SIM.replays(state, [("set_child_lock", {"lock": lock})])
    assert SIM.replays(state, [("set_child_lock", {"lock": other})])
    assert not SIM.replays(state, [("set_child_lock", {"lock": other}), ("set_child_lock", {"lock": lock})])
    assert SIM.replays(state, [("get_cycle_limits", {"cycle": "eco"})])
