"""The ``calendar`` domain: a deterministic simulator of one person's week of events.

Eight named events (six on the calendar at first) with a day, start hour, duration, reminder,
guests and visibility; an availability mode; working hours per day; four meeting presets. See
:mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for the task
templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.calendar import _ops, _state, _tasks


@DOMAINS.register("calendar")
class Calendar(DeviceDomain):
    """A calendar assistant for events, reminders, guests, availability, working hours and presets."""

    name = "calendar"
    policy = (
        "You are a calendar assistant that manages one person's calendar through the tools. "
        "Do exactly what the user asked and nothing more: never add, move or change an event, "
        "guest or setting the user did not mention. Answer questions by reading the calendar with "
        "the tools. If a tool refuses, tell the user why instead of guessing or working around it."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Calendar"]
