"""B2/B3 read where the query states each gold value from the spans recorded when it was written."""

from __future__ import annotations

import dataclasses

from toolprism.domains import get_domain
from toolprism.domains._grammar import Span
from toolprism.perturb import SUBTYPES, parse_perturbations, plan
from toolprism.perturb._intent import mentions


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
    fake = Span(0, 4, 0, "tv", task.gold[0].arguments.get("tv", "x"))
    assert mentions(dataclasses.replace(task, spans=(fake,))) == [fake]
    bare = dataclasses.replace(task, spans=())
    _, skips = plan(bare, get_domain("tv").action_space(), parse_perturbations("B2:light"), 0)
    assert skips and "no gold value" in skips[0].reason
