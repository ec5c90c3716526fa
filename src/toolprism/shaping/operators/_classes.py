"""Classes and methods of a catalog, and the paper's class-sized partitions of it (Action-Space
Shaping, the whole-catalog arms; paper code ``toolschema/hierarchy.py``, ``toolschema/class_grouping.py``).

A tool's class is its ``group`` (the action space's name when it has none). Its method is its name
within the class: a tool named ``<group>__<method>`` is class-qualified (the whole catalog's native
form, where several classes have a method of the same name) and its method is ``<method>``; any
other tool's method is its name. The paper's class arms show methods, not catalog names.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from toolprism.errors import ConfigError
from toolprism.schema import ToolSpec

SEPARATOR = "__"
"""Between class and method in a class-qualified name (the paper's namespaced arm uses it too)."""


def qualified_name(cls: str, method: str) -> str:
    """``<cls>__<method>``."""
    return f"{cls}{SEPARATOR}{method}"


def class_method(name: str, group: str) -> tuple[str, str]:
    """``(class, method)`` of a tool called ``name`` in ``group`` (see the module docstring)."""
    prefix = f"{group}{SEPARATOR}"
    if group and name.startswith(prefix) and len(name) > len(prefix):
        return group, name[len(prefix) :]
    return group, name


def is_class_qualified(tools: Sequence[ToolSpec]) -> bool:
    """Whether every tool is class-qualified: named ``<group>__<method>`` with a non-empty group (a
    whole catalog in native form; no per-domain catalog is). False for no tools."""
    return bool(tools) and all(class_method(t.name, t.group)[1] != t.name for t in tools)


def method_names(tools: Sequence[ToolSpec]) -> list[str] | None:
    """Each tool's method, in order, when every tool is class-qualified and no two share a method
    (the names the paper's class arms show inside a dispatcher); None otherwise."""
    if not is_class_qualified(tools):
        return None
    methods = [class_method(t.name, t.group)[1] for t in tools]
    return methods if len(set(methods)) == len(methods) else None


def classes(tools: Sequence[ToolSpec], namespace: str) -> dict[str, dict[str, ToolSpec]]:
    """Class → method → tool, classes and methods in the order the tools come.

    Raises:
        ConfigError: two tools of one class with the same method (every clash listed).
    """
    out: dict[str, dict[str, ToolSpec]] = {}
    problems = []
    for tool in tools:
        cls, method = class_method(tool.name, tool.group)
        methods = out.setdefault(cls or namespace, {})
        if method in methods:
            problems.append(f"tools {methods[method].name!r} and {tool.name!r} are both method {method!r} of {cls!r}")
        methods[method] = tool
    if problems:
        raise ConfigError(problems, what="classes")
    return out


# --- class_grouping.py: size-matched partitions into class-sized groups ---------------------

RANDOM_SEEDS = (101, 102, 103, 104, 105)
"""The paper's seeds of its five random-class realizations (r0..r4)."""
ANTI_SEEDS = (201, 202, 203, 204, 205)
"""The paper's seeds of its five anti-class realizations (r0..r4)."""
MAX_TRIES = 200
REPAIR_ROUNDS = 256


def class_partition(tools: Sequence[ToolSpec], namespace: str) -> list[list[str]]:
    """Tool names by class, classes sorted by name (the paper's class groups)."""
    by_class = classes(tools, namespace)
    return [[t.name for t in by_class[c].values()] for c in sorted(by_class)]


def random_partition(tools: Sequence[ToolSpec], namespace: str, seed: int) -> tuple[list[list[str]], int]:
    """The paper's random classes: the tools shuffled by ``random.Random(s)`` and cut into groups of
    the class sizes (classes sorted by name), then repaired so that no group holds one method twice.
    ``s`` is ``seed``, or the next seed up when a repair fails. Returns the groups and ``s``.

    Raises:
        ConfigError: no collision-free partition within :data:`MAX_TRIES` seeds.
    """
    sizes = [len(ms) for _, ms in sorted(classes(tools, namespace).items())]
    for used in range(seed, seed + MAX_TRIES):
        rng = random.Random(used)
        shuffled = list(tools)
        rng.shuffle(shuffled)
        groups, start = [], 0
        for size in sizes:
            groups.append(shuffled[start : start + size])
            start += size
        if _repair(groups, rng):
            return [[t.name for t in g] for g in groups], used
    raise ConfigError(f"no collision-free random partition from seed {seed}", what="random classes")


def anti_partition(tools: Sequence[ToolSpec], namespace: str, seed: int) -> tuple[list[list[str]], int]:
    """The paper's anti-classes: groups of the class sizes that spread every class as thinly as they
    can. The tools, shuffled by ``random.Random(s)`` and then stably sorted by class, go one by one
    to a group with room that holds the fewest of the tool's class, among those the one with the
    most room, ties broken by the same generator; then repaired as in :func:`random_partition`.

    Raises:
        ConfigError: no collision-free partition within :data:`MAX_TRIES` seeds.
    """
    by_class = classes(tools, namespace)
    sizes = [len(ms) for _, ms in sorted(by_class.items())]
    home = {t.name: c for c, ms in by_class.items() for t in ms.values()}
    for used in range(seed, seed + MAX_TRIES):
        rng = random.Random(used)
        shuffled = list(tools)
        rng.shuffle(shuffled)
        shuffled.sort(key=lambda t: home[t.name])
        groups: list[list[ToolSpec]] = [[] for _ in sizes]
        counts: list[Counter[str]] = [Counter() for _ in sizes]
        for tool in shuffled:
            cls = home[tool.name]
            open_ = [i for i, size in enumerate(sizes) if len(groups[i]) < size]
            fewest = min(counts[i][cls] for i in open_)
            open_ = [i for i in open_ if counts[i][cls] == fewest]
            room = max(sizes[i] - len(groups[i]) for i in open_)
            chosen = rng.choice([i for i in open_ if sizes[i] - len(groups[i]) == room])
            groups[chosen].append(tool)
            counts[chosen][cls] += 1
        if _repair(groups, rng):
            return [[t.name for t in g] for g in groups], used
    raise ConfigError(f"no collision-free anti-class partition from seed {seed}", what="anti-classes")


def _method(tool: ToolSpec) -> str:
    return class_method(tool.name, tool.group)[1]


def _clashes(group: Sequence[ToolSpec]) -> bool:
    methods = [_method(t) for t in group]
    return len(methods) != len(set(methods))


def _repair(groups: list[list[ToolSpec]], rng: random.Random) -> bool:
    """Swap tools between groups (sizes kept) until no group holds one method twice; False when a
    clash cannot be swapped away. The paper's rule: each later copy of a method in a group is swapped
    with the first tool, in a shuffled order of the other groups, whose exchange leaves both groups
    free of clashes."""
    for _ in range(REPAIR_ROUNDS):
        if not any(_clashes(g) for g in groups):
            return True
        swapped_any = False
        for i, group in enumerate(groups):
            seen = Counter(_method(t) for t in group)
            for method, count in list(seen.items()):
                if count < 2:
                    continue
                copies = [k for k, t in enumerate(group) if _method(t) == method][1:]
                for k in copies:
                    if not _swap(groups, i, k, rng):
                        return False
                    swapped_any = True
        if not swapped_any:
            return False
    return not any(_clashes(g) for g in groups)


def _swap(groups: list[list[ToolSpec]], i: int, k: int, rng: random.Random) -> bool:
    """Exchange ``groups[i][k]`` with a tool of another group, the other groups in a shuffled order.

    The paper's rule takes the first exchange after which neither group holds a method twice. That
    fails whenever group ``i`` holds two different methods twice (the paper's catalog, with five
    repeated methods, never does; ours, with eighteen, one of them eleven times, always does), so
    when no such exchange exists this takes the first one that gives neither group a new repeat
    (every such exchange removes one repeat). Deviation from the paper, which reseeds instead; on
    its catalog the fallback is never reached, so its partitions are reproduced exactly.
    """
    order = list(range(len(groups)))
    rng.shuffle(order)
    item = groups[i][k]
    for strict in (True, False):
        for j in order:
            if j == i:
                continue
            for m, other in enumerate(groups[j]):
                mine = [_method(t) for n, t in enumerate(groups[i]) if n != k]
                theirs = [_method(t) for n, t in enumerate(groups[j]) if n != m]
                if strict:
                    ok = _unique([*mine, _method(other)]) and _unique([*theirs, _method(item)])
                else:
                    ok = _method(other) not in mine and _method(item) not in theirs
                if ok:
                    groups[i][k], groups[j][m] = other, item
                    return True
    return False


def _unique(methods: list[str]) -> bool:
    return len(methods) == len(set(methods))


def groups_spec(groups: Sequence[Sequence[str]], args: str = "flat") -> str:
    """The ``merge`` spec of an explicit partition: ``merge(by=groups,args=<args>,groups=a+b/c+d)``
    (dispatchers ``group_1``... in partition order; the paper names them ``group_01``...)."""
    return f"merge(by=groups,args={args},groups={'/'.join('+'.join(g) for g in groups)})"


FILLER = " Neutral dispatch surface."
"""The paper's padding text for neutral dispatcher descriptions (``class_grouping.py``, its data)."""


def neutral_lengths(sizes: Sequence[int], targets: Sequence[tuple[int, int]]) -> list[int]:
    """The length each neutral group's name and description are padded to: group ``i`` (of
    ``sizes[i]`` tools, in partition order) takes the first unused target of its size among
    ``targets`` (``(size, len(class name) + len(class dispatcher description))``, classes sorted)
    and its length; 0 (no padding) when none is left (the paper raises; a class-sized partition
    always finds one)."""
    pools: dict[int, list[int]] = {}
    for size, length in targets:
        pools.setdefault(size, []).append(length)
    return [pools[size].pop(0) if pools.get(size) else 0 for size in sizes]


def pad_description(description: str, name: str, length: int) -> str:
    """``description`` with :data:`FILLER` repeated after it, cut so that ``name`` and the
    description together are ``length`` characters; unchanged when they already reach it."""
    need = length - len(name) - len(description)
    if need <= 0:
        return description
    return description + (FILLER * (need // len(FILLER) + 1))[:need]


GROUPINGS = ("class", "random", "anti")
"""The catalog merges of ``class_grouping.py``: class groups with neutral names (``class_neutral``),
random class-sized groups (``random_neutral_r<n>``), anti-class groups (``anti_class_neutral_r<n>``)."""


def grouping_spec(tools: Sequence[ToolSpec], namespace: str, grouping: str, realization: int = 0) -> str:
    """The ``merge(by=groups,args=flat,...)`` spec of one of the paper's catalog merges over ``tools``.

    ``class``: one group per class (``realization`` ignored); ``random`` / ``anti``: the partition of
    :func:`random_partition` / :func:`anti_partition` from the paper's seed of that realization
    (:data:`RANDOM_SEEDS` / :data:`ANTI_SEEDS`). Dispatchers are ``group_1``... in partition order.
    Deviations: the paper names them ``group_01``...; it pads each neutral dispatcher's description
    to the length of the same-size class dispatcher's (ours keep the merge's own description). The
    short specs ``merge(by=class_neutral)``, ``merge(by=class_random,seed=N)`` and
    ``merge(by=class_anti,seed=N)`` are the paper's own form: same members, its names and padding.

    Raises:
        ConfigError: an unknown grouping or a realization outside 0..4 (both listed).
    """
    problems = [f"grouping {grouping!r} is not one of {', '.join(GROUPINGS)}"] if grouping not in GROUPINGS else []
    if not 0 <= realization < len(RANDOM_SEEDS):
        problems.append(f"realization {realization} is not in 0..{len(RANDOM_SEEDS) - 1}")
    if problems:
        raise ConfigError(problems, what="catalog grouping")
    if grouping == "class":
        return groups_spec(class_partition(tools, namespace))
    partition = random_partition if grouping == "random" else anti_partition
    seeds = RANDOM_SEEDS if grouping == "random" else ANTI_SEEDS
    return groups_spec(partition(tools, namespace, seeds[realization])[0])
