"""The ``smart_home`` domain: a deterministic simulator of a seven-room house.

Lights (power, brightness, color), blinds, ceiling fans, speakers, two thermostat zones, three
door locks and named scenes. See :mod:`._ops` for the operations and the rules they enforce, and
:mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.smart_home import _ops, _state, _tasks


@DOMAINS.register("smart_home")
class SmartHome(DeviceDomain):
    """A home assistant for lights, blinds, fans, speakers, thermostats, locks and scenes."""

    name = "smart_home"
    policy = (
        "You are a home assistant that controls the devices of one house through the tools. "
        "Do exactly what the user asked, using the tools, and nothing more: never change a device, "
        "room or setting the user did not mention. Use the values the user gave; if a tool "
        "refuses, tell the user why instead of guessing. Answer questions about the house by "
        "reading the device state with the tools, without changing anything."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["SmartHome"]
