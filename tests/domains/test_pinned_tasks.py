"""Pinned task sets: any change to what a generator makes is a deliberate, visible version bump.

``pinned_task_sets.json`` holds, per seed and domain, the domain version and the task-set hash
(``toolprism domains --hashes --seed N``). A failure here means a generator now makes other tasks:
if that is intended, bump the domain's ``version`` and re-pin the printed values.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from toolprism.domains import domain_names, get_domain, task_hash, task_set_hash

PINNED = json.loads((Path(__file__).with_name("pinned_task_sets.json")).read_text())


def _check(seed: int) -> None:
    now = {}
    for name in domain_names():
        domain = get_domain(name)
        now[name] = {"version": domain.version, "set_hash": task_set_hash(domain.tasks(seed))}
    changed = {n: v for n, v in now.items() if PINNED[str(seed)].get(n) != v}
    assert not changed, f"seed {seed}: task sets differ from the pins (bump the version, then re-pin): {changed}"
    assert set(PINNED[str(seed)]) == set(now), "every domain is pinned, and only those"


def test_seed_0_task_sets_are_pinned() -> None:
    _check(0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_other_seeds_task_sets_are_pinned(seed: int) -> None:
    _check(seed)


def test_content_hash_covers_the_task_and_the_domain_version() -> None:
    task = get_domain("tv").tasks(0)[0]
    assert task.content_hash == task_hash(task.to_json(), 1)
    assert len(task.content_hash) == 16
    for change in ({"query": task.query + "!"}, {"world_seed": 7}, {"version": 2}, {"gold": task.gold[:0]}):
        assert dataclasses.replace(task, **change).content_hash != task.content_hash, change


def test_the_set_hash_sees_order_and_membership() -> None:
    tasks = get_domain("tv").tasks(0)[:5]
    assert task_set_hash(tasks) == task_set_hash(list(tasks))
    assert task_set_hash(tasks[::-1]) != task_set_hash(tasks)
    assert task_set_hash(tasks[:4]) != task_set_hash(tasks)
