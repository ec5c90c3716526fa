"""The ``vacuum`` domain: a deterministic simulator of a robot vacuum in a two-floor home.

Seven rooms on two floor maps (carpet, tile or wood floors), a robot with a dock, battery,
cleaning modes (vacuum, mop, both), suction and water levels, a mop pad, a child lock, no-go
zones, a weekly schedule and named presets. See :mod:`._ops` for the operations and the rules
they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.vacuum import _ops, _state, _tasks


@DOMAINS.register("vacuum")
class Vacuum(DeviceDomain):
    """An assistant for one robot vacuum: cleaning jobs, settings, maps, no-go zones, schedule, presets."""

    name = "vacuum"
    policy = (
        "You control the household's robot vacuum through the tools. Do exactly what the user "
        "asked and nothing more: never start, stop or reconfigure anything the user did not "
        "mention, and use the values the user gave. Answer questions about the robot, the rooms "
        "or the presets by reading the state with the tools, without changing anything. If a "
        "tool refuses an action, tell the user why instead of guessing or working around it."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Vacuum"]
