"""The ``media_player`` domain: a deterministic simulator of a five-zone home audio system.

Each zone (living room, kitchen, bedroom, office, patio) has a player with power, source
(streaming, radio, bluetooth, aux), playback, playlist or station, volume, bass and treble,
repeat mode and a sleep timer; sound presets and favourite slots are shared. See :mod:`._ops`
for the operations and the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from __future__ import annotations

from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.media_player._ops import OPERATIONS
from toolprism.domains.media_player._state import MediaState, initial_state
from toolprism.domains.media_player._tasks import drafts


@DOMAINS.register("media_player")
class MediaPlayer(Domain):
    """A home audio assistant for the players of five zones."""

    name: ClassVar[str] = "media_player"
    policy: ClassVar[str] = (
        "You are an audio assistant that controls the music players of one home's zones through the tools. "
        "Do exactly what the user asked and nothing more: never change a zone or setting the user did not "
        "mention. Answer questions by reading the players' state without changing anything. If a tool refuses, "
        "tell the user why instead of guessing."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> MediaState:
        """The audio system for ``world_seed`` (deterministic)."""
        return initial_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's tasks on the world of ``world_seed`` (deterministic, about 126 drafts)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["MediaPlayer"]
