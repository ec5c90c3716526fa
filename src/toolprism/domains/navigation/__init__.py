"""The ``navigation`` domain: a deterministic simulator of an in-car navigation unit.

Routes to saved places with a preference (fastest, shortest, eco, scenic), pause/resume/stop,
up to three stops at points of interest found by category, road features to avoid, the map
mode, voice guidance (level, language, volume) and live ETA sharing. See :mod:`._ops` for the
operations and the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.navigation import _ops, _state, _tasks
from toolprism.domains.navigation._state import NavigationState


@DOMAINS.register("navigation")
class Navigation(DeviceDomain):
    """A navigation assistant: routes, stops, places, avoided roads, map, voice guidance, ETA sharing."""

    name = "navigation"
    policy = (
        "You are the navigation assistant of one car and act only through the tools. Do exactly what "
        "the driver asked, with the places, stops and values they named, and nothing more: never start, "
        "stop or change a route, stop or setting they did not mention. Answer questions by reading the "
        "current state or searching places with the tools, without changing anything. If a tool refuses, "
        "tell the driver why instead of guessing or working around it."
    )
    operations = _ops.OPERATIONS
    aliases = {
        "distance": ("nearest", "closest"),
        "rating": ("best rated", "highest rated"),
        "muted": ("mute",),
        "display": ("map",),
    }
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Navigation", "NavigationState"]
