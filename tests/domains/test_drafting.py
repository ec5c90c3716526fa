"""The shared drafting machinery (``toolprism.domains._drafting``), on the smart-home simulator."""

from __future__ import annotations

import random

import pytest

from toolprism.domains._drafting import MAX_CALLS, Ask, Drafts, Simulator, chain, compound
from toolprism.domains._grammar import slot
from toolprism.domains._phrasing import request
from toolprism.domains.smart_home._ops import OPERATIONS
from toolprism.domains.smart_home._state import ROOMS, initial_state

SIM = Simulator(OPERATIONS)


def _light(room: str, power: str) -> Ask:
    gold = ("set_light_power", {"room": room, "power": power})
    r, p = slot(room), slot(power)
    return Ask(request(f"turn {p} the {r} light", f"switch the {r} light {p}", gold), frozenset({room}))


def _flip(state, room: str) -> str:
    return "off" if state.rooms[room].light.power == "on" else "on"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_replays_accepts_reads_and_changing_writes_only(seed):
    state = initial_state(seed)
    room = ROOMS[0]
    now = state.rooms[room].light.power
    assert SIM.replays(state, [("get_room_status", {"room": room})])
    assert SIM.replays(state, [("set_light_power", {"room": room, "power": _flip(state, room)})])
    assert not SIM.replays(state, [("set_light_power", {"room": room, "power": now})])  # changes nothing
    back_and_forth = [("set_light_power", {"room": room, "power": p}) for p in (_flip(state, room), now)]
    assert not SIM.replays(state, back_and_forth)  # writes, but leaves the world as it was
    assert state == initial_state(seed)  # the fresh world is never touched


def test_compound_keeps_independent_asks_within_the_budget():
    state = initial_state(0)
    rng = random.Random("test/compound/0")
    for size in range(1, 6):
        asks = compound(lambda _: _light(rng.choice(ROOMS), "on"), size, tries=200, max_calls=3, minimum=1)
        assert asks is not None and len(asks) == min(size, 3)
        assert len({a.writes for a in asks}) == len(asks)  # never two asks on one room
    assert compound(lambda _: _light(ROOMS[0], "on"), 2, tries=50) is None  # only one independent ask exists
    assert all(a.independent_of(b) == (a.writes != b.writes) for a in asks for b in asks)
    assert state == initial_state(0)


def test_chain_stops_at_a_step_that_does_not_replay():
    state = initial_state(0)
    room = ROOMS[0]
    steps = [lambda s: _light(room, _flip(s, room)).request, lambda s: _light(room, _flip(s, room)).request]
    assert [len(r.gold) for r in chain(SIM, state, steps)] == [1, 1]  # each step sees the state before it
    repeat = _light(room, _flip(state, room)).request
    assert chain(SIM, state, [lambda s: repeat, lambda s: repeat]) is None  # the second changes nothing


def test_drafts_skip_repeated_queries_overlong_gold_and_wrong_kinds():
    out = Drafts(random.Random("test/drafts/0"))
    one = _light(ROOMS[0], "on").request
    assert out.offer("single", one, "single")
    assert not out.offer("single", one, "single")  # the same easy query again
    assert not out.offer("compound", [one], "compound")  # one call is not a compound task
    many = [_light(r, "on").request for r in ROOMS[: MAX_CALLS + 1]]
    assert not out.offer("compound", many, "compound")  # over the call budget
    assert not out.offer("compound", [one, None], "compound")  # a part was not posable
    assert out.fill("compound", lambda: many[:2], 3, "compound", tries=5) == 1  # later offers repeat
    assert [d.kind for d in out.items] == ["single", "compound"] and out.count("compound") == 1
    queries = [q for d in out.items for q in (d.query, d.hard)]
    assert len(set(queries)) == len(queries)


# --- the pieces the device domains share (extend, compounds, joined chains, families) --------


def _asks(state) -> list[Ask]:
    return [_light(room, _flip(state, room)) for room in ROOMS]


@pytest.mark.parametrize("length", [1, 2, 3])
def test_extend_reaches_exactly_the_asked_length_or_gives_none(length):
    from toolprism.domains._drafting import calls, extend

    state = initial_state(0)
    pool = iter(_asks(state)[1:])
    requests = extend(SIM, state, _asks(state)[0], lambda _after: next(pool, None), length)
    assert requests is not None and calls(requests) == length
    assert extend(SIM, state, _asks(state)[0], lambda _after: None, 2) is None  # nothing more to add


def test_shuffled_and_replayable_compounds_are_independent():
    from toolprism.domains._drafting import gold_of, independent, replayable_compound, shuffled_compound

    state = initial_state(1)
    asks = shuffled_compound(random.Random(0), _asks(state), 3)
    assert asks is not None and len(asks) == 3 and independent(asks)
    picked = replayable_compound(random.Random(0), SIM, state, lambda rng, s: rng.choice(_asks(s)), ((2, 3), (1, 1)))
    assert picked is not None and independent(picked)
    assert SIM.replays(state, gold_of(a.request for a in reversed(picked)))


def test_joined_chains_refuse_chains_that_touch_the_same_setting():
    from toolprism.domains._drafting import joined_chains

    state = initial_state(0)
    room = ROOMS[0]
    same = [lambda rng, s: [_light(room, _flip(s, room))], lambda rng, s: [_light(room, _flip(s, room))]]
    results = [joined_chains(random.Random(seed), state, same) for seed in range(20)]
    assert all(r is None for r in results)  # one chain alone is too short, two collide


def test_compose_families_joins_only_templates_of_different_families():
    from toolprism.domains._drafting import compose_families

    state = initial_state(0)
    templates = {
        f"{family}{i}": (lambda room: lambda rng, s: [_light(room, _flip(s, room)).request])(ROOMS[i])
        for i, family in enumerate(("a", "a", "b"))
    }
    family = {name: name[0] for name in templates}
    names = {compose_families(random.Random(seed), SIM, state, templates, family, chance=1.0)[0] for seed in range(30)}
    joined = {n for n in names if "+" in n}
    assert joined and all(family[a] != family[b] for a, b in (n.split("+") for n in joined))
