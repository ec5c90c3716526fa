"""``ladder``: the paper's merge/split granularity ladder, one integer ``k`` from 0 (coarsest) to 9
(finest), 5 being native (Action-Space Shaping, Figure 2 and appendix Figure 4; paper code
``toolschema/schema_adapter.py`` ``variant_level`` and ``toolschema/schema_transform.py``
``level_partition``, ``_peel_order``, ``_bake_plan``).

Over a catalog of ``N`` operations with ``M`` (operation, enumerable parameter) pairs, step ``k``
is level ``round(k / 5 * N)`` for ``k <= 5`` and ``N + round((k - 5) / 4 * M)`` above (Python's
``round``, halves to even). A level ``L <= N`` keeps the first ``L`` operations of the peel order
(most parameters first, then by name) as they are and merges the rest into one paper-``flat``
dispatcher ``execute`` (a dispatcher of one operation is not made); a level above ``N`` bakes the
first ``L - N`` pairs of the bake order (fewest values first, then by operation and parameter
name) into tool names, the paper's way (:func:`~toolprism.shaping.operators._split_parts.paper_pieces`).
So ``ladder(k=0)`` is the paper's "fully merged", ``ladder(k=9)`` its "fully split", steps 1-4 its
partial domain merges (0.29x-0.85x) and 6-8 its partial enum splits (1.5x-5.4x).

The paper applies the ladder to each tool group (domain) separately; this operator treats its
whole input as one group, so over a toolprism domain "per domain" is "per action space". Shown
order as the paper's: the kept or baked tools in catalog order, then ``execute``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Decoded, Forward, Operator, Plan
from toolprism.shaping.operators._dispatch import Dispatcher
from toolprism.shaping.operators._split_parts import (
    MAX_PIECES,
    Piece,
    enum_values,
    is_enumerable,
    paper_count,
    paper_pieces,
)

STEPS = 10
"""The ladder's length (the paper's ``SCHEMA_K``)."""
NATIVE = STEPS // 2
DISPATCHER = "execute"


def level(k: int, n: int, m: int) -> int:
    """The paper's ``variant_level``: the granularity level of step ``k`` for ``n`` operations and
    ``m`` bakeable (operation, parameter) pairs."""
    if k <= NATIVE:
        return round(k / NATIVE * n)
    return n + round((k - NATIVE) / (STEPS - 1 - NATIVE) * m)


def _props(tool: ToolSpec) -> dict[str, Any]:
    return dict(tool.parameters.get("properties", {}))


def peel_order(tools: list[ToolSpec]) -> list[str]:
    """Operations with the most parameters first, ties by name (the paper's ``_peel_order``)."""
    return [t.name for t in sorted(tools, key=lambda t: (-len(_props(t)), t.name))]


def bake_order(tools: list[ToolSpec]) -> list[tuple[str, str]]:
    """Every (operation, enumerable parameter) pair, fewest values first, ties by operation then
    parameter name (the paper's ``_bake_plan``)."""
    pairs = [((t.name, p), len(enum_values(s))) for t in tools for p, s in _props(t).items() if is_enumerable(s)]
    return [pair for pair, _ in sorted(pairs, key=lambda x: (x[1], x[0]))]


@dataclass(frozen=True)
class Partition:
    """What step ``k`` does to a catalog: ``merged`` operations go into ``execute`` (none, or at
    least two), ``baked`` maps an operation to the parameters baked into its names, in order."""

    merged: tuple[str, ...]
    baked: dict[str, list[str]]


def partition(tools: list[ToolSpec], k: int) -> Partition:
    """The paper's ``level_partition`` at step ``k`` (0..9) of the ladder."""
    peel, bake = peel_order(tools), bake_order(tools)
    lv = max(0, min(level(k, len(peel), len(bake)), len(peel) + len(bake)))
    if lv <= len(peel):
        kept = set(peel[:lv])
        merged = tuple(t.name for t in tools if t.name not in kept)
        return Partition(merged if len(merged) > 1 else (), {})
    baked: dict[str, list[str]] = {}
    for op, p in bake[: lv - len(peel)]:
        baked.setdefault(op, []).append(p)
    return Partition((), baked)


@dataclass(frozen=True)
class Ladder(Operator):
    """Step ``k`` (0..9, 5 = native) of the paper's granularity ladder (module docstring).

    Raises:
        ConfigError: when binding, listing every problem: ``k`` outside 0..9, a kept tool named
            ``execute`` beside the dispatcher, a tool that would make more than 512 tools, two
            shown tools with one name.
    """

    name = "ladder"
    k: int = NATIVE

    def spec(self) -> str:
        return f"{self.name}(k={self.k})"

    @cached_property
    def _plan(self) -> tuple[Dispatcher | None, dict[str, Piece]]:
        """The dispatcher (if any) and shown name → piece of every other shown tool."""
        tools = self.below.tools()
        problems: list[str] = []
        if not 0 <= self.k < STEPS:
            problems.append(f"k={self.k} is not a ladder step (0..{STEPS - 1}; {NATIVE} is native)")
            raise ConfigError(problems, what=f"operator {self.spec()}")
        part = partition(tools, self.k)
        table: dict[str, Piece] = {}
        for tool in tools:
            if tool.name in part.merged:
                continue
            baked = part.baked.get(tool.name, [])
            if (n := paper_count(tool, baked)) > MAX_PIECES:
                problems.append(f"tool {tool.name!r}: would become {n} tools (more than {MAX_PIECES})")
                continue
            for piece in paper_pieces(tool, baked):
                if piece.name in table:
                    problems.append(f"tool {tool.name!r}: name {piece.name!r} is already taken")
                table[piece.name] = piece
        dispatcher = None
        if part.merged:
            index = {t.name: t for t in tools}
            dispatcher = Dispatcher(DISPATCHER, tuple(index[n] for n in part.merged), "flat")
            if DISPATCHER in table:
                problems.append(f"dispatcher {DISPATCHER!r}: the name is taken by a kept tool")
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return dispatcher, table

    @cached_property
    def _by_tool(self) -> dict[str, list[Piece]]:
        out: dict[str, list[Piece]] = {}
        for piece in self._plan[1].values():
            out.setdefault(piece.tool, []).append(piece)
        return out

    def convention(self) -> str:
        dispatcher, table = self._plan
        sentences = []
        if dispatcher is not None:
            sentences.append(
                f"Some operations are reached through the tool '{DISPATCHER}': put the operation's name in its "
                "'operation' argument and pass each of its arguments prefixed with the operation's name and '::'."
            )
        if any(p.fixed for p in table.values()):
            sentences.append(
                "Some argument values are part of tool names (__<argument>_<value>): call the tool whose name "
                "carries the values you want instead of passing those arguments."
            )
        return " ".join(sentences)

    def tools(self) -> list[ToolSpec]:
        dispatcher, table = self._plan
        lower = self.below.tool_index
        shown = [piece.shown(lower[piece.tool]) for piece in table.values()]
        return shown + ([dispatcher.tool()] if dispatcher is not None else [])

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        dispatcher, table = self._plan
        if dispatcher is not None and call.name == DISPATCHER:
            return Forward(dispatcher.decode(dict(call.arguments)))
        piece = table[call.name]
        return Forward(ToolCall(piece.tool, {**call.arguments, **dict(piece.fixed)}))

    def encode(self, call: ToolCall) -> Plan:
        dispatcher, _ = self._plan
        if dispatcher is not None and call.name in dispatcher.index:
            return (yield ToolCall(DISPATCHER, dispatcher.encode(call)))
        args = dict(call.arguments)
        for piece in self._by_tool.get(call.name, []):
            if piece.contains(args):
                shown = {k: v for k, v in args.items() if k not in dict(piece.fixed)}
                return (yield ToolCall(piece.name, shown))
        raise ValueError(f"ladder cannot encode {call.name} with {call.arguments}")
