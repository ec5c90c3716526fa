"""The ``smartwatch`` domain: a deterministic simulator of one smartwatch.

Display (mode, brightness, face), four alarms, labelled timers, the workout in progress, daily
goals and a weekday/weekend sleep schedule. See :mod:`._ops` for the operations and the rules
they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.smartwatch import _ops, _state, _tasks


@DOMAINS.register("smartwatch")
class Smartwatch(DeviceDomain):
    """A smartwatch assistant for display, alarms, timers, workouts, goals and sleep."""

    name = "smartwatch"
    policy = (
        "You are the assistant on the user's smartwatch and change its settings through the tools. "
        "Do exactly what the user asked and nothing more: never touch an alarm, timer, workout, goal "
        "or setting the user did not mention. Answer questions by reading the watch with the tools. "
        "If a tool refuses, tell the user why instead of guessing or working around it."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Smartwatch"]
