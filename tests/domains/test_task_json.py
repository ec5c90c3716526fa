"""``Task.from_json`` inverts ``Task.to_json``, and ``TaskRecord`` (the trace's task) round-trips,
over the real tasks of every registered domain."""

from __future__ import annotations

import pytest

from toolprism.domains import Task, TaskRecord, domain_names, get_domain
from toolprism.errors import ConfigError
from toolprism.perturb import parse_perturbations, plan
from toolprism.perturb._intent import mentions, written


@pytest.mark.parametrize("name", domain_names())
def test_from_json_inverts_to_json_on_every_task(name: str) -> None:
    tasks = get_domain(name).tasks(0)
    assert tasks
    for task in tasks:
        assert Task.from_json(task.to_json()) == task, task.id
        record = TaskRecord.of(task)
        assert record.to_task() == task, task.id
        assert record.model_dump(mode="json") == task.to_json()  # the stored shape is unchanged
        assert TaskRecord.model_validate_json(record.model_dump_json()) == record


def test_from_json_fills_what_old_records_leave_out_and_ignores_extra_keys() -> None:
    task = get_domain("smart_home").tasks(0)[0]
    data = {k: v for k, v in task.to_json().items() if k not in ("reference", "world_seed", "kind", "form")}
    rebuilt = Task.from_json({**data, "encodings": {"native": []}})
    assert (rebuilt.reference, rebuilt.world_seed, rebuilt.kind, rebuilt.form) == ((), 0, "single", "easy")
    assert rebuilt.gold == task.gold


def test_from_json_lists_every_problem() -> None:
    with pytest.raises(ConfigError) as info:
        Task.from_json({"id": "x", "kind": "huge", "form": "odd"})
    assert len(info.value.problems) == 5  # domain, query, gold, kind, form
    assert any("'huge'" in p for p in info.value.problems)


def _json() -> dict:
    return get_domain("tv").tasks(0)[0].to_json()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (None, ["a task is a JSON object, not NoneType"]),
        ([], ["a task is a JSON object, not list"]),
        ({"gold": "x"}, ["task gold: "]),
        ({"gold": [{"op": 1}]}, ["task gold.0.op: "]),
        ({"gold": [{"op": "power", "args": "x"}]}, ["task gold.0.args: "]),
        ({"reference": [{"x": 1}]}, ["task reference.0.action: ", "task reference.0.x: "]),
        ({"world_seed": "a", "query": None, "id": 5}, ["task id: ", "task query: ", "task world_seed: "]),
        ({"world_seed": True}, ["task world_seed: "]),
    ],
)
def test_from_json_turns_every_bad_value_into_one_config_error(data: object, expected: list[str]) -> None:
    if isinstance(data, dict):
        data = {**_json(), **data}
    with pytest.raises(ConfigError) as info:
        Task.from_json(data)  # type: ignore[arg-type]
    assert len(info.value.problems) == len(expected), info.value.problems
    for problem, start in zip(sorted(info.value.problems), expected, strict=True):
        assert problem.startswith(start), problem


@pytest.mark.parametrize("name", ["tv", "smart_home", "media_player"])
def test_from_json_finds_the_spans_again(name: str) -> None:
    # the spans are not stored: a rebuilt task finds them in its query, as an imported pack's
    domain = get_domain(name)
    for task in domain.tasks(0):
        rebuilt = Task.from_json(task.to_json())
        in_own_words = {s for s in task.spans if written(task, s)}
        assert in_own_words <= set(rebuilt.spans), task.id
        assert all(written(rebuilt, s) for s in rebuilt.spans), task.id
    task = next(t for t in domain.tasks(0) if mentions(t))
    rebuilt = Task.from_json(task.to_json())
    instances, skips = plan(rebuilt, domain.action_space(), parse_perturbations("B2:light"), 0)
    assert instances and not skips
