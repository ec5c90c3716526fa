"""``split``: move argument values into tool names (Action-Space Shaping, tool-set partitioning).

``set_mode(room, mode∈{heat,cool})`` becomes ``set_mode__heat(room)`` and ``set_mode__cool(room)``
(``on=first``, the default); ``on=all`` splits on every required enumerated argument at once
(``set_light_power__kitchen__on()``); ``on=room+power`` on those only. ``interval=amount:50``
splits a numeric argument into ``<tool>__amount_lt_50`` and ``<tool>__amount_ge_50``, which keep
the argument with a narrowed schema. ``only=a+b`` splits only those tools (the parameter
cannot be called ``tools``: that is the layer's method).

``style=paper`` splits the paper's way (Action-Space Shaping; paper code
``toolschema/operators.py`` ``split_enum`` and ``benchmarks/synthetic/opspecs2.py``): every
enumerable argument counts (an ``enum`` or a boolean, required or optional), names are
``<tool>__<arg>_<value>`` and descriptions end ``(fixed: arg=value)``
(:func:`~toolprism.shaping.operators._split_parts.paper_pieces`); ``on=first`` is the paper's
"split · one enum" (``enum1.json``), ``on=all,cap=24`` its "split · all enums" (``enumfull.json``:
each tool's enumerable arguments in order while the product of their value counts stays within
``cap``). The default ``style=values`` is toolprism's own split, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import ConfigError, RejectionKind
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan, reject
from toolprism.shaping.operators._split_parts import (
    MAX_PIECES,
    Number,
    Piece,
    count,
    cut_problems,
    enum_values,
    enumerable,
    enumerated,
    fit,
    numeric,
    paper_count,
    paper_pieces,
    parse_intervals,
    pieces,
)

__all__ = ["Split", "fit"]


@dataclass(frozen=True)
class Split(Operator):
    """Split tools on enumerated argument values (``on``) and numeric intervals (``interval``).

    Parameters: ``on`` is ``first`` (each tool's first required enumerated argument), ``all``,
    ``none`` or argument names joined by ``+`` (default: ``first``, or ``none`` when ``interval``
    is given); ``arg`` is an alias of ``on``; ``only`` lists the tools to split (default all);
    ``interval`` is ``ARG:CUT`` or ``ARG:CUT+CUT``, several joined by ``/``; ``style`` is
    ``values`` (toolprism's: required enumerated arguments, ``<tool>__<value>``) or ``paper``
    (module docstring); ``cap`` (``style=paper``, ``on=all`` only; 0 = none) bounds each tool's
    product of value counts. Tools it does not apply to pass through unchanged.

    Raises:
        ConfigError: when binding, listing every problem: a named argument or tool that nothing
            matches, a listed tool with nothing to split, a cut outside an argument's range, a
            tool that would make more than 512 tools, two shown tools with one name, ``cap``
            without ``style=paper,on=all``, ``interval`` with ``style=paper``.
    """

    name = "split"
    on: str = ""
    only: str = ""
    interval: str = ""
    arg: str = ""
    style: Literal["values", "paper"] = "values"
    cap: int = 0

    @property
    def _on(self) -> str:
        """``on`` resolved: the alias, then the default."""
        return self.arg or self.on or ("none" if self.interval else "first")

    def spec(self) -> str:
        default = "none" if self.interval else "first"
        parts = [f"on={self._on}"] if self._on != default else []
        parts += [f"only={self.only}"] if self.only else []
        parts += [f"interval={self.interval}"] if self.interval else []
        parts += [f"style={self.style}"] if self.style != "values" else []
        parts += [f"cap={self.cap}"] if self.cap else []
        return f"{self.name}({','.join(parts)})" if parts else self.name

    def _enum_args(self, tool: ToolSpec, cuts: dict[str, list[Number]]) -> list[str]:
        found = enumerable(tool) if self.style == "paper" else enumerated(tool)
        candidates = [p for p in found if p not in cuts]
        if self._on == "all" and self.cap:
            return _within(tool, candidates, self.cap)
        if self._on in ("first", "all", "none"):
            return {"first": candidates[:1], "all": candidates, "none": []}[self._on]
        return [p for p in candidates if p in self._on.split("+")]

    def _style_problems(self) -> list[str]:
        problems = []
        if self.cap and (self.style != "paper" or self._on != "all"):
            problems.append("cap only applies with style=paper,on=all")
        if self.cap < 0:
            problems.append(f"cap must be at least 0 (0: no cap), got {self.cap}")
        if self.style == "paper" and self.interval:
            problems.append("interval is not supported with style=paper")
        return problems

    @cached_property
    def _table(self) -> dict[str, Piece]:
        """Shown name → piece."""
        lower = self.below.tools()
        problems: list[str] = []
        if self.arg and self.on:
            problems.append("arg is an alias of on: give only one")
        problems += self._style_problems()
        cuts = parse_intervals(self.interval, problems)
        chosen = set(self.only.split("+")) if self.only else {t.name for t in lower}
        problems += [f"only: {n!r} is not a tool" for n in sorted(chosen - {t.name for t in lower})]
        used: set[str] = set()
        table: dict[str, Piece] = {}
        for tool in lower:
            on = self._enum_args(tool, cuts) if tool.name in chosen else []
            applied = {p: c for p, c in cuts.items() if p in numeric(tool)} if tool.name in chosen else {}
            used |= {*on, *applied}
            problems += [p for a, c in applied.items() for p in cut_problems(tool, a, c)]
            if self.only and tool.name in chosen and not on and not applied:
                problems.append(f"tool {tool.name!r}: nothing to split (no matching enumerated or numeric argument)")
            paper = self.style == "paper"
            if (n := paper_count(tool, on) if paper else count(tool, on, applied)) > MAX_PIECES:
                problems.append(f"tool {tool.name!r}: would become {n} tools (more than {MAX_PIECES})")
                continue
            for piece in paper_pieces(tool, on) if paper else pieces(tool, on, applied):
                if piece.name in table:
                    problems.append(f"tool {tool.name!r}: split name {piece.name!r} is already taken")
                table[piece.name] = piece
        if self._on not in ("first", "all", "none"):
            problems += [f"on and interval both name {a!r}" for a in self._on.split("+") if a in cuts]
            missing = [a for a in self._on.split("+") if a not in used]
            kind = "an enumerable" if self.style == "paper" else "a required enumerated"
            problems += [f"on: no tool to split has {kind} argument {a!r}" for a in missing]
        problems += [f"interval: no tool to split has a required numeric argument {a!r}" for a in cuts if a not in used]
        if self._on == "none" and not self.interval:
            problems.append("on=none without interval splits nothing")
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return table

    @cached_property
    def _by_tool(self) -> dict[str, list[Piece]]:
        out: dict[str, list[Piece]] = {}
        for piece in self._table.values():
            out.setdefault(piece.tool, []).append(piece)
        return out

    def convention(self) -> str:
        text = (
            "Some argument values are part of tool names: call the tool whose name ends with the value "
            "you want instead of passing that argument."
        )
        if self.style == "paper":
            text = (
                "Some argument values are part of tool names (__<argument>_<value>): call the tool whose name "
                "carries the values you want instead of passing those arguments."
            )
        if self.interval:
            text += " Tools whose names end in _lt_N or _ge_N take only values below N, or at least N."
        return text

    def tools(self) -> list[ToolSpec]:
        lower = self.below.tool_index
        return [piece.shown(lower[piece.tool]) for piece in self._table.values()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        piece = self._table[call.name]
        return Forward(ToolCall(piece.tool, {**call.arguments, **dict(piece.fixed)}))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``, as the paper decodes a split tool
        (``toolschema/simenv.py``, ``SimEnv.call``; ``operators.py``, ``SeqDecoder.step``): under
        ``paper`` a value outside the tool's interval is rejected with the paper's message (a
        value that is not a number counts as outside; a numeric string counts as its number);
        under ``loose`` it runs. The values the name fixes come first, so an argument the model
        passes as well overrides them, as in the paper.

        Raises:
            RejectedCall: INVALID_ARGUMENTS (``paper``: out of interval).
        """
        piece = self._table[call.name]
        for arg, lo, hi in piece.bounds if control == "paper" else ():
            value = call.arguments.get(arg)
            if not _number_inside(value, lo, hi):
                low, high = "-inf" if lo is None else lo, "inf" if hi is None else hi
                raise reject(
                    RejectionKind.INVALID_ARGUMENTS,
                    f"`{call.name}` only handles {arg} in [{low}, {high}); got {value!r}. Call the right variant.",
                )
        return Forward(ToolCall(piece.tool, {**dict(piece.fixed), **call.arguments}))

    def encode(self, call: ToolCall) -> Plan:
        args = dict(call.arguments)
        for piece in self._by_tool.get(call.name, []):
            if piece.contains(args):
                shown = {k: v for k, v in args.items() if k not in dict(piece.fixed)}
                return (yield ToolCall(piece.name, shown))
        raise ValueError(f"split cannot encode {call.name} with {call.arguments}")


def _within(tool: ToolSpec, candidates: list[str], cap: int) -> list[str]:
    """The leading ``candidates`` whose value counts multiply to at most ``cap`` (the paper's
    ``enumfull``: it stops at the first argument that would exceed it)."""
    props = tool.parameters.get("properties", {})
    chosen, product = [], 1
    for p in candidates:
        product *= len(enum_values(props[p]))
        if product > cap:
            break
        chosen.append(p)
    return chosen


def _number_inside(value: Any, lo: Number | None, hi: Number | None) -> bool:
    """The paper's interval test (``toolschema/operators.py``, ``_in_interval``): ``float(value)``
    in ``[lo, hi)``; a value ``float`` cannot read is outside."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return (lo is None or number >= lo) and (hi is None or number < hi)
