"""Requests as a typed grammar (``toolprism.domains._grammar``): slots, spans and the slot check."""

from __future__ import annotations

import random

import pytest

from toolprism.domains import domain_names, get_domain
from toolprism.domains._asks import AskKind
from toolprism.domains._grammar import Span, find_spans, replied, slot, stated, unmark
from toolprism.domains._phrasing import _mentioned, _normal, draft, introduced, request, surface_forms, ungrounded
from toolprism.domains._plan import Quota, draft_plan

SET_VOLUME = ("set_volume", {"tv": "living_room", "volume": 20})


def test_slot_renders_the_surface_text_and_unmark_recovers_value_and_place():
    text = f"set the {slot('living_room')} tv to {slot(20)}"
    clean, found = unmark(text)
    assert clean == "set the living room tv to 20"
    assert found == [(8, 19, "living_room"), (26, 28, 20)]
    assert unmark(text.upper())[0] == "SET THE LIVING ROOM TV TO 20"  # marks survive case mapping
    assert unmark(f"{slot(3, 'three')} lights")[0] == "three lights"


def test_draft_records_the_span_of_every_slotted_value_in_both_forms():
    tv, level = slot("living_room"), slot(20)
    asked = request(f"set the {tv} tv to {level}", f"make the {tv} tv {level}", SET_VOLUME)
    made = draft(random.Random(0), "t", [asked])
    for text, spans in ((made.query, made.spans), (made.hard, made.hard_spans)):
        assert [(text[s.start : s.end], s.action, s.param, s.value) for s in spans] == [
            ("living room", 0, "tv", "living_room"),
            ("20", 0, "volume", 20),
        ]
    assert "\ue000" not in made.query + (made.hard or "")


def test_a_sentence_opening_with_a_slot_is_capitalised_as_before():
    tv, level = slot("living_room"), slot(20)
    made = draft(random.Random(0), "t", [request(f"{tv} tv to {level}", f"x {level} {tv}", SET_VOLUME)])
    assert made.query == "Living room tv to 20."
    assert made.spans[0] == Span(0, 11, 0, "tv", "living_room")


def test_draft_refuses_a_gold_value_that_is_neither_slotted_nor_replied():
    tv = slot("living_room")
    with pytest.raises(ValueError, match="set_volume.volume=20"):
        draft(random.Random(0), "t", [request(f"set the {tv} tv to 20", f"{tv} 20", SET_VOLUME)])
    with pytest.raises(ValueError, match="no gold argument"):
        draft(random.Random(0), "t", [request(f"set {slot('bedroom')} {tv} {slot(20)}", "x", SET_VOLUME)])


def test_a_replied_value_needs_no_slot():
    tv = slot("living_room")
    gold = (("get_status", {"tv": "bedroom"}), ("set_volume", {"tv": "living_room", "volume": replied(35)}))
    other = slot("bedroom")
    asked = request(f"match the {tv} tv to the {other} tv", f"make the {tv} tv as loud as the {other} one", *gold)
    assert asked.gold[1] == ("set_volume", {"tv": "living_room", "volume": 35})
    assert asked.replied == {(1, "volume")}
    made = draft(random.Random(0), "t", [asked], kind="compositional")
    assert {(s.action, s.param) for s in made.spans} == {(0, "tv"), (1, "tv")}


def test_a_request_written_without_slots_is_refused():
    gold = ("set", {"room": "kitchen", "power": "on"})
    with pytest.raises(ValueError, match="set.room='kitchen'"):
        draft(random.Random(1), "t", [request("turn on the kitchen light", "light the kitchen", gold)])


def test_find_spans_and_introduced_shift_the_body():
    assert find_spans("Order #W1 for Ann", [("get", {"order_id": "#W1", "name": "ann"})]) == (
        Span(6, 9, 0, "order_id", "#W1"),
        Span(14, 17, 0, "name", "ann"),
    )
    body = draft(random.Random(0), "t", [request(f"set {slot(20)}", f"to {slot(20)}", ("set", {"v": 20}))])
    full = introduced(body, f"I'm {slot('ann')}.", f"It's {slot('ann')}.", ("find", {"name": "ann"}))
    with pytest.raises(ValueError, match="find.name='ann'"):
        introduced(body, "I'm ann.", "It's ann.", ("find", {"name": "ann"}))
    assert full.gold == [("find", {"name": "ann"}), ("set", {"v": 20})]
    for text, spans in ((full.query, full.spans), (full.hard, full.hard_spans)):
        assert [(text[s.start : s.end], s.action) for s in spans] == [("ann", 0), ("20", 1)]


@pytest.mark.parametrize("name", domain_names())
def test_spans_point_at_their_values_and_cover_every_grounded_value(name):
    domain = get_domain(name)
    for task in domain.tasks(0):
        assert not ungrounded(task, domain.aliases)
        spanned = {(s.action, s.param) for s in task.spans}
        for i, action in enumerate(task.gold):  # a value the query states whole has a span
            for param, value in action.arguments.items():
                if stated(value) and any(_mentioned(f, _normal(task.query)) for f in surface_forms(value)[0]):
                    assert (i, param) in spanned, (task.id, param)
        for s in task.spans:
            assert task.query[s.start : s.end].lower() in surface_forms(s.value, domain.aliases)[0]


def test_spans_are_not_part_of_the_task_json():
    task = get_domain(domain_names()[0]).tasks(0)[0]
    assert "spans" not in task.to_json()


def test_ask_kind_fills_templates_with_slots_keyed_phrasings_and_words():
    mute = AskKind(
        "set_mute",
        {"muted": "{mute:mute} the {tv} tv", "unmuted": "{mute:unmute} the {tv} tv"},
        "make the {tv} tv {mute} {why}",
        key="mute",
    )
    asked = mute.request({"why": "now"}, tv="living_room", mute="unmuted")
    assert asked.gold == (("set_mute", {"tv": "living_room", "mute": "unmuted"}),)
    made = draft(random.Random(0), "t", [asked])
    assert made.query == "Unmute the living room tv."
    assert [(made.query[s.start : s.end], s.param) for s in made.spans] == [("Unmute", "mute"), ("living room", "tv")]
    assert "make the living room tv unmuted now" in (made.hard or "")
    drawn = mute.draw(random.Random(0), ["muted", "unmuted"], "muted", {"why": "now"}, tv="den")
    assert drawn is not None and drawn.gold[0][1] == {"tv": "den", "mute": "unmuted"}
    assert mute.draw(random.Random(0), ["muted"], "muted", {"why": "now"}, tv="den") is None


def test_the_none_key_holds_the_phrasings_of_every_other_value():
    phrasings = {"off": "turn {level} the fan", None: "set the fan to {level}"}
    level = AskKind("set", phrasings, "the fan {level}", key="level")
    assert unmark(level.request(level="off").direct[0])[0] == "turn off the fan"
    assert unmark(level.request(level="high").direct[0])[0] == "set the fan to high"


def test_draft_plan_runs_quotas_in_order_and_tops_up_spare_lines():
    def numbered(word):
        counter = iter(range(1000))

        def build(rng, state):
            n = next(counter)
            gold = [("op", {"n": n})] * (1 if word == "a" else 2)
            return request(f"{word} {slot(n)}", f"do {word} {slot(n)}", *gold)

        return build

    def never(rng, state):
        return None

    plan = (
        Quota("a", numbered("a"), 2),
        Quota("b", never, 2, "compositional", spare=True),
        Quota("c", lambda rng, s: None, 1, "compositional"),
        Quota("d", numbered("d"), 1, "compositional", spare=True),
    )
    made = draft_plan(random.Random(0), None, plan, top_up=3)
    assert [d.template for d in made] == ["a", "a", "d", "d", "d", "d"]  # b and c short by 3: d tops up
