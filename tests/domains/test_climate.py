"""Tests of the climate domain: state, operations, refusal rules and task generation."""

from __future__ import annotations

import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprism.domains import DOMAINS, _drafting
from toolprism.domains._phrasing import Request
from toolprism.domains.climate import Climate
from toolprism.domains.climate import _ops as ops
from toolprism.domains.climate import _tasks as tasks_module
from toolprism.domains.climate._state import TEMPERATURE_RANGE, ZONES, ClimateState, Timer
from toolprism.errors import DomainError, RejectedCall

DOMAIN = Climate()
SPACE = Climate.action_space()


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def fresh(seed: int = 0):
    return DOMAIN.environment(seed)


def first_zone(state: ClimateState, **wanted) -> str:
    """A zone whose unit has every ``field=value`` in ``wanted`` (the test arranges one if none)."""
    for zone in ZONES:
        if all(getattr(state.zones[zone], k) == v for k, v in wanted.items()):
            return zone
    zone = ZONES[0]
    for key, value in wanted.items():
        setattr(state.zones[zone], key, value)
    return zone


def invariants(state: ClimateState) -> list[str]:
    """Rules every reachable state keeps (the docstring of ``initial_state`` lists them)."""
    problems = []
    for zone, unit in state.zones.items():
        if unit.power == "on" and unit.vent == "closed":
            problems.append(f"{zone}: runs against a closed vent")
        if unit.mode == "dry" and unit.fan_speed != "low":
            problems.append(f"{zone}: dry mode with fan {unit.fan_speed}")
        if unit.mode in TEMPERATURE_RANGE:
            low, high = TEMPERATURE_RANGE[unit.mode]
            if not low <= unit.target_temperature <= high:
                problems.append(f"{zone}: target {unit.target_temperature} outside {unit.mode}")
        if unit.timer is not None and unit.timer.action == f"turn_{unit.power}":
            problems.append(f"{zone}: timer repeats the power")
    return problems


# --- registration and action space -------------------------------------------------------------


def test_registered_with_a_short_policy():
    assert DOMAINS.get("climate") is Climate
    assert 80 <= len(Climate.policy) <= 1500
    assert 2 <= Climate.policy.count(". ") + 1 <= 5


def test_action_space_has_many_enums_and_shared_names():
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    assert 3 <= sum(op.kind == "read" for op in operations) <= 4
    params = [p for op in operations for p in op.params]
    enums = [p for p in params if p.enum is not None]
    assert len(enums) >= 10 and len(enums) > len(params) / 2
    assert all(p.required and p.description for p in params)
    assert all(p.schema.get("type") != "boolean" for p in params)
    for p in params:
        if p.enum is None:
            assert p.schema["type"] == "integer" and "minimum" in p.schema and "maximum" in p.schema, p.name
    shared = {"get_status", "set_power", "set_mode", "set_temperature", "set_timer", "cancel_timer"}
    shared |= {"set_schedule", "set_child_lock", "list_presets", "apply_preset"}
    assert len(shared & {op.name for op in operations}) >= 4


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_temperature", {"zone": "office", "temperature": 15}),
        ("set_temperature", {"zone": "office", "temperature": 31}),
        ("set_humidity", {"mode": "auto", "target_percent": 29}),
        ("set_humidity", {"mode": "auto", "target_percent": 61}),
        ("set_mode", {"zone": "office", "mode": "turbo"}),
        ("set_timer", {"zone": "attic", "action": "turn_on", "duration": "1_hour"}),
        ("set_humidity", {"mode": "off", "target_percent": 40}),
    ],
)
def test_schema_rejects_out_of_range_and_unknown_values(op, args):
    with pytest.raises(RejectedCall):
        SPACE.action(op, args)


# --- state -------------------------------------------------------------------------------------


def test_initial_state_is_deterministic_and_differs_across_seeds():
    assert DOMAIN.initial_state(3) == DOMAIN.initial_state(3)
    assert len({DOMAIN.environment(seed).state_hash() for seed in range(10)}) == 10


@pytest.mark.parametrize("seed", range(20))
def test_initial_worlds_keep_the_invariants(seed):
    state = DOMAIN.initial_state(seed)
    assert invariants(state) == []
    assert 2 <= sum(u.power == "on" for u in state.zones.values()) <= 4


# --- writes change state as documented ---------------------------------------------------------


def test_set_mode_clamps_the_target_and_dry_fixes_the_fan():
    env = fresh()
    zone = first_zone(env.state, power="on")
    env.state.zones[zone].mode, env.state.zones[zone].target_temperature = "cool", 30
    env.state.zones[zone].fan_speed = "high"
    reply = run(env, "set_mode", zone=zone, mode="heat")
    assert (reply["mode"], reply["target_temperature"]) == ("heat", TEMPERATURE_RANGE["heat"][1])
    reply = run(env, "set_mode", zone=zone, mode="dry")
    assert (reply["mode"], reply["fan_speed"]) == ("dry", "low")


def test_power_vent_and_timer_interplay():
    env = fresh()
    zone = first_zone(env.state, power="on")
    env.state.zones[zone].timer = Timer(action="turn_off", duration="2_hours")
    reply = run(env, "set_power", zone=zone, power="off")
    assert reply["power"] == "off" and reply["timer"] is None  # the pending switch-off is moot
    assert run(env, "set_vent", zone=zone, position="closed")["vent"] == "closed"
    reply = run(env, "set_timer", zone=zone, action="turn_on", duration="30_minutes")
    assert reply["timer"] == {"action": "turn_on", "duration": "30_minutes"}
    assert run(env, "cancel_timer", zone=zone)["timer"] is None


def test_presets_apply_their_values_and_manual_changes_clear_them():
    env = fresh(1)
    zone = first_zone(env.state, power="on")
    preset = env.state.presets["boost"]
    reply = run(env, "apply_preset", zone=zone, preset="boost")
    assert (reply["mode"], reply["target_temperature"], reply["fan_speed"]) == (
        preset.mode,
        preset.target_temperature,
        preset.fan_speed,
    )
    assert reply["preset"] == "boost"
    assert run(env, "set_fan_speed", zone=zone, speed="low")["preset"] is None
    listed = run(env, "list_presets")["presets"]
    assert [p["name"] for p in listed] == list(env.state.presets)


def test_schedule_child_lock_humidity_and_purifier():
    env = fresh()
    reply = run(env, "set_schedule", zone="nursery", days="weekends", program="vacation")
    assert reply["schedule"]["weekends"] == "vacation"
    lock = "off" if env.state.zones["bedroom"].child_lock == "on" else "on"
    assert run(env, "set_child_lock", zone="bedroom", lock=lock)["child_lock"] == lock
    env.state.humidity.current_humidity = 50
    assert run(env, "set_humidity", mode="dehumidify", target_percent=40)["humidity"]["target_humidity"] == 40
    assert run(env, "set_purifier", level="turbo") == {"purifier": "turbo"}
    assert run(env, "get_air_status") == {"humidity": env.state.humidity.model_dump(mode="json"), "purifier": "turbo"}


def test_reads_change_nothing():
    env = fresh()
    before = env.state_hash()
    for zone in ZONES:
        assert run(env, "get_status", zone=zone)["zone"] == zone
    run(env, "get_air_status")
    run(env, "list_presets")
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _arranged(state: ClimateState, **wanted) -> str:
    return first_zone(state, **wanted)


def _humidity(state: ClimateState, measured: int) -> int:
    state.humidity.current_humidity = measured
    return measured


REFUSALS = [
    ("already on", lambda s: ("set_power", {"zone": _arranged(s, power="on"), "power": "on"})),
    (
        "on against a closed vent",
        lambda s: ("set_power", {"zone": _arranged(s, power="off", vent="closed"), "power": "on"}),
    ),
    ("mode while off", lambda s: ("set_mode", {"zone": _arranged(s, power="off"), "mode": "heat"})),
    ("fan while off", lambda s: ("set_fan_speed", {"zone": _arranged(s, power="off"), "speed": "high"})),
    ("preset while off", lambda s: ("apply_preset", {"zone": _arranged(s, power="off"), "preset": "eco"})),
    (
        "target in fan only mode",
        lambda s: ("set_temperature", {"zone": _arranged(s, power="on", mode="fan_only"), "temperature": 22}),
    ),
    (
        "target outside heat range",
        lambda s: ("set_temperature", {"zone": _arranged(s, power="on", mode="heat"), "temperature": 28}),
    ),
    (
        "fan in dry mode",
        lambda s: ("set_fan_speed", {"zone": _arranged(s, power="on", mode="dry"), "speed": "high"}),
    ),
    ("close a running vent", lambda s: ("set_vent", {"zone": _arranged(s, power="on"), "position": "closed"})),
    (
        "turn-off timer on an off unit",
        lambda s: ("set_timer", {"zone": _arranged(s, power="off"), "action": "turn_off", "duration": "1_hour"}),
    ),
    ("no timer to cancel", lambda s: ("cancel_timer", {"zone": _arranged(s, timer=None)})),
    ("child lock unchanged", lambda s: ("set_child_lock", {"zone": _arranged(s, child_lock="on"), "lock": "on"})),
    (
        "humidify below the measured humidity",
        lambda s: ("set_humidity", {"mode": "humidify", "target_percent": _humidity(s, 50) - 5}),
    ),
    (
        "dehumidify above the measured humidity",
        lambda s: ("set_humidity", {"mode": "dehumidify", "target_percent": _humidity(s, 50) + 5}),
    ),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("label", "make"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_leaves_state_unchanged(seed, label, make):
    env = fresh(seed)
    op, args = make(env.state)  # may arrange the state so the rule applies
    arranged = env.state.model_copy(deep=True)
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and reply["error"], label
    assert env.state_hash() == before
    # The operation itself validates before mutating (not only the environment's copy).
    with pytest.raises(DomainError):
        getattr(ops, op)(arranged, **args)
    assert arranged == env.state


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


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 50), actions=st.lists(_ACTIONS, max_size=10))
def test_random_action_sequences_are_deterministic_and_keep_the_invariants(seed, actions):
    first, second = fresh(seed), fresh(seed)
    for action in actions:
        before = first.state_hash()
        reply = first.execute(action)
        assert reply == second.execute(action)
        if "error" in reply or SPACE.get(action.op).kind == "read":
            assert first.state_hash() == before
        assert invariants(first.state) == [], str(action)
    assert first.state_hash() == second.state_hash()


# --- tasks -------------------------------------------------------------------------------------


def test_tasks_are_deterministic_per_seed():
    assert [t.to_json() for t in DOMAIN.tasks(4)] == [t.to_json() for t in Climate().tasks(4)]
    assert [t.query for t in DOMAIN.tasks(4)] != [t.query for t in DOMAIN.tasks(5)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kind_mix_and_call_counts(seed):
    easy = [t for t in DOMAIN.tasks(seed) if t.form == "easy"]
    assert len(easy) >= 120
    calls = collections.Counter(len(t.gold) for t in easy)
    assert set(calls) <= set(range(1, 7))
    assert calls[3] + calls[4] >= len(easy) / 4 and calls[5] >= 3 and calls[6] >= 1
    for task in easy:
        kinds = {SPACE.get(a.op).kind for a in task.gold}
        if task.kind == "compound":
            assert kinds == {"write"}, task.id
            assert 2 <= len(task.gold) <= 5, task.id
        if task.kind == "compositional":
            assert "write" in kinds, task.id


@pytest.mark.parametrize("seed", range(0, 60, 7))
def test_every_world_gets_enough_tasks(seed):
    assert len(DOMAIN.drafts(seed)) >= 120


def test_every_request_has_two_direct_and_one_indirect_phrasing(monkeypatch):
    seen: list[Request] = []
    real = _drafting.draft

    def recording(rng, template, requests, **kwargs):
        seen.extend(requests)
        return real(rng, template, requests, **kwargs)

    monkeypatch.setattr(_drafting, "draft", recording)
    for seed in (0, 1):
        tasks_module.drafts(DOMAIN.initial_state(seed), seed)
    assert len(seen) > 300
    thin = [r.direct for r in seen if len(set(r.direct)) < 2 or not r.indirect]
    assert not thin, thin[:3]


@pytest.mark.parametrize("seed", [0, 1])
def test_compound_requests_touch_different_zones_or_devices(seed):
    for task in DOMAIN.tasks(seed):
        if task.kind == "compound":
            targets = [a.arguments.get("zone", a.op) for a in task.gold]
            assert len(set(targets)) == len(targets), task.id
