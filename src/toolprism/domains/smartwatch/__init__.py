"""The ``smartwatch`` domain: a deterministic simulator of one smartwatch.

Display (mode, brightness, face), four alarms, labelled timers, the workout in progress, daily
goals and a weekday/weekend sleep schedule. See :mod:`._ops` for the operations and the rules
they enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.smartwatch._ops import OPERATIONS
from toolprism.domains.smartwatch._state import WatchState, initial_state
from toolprism.domains.smartwatch._tasks import drafts


@DOMAINS.register("smartwatch")
class Smartwatch(Domain):
    """A smartwatch assistant for display, alarms, timers, workouts, goals and sleep."""

    name: ClassVar[str] = "smartwatch"
    policy: ClassVar[str] = (
        "You are the assistant on the user's smartwatch and change its settings through the tools. "
        "Do exactly what the user asked and nothing more: never touch an alarm, timer, workout, goal "
        "or setting the user did not mention. Answer questions by reading the watch with the tools. "
        "If a tool refuses, tell the user why instead of guessing or working around it."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> WatchState:
        """The watch for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 124 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Smartwatch"]
