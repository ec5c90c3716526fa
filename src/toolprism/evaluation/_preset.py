"""Presets: named run setups that reproduce a paper's measurement condition (``toolprism run --preset``).

A preset fills the :class:`~toolprism.evaluation.RunConfig` fields the user did not set; anything
given on the command line (or passed to :func:`apply_preset`) wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolprism.domains.whole_catalog import MEMBERS
from toolprism.registry import Registry
from toolprism.shaping import PAPER_MAX_TURNS

DEVICE_DOMAINS = MEMBERS
"""The twelve device domains the Action-Space Shaping paper's synthetic benchmark has (its tool groups;
the members of the ``whole_catalog`` domain)."""


@dataclass(frozen=True)
class Preset:
    """A named run setup.

    Attributes:
        name: what ``--preset`` takes.
        summary: one line for ``--help``.
        settings: RunConfig field → value, applied where the user gave none.
    """

    name: str
    summary: str
    settings: Mapping[str, Any] = field(default_factory=dict)


PRESETS: Registry[Preset] = Registry("preset")

PRESETS.add(
    "action-space-shaping",
    Preset(
        "action-space-shaping",
        "the Action-Space Shaping paper's setup: its 32 variants (paper suite) on the twelve device domains and the "
        f"whole catalog, its hard adapter control (paper), its turn limit ({PAPER_MAX_TURNS}) and system instruction",
        {
            "domains": list(DEVICE_DOMAINS),
            "variants": ["paper"],
            "task_kinds": None,
            "control": "paper",
            "max_turns": PAPER_MAX_TURNS,
            "instruction": "paper",
        },
    ),
)


def apply_preset(name: str | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """RunConfig fields: the preset's settings, overridden by ``given`` (what the user set).

    Raises:
        ConfigError: an unknown preset (the error lists the known ones).
    """
    if name is None:
        return dict(given)
    return {**PRESETS.get(name).settings, **given, "preset": name}
