"""Tests of the security domain: state, operations, refusal rules and task generation."""

from __future__ import annotations

import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprism.domains import DOMAINS, _drafting
from toolprism.domains._phrasing import Request
from toolprism.domains.security import Security
from toolprism.domains.security import _ops as ops
from toolprism.domains.security import _tasks as tasks_module
from toolprism.domains.security._state import ARMED, CAMERAS, DOORS, LOCKED_WHEN_ARMED, SecurityState
from toolprism.errors import DomainError, RejectedCall

DOMAIN = Security()
SPACE = Security.action_space()


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def fresh(seed: int = 0):
    return DOMAIN.environment(seed)


def invariants(state: SecurityState) -> list[str]:
    """Rules every reachable state keeps (the docstring of ``initial_state`` lists them)."""
    problems = []
    if state.mode in ARMED:
        problems += [
            f"{s} open and monitored"
            for s, v in state.sensors.items()
            if (v.contact, v.status) == ("open", "monitored")
        ]
        if state.siren_volume == 0:
            problems.append("armed with a muted siren")
    if state.mode in LOCKED_WHEN_ARMED:
        problems += [
            f"{d} unlocked and monitored"
            for d in DOORS
            if state.doors[d].lock == "unlocked" and state.sensors[d].status == "monitored"
        ]
    problems += [
        f"{d} locked while open"
        for d in DOORS
        if state.doors[d].lock == "locked" and state.sensors[d].contact == "open"
    ]
    return problems


def disarmed_world(seed: int = 0):
    """An environment whose alarm is disarmed, every door locked, every sensor closed and monitored."""
    env = fresh(seed)
    env.state.mode = "disarmed"
    for sensor in env.state.sensors.values():
        sensor.contact, sensor.status = "closed", "monitored"
    for door in env.state.doors.values():
        door.lock = "locked"
    return env


# --- registration and action space -------------------------------------------------------------


def test_registered_with_a_short_policy():
    assert DOMAINS.get("security") is Security
    assert 80 <= len(Security.policy) <= 1500
    assert 2 <= Security.policy.count(". ") + 1 <= 5


def test_action_space_has_many_enums_and_shared_names():
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    assert 3 <= sum(op.kind == "read" for op in operations) <= 4
    params = [p for op in operations for p in op.params]
    enums = [p for p in params if p.enum is not None]
    assert len(enums) >= 10 and len(enums) > len(params) / 2
    assert all(p.required and p.description for p in params)
    for p in params:
        if p.enum is None:
            assert p.schema["type"] == "integer" and "minimum" in p.schema and "maximum" in p.schema, p.name
    shared = {"get_status", "set_power", "set_mode", "set_volume", "set_brightness", "set_schedule"}
    assert len(shared & {op.name for op in operations}) >= 4


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_volume", {"volume": -1}),
        ("set_volume", {"volume": 101}),
        ("set_brightness", {"light": "porch", "brightness": 5}),
        ("set_brightness", {"light": "garage", "brightness": 50}),  # no floodlight there
        ("set_mode", {"mode": "armed"}),
        ("set_lock", {"door": "kitchen_window", "lock": "locked"}),
        ("set_entry_delay", {"delay": "90_seconds"}),
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
    assert 1 <= sum(s.contact == "open" for s in state.sensors.values()) <= 2
    assert [e.time for e in state.events] == sorted(e.time for e in state.events)


# --- writes change state as documented ---------------------------------------------------------


def test_arming_follows_the_bypass_and_lock_rules():
    env = disarmed_world()
    env.state.sensors["patio_door"].contact = "open"
    env.state.doors["patio_door"].lock = "unlocked"
    env.state.doors["front_door"].lock = "unlocked"
    assert "patio door is open" in run(env, "set_mode", mode="home")["error"]
    run(env, "set_bypass", sensor="patio_door", status="bypassed")
    assert "front door is unlocked" in run(env, "set_mode", mode="away")["error"]
    assert run(env, "set_mode", mode="home") == {"mode": "home"}  # home mode leaves doors alone
    assert "error" in run(env, "set_bypass", sensor="patio_door", status="monitored")
    assert run(env, "set_lock", door="front_door", lock="locked")["lock"] == "locked"
    assert run(env, "set_mode", mode="away") == {"mode": "away"}  # the open patio door is bypassed
    assert "disarm it" in run(env, "set_lock", door="front_door", lock="unlocked")["error"]
    assert run(env, "set_mode", mode="disarmed") == {"mode": "disarmed"}
    assert run(env, "set_lock", door="front_door", lock="unlocked")["lock"] == "unlocked"


def test_status_reports_doors_with_their_sensors():
    env = fresh(2)
    status = run(env, "get_status")
    assert set(status["doors"]) == set(DOORS)
    for door, entry in status["doors"].items():
        assert entry == {
            "lock": env.state.doors[door].lock,
            "contact": env.state.sensors[door].contact,
            "status": env.state.sensors[door].status,
        }
    assert set(status["windows"]) == {"kitchen_window", "bedroom_window"}


def test_camera_prerequisites():
    env = fresh()
    env.state.mode = "disarmed"
    camera = env.state.cameras["porch"]
    camera.power, camera.recording = "off", "continuous"
    assert "turn it on" in run(env, "set_recording", camera="porch", recording="motion")["error"]
    run(env, "set_power", camera="porch", power="on")
    assert "motion recording first" in run(env, "set_sensitivity", camera="porch", sensitivity="high")["error"]
    run(env, "set_recording", camera="porch", recording="motion")
    reply = run(env, "set_sensitivity", camera="porch", sensitivity="high")
    assert reply == {"camera": "porch", "power": "on", "recording": "motion", "sensitivity": "high"}
    assert run(env, "get_camera", camera="porch") == reply


def test_floodlights_siren_delay_and_schedule():
    env = disarmed_world()
    run(env, "set_floodlight", light="driveway", mode="off")
    assert "error" in run(env, "set_brightness", light="driveway", brightness=70)
    run(env, "set_floodlight", light="driveway", mode="motion")
    assert run(env, "set_brightness", light="driveway", brightness=70)["brightness"] == 70
    assert run(env, "set_volume", volume=0) == {"siren_volume": 0}
    assert "muted" in run(env, "set_mode", mode="home")["error"]
    assert run(env, "set_entry_delay", delay="45_seconds") == {"entry_delay": "45_seconds"}
    assert run(env, "set_schedule", days="weekends", mode="night")["schedule"]["weekends"] == "night"


def test_reads_change_nothing():
    env = fresh()
    before = env.state_hash()
    run(env, "get_status")
    for camera in CAMERAS:
        run(env, "get_camera", camera=camera)
    assert len(run(env, "list_events")["events"]) == len(env.state.events)
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _armed(mode: str):
    """Arrange an alarm armed in ``mode`` (closed doors locked, open sensors bypassed)."""

    def arrange(state: SecurityState) -> None:
        for door in DOORS:
            if state.sensors[door].contact == "closed":
                state.doors[door].lock = "locked"
        for sensor in state.sensors.values():
            if sensor.contact == "open":
                sensor.status = "bypassed"
        state.mode = mode

    return arrange


def _back_door(contact: str, lock: str, mode: str | None = None):
    def arrange(state: SecurityState) -> None:
        state.sensors["back_door"].contact, state.doors["back_door"].lock = contact, lock
        state.sensors["back_door"].status = "monitored"
        if mode is not None:
            state.mode = mode

    return arrange


def _nothing(state: SecurityState) -> None:
    return None


def _camera_on(state: SecurityState) -> None:
    state.cameras["driveway"].power = "on"


def _porch_dark(state: SecurityState) -> None:
    state.floodlights["porch"].mode = "off"


def _both(*arrangements):
    def arrange(state: SecurityState) -> None:
        for a in arrangements:
            a(state)

    return arrange


REFUSALS = [
    ("same mode", _nothing, lambda s: ("set_mode", {"mode": s.mode})),
    (
        "arm with an open monitored sensor",
        _back_door("open", "unlocked", "disarmed"),
        lambda s: ("set_mode", {"mode": "home"}),
    ),
    (
        "lock an open door",
        _back_door("open", "unlocked"),
        lambda s: ("set_lock", {"door": "back_door", "lock": "locked"}),
    ),
    ("already locked", _back_door("closed", "locked"), lambda s: ("set_lock", {"door": "back_door", "lock": "locked"})),
    ("unlock while armed away", _armed("away"), lambda s: ("set_lock", {"door": "front_door", "lock": "unlocked"})),
    ("unlock while armed night", _armed("night"), lambda s: ("set_lock", {"door": "front_door", "lock": "unlocked"})),
    (
        "bypass while armed",
        _armed("home"),
        lambda s: ("set_bypass", {"sensor": "kitchen_window", "status": "bypassed"}),
    ),
    ("entry delay while armed", _armed("night"), lambda s: ("set_entry_delay", {"delay": "15_seconds"})),
    ("mute while armed", _armed("home"), lambda s: ("set_volume", {"volume": 0})),
    (
        "camera off while away",
        _both(_armed("away"), _camera_on),
        lambda s: ("set_power", {"camera": "driveway", "power": "off"}),
    ),
    ("camera already on", _camera_on, lambda s: ("set_power", {"camera": "driveway", "power": "on"})),
    (
        "brightness of an off floodlight",
        _porch_dark,
        lambda s: ("set_brightness", {"light": "porch", "brightness": 50}),
    ),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("label", "arrange", "make"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_leaves_state_unchanged(seed, label, arrange, make):
    env = fresh(seed)
    arrange(env.state)
    op, args = make(env.state)
    arranged = env.state.model_copy(deep=True)
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and reply["error"], label
    assert env.state_hash() == before
    with pytest.raises(DomainError):  # the operation itself validates before mutating
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
    assert [t.to_json() for t in DOMAIN.tasks(4)] == [t.to_json() for t in Security().tasks(4)]
    assert [t.query for t in DOMAIN.tasks(4)] != [t.query for t in DOMAIN.tasks(5)]


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_kind_mix_and_call_counts(seed):
    easy = [t for t in DOMAIN.tasks(seed) if t.form == "easy"]
    assert len(easy) >= 120
    calls = collections.Counter(len(t.gold) for t in easy)
    assert set(calls) <= set(range(1, 7))
    assert calls[3] + calls[4] >= len(easy) / 4 and calls[5] >= 3 and calls[6] >= 1
    for task in easy:
        kinds = {SPACE.get(a.op).kind for a in task.gold}
        if task.kind == "compound":
            assert kinds == {"write"} and 2 <= len(task.gold) <= 5, task.id
            assert "set_mode" not in {a.op for a in task.gold}, task.id  # other rules depend on the mode
        if task.kind == "compositional":
            assert "write" in kinds, task.id


@pytest.mark.parametrize("seed", range(0, 100, 20))
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
def test_compound_requests_touch_different_devices(seed):
    for task in DOMAIN.tasks(seed):
        if task.kind == "compound":
            slots = [
                next(((k, v) for k, v in a.arguments.items() if k in ("door", "sensor", "camera", "light")), (a.op,))
                for a in task.gold
            ]
            assert len(set(slots)) == len(slots), task.id
