"""The task as a trace records it: a pydantic record with the JSON shape of :meth:`Task.to_json`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from toolprism.domains._base import Form, Task, TaskKind
from toolprism.schema import ActionRecord


class ReferenceStepRecord(BaseModel):
    """One step of a task's reference trace: ``{"action": {"op", "args"}, "reply": <JSON>}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: ActionRecord
    reply: Any = None


class TaskRecord(BaseModel):
    """A task as stored in a trace (the query as posed, before any perturbation).

    Attributes:
        id / domain / query / world_seed / kind / form: as :class:`Task` has them.
        gold: the gold native actions, in execution order.
        reference: the reference trace (gold actions with their replies on a fresh world).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    domain: str
    query: str
    world_seed: int
    kind: TaskKind
    form: Form
    gold: list[ActionRecord]
    reference: list[ReferenceStepRecord]

    @classmethod
    def of(cls, task: Task) -> TaskRecord:
        """The record of ``task``."""
        return cls.model_validate(task.to_json())

    def to_task(self) -> Task:
        """The :class:`Task` again (``TaskRecord.of(task).to_task() == task``)."""
        return Task.from_json(self.model_dump(mode="json"))
