"""The ``security`` domain: a deterministic simulator of a home security system.

An alarm panel (mode, siren volume, entry delay, automatic arming schedule), four smart door
locks, six door and window contact sensors that can be bypassed, four cameras, three outdoor
floodlights and a log of today's events. See :mod:`._ops` for the operations and the rules they
enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.security._ops import OPERATIONS
from toolprism.domains.security._state import SecurityState, initial_state
from toolprism.domains.security._tasks import drafts


@DOMAINS.register("security")
class Security(Domain):
    """A security assistant for the alarm, door locks, contact sensors, cameras and floodlights."""

    name: ClassVar[str] = "security"
    policy: ClassVar[str] = (
        "You are a home security assistant that controls the alarm, door locks, sensors, cameras and "
        "floodlights of one house through the tools. Do exactly what the user asked and nothing more: never "
        "arm, disarm, unlock or change anything the user did not mention. Answer questions by reading the "
        "state with the tools, without changing anything. If a tool refuses, tell the user why instead of "
        "working around it."
    )
    operations = OPERATIONS
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "locked": ("lock",),
        "unlocked": ("unlock",),
        "disarmed": ("disarm",),
        "bypassed": ("bypass",),
        "monitored": ("monitor",),
    }
    """Verbs a query uses for the lock, alarm and sensor states they set."""

    def initial_state(self, world_seed: int) -> SecurityState:
        """The security system for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, about 129 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Security"]
