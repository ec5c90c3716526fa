"""The ``laundry`` domain: a deterministic simulator of a laundry room's washer and dryer.

The washer's cycle, temperature, spin, options and detergent dispenser; the dryer's program,
dryness, heat and options; delayed starts, a child lock over both start buttons, and presets.
See :mod:`._ops` for the operations and the rules they enforce, and :mod:`._tasks` for the task
generator.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.laundry import _ops, _state, _tasks


@DOMAINS.register("laundry")
class Laundry(DeviceDomain):
    """A laundry assistant for one washer and one dryer."""

    name = "laundry"
    policy = (
        "You are a laundry assistant that controls a washer and a dryer through the tools. "
        "Do exactly what the user asked and nothing more: never change a machine, setting or "
        "option the user did not mention, and use the values the user gave. Answer questions "
        "about the machines by reading their state with the tools, without changing anything. "
        "If a tool refuses an action, tell the user why instead of guessing."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Laundry"]
