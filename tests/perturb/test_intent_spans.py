"""B2/B3 read where the query states each gold value from the spans recorded when it was written."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from toolprism.domains import domain_names, get_domain, surface_forms
from toolprism.domains._grammar import Span
from toolprism.perturb import SUBTYPES, parse_perturbations, plan
from toolprism.perturb._intent import mentions, written


def _task_stating_a_value_twice():
    domain = get_domain("media_player")
    for task in domain.tasks(0):
        spans = {}
        for s in task.spans:
            spans.setdefault((s.action, s.param), set()).add((s.start, s.end))
        twice = [key for key, at in spans.items() if len(at) > 1]
        if twice:
            return domain, task, twice[0]
    raise AssertionError("no media_player task states a value twice")


def test_b2_leaves_a_value_out_everywhere_the_query_states_it():
    domain, task, (action, param) = _task_stating_a_value_twice()
    value = task.gold[action].arguments[param]
    only = dataclasses.replace(task, spans=tuple(s for s in task.spans if (s.action, s.param) == (action, param)))
    (instance,), _ = plan(only, domain.action_space(), parse_perturbations("B2:light"), 0)
    shown, _ = SUBTYPES.get("B2").rewrite(instance, task.query, None)
    assert len(instance.params["spans"]) > 1
    assert str(value).replace("_", " ") not in shown.lower(), shown


def test_mentions_come_from_the_spans_not_from_a_search():
    task = get_domain("tv").tasks(0)[0]
    assert mentions(dataclasses.replace(task, spans=())) == []
    value = task.gold[0].arguments["tv"]
    at = task.query.lower().index(str(value).replace("_", " "))
    fake = Span(at, at + len(str(value)), 0, "tv", value)
    assert mentions(dataclasses.replace(task, spans=(fake,))) == [fake]
    bare = dataclasses.replace(task, spans=())
    _, skips = plan(bare, get_domain("tv").action_space(), parse_perturbations("B2:light"), 0)
    assert skips and "no gold value" in skips[0].reason


CASES = ["tv/single/9", "navigation/question/5", "car_cabin/set_window/0"]


def _task(task_id: str):
    domain = get_domain(task_id.split("/")[0])
    return domain, next(t for t in domain.tasks(0) if t.id == task_id)


@pytest.mark.parametrize("task_id", CASES)
@pytest.mark.parametrize("term", [f"{s}:{v}" for s in ("B2", "B3") for v in ("light", "medium", "heavy")])
def test_b2_b3_replace_only_values_stated_in_their_own_words(task_id: str, term: str) -> None:
    # "Mute" states muted, "Close" closed, "best rated" a sort order: no value's words to swap
    domain, task = _task(task_id)
    aliased = [s for s in task.spans if not written(task, s)]
    assert aliased, "the case needs a span in other words than its value's"
    (instance,), _ = plan(task, domain.action_space(), parse_perturbations(term), 0)
    shown, _ = SUBTYPES.get(term[:2]).rewrite(instance, task.query, random.Random(1))
    for span in aliased:
        assert task.query[span.start : span.end] in shown, shown
    assert all(written(task, m) for m in mentions(task))
    assert "the the" not in shown.lower() and "the usual the" not in shown.lower(), shown


def test_b2_takes_the_article_with_the_value() -> None:
    domain, task = _task("tv/single/9")  # "Mute the bedroom tv."
    (instance,), _ = plan(task, domain.action_space(), parse_perturbations("B2:light"), 0)
    assert SUBTYPES.get("B2").rewrite(instance, task.query, None)[0] == "Mute the usual tv."


def _stated(text: str, value) -> bool:
    forms = [f for group in surface_forms(value) for f in group if f]
    return any(re.search(rf"(?<![\w.]){re.escape(f)}(?!\w)", text, re.IGNORECASE) for f in forms)


def _b3_decoys_unstated(names: list[str]) -> int:
    planned = 0
    for name in names:
        domain = get_domain(name)
        for task in domain.tasks(0):
            instances, _ = plan(task, domain.action_space(), parse_perturbations("B3:heavy"), 0)
            for instance in instances:
                planned += 1
                stated = [d for d in instance.params["decoys"] if _stated(task.query, d)]
                assert not stated, (task.id, task.query, stated)
    return planned


def test_b3_wrong_values_are_never_ones_the_query_already_states() -> None:
    # "...the bedroom tv... Sorry, correction: I meant living room, not bedroom" is ambiguous
    # when the query also says "bedroom" of another argument (the domains where it happened most)
    assert _b3_decoys_unstated(["tv", "garden", "climate", "car_cabin"]) > 500


@pytest.mark.slow
def test_b3_wrong_values_are_never_stated_in_any_domain() -> None:
    assert _b3_decoys_unstated(domain_names()) > 1000


@pytest.mark.parametrize("name", ["car_cabin", "garden", "tv", "vacuum"])
def test_b3_heavy_states_two_different_wrong_values_or_skips(name: str) -> None:
    domain = get_domain(name)
    skipped = 0
    for task in domain.tasks(0):
        (instances, skips) = plan(task, domain.action_space(), parse_perturbations("B3:heavy"), 0)
        for instance in instances:
            first, second = instance.params["decoys"]
            assert first != second, (task.id, instance.params)
            shown, _ = SUBTYPES.get("B3").rewrite(instance, task.query, random.Random(0))
            assert f"make that {str(second).replace('_', ' ')}." in shown, shown
        if skips and not plan(task, domain.action_space(), parse_perturbations("B3:light"), 0)[1]:
            assert "two different wrong values" in skips[0].reason, skips
            skipped += 1
    assert skipped, "the domain has a value with just one other legal value (a two-value enum)"
    assert "two different wrong values" in SUBTYPES.get("B3").levels["heavy"]
