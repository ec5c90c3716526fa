"""Tests of the media_player domain: state, operations, refusal rules and task generation."""

from __future__ import annotations

import collections

import jsonschema
import pytest

from toolprism.domains import DOMAINS
from toolprism.domains.media_player import MediaPlayer
from toolprism.domains.media_player import _ops as ops
from toolprism.domains.media_player._state import PATIO_MAX_VOLUME, PRESETS, ZONES
from toolprism.errors import DomainError

DOMAIN = MediaPlayer()
SPACE = MediaPlayer.action_space()
SHARED_NAMES = {"get_status", "set_power", "set_volume", "set_timer", "cancel_timer", "pause", "resume"}


def run(env, op, **args):
    return env.execute(SPACE.action(op, args))


def zone_where(state, predicate):
    return next(z for z in ZONES if predicate(state.zones[z]))


# --- action space ------------------------------------------------------------------------------


def test_registered_with_a_short_policy():
    assert DOMAINS.get("media_player") is MediaPlayer
    assert 80 <= len(MediaPlayer.policy) <= 1500


def test_operations_reads_writes_and_enums():
    operations = SPACE.operations
    assert 13 <= len(operations) <= 15
    reads = [op for op in operations if op.kind == "read"]
    assert 3 <= len(reads) <= 4
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
        ("set_volume", {"zone": "kitchen", "volume": 101}),
        ("set_volume", {"zone": "kitchen", "volume": -1}),
        ("set_tone", {"zone": "kitchen", "band": "bass", "level": 11}),
        ("set_tone", {"zone": "kitchen", "band": "treble", "level": -11}),
        ("set_timer", {"zone": "kitchen", "minutes": 4}),
        ("set_timer", {"zone": "kitchen", "minutes": 121}),
        ("set_power", {"zone": "garage", "power": "on"}),
        ("set_repeat", {"zone": "kitchen", "repeat": "twice"}),
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
        off = [z for z in ZONES if state.zones[z].power == "off"]
        assert 1 <= len(off) <= 2
        assert state.zones["patio"].volume <= PATIO_MAX_VOLUME
        assert sorted(f.slot for f in state.favorites) == list(range(1, 7))


# --- writes change the state as documented -----------------------------------------------------


def test_power_off_stops_playback_and_clears_the_timer_but_keeps_settings():
    env = DOMAIN.environment(0)
    zone = zone_where(env.state, lambda p: p.power == "on")
    run(env, "set_timer", zone=zone, minutes=45)
    volume = env.state.zones[zone].volume
    reply = run(env, "set_power", zone=zone, power="off")
    assert (reply["power"], reply["playback"], reply["sleep_timer_min"], reply["volume"]) == (
        "off",
        "stopped",
        None,
        volume,
    )
    assert run(env, "set_power", zone=zone, power="on")["playback"] == "stopped"


def test_switching_source_then_playing_a_playlist():
    env = DOMAIN.environment(1)
    zone = zone_where(env.state, lambda p: p.power == "on" and p.source != "streaming")
    assert run(env, "set_source", zone=zone, source="streaming")["playback"] == "stopped"
    reply = run(env, "play_playlist", zone=zone, playlist="workout", order="shuffled")
    assert (reply["playlist"], reply["order"], reply["playback"]) == ("workout", "shuffled", "playing")
    assert run(env, "pause", zone=zone)["playback"] == "paused"
    assert run(env, "resume", zone=zone)["playback"] == "playing"
    assert run(env, "set_repeat", zone=zone, repeat="one")["repeat"] == "one"


def test_radio_tone_preset_and_timer():
    env = DOMAIN.environment(2)
    zone = zone_where(env.state, lambda p: p.power == "on")
    if env.state.zones[zone].source != "radio":
        run(env, "set_source", zone=zone, source="radio")
    assert run(env, "tune_radio", zone=zone, station="jazz_fm")["station"] == "jazz_fm"
    assert run(env, "set_tone", zone=zone, band="treble", level=-7)["treble"] == -7
    preset = env.state.presets["movie"]
    reply = run(env, "apply_preset", zone=zone, preset="movie")
    assert (reply["volume"], reply["bass"], reply["treble"]) == (preset.volume, preset.bass, preset.treble)
    assert run(env, "set_timer", zone=zone, minutes=20)["sleep_timer_min"] == 20
    assert run(env, "cancel_timer", zone=zone)["sleep_timer_min"] is None


def test_reads_show_state_and_change_nothing():
    env = DOMAIN.environment(0)
    before = env.state_hash()
    assert run(env, "get_status", zone="office") == {"zone": "office", **env.state.zones["office"].model_dump()}
    assert [p["name"] for p in run(env, "list_presets")["presets"]] == list(PRESETS)
    assert {f["source"] for f in run(env, "list_favorites")["favorites"]} == {"streaming", "radio"}
    assert env.state_hash() == before


# --- refusals ----------------------------------------------------------------------------------


def _off(s):
    return zone_where(s, lambda p: p.power == "off")


def _on_not(source):
    return lambda s: zone_where(s, lambda p: p.power == "on" and p.source != source)


def _on_where(predicate):
    return lambda s: zone_where(s, lambda p: p.power == "on" and predicate(p))


REFUSALS = [
    ("volume on an off zone", lambda s: ("set_volume", {"zone": _off(s), "volume": 30})),
    ("timer on an off zone", lambda s: ("set_timer", {"zone": _off(s), "minutes": 30})),
    ("already off", lambda s: ("set_power", {"zone": _off(s), "power": "off"})),
    (
        "already on",
        lambda s: ("set_power", {"zone": zone_where(s, lambda p: p.power == "on"), "power": "on"}),
    ),
    (
        "playlist without streaming",
        lambda s: ("play_playlist", {"zone": _on_not("streaming")(s), "playlist": "workout", "order": "in_order"}),
    ),
    ("repeat without streaming", lambda s: ("set_repeat", {"zone": _on_not("streaming")(s), "repeat": "all"})),
    ("station without radio", lambda s: ("tune_radio", {"zone": _on_not("radio")(s), "station": "news_talk"})),
    ("pause when not playing", lambda s: ("pause", {"zone": _on_where(lambda p: p.playback != "playing")(s)})),
    ("resume when not paused", lambda s: ("resume", {"zone": _on_where(lambda p: p.playback != "paused")(s)})),
    ("cancel without a timer", lambda s: ("cancel_timer", {"zone": _on_where(lambda p: p.sleep_timer_min is None)(s)})),
]


def _patio_on(state):
    state.zones["patio"].power = "on"
    return state


def _first_world(make):
    """The first seed whose world has a zone the refusal applies to, with the refused call."""
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


def test_patio_volume_cap():
    state = _patio_on(DOMAIN.initial_state(0))
    with pytest.raises(DomainError, match="capped"):
        ops.set_volume(state, "patio", PATIO_MAX_VOLUME + 5)
    assert ops.set_volume(state, "patio", PATIO_MAX_VOLUME)["volume"] == PATIO_MAX_VOLUME
    other = zone_where(state, lambda p: p.power == "on" and p is not state.zones["patio"])
    assert ops.set_volume(state, other, PATIO_MAX_VOLUME + 5)["volume"] == PATIO_MAX_VOLUME + 5


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
    assert first == [(t.id, t.query, t.gold) for t in MediaPlayer().tasks(4)]
    assert first != [(t.id, t.query, t.gold) for t in DOMAIN.tasks(5)]
