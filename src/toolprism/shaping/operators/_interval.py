"""``interval``: the paper's interval split (Action-Space Shaping, "interval split"; ToolSchemaSpace
``toolschema/operators.py`` ``split_predicate`` / ``_pred_intervals``, cuts from
``benchmarks/synthetic/opspecs.py`` ``num_cut``).

Numeric parameters are cut into intervals and each tool becomes one tool per combination of its
parameters' intervals: ``set_climate(temperature)`` with cut 72 becomes
``set_climate__temperature_lt_72`` and ``set_climate__temperature_ge_72``. Intervals are
``[lo, hi)``, labelled ``lt_<c>`` (first), ``<a>_to_<b>`` (middle) and ``ge_<c>`` (last). Each shown
tool keeps every argument; the cut parameter's schema gets ``minimum: lo`` and/or
``exclusiveMaximum: hi``, and the description gains ``(handles <p> in [lo, hi))`` per parameter
(``-inf`` / ``inf`` for open ends), as the paper renders them. A call outside its tool's interval
fails schema validation (the paper's hard control rejects it too). Tools without cuts pass through.

Where the cuts come from:

- ``file=<spec file>``: the paper's ``split_predicate`` ops for this catalog (its cuts were the
  median of each parameter's sample values, else its range midpoint; the ranges are not in the
  released ``tools.json``). On the paper's catalog ``pred.json`` reproduces
  ``schemas/04_interval_split.json`` (267 tools).
- otherwise the paper's ``num_cut`` rule on the schema's own range: one cut per required numeric
  parameter with ``minimum`` and ``maximum``, at ``(minimum + maximum) // 2`` clamped into
  ``[minimum + 1, maximum]`` (integers; numbers: the midpoint). Parameters without both bounds,
  or optional ones, are not cut (deviation: the paper's synthetic catalog has no optional ones).

Cut values in names: ``75``; ``2_5`` for 2.5; ``m5`` for -5.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema import JSON, ToolCall, ToolSpec
from toolprism.shaping._layer import Decoded, Forward, Operator, Plan
from toolprism.shaping.operators._paper import number_label, paper_ops
from toolprism.shaping.operators._transaction import tool_name

Number = int | float
Span = tuple[str, Number | None, Number | None]  # label, lo (inclusive), hi (exclusive)


def spans(cuts: list[Number]) -> list[Span]:
    """``[c1 < ... < ck]`` → the k+1 labelled intervals."""
    edges: list[Number | None] = [None, *sorted(cuts), None]
    out: list[Span] = []
    for lo, hi in itertools.pairwise(edges):
        if lo is None:
            label = f"lt_{number_label(hi)}"
        elif hi is None:
            label = f"ge_{number_label(lo)}"
        else:
            label = f"{number_label(lo)}_to_{number_label(hi)}"
        out.append((label, lo, hi))
    return out


def inside(value: Any, lo: Number | None, hi: Number | None) -> bool:
    """Whether ``value`` is a number in ``[lo, hi)``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return (lo is None or value >= lo) and (hi is None or value < hi)


def rule_cut(schema: JSON) -> Number | None:
    """The cut of one parameter by the paper's ``num_cut`` on its schema range, or None."""
    if not isinstance(schema, dict) or schema.get("type") not in ("integer", "number"):
        return None
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if not isinstance(lo, int | float) or not isinstance(hi, int | float) or hi <= lo:
        return None
    if schema["type"] == "number":
        return (lo + hi) / 2
    return max(int(lo) + 1, min((int(lo) + int(hi)) // 2, int(hi)))


@dataclass(frozen=True)
class _Piece:
    name: str
    tool: str
    ranges: tuple[tuple[str, Number | None, Number | None], ...]  # param, lo, hi

    def contains(self, args: dict[str, JSON]) -> bool:
        return all(inside(args.get(p), lo, hi) for p, lo, hi in self.ranges)


def _edge(value: Number | None, open_end: str) -> str:
    return open_end if value is None else str(value)


def narrowed(
    name: str, description: str, props: dict[str, Any], ranges: tuple[tuple[str, str, Any, Any], ...]
) -> tuple[str, str, dict[str, Any]]:
    """One interval cell of a tool: ``ranges`` is ``(param, label, lo, hi)`` per split parameter; the
    name gains ``__<param>_<label>``, the description ``(handles p in [lo, hi))``, and each schema
    ``minimum`` / ``exclusiveMaximum`` (the paper's rendering, ``schemas/04_interval_split.json``)."""
    props = dict(props)
    for p, label, lo, hi in ranges:
        name += f"__{p}_{label}"
        description = f"{description} (handles {p} in [{_edge(lo, '-inf')}, {_edge(hi, 'inf')}))".strip()
        schema = dict(props[p])
        if lo is not None:
            schema["minimum"] = lo
        if hi is not None:
            schema["exclusiveMaximum"] = hi
        props[p] = schema
    return name, description, props


@dataclass(frozen=True)
class Interval(Operator):
    """Split tools on numeric intervals: cuts from the paper's spec file ``file``, else by rule.

    Raises:
        ConfigError: when binding, listing every problem: a file op on a parameter that is missing
            or not numeric, or without cuts; two shown tools with one name.
    """

    name = "interval"
    file: str = ""

    @cached_property
    def _cuts(self) -> dict[str, list[tuple[str, list[Number]]]]:
        """Tool → [(parameter, cuts)], in order."""
        lower = self.below.tools()
        problems: list[str] = []
        cuts: dict[str, list[tuple[str, list[Number]]]] = {}
        if self.file:
            for o in paper_ops(self.file, "split_predicate", lower):
                tool = next(t for t in lower if t.name == o["tool"])
                schema = tool.parameters.get("properties", {}).get(o.get("param"))
                if not isinstance(schema, dict) or schema.get("type") not in ("integer", "number"):
                    problems.append(f"{self.file}: {o['tool']}.{o.get('param')} is missing or not numeric")
                elif not o.get("cuts"):
                    problems.append(f"{self.file}: {o['tool']}.{o['param']} has no cuts")
                else:
                    cuts.setdefault(tool.name, []).append((o["param"], sorted(o["cuts"])))
        else:
            for tool in lower:
                required = tool.parameters.get("required", [])
                for p, schema in tool.parameters.get("properties", {}).items():
                    if p in required and (c := rule_cut(schema)) is not None:
                        cuts.setdefault(tool.name, []).append((p, [c]))
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return cuts

    @cached_property
    def _table(self) -> dict[str, tuple[ToolSpec, _Piece | None]]:
        """Shown name → (shown tool, piece; None for a tool passed through)."""
        table: dict[str, tuple[ToolSpec, _Piece | None]] = {}
        problems = []
        for tool in self.below.tools():
            grid = [[(p, *span) for span in spans(c)] for p, c in self._cuts.get(tool.name, [])]
            if not grid:
                shown = [(tool, None)]
            else:
                shown = [self._piece(tool, combo) for combo in itertools.product(*grid)]
            for t, piece in shown:
                if t.name in table:
                    problems.append(f"tool {tool.name!r}: shown name {t.name!r} is already taken")
                table[t.name] = (t, piece)
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return table

    def _piece(self, tool: ToolSpec, combo: tuple[tuple[str, str, Any, Any], ...]) -> tuple[ToolSpec, _Piece]:
        name, description, props = narrowed(tool.name, tool.description, tool.parameters.get("properties", {}), combo)
        shown = tool_name(name)
        piece = _Piece(shown, tool.name, tuple((p, lo, hi) for p, _, lo, hi in combo))
        return ToolSpec(shown, description, {**tool.parameters, "properties": props}, tool.group), piece

    def convention(self) -> str:
        return (
            "Some tools are split by the range of a numeric argument: call the tool whose name ends with the "
            "range (_lt_N: below N, _ge_N: at least N) that holds your value."
        )

    def tools(self) -> list[ToolSpec]:
        return [t for t, _ in self._table.values()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        _, piece = self._table[call.name]
        return Forward(call if piece is None else ToolCall(piece.tool, dict(call.arguments)))

    def encode(self, call: ToolCall) -> Plan:
        if call.name in self._table and self._table[call.name][1] is None:
            return (yield call)
        for _, piece in self._table.values():
            if piece is not None and piece.tool == call.name and piece.contains(dict(call.arguments)):
                return (yield ToolCall(piece.name, dict(call.arguments)))
        raise ValueError(f"interval cannot encode {call.name} with {call.arguments}")
