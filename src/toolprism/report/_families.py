"""Operator families of variants, for grouping the grid's columns (DESIGN.md glossary; Action-Space
Shaping, section 3: per-tool surface, tool-set partitioning, cross-call protocols)."""

from __future__ import annotations

import re
from collections.abc import Iterable

NATIVE = "native"
SURFACE = "per-tool surface"
PARTITIONING = "tool-set partitioning"
PROTOCOLS = "cross-call protocols"
COMPOSED = "composed"

FAMILIES: tuple[str, ...] = (NATIVE, SURFACE, PARTITIONING, PROTOCOLS, COMPOSED)
"""The grid's column groups, in order: the identity, the three operator families, and variants
that stack operators of several families (or the paper's ``compose``)."""

OPERATOR_FAMILY: dict[str, str] = {
    "nest": SURFACE,
    "flatten": SURFACE,
    "rename": SURFACE,
    "strip": SURFACE,
    "reorder": SURFACE,
    "merge": PARTITIONING,
    "split": PARTITIONING,
    "ladder": PARTITIONING,
    "interval": PARTITIONING,
    "transaction": PROTOCOLS,
    "reference": PROTOCOLS,
    "discovery": PROTOCOLS,
}
"""Operator name -> its family; an operator not named here (``compose``, a new one) counts as
:data:`COMPOSED`."""

_NAME = re.compile(r"^\s*([a-z_-]+)")


def spec_operators(spec: str) -> list[str]:
    """The operator names of a spec string, in pipeline order (``[]`` for native)."""
    names = []
    for term in spec.split("|"):
        match = _NAME.match(term)
        if match and match.group(1) != "native":
            names.append(match.group(1))
    return names


def variant_family(spec: str) -> str:
    """The family of a variant from its spec: :data:`NATIVE` for the identity, the family of its
    operators when they share one, else :data:`COMPOSED`."""
    families = {OPERATOR_FAMILY.get(name, COMPOSED) for name in spec_operators(spec)}
    if not families:
        return NATIVE
    return families.pop() if len(families) == 1 else COMPOSED


def group_by_family(variants: Iterable[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """(family, variant names) in :data:`FAMILIES` order, families without a variant left out;
    variants keep their given order within a family.

    Args:
        variants: (name, spec) pairs, in display order.
    """
    groups: dict[str, list[str]] = {f: [] for f in FAMILIES}
    for name, spec in variants:
        if name not in groups[variant_family(spec)]:
            groups[variant_family(spec)].append(name)
    return [(f, names) for f, names in groups.items() if names]
