"""``Task.from_json`` inverts ``Task.to_json``, and ``TaskRecord`` (the trace's task) round-trips,
over the real tasks of every registered domain."""

from __future__ import annotations

import pytest

from toolprism.domains import Task, TaskRecord, domain_names, get_domain
from toolprism.errors import ConfigError


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
