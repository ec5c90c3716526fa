"""The ``security`` domain: a deterministic simulator of a home security system.

An alarm panel (mode, siren volume, entry delay, automatic arming schedule), four smart door
locks, six door and window contact sensors that can be bypassed, four cameras, three outdoor
floodlights and a log of today's events. See :mod:`._ops` for the operations and the rules they
enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.security import _ops, _state, _tasks


@DOMAINS.register("security")
class Security(DeviceDomain):
    """A security assistant for the alarm, door locks, contact sensors, cameras and floodlights."""

    name = "security"
    policy = (
        "You are a home security assistant that controls the alarm, door locks, sensors, cameras and "
        "floodlights of one house through the tools. Do exactly what the user asked and nothing more: never "
        "arm, disarm, unlock or change anything the user did not mention. Answer questions by reading the "
        "state with the tools, without changing anything. If a tool refuses, tell the user why instead of "
        "working around it."
    )
    operations = _ops.OPERATIONS
    aliases = {
        "locked": ("lock",),
        "unlocked": ("unlock",),
        "disarmed": ("disarm",),
        "bypassed": ("bypass",),
        "monitored": ("monitor",),
    }
    """Verbs a query uses for the lock, alarm and sensor states they set."""
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Security"]
