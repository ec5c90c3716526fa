"""The ``tv`` domain: a deterministic simulator of three television sets and a channel guide.

Each set (living room, bedroom, kids' room) has power, input (antenna, hdmi1, hdmi2, apps),
channel or app, playback, volume and mute, picture mode, subtitles, a sleep timer, a child lock
and its own installed apps; the antenna guide is shared. See :mod:`._ops` for the operations and
the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.tv import _ops, _state, _tasks


@DOMAINS.register("tv")
class Tv(DeviceDomain):
    """A television assistant for three sets."""

    name = "tv"
    policy = (
        "You are a television assistant that controls the three TV sets of one home through the tools. "
        "Do exactly what the user asked and nothing more: never change a set or setting the user did not "
        "mention. Answer questions by reading the sets' state or the channel guide without changing anything. "
        "If a tool refuses, tell the user why instead of guessing."
    )
    operations = _ops.OPERATIONS
    aliases = {"muted": ("mute",), "unmuted": ("unmute",)}
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Tv"]
