"""The ``climate`` domain: a deterministic simulator of a zoned home heat-pump system.

Five zones, each with a heat pump (power, mode, target temperature, fan speed, child lock, timer,
weekday/weekend program, preset) and an air vent, plus a whole-home humidity controller and air
purifier. See :mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for
the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.climate import _ops, _state, _tasks


@DOMAINS.register("climate")
class Climate(DeviceDomain):
    """A climate assistant for zoned heat pumps, vents, timers, schedules, presets, humidity and air."""

    name = "climate"
    policy = (
        "You are a climate assistant that controls the heat pumps, vents, humidity controller and air "
        "purifier of one home through the tools. Do exactly what the user asked and nothing more: never "
        "change a zone, device or setting the user did not mention. Answer questions by reading the state "
        "with the tools, without changing anything. If a tool refuses, tell the user why instead of guessing."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Climate"]
