"""The paper's merge partitions by groups (Action-Space Shaping, appendix "merge · semantic /
random / anti-semantic groups"; paper code ``benchmarks/synthetic/opspecs2.py``, whose output is
``specs/mgroup_{sem,rand,anti}.json``).

All three have the same number of groups ``k`` (default ``max(2, round(n / 4))`` for ``n`` tools,
about four tools a group) and differ only in which tools share a dispatcher:

- ``semantic``: average-linkage agglomerative clustering of the tools down to ``k`` clusters;
  the similarity of two tools is ``0.6 * J(name tokens) + 0.4 * J(parameter names)`` (Jaccard,
  name tokens split on ``_`` without set/get/the/a/to/of); the first best pair merges.
- ``anti_semantic``: the semantic clusters' members dealt round-robin into ``k`` groups, so
  each group mixes clusters (empty groups dropped, as the paper's compiler drops them).
- ``shuffled``: ``random.Random(seed).shuffle`` of the tools (the paper's seed is 20260715),
  cut into the semantic clusters' sizes.

Each group is named after its two most common name tokens, ``<t1>_<t2>_ops`` (``_x`` appended
while taken). The paper's groups were made by this rule, not by hand, so the same rule applies to
any catalog; on the paper's catalog it reproduces its spec files.
"""

from __future__ import annotations

import random
from collections import Counter

from toolprism.schema import ToolSpec

GENERIC = frozenset({"set", "get", "the", "a", "to", "of"})
PAPER_SEED = 20260715


def default_k(n: int) -> int:
    """The paper's group count for ``n`` tools (Python's ``round``: halves to even)."""
    return max(2, round(n / 4))


def _tokens(tool: ToolSpec) -> set[str]:
    return set(tool.name.split("_")) - GENERIC


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, len(a | b))


def similarity(a: ToolSpec, b: ToolSpec) -> float:
    """``0.6 * J(name tokens) + 0.4 * J(parameter names)``."""
    params_a = set(a.parameters.get("properties", {}))
    params_b = set(b.parameters.get("properties", {}))
    return 0.6 * _jaccard(_tokens(a), _tokens(b)) + 0.4 * _jaccard(params_a, params_b)


def semantic(tools: list[ToolSpec], k: int) -> list[list[ToolSpec]]:
    """Average-linkage agglomerative clusters, merged until ``k`` remain (the first best pair in
    index order merges; the merged cluster keeps the first cluster's place)."""
    clusters = [[t] for t in tools]
    while len(clusters) > k:
        best, pair = -1.0, (0, 1)
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                pairs = [similarity(a, b) for a in clusters[i] for b in clusters[j]]
                score = sum(pairs) / len(pairs)
                if score > best:
                    best, pair = score, (i, j)
        clusters[pair[0]] += clusters.pop(pair[1])
    return clusters


def anti_semantic(clusters: list[list[ToolSpec]], k: int) -> list[list[ToolSpec]]:
    """The clusters' members, in order, dealt round-robin into ``k`` groups (empty ones dropped)."""
    groups: list[list[ToolSpec]] = [[] for _ in range(k)]
    for i, tool in enumerate(t for c in clusters for t in c):
        groups[i % k].append(tool)
    return [g for g in groups if g]


def shuffled(tools: list[ToolSpec], sizes: list[int], seed: int) -> list[list[ToolSpec]]:
    """``tools`` shuffled by ``random.Random(seed)`` and cut into groups of ``sizes``."""
    order = list(tools)
    random.Random(seed).shuffle(order)
    out, start = [], 0
    for size in sizes:
        out.append(order[start : start + size])
        start += size
    return out


def names(groups: list[list[ToolSpec]]) -> list[str]:
    """``<t1>_<t2>_ops`` after each group's two most common name tokens (``misc_ops`` if none;
    ``_x`` appended while a name is taken)."""
    used: set[str] = set()
    out = []
    for group in groups:
        counts = Counter(tok for t in group for tok in t.name.split("_") if tok not in GENERIC)
        name = ("_".join(tok for tok, _ in counts.most_common(2)) or "misc") + "_ops"
        while name in used:
            name += "_x"
        used.add(name)
        out.append(name)
    return out


def partition(by: str, tools: list[ToolSpec], k: int, seed: int) -> dict[str, list[str]]:
    """Group name → member tool names (in group order) for ``by`` in semantic, anti_semantic,
    shuffled; ``k`` 0 means :func:`default_k`."""
    k = k or default_k(len(tools))
    clusters = semantic(tools, k)
    if by == "anti_semantic":
        clusters = anti_semantic(clusters, k)
    elif by == "shuffled":
        clusters = shuffled(tools, [len(c) for c in clusters], seed)
    return {name: [t.name for t in group] for name, group in zip(names(clusters), clusters, strict=True)}
