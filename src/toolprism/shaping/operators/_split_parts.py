"""The pieces ``split`` cuts one tool into: enumerated arguments fixed by the tool name, numeric
arguments narrowed to an interval ``[lo, hi)`` (kept, with a tighter schema).

Two namings: toolprism's (``<tool>__<value>``, :func:`pieces`) and the paper's
(``<tool>__<param>_<value>``, :func:`paper_pieces`; Action-Space Shaping, paper code
``toolschema/schema_transform.py`` ``_is_enumerable``, ``_san``, ``_named_tools_mapped``).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from toolprism.schema import JSON, ToolSpec, canonical_json

MAX_PIECES = 512
"""The most tools ``split`` may make from one tool."""

Number = int | float


@dataclass(frozen=True)
class Piece:
    """One shown tool: ``tool`` (a lower tool) with ``fixed`` arguments set, ``bounds``
    (argument, lower bound or None, upper bound exclusive or None) narrowing numeric ones, and
    ``absent`` optional arguments left out; ``note`` replaces the description's default note."""

    name: str
    tool: str
    fixed: tuple[tuple[str, JSON], ...] = ()
    bounds: tuple[tuple[str, Number | None, Number | None], ...] = ()
    absent: tuple[str, ...] = ()
    note: str = ""

    def contains(self, arguments: dict[str, JSON]) -> bool:
        """Whether a lower call with ``arguments`` belongs to this piece."""
        if any(p not in arguments or canonical_json(arguments[p]) != canonical_json(v) for p, v in self.fixed):
            return False
        if any(p in arguments for p in self.absent):
            return False
        return all(p in arguments and _inside(arguments[p], lo, hi) for p, lo, hi in self.bounds)

    def shown(self, tool: ToolSpec) -> ToolSpec:
        """``tool`` (this piece's lower tool) as this piece shows it."""
        if not self.fixed and not self.bounds and not self.absent:
            return tool
        params = dict(tool.parameters)
        gone = {*dict(self.fixed), *self.absent}
        props = {k: v for k, v in params.get("properties", {}).items() if k not in gone}
        for p, lo, hi in self.bounds:
            props[p] = _narrow(props[p], lo, hi)
        params["properties"] = props
        params["required"] = [r for r in params.get("required", []) if r not in gone]
        notes = [f"{p}={canonical_json(v)}" for p, v in self.fixed] + [_interval_text(*b) for b in self.bounds]
        description = f"{tool.description} ({self.note or 'with ' + ', '.join(notes)})".strip()
        return replace(tool, name=self.name, description=description, parameters=params)


def _inside(value: JSON, lo: Number | None, hi: Number | None) -> bool:
    return isinstance(value, Number) and (lo is None or value >= lo) and (hi is None or value < hi)


def _narrow(schema: dict[str, Any], lo: Number | None, hi: Number | None) -> dict[str, Any]:
    out = dict(schema)
    if lo is not None:
        out.pop("exclusiveMinimum", None)
        out["minimum"] = lo
    if hi is not None:
        out.pop("maximum", None)
        out["exclusiveMaximum"] = hi
    return out


def _interval_text(p: str, lo: Number | None, hi: Number | None) -> str:
    if lo is None:
        return f"{p} < {hi}"
    return f"{p} >= {lo}" if hi is None else f"{lo} <= {p} < {hi}"


def enumerated(tool: ToolSpec) -> list[str]:
    """The tool's required parameters with a closed enum, in order."""
    props = tool.parameters.get("properties", {})
    return [p for p in tool.parameters.get("required", []) if isinstance(props.get(p, {}).get("enum"), list)]


def numeric(tool: ToolSpec) -> list[str]:
    """The tool's required integer or number parameters, in order."""
    props = tool.parameters.get("properties", {})
    return [p for p in tool.parameters.get("required", []) if props.get(p, {}).get("type") in ("integer", "number")]


def parse_intervals(text: str, problems: list[str]) -> dict[str, list[Number]]:
    """``ARG:CUT+CUT/ARG:CUT`` → argument → strictly increasing cuts."""
    out: dict[str, list[Number]] = {}
    for item in filter(None, text.split("/")):
        arg, colon, cuts_text = item.partition(":")
        try:
            cuts = [_number(c) for c in cuts_text.split("+")]
        except ValueError:
            cuts = []
        if not colon or not arg or not cuts:
            problems.append(f"interval={item!r}: expected ARG:CUT or ARG:CUT+CUT (numbers)")
        elif any(a >= b for a, b in itertools.pairwise(cuts)):
            problems.append(f"interval={item!r}: the cuts must be strictly increasing")
        elif arg in out:
            problems.append(f"interval: argument {arg!r} is given twice")
        else:
            out[arg] = cuts
    return out


def _number(text: str) -> Number:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return int(value) if value.is_integer() and "." not in text else value


def cut_problems(tool: ToolSpec, arg: str, cuts: list[Number]) -> list[str]:
    """Cuts outside the argument's declared range (a piece would accept no value)."""
    schema = tool.parameters["properties"][arg]
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high_incl, high_excl = schema.get("maximum"), schema.get("exclusiveMaximum")
    where = f"tool {tool.name!r}, argument {arg!r}"
    return [
        f"{where}: cut {c} leaves an empty piece (its range is {low}..{high_excl if high_incl is None else high_incl})"
        for c in cuts
        if (low is not None and c <= low)
        or (high_incl is not None and c > high_incl)
        or (high_excl is not None and c >= high_excl)
    ]


def pieces(tool: ToolSpec, on: list[str], cuts: dict[str, list[Number]]) -> list[Piece]:
    """Every piece of ``tool`` split on the enumerated arguments ``on`` and the intervals ``cuts``
    (in the tool's parameter order), named ``<tool>__<suffix>__<suffix>`` (clashing suffixes of one
    parameter disambiguated, see :func:`_suffixes`)."""
    props = tool.parameters.get("properties", {})
    dims: list[list[tuple[str, tuple, tuple]]] = []  # per argument: (suffix, fixed, bounds) options
    for p in [q for q in props if q in on or q in cuts]:
        if p in on:
            values = props[p]["enum"]
            dims.append([(suffix, ((p, v),), ()) for v, suffix in zip(values, _suffixes(values), strict=True)])
        else:
            edges = [None, *cuts[p], None]
            dims.append([(_bound_suffix(p, lo, hi), (), ((p, lo, hi),)) for lo, hi in itertools.pairwise(edges)])
    return [
        Piece(
            fit("__".join([tool.name, *(suffix for suffix, _, _ in combo)])),
            tool.name,
            tuple(f for _, fixed, _ in combo for f in fixed),
            tuple(b for _, _, bounds in combo for b in bounds),
        )
        for combo in itertools.product(*dims)
    ]


def count(tool: ToolSpec, on: list[str], cuts: dict[str, list[Number]]) -> int:
    """How many pieces :func:`pieces` would make (checked before making them)."""
    props = tool.parameters.get("properties", {})
    return math.prod(len(props[p]["enum"]) if p in on else len(cuts[p]) + 1 for p in props if p in on or p in cuts)


def _bound_suffix(p: str, lo: Number | None, hi: Number | None) -> str:
    parts = [p] + ([f"ge_{_num(lo)}"] if lo is not None else []) + ([f"lt_{_num(hi)}"] if hi is not None else [])
    return "_".join(parts)


def _num(value: Number) -> str:
    return str(value).replace("-", "m").replace(".", "p")


def _suffixes(values: list[JSON]) -> list[str]:
    """One distinct suffix per enum value: two values with one suffix (``"a b"``, ``"a-b"``) get a
    short hash of the value after the later one's, as the paper-style split does (the paper's own
    map would keep only one of them)."""
    seen: set[str] = set()
    out = []
    for v in values:
        suffix = _suffix(v)
        if suffix in seen:
            suffix += "_" + hashlib.sha256(canonical_json(v).encode()).hexdigest()[:6]
        seen.add(suffix)
        out.append(suffix)
    return out


def _suffix(value: JSON) -> str:
    """The value as a name suffix: folded to ASCII first (``été`` -> ``ete``, as tool names are),
    other characters as ``_``; a value with nothing left is a short hash."""
    folded = unicodedata.normalize("NFKD", str(value)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^A-Za-z0-9]+", "_", folded).strip("_")
    return text or "v" + hashlib.sha256(canonical_json(value).encode()).hexdigest()[:6]


def fit(name: str) -> str:
    """Keep a tool name within 64 characters (truncate, add a short hash of the full name)."""
    if len(name) <= 64:
        return name
    return name[:57] + "_" + hashlib.sha256(name.encode()).hexdigest()[:6]


# the paper's split ----------------------------------------------------------------------------


def is_enumerable(schema: Any) -> bool:
    """The paper's ``_is_enumerable``: a closed ``enum`` or a boolean (required or not)."""
    return isinstance(schema, dict) and (isinstance(schema.get("enum"), list) or schema.get("type") == "boolean")


def enum_values(schema: dict[str, Any]) -> list[JSON]:
    """An enumerable schema's values (``[true, false]`` for a boolean)."""
    return list(schema["enum"]) if isinstance(schema.get("enum"), list) else [True, False]


def enumerable(tool: ToolSpec) -> list[str]:
    """The tool's enumerable parameters (the paper's sense), in order."""
    return [p for p, s in tool.parameters.get("properties", {}).items() if is_enumerable(s)]


def san(value: JSON) -> str:
    """The paper's ``_san``: a value as a name suffix (``true``/``false``; else runs of other
    than ``[0-9A-Za-z]`` become ``_``, trimmed, lower-cased; ``x`` when nothing is left)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return re.sub(r"[^0-9A-Za-z]+", "_", str(value)).strip("_").lower() or "x"


UNSET = "unset"
"""The suffix of the piece of an optional baked argument left out (not in the paper)."""


def paper_pieces(tool: ToolSpec, baked: list[str]) -> list[Piece]:
    """``tool`` split on its enumerable parameters ``baked`` (in that order), the paper's way:
    one piece per combination of values, named ``<tool>__<p>_<value>__<q>_<value>`` and described
    ``<description> (fixed: p=v, q=w)``.

    Deviations, none of which arise on the paper's catalog: a name over 64 characters is
    shortened (:func:`fit`), characters a tool name cannot hold (``begin::x``, after a ``flat``
    merge) become ``_``; two values of one parameter with one suffix (``"a b"``, ``"a-b"``)
    get a short hash after the later one's (the paper's map would keep only one); an optional
    baked parameter without a default also gets a piece ``__<p>_unset`` that leaves it out, so
    calls without it stay expressible.
    """
    props = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    dims: list[list[tuple[str, tuple, tuple, str]]] = []  # per parameter: (suffix, fixed, absent, note)
    for p in baked:
        label = re.sub(r"[^A-Za-z0-9_-]", "_", p)
        seen: set[str] = set()
        options = []
        for v in enum_values(props[p]):
            suffix = san(v)
            if suffix in seen:
                suffix += "_" + hashlib.sha256(canonical_json(v).encode()).hexdigest()[:6]
            seen.add(suffix)
            options.append((f"{label}_{suffix}", ((p, v),), (), f"{p}={v}"))
        if p not in required and "default" not in props[p]:
            suffix = UNSET if UNSET not in seen else UNSET + "_" + hashlib.sha256(b"unset").hexdigest()[:6]
            options.append((f"{label}_{suffix}", (), (p,), f"{p} unset"))
        dims.append(options)
    out = []
    for combo in itertools.product(*dims):
        name = fit(tool.name + "".join(f"__{suffix}" for suffix, _, _, _ in combo))
        fixed = tuple(f for _, fx, _, _ in combo for f in fx)
        absent = tuple(a for _, _, ab, _ in combo for a in ab)
        note = "fixed: " + ", ".join(n for _, _, _, n in combo) if combo else ""
        out.append(Piece(name, tool.name, fixed, (), absent, note))
    return out


def paper_count(tool: ToolSpec, baked: list[str]) -> int:
    """How many pieces :func:`paper_pieces` would make."""
    props = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    return math.prod(len(enum_values(props[p])) + (p not in required and "default" not in props[p]) for p in baked)
