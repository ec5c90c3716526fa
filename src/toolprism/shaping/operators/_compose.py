"""``compose``: the paper's composed variant, different operators on different tools of one catalog
(Action-Space Shaping, "composed"; ToolSchemaSpace ``toolschema/operators.py`` ``compile_spec``,
the assignment of ``benchmarks/synthetic/opspecs.py``'s ``mixed`` spec).

Per tool, one of: merged into a dispatcher, or shaped by every per-tool operator that applies to it
at once (the paper's "worst-case composition"): reference resolution on its pooled parameters
(``resolve_<op>__<param>``, see :mod:`._resolve`), its enumerable parameters baked into the name
(``<op>__<param>_<value>``..., description ``(fixed: p=v, ...)``), then its numeric parameters
split into intervals (``__<param>_lt_<c>`` / ``_ge_<c>``, see :mod:`._interval`). Tools with no
assignment stay as they are.

The assignment:

- ``file=<spec file>``: the paper's ``merge``, ``indirect``, ``split_enum`` and ``split_predicate``
  ops for this catalog (``mixed.json``).
- otherwise the paper's rule (``opspecs.py``): the tools at odd positions (2nd, 4th, ...) are merged
  into one dispatcher; each tool at an even position (1st, 3rd, ...) gets reference resolution on
  its string parameters enumerating at least ``min_values`` values (the stand-in for the paper's
  pooled free strings, as in ``reference(style=paper)``), every other required enumerable
  (enum or boolean) parameter baked into its name, and every required numeric parameter with a
  range cut by the paper's ``num_cut`` rule. Deviation: optional enumerable and numeric
  parameters stay arguments (the paper's catalog has none; baking one would lose its absence).

The merge is toolprism's ``merge(by=groups,args=<args>)`` (default ``args=flat``, which the merge
stream gives the paper's meaning: ``operation`` + ``<op>::<param>``). Deviations until then, on the
paper's catalog: the dispatcher is named ``group_1`` (the paper's ``execute``) and its arguments
follow toolprism's current ``args`` encoding. The dispatcher is listed last, as the paper's.

Resolvers come first in the catalog, as the paper's. A tool becoming more than 512 tools is an
error. Internally the operator is a stack of three layers (references, bake/intervals, merge); a
call is decoded, and its arguments validated, through each.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import ConfigError
from toolprism.schema import JSON, ToolCall, ToolSpec
from toolprism.shaping._layer import Batch, Decoded, Forward, Layer, Operator, Plan
from toolprism.shaping.operators._interval import Number, inside, narrowed, rule_cut, spans
from toolprism.shaping.operators._merge import Merge
from toolprism.shaping.operators._paper import paper_merges, paper_ops, spec_without_defaults
from toolprism.shaping.operators._resolve import PaperResolve
from toolprism.shaping.operators._transaction import tool_name

MAX_PIECES = 512


def value_label(value: JSON) -> str:
    """An enum value as a name fragment, the paper's ``_san``: ``true``/``false``; else runs of
    other characters than ASCII letters and digits become ``_``, trimmed, lower-cased (``x`` if empty)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return re.sub(r"[^0-9A-Za-z]+", "_", str(value)).strip("_").lower() or "x"


def enum_values(schema: JSON) -> list[JSON]:
    """The values of an enumerable parameter: its enum, or ``[True, False]`` for a boolean."""
    if isinstance(schema, dict) and "enum" in schema:
        return list(schema["enum"])
    if isinstance(schema, dict) and schema.get("type") == "boolean":
        return [True, False]
    return []


@dataclass(frozen=True)
class ToolPlan:
    """What ``compose`` does to one tool, below the merge: the parameters it bakes, its cuts."""

    baked: tuple[str, ...] = ()
    cuts: tuple[tuple[str, tuple[Number, ...]], ...] = ()


@dataclass(frozen=True)
class _Cell:
    name: str
    tool: str
    fixed: tuple[tuple[str, JSON], ...]
    ranges: tuple[tuple[str, Number | None, Number | None], ...]

    def holds(self, args: dict[str, JSON]) -> bool:
        fixed_ok = all(p in args and args[p] == v and type(args[p]) is type(v) for p, v in self.fixed)
        return fixed_ok and all(inside(args.get(p), lo, hi) for p, lo, hi in self.ranges)


@dataclass(frozen=True)
class _References(Operator):
    """Layer 1: the paper's reference resolution with a fixed choice (see :mod:`._resolve`)."""

    name = "compose-references"
    resolve: PaperResolve | None = None

    def tools(self) -> list[ToolSpec]:
        return self.resolve.tools()

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        return self.resolve.decode(call)

    def encode(self, call: ToolCall) -> Plan:
        return (yield from self.resolve.encode(call))

    def convention(self) -> str:
        return self.resolve.convention()


@dataclass(frozen=True)
class _Baked(Operator):
    """Layer 2: enumerable values baked into names, then numeric intervals (the paper's order)."""

    name = "compose-bake"
    plans: tuple[tuple[str, ToolPlan], ...] = ()
    what: str = ""

    @cached_property
    def _table(self) -> dict[str, tuple[ToolSpec, _Cell | None]]:
        plans = dict(self.plans)
        table: dict[str, tuple[ToolSpec, _Cell | None]] = {}
        problems = []
        for tool in self.below.tools():
            plan = plans.get(tool.name)
            cells = [(tool, None)] if plan is None else self._cells(tool, plan, problems)
            for shown, cell in cells:
                if shown.name in table:
                    problems.append(f"tool {tool.name!r}: shown name {shown.name!r} is already taken")
                table[shown.name] = (shown, cell)
        if problems:
            raise ConfigError(problems, what=f"operator {self.what}")
        return table

    def _cells(self, tool: ToolSpec, plan: ToolPlan, problems: list[str]) -> list[tuple[ToolSpec, _Cell]]:
        props = dict(tool.parameters.get("properties", {}))
        grids = [enum_values(props[p]) for p in plan.baked]
        intervals = [[(p, *s) for s in spans(list(c))] for p, c in plan.cuts]
        count = 1
        for g in [*grids, *intervals]:
            count *= len(g)
        if count > MAX_PIECES:
            problems.append(f"tool {tool.name!r}: would become {count} tools (more than {MAX_PIECES})")
            return []
        rest = {p: s for p, s in props.items() if p not in plan.baked}
        parameters = {
            **tool.parameters,
            "properties": rest,
            "required": [r for r in tool.parameters.get("required", []) if r not in plan.baked],
        }
        out = []
        for combo in itertools.product(*grids):
            name = tool.name + "".join(f"__{p}_{value_label(v)}" for p, v in zip(plan.baked, combo, strict=True))
            description = tool.description
            if plan.baked:
                fixed = ", ".join(f"{p}={v}" for p, v in zip(plan.baked, combo, strict=True))
                description = f"{description} (fixed: {fixed})".strip()
            for ranges in itertools.product(*intervals):
                cell_name, cell_description, cell_props = narrowed(name, description, rest, ranges)
                shown = tool_name(cell_name)
                cell = _Cell(
                    shown,
                    tool.name,
                    tuple(zip(plan.baked, combo, strict=True)),
                    tuple((p, lo, hi) for p, _, lo, hi in ranges),
                )
                spec = ToolSpec(shown, cell_description, {**parameters, "properties": cell_props}, tool.group)
                out.append((spec, cell))
        return out

    def tools(self) -> list[ToolSpec]:
        return [t for t, _ in self._table.values()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        _, cell = self._table[call.name]
        if cell is None:
            return Forward(call)
        return Forward(ToolCall(cell.tool, {**dict(cell.fixed), **call.arguments}))

    def encode(self, call: ToolCall) -> Plan:
        if call.name in self._table and self._table[call.name][1] is None:
            return (yield call)
        args = dict(call.arguments)
        for _, cell in self._table.values():
            if cell is not None and cell.tool == call.name and cell.holds(args):
                fixed = dict(cell.fixed)
                return (yield ToolCall(cell.name, {k: v for k, v in args.items() if k not in fixed}))
        raise ValueError(f"compose cannot encode {call.name} with {call.arguments}")

    def convention(self) -> str:
        return (
            "Some argument values are part of tool names: call the tool whose name carries the values you want "
            "(_lt_N: below N, _ge_N: at least N)."
        )


@dataclass(frozen=True)
class Compose(Operator):
    """Different operators on different tools of one catalog (see the module doc).

    Parameters: ``file`` (a paper spec file, e.g. ``mixed.json``; default: the paper's rule),
    ``args`` (the merge's argument encoding, default ``flat``), ``min_values`` (rule: the fewest
    enumerated values that make a string parameter referenced, default 6).

    Raises:
        ConfigError: when binding, listing every problem of the layers it stacks.
    """

    name = "compose"
    file: str = ""
    args: Literal["flat", "nested", "union", "shared", "prose", "prefixed"] = "flat"
    min_values: int = 6

    def spec(self) -> str:
        return spec_without_defaults(self, {"args": "flat", "min_values": 6})

    @cached_property
    def _assignment(self) -> tuple[list[str], dict[str, ToolPlan], PaperResolve]:
        """(merged tools, tool → bake/interval plan, the reference resolution)."""
        lower = self.below.tools()
        what = self.spec()
        if self.min_values < 1:
            raise ConfigError([f"min_values must be at least 1, got {self.min_values}"], what=f"operator {what}")
        if self.file:
            merged = [m for members in paper_merges(self.file, lower) for m in members]
            baked: dict[str, list[str]] = {}
            for o in paper_ops(self.file, "split_enum", lower):
                baked.setdefault(o["tool"], []).extend(p for p in o.get("params", []) if p not in baked[o["tool"]])
            cuts: dict[str, list[tuple[str, tuple[Number, ...]]]] = {}
            for o in paper_ops(self.file, "split_predicate", lower):
                cuts.setdefault(o["tool"], []).append((o["param"], tuple(sorted(o.get("cuts", [])))))
            resolve = PaperResolve(lower, self.file, self.min_values, what)
            self._check_file(lower, baked, cuts)
        else:
            merged = [t.name for t in lower[1::2]]
            shaped = [t for t in lower[0::2]]
            resolve = PaperResolve(lower, "", self.min_values, what, only=frozenset(t.name for t in shaped))
            referenced = {(r.op, r.param) for refs in resolve.refs.values() for r in refs}
            baked, cuts = {}, {}
            for tool in shaped:
                required = tool.parameters.get("required", [])
                for p, schema in tool.parameters.get("properties", {}).items():
                    if p not in required or (tool.name, p) in referenced:
                        continue
                    if enum_values(schema):
                        baked.setdefault(tool.name, []).append(p)
                    elif (c := rule_cut(schema)) is not None:
                        cuts.setdefault(tool.name, []).append((p, (c,)))
        plans = {n: ToolPlan(tuple(baked.get(n, [])), tuple(cuts.get(n, []))) for n in dict.fromkeys([*baked, *cuts])}
        return merged, plans, resolve

    def _check_file(
        self, lower: list[ToolSpec], baked: dict[str, list[str]], cuts: dict[str, list[tuple[str, Any]]]
    ) -> None:
        props = {t.name: t.parameters.get("properties", {}) for t in lower}
        problems = [
            f"{self.file}: {t}.{p} is not enumerable"
            for t, ps in baked.items()
            for p in ps
            if not enum_values(props[t].get(p))
        ]
        problems += [
            f"{self.file}: {t}.{p} is missing, not numeric or has no cuts"
            for t, cs in cuts.items()
            for p, c in cs
            if not c or not isinstance(props[t].get(p), dict) or props[t][p].get("type") not in ("integer", "number")
        ]
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")

    @cached_property
    def _chain(self) -> list[Layer]:
        """The internal layers, bottom first."""
        merged, plans, resolve = self._assignment
        chain: list[Layer] = [_References(resolve=resolve, below=self.below)]
        chain.append(_Baked(plans=tuple(plans.items()), what=self.spec(), below=chain[-1]))
        if merged:
            chain.append(Merge(by="groups", args=self.args, groups="+".join(merged)).over(chain[-1]))
        return chain

    def tools(self) -> list[ToolSpec]:
        below_merge = self._chain[1].tool_index
        shown = self._chain[-1].tools()
        return [t for t in shown if t.name in below_merge] + [t for t in shown if t.name not in below_merge]

    def convention(self) -> str:
        sentences = [text for layer in self._chain if (text := layer.convention())]
        return " ".join(dict.fromkeys(sentences))

    def new_state(self) -> tuple[Any, ...]:
        return tuple(layer.new_state() for layer in self._chain)

    def decode(self, call: ToolCall, state: tuple[Any, ...]) -> Decoded:
        for depth, layer in enumerate(reversed(self._chain)):
            if depth:
                layer.tool(call.name).validate(call.arguments)
            decoded = layer.decode(call, state[len(self._chain) - 1 - depth])
            if not isinstance(decoded, Forward):
                return decoded
            call = decoded.call
        return Forward(call)

    def encode(self, call: ToolCall) -> Plan:
        plan = self._chain[0].encode(call)
        for layer in self._chain[1:]:
            plan = _through(layer, plan)
        return (yield from plan)


def _through(layer: Layer, inner: Plan) -> Plan:
    """Re-encode each call (or batch) ``inner`` yields through ``layer``, feeding the replies back.

    The same lifting as the pipeline's (``_pipeline._lift``), kept here because the pipeline
    imports the operators; a batch's calls are encoded in lockstep, one batch per round.
    """
    try:
        item = next(inner)
        while True:
            if isinstance(item, Batch):
                plans = [layer.encode(c) for c in item.calls]
                results: list[JSON] = [None] * len(plans)
                steps = {i: next(p) for i, p in enumerate(plans)}
                while steps:
                    sizes = {i: len(s.calls) if isinstance(s, Batch) else 1 for i, s in steps.items()}
                    flat = [c for s in steps.values() for c in (s.calls if isinstance(s, Batch) else (s,))]
                    replies = yield Batch(tuple(flat))
                    offset = 0
                    for i, step in list(steps.items()):
                        part = replies[offset : offset + sizes[i]]
                        offset += sizes[i]
                        try:
                            steps[i] = plans[i].send(part if isinstance(step, Batch) else part[0])
                        except StopIteration as stop:
                            results[i] = stop.value
                            del steps[i]
                reply: JSON = results
            else:
                reply = yield from layer.encode(item)
            item = inner.send(reply)
    except StopIteration as stop:
        return stop.value
