"""The task as a trace records it: a pydantic record with the JSON shape of :meth:`Task.to_json`.

The records are defined next to :class:`~toolprism.domains._base.Task`, whose :meth:`from_json`
validates through them; this module keeps their import path.
"""

from __future__ import annotations

from toolprism.domains._base import ReferenceStepRecord, TaskRecord

__all__ = ["ReferenceStepRecord", "TaskRecord"]
