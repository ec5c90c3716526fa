"""The ``navigation`` domain: a deterministic simulator of an in-car navigation unit.

Routes to saved places with a preference (fastest, shortest, eco, scenic), pause/resume/stop,
up to three stops at points of interest found by category, road features to avoid, the map
mode, voice guidance (level, language, volume) and live ETA sharing. See :mod:`._ops` for the
operations and the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.navigation._ops import OPERATIONS
from toolprism.domains.navigation._state import NavigationState, initial_state
from toolprism.domains.navigation._tasks import drafts


@DOMAINS.register("navigation")
class Navigation(Domain):
    """A navigation assistant: routes, stops, places, avoided roads, map, voice guidance, ETA sharing."""

    name: ClassVar[str] = "navigation"
    policy: ClassVar[str] = (
        "You are the navigation assistant of one car and act only through the tools. Do exactly what "
        "the driver asked, with the places, stops and values they named, and nothing more: never start, "
        "stop or change a route, stop or setting they did not mention. Answer questions by reading the "
        "current state or searching places with the tools, without changing anything. If a tool refuses, "
        "tell the driver why instead of guessing or working around it."
    )
    operations = OPERATIONS
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "distance": ("nearest", "closest"),
        "rating": ("best rated", "highest rated"),
        "muted": ("mute",),
        "display": ("map",),
    }

    def initial_state(self, world_seed: int) -> NavigationState:
        """The navigation unit for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 130 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Navigation", "NavigationState"]
