"""The ``garden`` domain: a deterministic simulator of a garden's watering, robot mower and lights.

Four irrigation zones (two lawns with sprinklers, two drip beds) with watering on or off, a run
time and a spray pattern; a robot mower that mows one lawn at a time; three outdoor lights. The
smallest device domain, written as the model for new ones: see :mod:`._ops` for the operations and
the rules they enforce, and :mod:`._tasks` for the task templates.
"""

from toolprism.domains import DOMAINS
from toolprism.domains._device import DeviceDomain
from toolprism.domains.garden import _ops, _state, _tasks


@DOMAINS.register("garden")
class Garden(DeviceDomain):
    """An assistant for one garden: irrigation zones, a robot mower and outdoor lights."""

    name = "garden"
    policy = (
        "You look after the garden's irrigation, robot mower and outdoor lights through the tools. "
        "Do exactly what the user asked and nothing more: never water, mow or switch anything the "
        "user did not mention, and use the values the user gave. Answer questions by reading the "
        "garden with the tools, without changing anything. If a tool refuses an action, tell the "
        "user why instead of guessing or working around it."
    )
    operations = _ops.OPERATIONS
    make_state = _state.initial_state
    make_drafts = _tasks.drafts


__all__ = ["Garden"]
