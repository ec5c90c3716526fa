"""Tests of the kitchen domain: action space, rules, state changes and task generation."""

from __future__ import annotations

import collections
import random
from collections.abc import Callable

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains._base import Environment
from toolprism.domains._drafting import MAX_CALLS
from toolprism.domains.kitchen import Kitchen
from toolprism.domains.kitchen import _ops as ops
from toolprism.domains.kitchen._state import OVEN_RANGE, TIMER_CAPACITY, TIMER_LABELS, KitchenState
from toolprism.domains.kitchen._tasks import SIM
from toolprism.errors import DomainError, ToolprismError

DOMAIN = Kitchen()
SPACE = Kitchen.action_space()
SHARED_NAMES = {
    "get_status",
    "set_power",
    "set_mode",
    "set_temperature",
    "set_volume",
    "set_brightness",
    "set_timer",
    "cancel_timer",
    "set_schedule",
    "start",
    "pause",
    "resume",
    "stop",
    "set_child_lock",
    "list_presets",
    "apply_preset",
}


def run(env: Environment, op: str, **args) -> dict:
    return env.execute(SPACE.action(op, args))


def world(seed: int = 0, change: Callable[[KitchenState], None] | None = None) -> Environment:
    """An environment on the world of ``seed``, edited by ``change`` first (test set-up)."""
    state = DOMAIN.initial_state(seed)
    if change is not None:
        change(state)
    return Environment(DOMAIN, state)


# --- registration and action space -------------------------------------------------------------


def test_registered_with_policy():
    assert DOMAINS.get("kitchen") is Kitchen
    assert 80 <= len(Kitchen.policy) <= 1500
    assert "nothing more" in Kitchen.policy and "refuses" in Kitchen.policy


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
        ("set_temperature", {"appliance": "oven", "temperature": 251}),
        ("set_temperature", {"appliance": "freezer", "temperature": -25}),
        ("set_timer", {"label": "pasta", "minutes": 0}),
        ("set_timer", {"label": "pasta", "minutes": 241}),
        ("set_microwave", {"power_level": "high", "seconds": 5}),
        ("set_burner", {"burner": "middle", "level": "high"}),
        ("set_power", {"appliance": "fridge", "power": "off"}),
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


def test_initial_oven_temperature_is_in_its_mode_range():
    for seed in range(20):
        oven = DOMAIN.initial_state(seed).oven
        low, high = OVEN_RANGE[oven.mode]
        assert low <= oven.temperature <= high


def test_tasks_are_deterministic_and_differ_across_seeds():
    assert DOMAIN.tasks(3) == Kitchen().tasks(3)
    assert [t.query for t in DOMAIN.tasks(0)] != [t.query for t in DOMAIN.tasks(1)]


# --- state changes -----------------------------------------------------------------------------


def on_oven(state: KitchenState) -> None:
    state.oven.power, state.oven.mode, state.oven.temperature = "on", "bake", 220


def test_oven_mode_change_clamps_the_temperature_into_the_new_range():
    env = world(change=on_oven)
    reply = run(env, "set_mode", appliance="oven", mode="warm")
    assert (reply["mode"], reply["temperature"]) == ("warm", OVEN_RANGE["warm"][1])
    assert run(env, "set_temperature", appliance="oven", temperature=70)["temperature"] == 70


def test_temperatures_of_fridge_freezer_and_kettle():
    env = world()
    assert run(env, "set_temperature", appliance="freezer", temperature=-22)["freezer_temperature"] == -22
    assert run(env, "set_temperature", appliance="fridge", temperature=2)["fridge_temperature"] == 2
    assert env.state.kettle.temperature != 45
    assert run(env, "set_temperature", appliance="kettle", temperature=45)["temperature"] == 45


def test_dishwasher_program_start_pause_resume_and_power_off_cancels():
    def idle(state: KitchenState) -> None:
        state.dishwasher.power, state.dishwasher.status, state.dishwasher.program = "on", "idle", "eco"

    env = world(change=idle)
    assert run(env, "set_mode", appliance="dishwasher", mode="quick")["program"] == "quick"
    assert run(env, "start", appliance="dishwasher")["status"] == "running"
    assert run(env, "pause", appliance="dishwasher")["status"] == "paused"
    assert run(env, "start", appliance="dishwasher")["status"] == "running"
    reply = run(env, "set_power", appliance="dishwasher", power="off")
    assert (reply["power"], reply["status"]) == ("off", "idle")


def test_presets_set_the_oven_and_program_the_microwave():
    def ready(state: KitchenState) -> None:
        on_oven(state)
        state.microwave.status = "idle"

    env = world(change=ready)
    pizza = env.state.oven_presets["pizza"]
    reply = run(env, "apply_preset", preset="pizza")
    assert (reply["appliance"], reply["mode"], reply["temperature"]) == ("oven", pizza.mode, pizza.temperature)
    popcorn = env.state.microwave_presets["popcorn"]
    run(env, "apply_preset", preset="popcorn")
    assert (env.state.microwave.power_level, env.state.microwave.seconds) == (popcorn.power_level, popcorn.seconds)
    listed = run(env, "list_presets", appliance="microwave")["presets"]
    assert {p["name"] for p in listed} == set(env.state.microwave_presets)


def test_timers_burners_and_coffee():
    def ready(state: KitchenState) -> None:
        state.timers, state.cooktop.child_lock, state.coffee_maker.power = {}, "off", "on"

    env = world(change=ready)
    run(env, "set_timer", label="rice", minutes=18)
    run(env, "set_timer", label="rice", minutes=12)
    assert run(env, "list_timers")["timers"] == [{"label": "rice", "minutes": 12}]
    assert run(env, "cancel_timer", label="rice")["timers"] == []
    assert run(env, "set_burner", burner="back_left", level="boost")["burners"]["back_left"] == "boost"
    cups = env.state.coffee_maker.cups_brewed
    reply = run(env, "brew_coffee", drink="latte", size="large", strength="mild")
    assert reply["last_brew"] == {"drink": "latte", "size": "large", "strength": "mild"}
    assert reply["cups_brewed"] == cups + 1


def test_reads_change_nothing_and_mirror_the_state():
    env = world()
    before = env.state_hash()
    assert run(env, "get_status", appliance="fridge")["mode"] == env.state.fridge.mode
    assert run(env, "get_status", appliance="cooktop")["child_lock"] == env.state.cooktop.child_lock
    assert len(run(env, "list_timers")["timers"]) == len(env.state.timers)
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _set(**fields: object) -> Callable[[KitchenState], None]:
    """Set-up that assigns dotted fields, e.g. ``_set(**{"oven.power": "off"})``."""

    def change(state: KitchenState) -> None:
        for path, value in fields.items():
            *parents, leaf = path.split(".")
            target = state
            for parent in parents:
                target = getattr(target, parent)
            setattr(target, leaf, value)

    return change


def _full_timers(state: KitchenState) -> None:
    state.timers = {label: 10 for label in TIMER_LABELS[:TIMER_CAPACITY]}


REFUSALS = [
    ("mode of another appliance", _set(**{"oven.power": "on"}), "set_mode", {"appliance": "oven", "mode": "eco"}),
    ("oven mode while off", _set(**{"oven.power": "off"}), "set_mode", {"appliance": "oven", "mode": "grill"}),
    (
        "program while running",
        _set(**{"dishwasher.power": "on", "dishwasher.status": "running"}),
        "set_mode",
        {"appliance": "dishwasher", "mode": "glass"},
    ),
    (
        "oven temperature while off",
        _set(**{"oven.power": "off"}),
        "set_temperature",
        {"appliance": "oven", "temperature": 180},
    ),
    (
        "oven temperature outside its mode's range",
        _set(**{"oven.power": "on", "oven.mode": "warm", "oven.temperature": 80}),
        "set_temperature",
        {"appliance": "oven", "temperature": 200},
    ),
    ("fridge too warm", None, "set_temperature", {"appliance": "fridge", "temperature": 12}),
    ("freezer too warm", None, "set_temperature", {"appliance": "freezer", "temperature": -5}),
    ("kettle too cool", None, "set_temperature", {"appliance": "kettle", "temperature": 30}),
    ("power already on", _set(**{"kettle.power": "on"}), "set_power", {"appliance": "kettle", "power": "on"}),
    (
        "burner while locked",
        _set(**{"cooktop.child_lock": "on"}),
        "set_burner",
        {"burner": "front_left", "level": "high"},
    ),
    ("child lock already on", _set(**{"cooktop.child_lock": "on"}), "set_child_lock", {"lock": "on"}),
    ("a fifth timer", _full_timers, "set_timer", {"label": TIMER_LABELS[-1], "minutes": 5}),
    ("cancel a timer that is not running", _set(timers={}), "cancel_timer", {"label": "tea"}),
    (
        "program the running microwave",
        _set(**{"microwave.status": "running"}),
        "set_microwave",
        {"power_level": "low", "seconds": 60},
    ),
    ("start the running microwave", _set(**{"microwave.status": "running"}), "start", {"appliance": "microwave"}),
    ("start the dishwasher while off", _set(**{"dishwasher.power": "off"}), "start", {"appliance": "dishwasher"}),
    ("pause what is idle", _set(**{"microwave.status": "idle"}), "pause", {"appliance": "microwave"}),
    (
        "brew while off",
        _set(**{"coffee_maker.power": "off"}),
        "brew_coffee",
        {"drink": "espresso", "size": "small", "strength": "strong"},
    ),
    ("oven preset while off", _set(**{"oven.power": "off"}), "apply_preset", {"preset": "pizza"}),
    ("microwave preset while running", _set(**{"microwave.status": "running"}), "apply_preset", {"preset": "popcorn"}),
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


def test_questions_read_and_commands_write():
    for task in DOMAIN.tasks(0):
        kinds = [SPACE.get(a.op).kind for a in task.gold]
        if task.kind == "single":
            continue
        assert "write" in kinds, task.id
        if task.kind == "compound":
            assert set(kinds) == {"write"}, task.id


def _chunks(task) -> list[list]:
    """The gold split into requests: an oven mode change and the temperature after it are one."""
    chunks: list[list] = []
    for action in task.gold:
        after_mode = chunks and chunks[-1][-1].op == "set_mode" and chunks[-1][-1].arguments["appliance"] == "oven"
        if after_mode and action.op == "set_temperature" and action.arguments["appliance"] == "oven":
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
    same = state.kettle.power
    assert not SIM.replays(state, [("set_power", {"appliance": "kettle", "power": same})])
    assert not SIM.replays(
        state, [("set_temperature", {"appliance": "fridge", "temperature": state.fridge.fridge_temperature})]
    )
    other = "off" if same == "on" else "on"
    assert SIM.replays(state, [("set_power", {"appliance": "kettle", "power": other})])
    assert not SIM.replays(state, [("set_power", {"appliance": "kettle", "power": other})] * 2)
    assert SIM.replays(state, [("get_status", {"appliance": "oven"})])
