"""The ``laundry`` domain: a deterministic simulator of a laundry room's washer and dryer.

The washer's cycle, temperature, spin, options and detergent dispenser; the dryer's program,
dryness, heat and options; delayed starts, a child lock over both start buttons, and presets.
See :mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for the task
generator.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.laundry._ops import OPERATIONS
from toolprism.domains.laundry._state import LaundryState, initial_state
from toolprism.domains.laundry._tasks import drafts


@DOMAINS.register("laundry")
class Laundry(Domain):
    """A laundry assistant for one washer and one dryer."""

    name: ClassVar[str] = "laundry"
    policy: ClassVar[str] = (
        "You are a laundry assistant that controls a washer and a dryer through the tools. "
        "Do exactly what the user asked and nothing more: never change a machine, setting or "
        "option the user did not mention, and use the values the user gave. Answer questions "
        "about the machines by reading their state with the tools, without changing anything. "
        "If a tool refuses an action, tell the user why instead of guessing."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> LaundryState:
        """The laundry room for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 126 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Laundry"]
