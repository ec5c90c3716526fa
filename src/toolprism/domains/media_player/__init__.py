"""The ``media_player`` domain: a deterministic simulator of a five-zone home audio system.

Each zone (living room, kitchen, bedroom, office, patio) has a player with power, source
(streaming, radio, bluetooth, aux), playback, playlist or station, volume, bass and treble,
repeat mode and a sleep timer; sound presets and favourite slots are shared. See :mod:`._ops`
for the operations and the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.media_player import _ops, _state, _tasks


@DOMAINS.register("media_player")
class MediaPlayer(DeviceDomain):
    """A home audio assistant for the players of five zones."""

    name = "media_player"
    policy = (
        "You are an audio assistant that controls the music players of one home's zones through the tools. "
        "Do exactly what the user asked and nothing more: never change a zone or setting the user did not "
        "mention. Answer questions by reading the players' state without changing anything. If a tool refuses, "
        "tell the user why instead of guessing."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["MediaPlayer"]
