"""The ``car_cabin`` domain: a deterministic simulator of a car's cabin comfort controls.

Three climate zones with modes and a blower, a rear defroster and a steering heater, four seats
(heated; the front ones also ventilated), four windows with rear child locks, a sunroof that
respects the rain sensor, ambient lighting and named comfort presets. See :mod:`._ops` for the
operations and the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.car_cabin._ops import OPERATIONS
from toolprism.domains.car_cabin._state import CabinState, initial_state
from toolprism.domains.car_cabin._tasks import drafts


@DOMAINS.register("car_cabin")
class CarCabin(Domain):
    """An in-car assistant for climate, seats, windows, sunroof, child locks, lighting and presets."""

    name: ClassVar[str] = "car_cabin"
    policy: ClassVar[str] = (
        "You are the in-car assistant that controls the cabin of one car through the tools. "
        "Do exactly what the driver asked, with the values they gave, and nothing more: never change "
        "a setting, seat, zone or window they did not mention. Answer questions by reading the current "
        "state with the tools, without changing anything. If a tool refuses, tell the driver why "
        "instead of guessing or working around it."
    )
    operations = OPERATIONS
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "closed": ("close", "shut"),
        "windows": ("window", "sunroof", "rain sensor"),
        "doors": ("door", "child lock"),
    }

    def initial_state(self, world_seed: int) -> CabinState:
        """The cabin for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, 130 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["CarCabin", "CabinState"]
