"""The ``tv`` domain: a deterministic simulator of three television sets and a channel guide.

Each set (living room, bedroom, kids' room) has power, input (antenna, hdmi1, hdmi2, apps),
channel or app, playback, volume and mute, picture mode, subtitles, a sleep timer, a child lock
and its own installed apps; the antenna guide is shared. See :mod:`._ops` for the operations and
the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.tv._ops import OPERATIONS
from toolprism.domains.tv._state import TvState, initial_state
from toolprism.domains.tv._tasks import drafts


@DOMAINS.register("tv")
class Tv(Domain):
    """A television assistant for three sets."""

    name: ClassVar[str] = "tv"
    policy: ClassVar[str] = (
        "You are a television assistant that controls the three TV sets of one home through the tools. "
        "Do exactly what the user asked and nothing more: never change a set or setting the user did not "
        "mention. Answer questions by reading the sets' state or the channel guide without changing anything. "
        "If a tool refuses, tell the user why instead of guessing."
    )
    operations = OPERATIONS
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {"muted": ("mute",), "unmuted": ("unmute",)}

    def initial_state(self, world_seed: int) -> TvState:
        """The sets and guide for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, about 126 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Tv"]
