"""``merge``: fold several tools into one dispatcher whose ``operation`` argument picks the tool
(Action-Space Shaping, tool-set partitioning).

Partitions (``by``): ``full`` one dispatcher ``execute`` for the whole catalog; ``class`` one per
operation group (named after the group); ``groups`` explicit groups ``groups=a+b/c+d`` named
``group_1``, ``group_2``... (unlisted tools stay as they are: a partial merge); ``random`` a seeded,
balanced random partition into ``k`` groups named ``group_1``... (toolprism's own); the paper's
``semantic``, ``anti_semantic`` and ``shuffled`` groups (:mod:`toolprism.shaping.operators._groups`);
the paper's whole-catalog merges (``toolschema/class_grouping.py``), one class-sized dispatcher per
class (twelve on the whole catalog) named ``group_01``, ``group_02``... in partition order:
``class_neutral`` (the classes, sorted), ``class_random`` and ``class_anti``
(:func:`~toolprism.shaping.operators._classes.random_partition`,
:func:`~toolprism.shaping.operators._classes.anti_partition`).

Over a class-qualified catalog (every tool ``<group>__<method>``, the whole catalog's native
form) ``by=class`` is the paper's class dispatch (``toolschema/hierarchy.py``, arm ``dispatch``):
one dispatcher per class named after it, classes sorted by name; over any other catalog it keeps
each dispatcher where its first member was. A dispatcher shows its members by method wherever the
paper does (see :mod:`toolprism.shaping.operators._dispatch`).
Argument encodings (``args``, default the paper's ``flat``): see
:mod:`toolprism.shaping.operators._dispatch`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import ConfigError
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan
from toolprism.shaping.operators import _groups
from toolprism.shaping.operators._classes import (
    ANTI_SEEDS,
    RANDOM_SEEDS,
    anti_partition,
    class_partition,
    classes,
    is_class_qualified,
    neutral_lengths,
    random_partition,
)
from toolprism.shaping.operators._dispatch import OPERATION, ArgStyle, Dispatcher, selector

__all__ = ["OPERATION", "Merge", "selector"]

_CONVENTIONS = {
    "flat": "pass each of that operation's arguments prefixed with the operation's name and '::'",
    "nested": "pass that operation's own arguments as one object in its 'arguments' argument",
    "union": "",
    "shared": "pass that operation's own arguments alongside",
    "prose": "pass that operation's own arguments as one object in its 'arguments' argument",
    "prefixed": "pass each of that operation's arguments prefixed with the operation's name and '__'",
}
_PAPER_BYS = ("semantic", "anti_semantic", "shuffled")
_CATALOG_BYS = ("class_neutral", "class_random", "class_anti")
_K_BYS = ("random", *_PAPER_BYS)
_SEED_BYS = (*_K_BYS, "class_random", "class_anti")


@dataclass(frozen=True)
class Merge(Operator):
    """Merge tools into dispatchers (see the module docstring for ``by`` and ``args``).

    Parameters ``groups`` (``by=groups``: tool names joined by ``+``, groups separated by ``/``),
    ``k`` and ``seed`` (``by=random``: ``random.Random(f"merge/{seed}")`` shuffles the sorted tool
    names, which are dealt round-robin into ``min(k, tool count)`` groups; ``by=semantic``,
    ``anti_semantic``, ``shuffled``: ``k`` groups, 0 for the paper's ``max(2, round(n / 4))``, and
    ``shuffled`` draws with ``random.Random(seed)``, the paper's seed being 20260715;
    ``by=class_random``, ``class_anti``: the seed of the partition, 0 for the paper's r0 seed,
    :data:`~toolprism.shaping.operators._classes.RANDOM_SEEDS` ``[0]`` /
    :data:`~toolprism.shaping.operators._classes.ANTI_SEEDS` ``[0]``, so seed 0 itself cannot be
    asked for). The paper's partitions (and ``by=class`` over a class-qualified catalog) list their
    dispatchers in partition order, after any unmerged tools (as the paper's spec compiler does);
    the others keep each dispatcher where its first member was.

    The ``class_*`` dispatchers' descriptions are padded as the paper pads them: each takes the
    same-size class's dispatcher (classes sorted, each used once) as its target and appends the
    paper's filler text until its name and description together are as long as the target's
    (:func:`~toolprism.shaping.operators._classes.neutral_lengths`), so a neutral name costs the
    same characters as the class name it replaces.

    Raises:
        ConfigError: when binding, listing every problem: a parameter that does not apply to
            ``by``, an unknown or repeated tool in ``groups``, an empty group, ``k`` out of
            range, a dispatcher name taken by an unmerged tool, clashing ``union`` arguments; for
            ``by=class_*``, two tools of one class with one method, or no random / anti-class
            partition free of repeated methods.
    """

    name = "merge"
    by: Literal[
        "full",
        "class",
        "groups",
        "random",
        "semantic",
        "anti_semantic",
        "shuffled",
        "class_neutral",
        "class_random",
        "class_anti",
    ] = "full"
    args: ArgStyle = "flat"
    groups: str = ""
    k: int = 0
    seed: int = 0

    def spec(self) -> str:
        parts = [f"by={self.by}", f"args={self.args}"]
        parts += [f"groups={self.groups}"] if self.groups else []
        parts += [f"k={self.k}"] if self.k or self.by == "random" else []
        parts += [f"seed={self.seed}"] if self.seed or self.by in ("random", "shuffled") else []  # class_*: 0 = default
        return f"{self.name}({','.join(parts)})"

    def _partition(self, tools: list[ToolSpec], problems: list[str]) -> dict[str, list[str]]:
        """Dispatcher name → member tool names (tools in no group stay unmerged)."""
        names = [t.name for t in tools]
        if self.by == "full":
            return {"execute": names}
        if self.by == "class":
            out: dict[str, list[str]] = {}
            for t in tools:
                out.setdefault(_tool_name(t.group) or "execute", []).append(t.name)
            return dict(sorted(out.items())) if self._class_qualified else out
        if self.by in _CATALOG_BYS:
            return {_neutral_name(i): g for i, g in enumerate(self._catalog_partition(tools))}
        if self.by == "random":
            if self.k < 1:
                problems.append(f"by=random needs k of at least 1, got k={self.k}")
                return {}
            k = min(self.k, len(names))  # at most k groups: a catalog smaller than k is split per tool
            shuffled = sorted(names)
            random.Random(f"merge/{self.seed}").shuffle(shuffled)
            dealt = sorted(
                ([n for n in names if n in shuffled[i::k]] for i in range(k)),
                key=lambda g: names.index(g[0]),
            )
            return {f"group_{i}": members for i, members in enumerate(dealt, start=1)}
        if self.by in _PAPER_BYS:
            if self.k < 0:
                problems.append(f"by={self.by} needs k of at least 0 (0: the paper's default), got k={self.k}")
                return {}
            return _groups.partition(self.by, tools, self.k, self.seed)
        return self._explicit_groups(names, problems)

    def _catalog_partition(self, tools: list[ToolSpec]) -> list[list[str]]:
        """The paper's class-sized partition for ``by=class_*`` (``seed`` 0: the paper's r0 seed)."""
        if self.by == "class_neutral":
            return class_partition(tools, self.namespace)
        if self.by == "class_random":
            return random_partition(tools, self.namespace, self.seed or RANDOM_SEEDS[0])[0]
        return anti_partition(tools, self.namespace, self.seed or ANTI_SEEDS[0])[0]

    @cached_property
    def _class_qualified(self) -> bool:
        return is_class_qualified(self.below.tools())

    @cached_property
    def _in_partition_order(self) -> bool:
        """Whether dispatchers are listed in partition order, after any unmerged tools."""
        return self.by in (*_PAPER_BYS, *_CATALOG_BYS) or (self.by == "class" and self._class_qualified)

    def _explicit_groups(self, names: list[str], problems: list[str]) -> dict[str, list[str]]:
        if not self.groups:
            problems.append("by=groups needs groups=a+b/c+d (tool names joined by '+', groups separated by '/')")
            return {}
        out: dict[str, list[str]] = {}
        seen: dict[str, int] = {}
        for i, text in enumerate(self.groups.split("/"), start=1):
            members = [m.strip() for m in text.split("+")]
            for m in members:
                if not m:
                    problems.append(f"groups: group {i} has an empty tool name")
                elif m not in names:
                    problems.append(f"groups: group {i} names {m!r}, which is not a tool")
                elif m in seen:
                    problems.append(f"groups: tool {m!r} is in group {seen[m]} and group {i}")
                seen.setdefault(m, i)
            out[f"group_{i}"] = [n for n in names if n in members]
        if any("which is not a tool" in p for p in problems):
            problems.append(f"groups: the tools are {', '.join(names)}")
        return out

    @cached_property
    def _dispatchers(self) -> dict[str, Dispatcher]:
        """Dispatcher name → dispatcher; tools in no dispatcher pass through unchanged."""
        tools = self.below.tools()
        index = {t.name: t for t in tools}
        problems: list[str] = []
        if self.by != "groups" and self.groups:
            problems.append(f"groups={self.groups} only applies to by=groups")
        if (self.by not in _K_BYS and self.k) or (self.by not in _SEED_BYS and self.seed):
            problems.append(
                "k and seed only apply to by=random, semantic, anti_semantic or shuffled "
                "(seed also to by=class_random and class_anti)"
            )
        if self.by in ("semantic", "anti_semantic") and self.seed:
            problems.append(f"seed does not apply to by={self.by} (it is deterministic)")
        if self.seed < 0 or self.k < 0:
            problems.append(f"k and seed must be at least 0, got k={self.k}, seed={self.seed}")
        groups = self._partition(tools, problems)
        merged = {n for members in groups.values() for n in members}
        problems += [
            f"dispatcher {g!r}: the name is taken by an unmerged tool" for g in groups if g in index.keys() - merged
        ]
        pads = self._pads(tools, list(groups.values())) if self.by in _CATALOG_BYS and not problems else {}
        dispatchers = {
            g: Dispatcher(g, tuple(index[n] for n in members), self.args, pads.get(i, 0))
            for i, (g, members) in enumerate(groups.items())
        }
        problems += [p for d in dispatchers.values() for p in d.problems()]
        if problems:
            raise ConfigError(list(dict.fromkeys(problems)), what=f"operator {self.spec()}")
        return dispatchers

    def _pads(self, tools: list[ToolSpec], groups: list[list[str]]) -> dict[int, int]:
        """Group index → the length its name and description are padded to (``by=class_*``): the
        same-size class dispatcher's, under this merge's ``args``."""
        targets = [
            (len(ms), len(cls) + len(Dispatcher(cls, tuple(ms.values()), self.args).tool().description))
            for cls, ms in sorted(classes(tools, self.namespace).items())
        ]
        return dict(enumerate(neutral_lengths([len(g) for g in groups], targets)))

    @cached_property
    def _home(self) -> dict[str, str]:
        """Lower tool name → its dispatcher's name."""
        return {t.name: g for g, d in self._dispatchers.items() for t in d.members}

    def convention(self) -> str:
        if self.args == "union":
            return (
                "Operations are reached through dispatcher tools: call the dispatcher with one argument, named "
                "after the operation, whose value is an object of that operation's arguments."
            )
        return (
            "Operations are reached through dispatcher tools: call the dispatcher, put the operation's name "
            f"in its selector argument, and {_CONVENTIONS[self.args]}."
        )

    def tools(self) -> list[ToolSpec]:
        if self._in_partition_order:
            kept = [t for t in self.below.tools() if t.name not in self._home]
            return kept + [d.tool() for d in self._dispatchers.values()]
        shown: dict[str, ToolSpec] = {}
        for tool in self.below.tools():
            group = self._home.get(tool.name)
            if group is None:
                shown[tool.name] = tool
            elif group not in shown:
                shown[group] = self._dispatchers[group].tool()
        return list(shown.values())

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        dispatcher = self._dispatchers.get(call.name)
        return Forward(call if dispatcher is None else dispatcher.decode(dict(call.arguments)))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: a dispatcher decodes as the paper's does
        (:meth:`Dispatcher.decode_unchecked`); an unmerged tool passes down unchecked."""
        dispatcher = self._dispatchers.get(call.name)
        if dispatcher is None:
            return Forward(call)
        return Forward(dispatcher.decode_unchecked(dict(call.arguments), control))

    def encode(self, call: ToolCall) -> Plan:
        group = self._home.get(call.name)
        if group is None:
            return (yield call)
        return (yield ToolCall(group, self._dispatchers[group].encode(call)))


def _neutral_name(index: int) -> str:
    """The paper's neutral dispatcher name: ``group_01``, ``group_02``... (``class_grouping.py``)."""
    return f"group_{index + 1:02d}"


def _tool_name(text: str) -> str:
    """``text`` made a valid tool name (``[A-Za-z0-9_-]``, at most 64 characters)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)[:64]
