"""The ``car_cabin`` domain: a deterministic simulator of a car's cabin comfort controls.

Three climate zones with modes and a blower, a rear defroster and a steering heater, four seats
(heated; the front ones also ventilated), four windows with rear child locks, a sunroof that
respects the rain sensor, ambient lighting and named comfort presets. See :mod:`._ops` for the
operations and the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.car_cabin import _ops, _state, _tasks
from toolprism.domains.car_cabin._state import CabinState


@DOMAINS.register("car_cabin")
class CarCabin(DeviceDomain):
    """An in-car assistant for climate, seats, windows, sunroof, child locks, lighting and presets."""

    name = "car_cabin"
    policy = (
        "You are the in-car assistant that controls the cabin of one car through the tools. "
        "Do exactly what the driver asked, with the values they gave, and nothing more: never change "
        "a setting, seat, zone or window they did not mention. Answer questions by reading the current "
        "state with the tools, without changing anything. If a tool refuses, tell the driver why "
        "instead of guessing or working around it."
    )
    operations = _ops.OPERATIONS
    aliases = {
        "closed": ("close", "shut"),
        "windows": ("window", "sunroof", "rain sensor"),
        "doors": ("door", "child lock"),
    }
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["CarCabin", "CabinState"]
