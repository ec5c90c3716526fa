"""Tests of the tv domain: state, operations, refusal rules and task generation."""

from __future__ import annotations

import collections

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains.tv import Tv
from toolprism.domains.tv import _ops as ops
from toolprism.domains.tv._state import APPS, GENRES, KIDS_APP, TVS
from toolprism.errors import DomainError

DOMAIN = Tv()
SPACE = Tv.action_space()
SHARED_NAMES = {"get_status", "set_power", "set_mode", "set_volume", "set_timer", "set_child_lock", "pause", "resume"}


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def tv_where(state, predicate):
    return next(t for t in TVS if predicate(state.tvs[t]))


def on(state):
    return tv_where(state, lambda t: t.power == "on" and t.child_lock == "off")


# --- action space ------------------------------------------------------------------------------


def test_registered_with_a_short_policy():
    assert DOMAINS.get("tv") is Tv
    assert 80 <= len(Tv.policy) <= 1500


def test_operations_reads_writes_and_enums():
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    assert 3 <= len([op for op in operations if op.kind == "read"]) <= 4
    params = [p for op in operations for p in op.params]
    enums = [p for p in params if p.enum is not None]
    assert len(enums) >= 10 and len(enums) > len(params) / 2
    assert len(SHARED_NAMES & {op.name for op in operations}) >= 4
    for op in operations:
        schema = op.tool().parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert sorted(schema.get("required", [])) == sorted(schema["properties"]), op.name
        assert all(p.description for p in op.params), op.name
        assert all(p.schema.get("type") != "boolean" for p in op.params), op.name


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("set_volume", {"tv": "bedroom", "volume": 101}),
        ("set_channel", {"tv": "bedroom", "channel": 0}),
        ("set_channel", {"tv": "bedroom", "channel": 100}),
        ("set_timer", {"tv": "bedroom", "minutes": 9}),
        ("set_timer", {"tv": "bedroom", "minutes": 181}),
        ("set_power", {"tv": "garage", "power": "on"}),
        ("set_subtitles", {"tv": "bedroom", "subtitles": "klingon"}),
        ("get_guide", {"genre": "weather"}),
    ],
)
def test_schema_rejects_out_of_range_and_unknown_values(op, args):
    validator = jsonschema.Draft202012Validator(SPACE.get(op).tool().parameters)
    assert list(validator.iter_errors(args))


# --- state -------------------------------------------------------------------------------------


def test_initial_state_is_deterministic_and_differs_across_seeds():
    assert DOMAIN.initial_state(3) == DOMAIN.initial_state(3)
    assert len({DOMAIN.environment(seed).state_hash() for seed in range(6)}) == 6
    for seed in range(6):
        state = DOMAIN.initial_state(seed)
        assert [t.power for t in state.tvs.values()].count("off") == 1
        assert sorted(c.genre for c in state.guide) == sorted(GENRES * 2)
        assert len({c.number for c in state.guide}) == len(state.guide)
        assert len({c.now_showing for c in state.guide}) == len(state.guide)
        assert KIDS_APP in state.tvs["kids_room"].installed_apps


# --- writes change the state as documented -----------------------------------------------------


def test_antenna_channel_and_guide():
    env = DOMAIN.environment(0)
    tv = on(env.state)
    guide = run(env, "get_guide", genre="sports")
    assert guide["input"] == "antenna" and {c["genre"] for c in guide["channels"]} == {"sports"}
    if env.state.tvs[tv].input != "antenna":
        run(env, "set_input", tv=tv, input="antenna")
    number = guide["channels"][0]["number"]
    assert run(env, "set_channel", tv=tv, channel=number)["channel"] == number


def test_apps_pause_and_resume():
    env = DOMAIN.environment(1)
    tv = on(env.state)
    app = env.state.tvs[tv].installed_apps[0]
    reply = run(env, "launch_app", tv=tv, app=app)
    assert (reply["input"], reply["app"], reply["playback"]) == ("apps", app, "playing")
    assert run(env, "pause", tv=tv)["playback"] == "paused"
    assert run(env, "resume", tv=tv)["playback"] == "playing"
    assert run(env, "list_apps", tv=tv)["installed_apps"] == env.state.tvs[tv].installed_apps


def test_mute_volume_picture_subtitles_timer_and_power():
    env = DOMAIN.environment(2)
    tv = on(env.state)
    if env.state.tvs[tv].mute == "muted":
        run(env, "set_mute", tv=tv, mute="unmuted")
    assert run(env, "set_volume", tv=tv, volume=33)["volume"] == 33
    assert run(env, "set_mute", tv=tv, mute="muted")["mute"] == "muted"
    assert run(env, "set_mode", tv=tv, mode="game")["picture_mode"] == "game"
    assert run(env, "set_subtitles", tv=tv, subtitles="french")["subtitles"] == "french"
    assert run(env, "set_timer", tv=tv, minutes=90)["sleep_timer_min"] == 90
    reply = run(env, "set_power", tv=tv, power="off")
    assert (reply["power"], reply["sleep_timer_min"], reply["volume"], reply["mute"]) == ("off", None, 33, "muted")


def test_child_lock_limits_channels_and_apps():
    env = DOMAIN.environment(0)
    tv = on(env.state)
    run(env, "set_child_lock", tv=tv, lock="on")
    if env.state.tvs[tv].input != "antenna":
        kids_channel = next(c.number for c in env.state.guide if c.genre == "kids")
        env.state.tvs[tv].channel = kids_channel
        run(env, "set_input", tv=tv, input="antenna")
    other = next(c.number for c in env.state.guide if c.genre != "kids")
    assert "child lock" in run(env, "set_channel", tv=tv, channel=other)["error"]
    kids = next(c.number for c in env.state.guide if c.genre == "kids")
    assert run(env, "set_channel", tv=tv, channel=kids)["channel"] == kids
    assert run(env, "list_apps", tv=tv)["allowed_apps"] in ([], [KIDS_APP])


def test_reads_change_nothing():
    env = DOMAIN.environment(0)
    before = env.state_hash()
    assert run(env, "get_status", tv="bedroom") == {"tv": "bedroom", **env.state.tvs["bedroom"].model_dump()}
    for genre in GENRES:
        assert len(run(env, "get_guide", genre=genre)["channels"]) == 2
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _off(s):
    return tv_where(s, lambda t: t.power == "off")


def _on_where(predicate):
    return lambda s: tv_where(s, lambda t: t.power == "on" and predicate(t))


def _not_in_guide(s):
    return next(n for n in range(1, 100) if all(c.number != n for c in s.guide))


REFUSALS = [
    ("volume on an off set", lambda s: ("set_volume", {"tv": _off(s), "volume": 30})),
    ("mode on an off set", lambda s: ("set_mode", {"tv": _off(s), "mode": "game"})),
    ("already off", lambda s: ("set_power", {"tv": _off(s), "power": "off"})),
    ("already on", lambda s: ("set_power", {"tv": tv_where(s, lambda t: t.power == "on"), "power": "on"})),
    (
        "channel without antenna",
        lambda s: ("set_channel", {"tv": _on_where(lambda t: t.input != "antenna")(s), "channel": s.guide[0].number}),
    ),
    (
        "channel not in the guide",
        lambda s: ("set_channel", {"tv": _on_where(lambda t: t.input == "antenna")(s), "channel": _not_in_guide(s)}),
    ),
    (
        "app not installed",
        lambda s: (
            "launch_app",
            {"tv": (tv := on(s)), "app": next(a for a in APPS if a not in s.tvs[tv].installed_apps)},
        ),
    ),
    (
        "non-kids app under child lock",
        lambda s: (
            "launch_app",
            {
                "tv": (tv := _on_where(lambda t: t.child_lock == "on")(s)),
                "app": next(a for a in s.tvs[tv].installed_apps if a != KIDS_APP),
            },
        ),
    ),
    ("pause without an app playing", lambda s: ("pause", {"tv": _on_where(lambda t: t.input != "apps")(s)})),
    ("resume when not paused", lambda s: ("resume", {"tv": _on_where(lambda t: t.playback != "paused")(s)})),
    ("volume while muted", lambda s: ("set_volume", {"tv": _on_where(lambda t: t.mute == "muted")(s), "volume": 40})),
    ("already unmuted", lambda s: ("set_mute", {"tv": _on_where(lambda t: t.mute == "unmuted")(s), "mute": "unmuted"})),
    ("child lock already off", lambda s: ("set_child_lock", {"tv": "living_room", "lock": "off"})),
]


def _first_world(make):
    """The first seed whose world has a set the refusal applies to, with the refused call."""
    for seed in range(20):
        try:
            return (seed, *make(DOMAIN.initial_state(seed)))
        except StopIteration:
            continue
    raise AssertionError("no world in seeds 0-19 exercises this refusal")


@pytest.mark.parametrize(("label", "make"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_leave_the_state_unchanged(label, make):
    seed, op, args = _first_world(make)
    state = DOMAIN.initial_state(seed)
    env = DOMAIN.environment(seed)
    before = env.state_hash()
    reply = run(env, op, **args)
    assert set(reply) == {"error"} and reply["error"], label
    assert env.state_hash() == before
    with pytest.raises(DomainError):  # the operation validates before it mutates
        getattr(ops, op)(state, **args)
    assert state == DOMAIN.initial_state(seed)


# --- tasks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kinds_mix_and_gold_lengths(seed):
    easy = [t for t in DOMAIN.tasks(seed) if t.form == "easy"]
    assert len(easy) >= 120
    lengths = collections.Counter(len(t.gold) for t in easy)
    assert set(lengths) <= set(range(1, 7))
    assert lengths[3] + lengths[4] >= len(easy) / 3 and lengths[5] >= 3
    assert all(2 <= len(t.gold) <= 5 for t in easy if t.kind == "compound")


@pytest.mark.parametrize("seed", [0, 5])
def test_every_gold_write_changes_state_and_questions_only_read(seed):
    for task in DOMAIN.tasks(seed):
        env = DOMAIN.environment(seed)
        kinds = [SPACE.get(a.op).kind for a in task.gold]
        if task.kind != "compositional":
            assert len(set(kinds)) == 1, task.id  # a question reads, a command writes
        else:
            assert "write" in kinds, task.id
        for step in task.reference:
            before = env.state_hash()
            assert "error" not in env.execute(step.action), task.id
            assert (env.state_hash() != before) == (SPACE.get(step.action.op).kind == "write"), task.id


def test_compound_requests_touch_different_settings():
    # Independent requests: replaying the gold in reverse order reaches the same state.
    for task in DOMAIN.tasks(0):
        if task.kind != "compound" or task.form != "easy":
            continue
        forward, backward = DOMAIN.environment(0), DOMAIN.environment(0)
        for action in task.gold:
            forward.execute(action)
        for action in reversed(task.gold):
            assert "error" not in backward.execute(action), task.id
        assert forward.state_hash() == backward.state_hash(), task.id


def test_tasks_are_deterministic_per_seed_and_differ_across_seeds():
    first = [(t.id, t.query, t.gold) for t in DOMAIN.tasks(4)]
    assert first == [(t.id, t.query, t.gold) for t in Tv().tasks(4)]
    assert first != [(t.id, t.query, t.gold) for t in DOMAIN.tasks(5)]
