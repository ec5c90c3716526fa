"""The ``kitchen`` domain: a deterministic simulator of a kitchen's appliances.

An oven with cooking modes and presets, a four-burner cooktop with a child lock, a microwave, a
fridge with a freezer, a dishwasher, a kettle, a coffee maker and labelled kitchen timers. See
:mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for the task
generator.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.kitchen import _ops, _state, _tasks


@DOMAINS.register("kitchen")
class Kitchen(DeviceDomain):
    """A kitchen assistant for the oven, cooktop, microwave, fridge, dishwasher, kettle, coffee
    maker and timers."""

    name = "kitchen"
    policy = (
        "You are a kitchen assistant that controls the appliances of one kitchen through the tools. "
        "Do exactly what the user asked and nothing more: never change an appliance or setting the "
        "user did not mention, and use the values the user gave. Answer questions about the kitchen "
        "by reading the appliances' state with the tools, without changing anything. If a tool "
        "refuses an action, tell the user why instead of guessing."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Kitchen"]
