"""Tests of the recipes the domains' operations share (:mod:`toolprism.domains._opkit`)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from toolprism.domains._opkit import discard, dumped, listing, refuse_if, require_on, rows, switch, transition, words
from toolprism.errors import DomainError


class Unit(BaseModel):
    power: str = "on"
    playback: str = "playing"


def test_words_and_refuse_if():
    assert words("living_room") == "living room"
    refuse_if(False, "never")
    with pytest.raises(DomainError, match="^no$"):
        refuse_if(True, "no")


def test_require_on_returns_the_unit_or_refuses():
    unit = Unit()
    assert require_on(unit, "off") is unit
    with pytest.raises(DomainError, match="^it is off$"):
        require_on(Unit(power="off"), "it is off")


def test_switch_sets_a_new_value_and_refuses_the_current_one():
    unit = Unit()
    switch(unit, "power", "off", "already off")
    assert unit.power == "off"
    with pytest.raises(DomainError, match="^already off$"):
        switch(unit, "power", "off", "already off")


def test_transition_moves_only_from_its_source():
    unit = Unit()
    transition(unit, "playback", "playing", "paused", "not playing")
    assert unit.playback == "paused"
    with pytest.raises(DomainError, match="^not playing$"):
        transition(unit, "playback", "playing", "paused", "not playing")
    assert unit.playback == "paused"


def test_discard_removes_from_a_dict_or_a_list_and_refuses_what_is_absent():
    timers, guests = {"tea": 4, "eggs": 9}, ["ana", "bo"]
    discard(timers, "tea", "no tea timer")
    discard(guests, "bo", "bo is not invited")
    assert (timers, guests) == ({"eggs": 9}, ["ana"])
    with pytest.raises(DomainError, match="^no tea timer$"):
        discard(timers, "tea", "no tea timer")
    with pytest.raises(DomainError, match="^bo is not invited$"):
        discard(guests, "bo", "bo is not invited")


def test_replies():
    assert dumped("zone", "patio", Unit()) == {"zone": "patio", "power": "on", "playback": "playing"}
    assert listing({"a": Unit(), "b": Unit(power="off")}, exclude_defaults=True) == [
        {"name": "a"},
        {"name": "b", "power": "off"},
    ]
    assert listing({"a": Unit()}, key="preset") == [{"preset": "a", "power": "on", "playback": "playing"}]
    assert rows({"tea": 4}, "label", "minutes") == [{"label": "tea", "minutes": 4}]
