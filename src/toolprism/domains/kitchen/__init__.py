"""The ``kitchen`` domain: a deterministic simulator of a kitchen's appliances.

An oven with cooking modes and presets, a four-burner cooktop with a child lock, a microwave, a
fridge with a freezer, a dishwasher, a kettle, a coffee maker and labelled kitchen timers. See
:mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for the task
generator.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.kitchen._ops import OPERATIONS
from toolprism.domains.kitchen._state import KitchenState, initial_state
from toolprism.domains.kitchen._tasks import drafts


@DOMAINS.register("kitchen")
class Kitchen(Domain):
    """A kitchen assistant for the oven, cooktop, microwave, fridge, dishwasher, kettle, coffee
    maker and timers."""

    name: ClassVar[str] = "kitchen"
    policy: ClassVar[str] = (
        "You are a kitchen assistant that controls the appliances of one kitchen through the tools. "
        "Do exactly what the user asked and nothing more: never change an appliance or setting the "
        "user did not mention, and use the values the user gave. Answer questions about the kitchen "
        "by reading the appliances' state with the tools, without changing anything. If a tool "
        "refuses an action, tell the user why instead of guessing."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> KitchenState:
        """The kitchen for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 126 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Kitchen"]
