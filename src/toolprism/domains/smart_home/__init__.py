"""The ``smart_home`` domain: a deterministic simulator of a seven-room house.

Lights (power, brightness, color), blinds, ceiling fans, speakers, two thermostat zones, three
door locks and named scenes. See :mod:`._ops` for the operations and the rules they enforce, and
:mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.smart_home._ops import OPERATIONS
from toolprism.domains.smart_home._state import HomeState, initial_state
from toolprism.domains.smart_home._tasks import drafts


@DOMAINS.register("smart_home")
class SmartHome(Domain):
    """A home assistant for lights, blinds, fans, speakers, thermostats, locks and scenes."""

    name: ClassVar[str] = "smart_home"
    policy: ClassVar[str] = (
        "You are a home assistant that controls the devices of one house through the tools. "
        "Do exactly what the user asked, using the tools, and nothing more: never change a device, "
        "room or setting the user did not mention. Use the values the user gave; if a tool "
        "refuses, tell the user why instead of guessing. Answer questions about the house by "
        "reading the device state with the tools, without changing anything."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> HomeState:
        """The house for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, about 54)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["SmartHome"]
