"""The ``vacuum`` domain: a deterministic simulator of a robot vacuum in a two-floor home.

Seven rooms on two floor maps (carpet, tile or wood floors), a robot with a dock, battery,
cleaning modes (vacuum, mop, both), suction and water levels, a mop pad, a child lock, no-go
zones, a weekly schedule and named presets. See :mod:`._ops` for the operations and the rules
they enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.vacuum._ops import OPERATIONS
from toolprism.domains.vacuum._state import VacuumState, initial_state
from toolprism.domains.vacuum._tasks import drafts


@DOMAINS.register("vacuum")
class Vacuum(Domain):
    """An assistant for one robot vacuum: cleaning jobs, settings, maps, no-go zones, schedule, presets."""

    name: ClassVar[str] = "vacuum"
    policy: ClassVar[str] = (
        "You control the household's robot vacuum through the tools. Do exactly what the user "
        "asked and nothing more: never start, stop or reconfigure anything the user did not "
        "mention, and use the values the user gave. Answer questions about the robot, the rooms "
        "or the presets by reading the state with the tools, without changing anything. If a "
        "tool refuses an action, tell the user why instead of guessing or working around it."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> VacuumState:
        """The home and robot for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's drafts on the world of ``world_seed`` (deterministic, 130)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Vacuum"]
