"""Which anchors each (subtype, severity) cell perturbs: 48 of the 192, three per tool.

ToolRobustBench's per-model shape is 192 clean anchors (16 tools x 12) and 2,016 perturbed records
(14 subtypes x 3 severities x 48), so each cell covers 48 anchors, not all 192. The paper does
not say which; this assignment is toolprism's reading, chosen to be balanced and deterministic:

- each tool's 12 anchors form four blocks of three (anchors 0-2, 3-5, 6-8, 9-11);
- for subtype ``i`` (A1 = 0 ... D3 = 13, :data:`SUBTYPE_IDS`) and tool ``j`` (its place in the
  sample, 0-15), block ``(i + j) % 4`` is left clean, and the light, medium and heavy cells take
  blocks ``(i + j + 1) % 4``, ``(i + j + 2) % 4`` and ``(i + j + 3) % 4``.

So every cell has 3 anchors of each of the 16 tools (48), a subtype's three severities perturb
disjoint anchors (never the same anchor twice), and every anchor is perturbed in 10 or 11 of the
42 cells. A mixed condition (``A3:medium+C4:medium``) covers the cell of its first term in
canonical (subtype) order, so it runs on the same 48 anchors as that constituent alone.
"""

from __future__ import annotations

SUBTYPE_IDS: tuple[str, ...] = ("A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C2", "C3", "C4", "D1", "D2", "D3")
"""The paper's 14 subtypes, in order (a test checks they are the registered ones)."""
SEVERITY_ORDER: tuple[str, ...] = ("light", "medium", "heavy")
BLOCK = 3
"""Anchors per block: 12 anchors per tool make four blocks."""


def cell_block(subtype: str, severity: str, tool_index: int) -> int | None:
    """The block (0-3) of tool ``tool_index``'s anchors the cell perturbs; None for a subtype or
    severity outside the paper's design (such a cell covers every anchor)."""
    if subtype not in SUBTYPE_IDS or severity not in SEVERITY_ORDER:
        return None
    return (SUBTYPE_IDS.index(subtype) + tool_index + 1 + SEVERITY_ORDER.index(severity)) % 4


def in_cell(condition: str, tool_index: int, anchor: int) -> bool:
    """Whether anchor ``anchor`` of tool ``tool_index`` runs under ``condition`` (``""`` clean:
    every anchor; ``C2:medium``; a mixed ``A3:medium+C4:medium``: its first term's cell)."""
    if not condition:
        return True
    subtype, _, severity = condition.split("+")[0].partition(":")
    block = cell_block(subtype, severity, tool_index)
    return block is None or anchor // BLOCK == block
