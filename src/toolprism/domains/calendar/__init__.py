"""The ``calendar`` domain: a deterministic simulator of one person's week of events.

Eight named events (six on the calendar at first) with a day, start hour, duration, reminder,
guests and visibility; an availability mode; working hours per day; four meeting presets. See
:mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for the task
templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.calendar._ops import OPERATIONS
from toolprism.domains.calendar._state import CalendarState, initial_state
from toolprism.domains.calendar._tasks import drafts


@DOMAINS.register("calendar")
class Calendar(Domain):
    """A calendar assistant for events, reminders, guests, availability, working hours and presets."""

    name: ClassVar[str] = "calendar"
    policy: ClassVar[str] = (
        "You are a calendar assistant that manages one person's calendar through the tools. "
        "Do exactly what the user asked and nothing more: never add, move or change an event, "
        "guest or setting the user did not mention. Answer questions by reading the calendar with "
        "the tools. If a tool refuses, tell the user why instead of guessing or working around it."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> CalendarState:
        """The calendar for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 124 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Calendar"]
