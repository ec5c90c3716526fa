"""The ``climate`` domain: a deterministic simulator of a zoned home heat-pump system.

Five zones, each with a heat pump (power, mode, target temperature, fan speed, child lock, timer,
weekday/weekend program, preset) and an air vent, plus a whole-home humidity controller and air
purifier. See :mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for
the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.climate._ops import OPERATIONS
from toolprism.domains.climate._state import ClimateState, initial_state
from toolprism.domains.climate._tasks import drafts


@DOMAINS.register("climate")
class Climate(Domain):
    """A climate assistant for zoned heat pumps, vents, timers, schedules, presets, humidity and air."""

    name: ClassVar[str] = "climate"
    policy: ClassVar[str] = (
        "You are a climate assistant that controls the heat pumps, vents, humidity controller and air "
        "purifier of one home through the tools. Do exactly what the user asked and nothing more: never "
        "change a zone, device or setting the user did not mention. Answer questions by reading the state "
        "with the tools, without changing anything. If a tool refuses, tell the user why instead of guessing."
    )
    operations = OPERATIONS
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {}

    def initial_state(self, world_seed: int) -> ClimateState:
        """The climate system for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 129 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Climate"]
