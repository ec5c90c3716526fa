"""Pipelines as spec strings, the operator registry, the named variant suite, and :class:`Variant`.

A spec is operators joined by ``|``, applied left to right starting from the native schema:
``merge(by=class)|rename(style=opaque)`` merges, then renames the merged tools. The empty spec
(or ``native``) is the identity variant.
"""

from __future__ import annotations

import re
import typing
from dataclasses import MISSING, dataclass, fields
from functools import cached_property

from toolprism.errors import ConfigError
from toolprism.registry import Registry
from toolprism.schema import JSON, Action, ActionSpace, ToolCall, ToolSpec
from toolprism.shaping._layer import Batch, Layer, NativeLayer, Operator, Plan
from toolprism.shaping._paper import PAPER_VARIANTS
from toolprism.shaping.operators import (
    Compose,
    Discovery,
    Flatten,
    Interval,
    Ladder,
    Merge,
    Nest,
    Reference,
    Rename,
    Reorder,
    Split,
    Strip,
    Transaction,
)

OPERATORS: Registry[type[Operator]] = Registry("operator")
for _op in (
    Rename,
    Merge,
    Split,
    Transaction,
    Nest,
    Flatten,
    Strip,
    Reorder,
    Reference,
    Discovery,
    Interval,
    Compose,
    Ladder,
):
    OPERATORS.add(_op.name, _op)

VARIANTS: Registry[str] = Registry("variant")
"""Every named variant → its spec string: the ``paper`` suite (the paper's 32 variants under its names,
:data:`~toolprism.shaping._paper.PAPER_VARIANTS`), then the ``extended`` suite (toolprism's own)."""

SUITE = {
    # identity
    "native": "",
    # per-tool surface
    "rename-opaque": "rename(style=opaque)",
    "rename-namespaced": "rename(style=domain-class)",
    "strip": "strip(what=all)",
    "strip-tools": "strip(what=tools)",
    "strip-params": "strip(what=params)",
    "reorder": "reorder(seed=0)",
    "reorder-catalog": "reorder(seed=1,catalog=true)",
    "nest": "nest",
    # tool-set partitioning: the merge/split granularity ladder, coarse to fine
    "merge": "merge(by=full,args=shared)",
    "merge-nested": "merge(by=full,args=prose)",
    "merge-union": "merge(by=full,args=prefixed)",
    "merge-random-2": "merge(by=random,k=2,seed=0,args=shared)",
    "merge-class": "merge(by=class,args=shared)",
    "merge-class-nested": "merge(by=class,args=prose)",
    "merge-class-union": "merge(by=class,args=prefixed)",
    "merge-random-4": "merge(by=random,k=4,seed=0,args=shared)",
    "merge-random-6-nested": "merge(by=random,k=6,seed=1,args=prose)",
    "merge-random-8": "merge(by=random,k=8,seed=0,args=shared)",
    "split": "split",
    "split-all": "split(on=all)",
    # cross-call protocols
    "transaction-shared": "transaction(setters=shared)",
    "reference": "reference",
    "discovery": "discovery(style=gated)",
    # compositions
    "merge+rename-opaque": "merge(by=full,args=shared)|rename(style=opaque)",
    "merge-class+strip": "merge(by=class,args=shared)|strip(what=all)",
    "nest+rename-opaque": "nest|rename(style=opaque)",
    "split+rename-namespaced": "split|rename(style=domain-class)",
    "split+transaction": "split|transaction",
    "reference+merge-class": "reference|merge(by=class,args=shared)",
    "reorder+nest+strip": "reorder(seed=2)|nest|strip(what=all)",
    "merge-class+transaction": "merge(by=class,args=shared)|transaction",
    "rename-opaque+discovery": "rename(style=opaque)|discovery(style=gated)",
    "split-all+merge-class": "split(on=all)|merge(by=class,args=shared)",
}
"""The ``extended`` suite: toolprism's own variants and stacked compositions (names differ from the
paper's wherever the construction does; ``native`` and ``rename-opaque`` are shared with the paper)."""

for _paper in PAPER_VARIANTS:
    VARIANTS.add(_paper.name, _paper.spec)
for _name, _spec in SUITE.items():
    if _name not in VARIANTS:
        VARIANTS.add(_name, _spec)
    elif VARIANTS.get(_name) != _spec:  # a shared name must mean one construction
        raise ConfigError(f"variant {_name!r} is {VARIANTS.get(_name)!r} in the paper suite, {_spec!r} here")

SUITES: dict[str, tuple[str, ...]] = {
    "paper": tuple(v.name for v in PAPER_VARIANTS),
    "extended": tuple(SUITE),
    "all": tuple(VARIANTS.names()),
}
"""Suite name → its variant names, in order: ``paper`` (Action-Space Shaping's 32), ``extended``
(toolprism's own), ``all`` (both)."""

PAPER = {v.name: v for v in PAPER_VARIANTS}
"""Paper variant name → :class:`PaperVariant` (title, figure, scope, the paper's construction)."""


def variant_scope(name: str) -> str:
    """``catalog`` for the paper's whole-catalog arms, which only apply to the whole-catalog domain;
    ``domain`` for every other variant name or spec."""
    return PAPER[name].scope if name in PAPER else "domain"


DEFAULT_VARIANTS = ("native", "merge", "split", "transaction", "rename-opaque")

_TERM = re.compile(r"^\s*([a-z_]+)\s*(?:\(([^()]*)\))?\s*$")


def parse_spec(spec: str) -> list[Operator]:
    """Parse a pipeline spec into unbound operators.

    Raises:
        ConfigError: listing every unknown operator, unknown parameter and invalid value.
    """
    spec = spec.strip()
    if spec in ("", "native"):
        return []
    problems: list[str] = []
    operators: list[Operator] = []
    for term in spec.split("|"):
        match = _TERM.match(term)
        if not match:
            problems.append(f"{term.strip()!r}: expected name or name(key=value,...)")
            continue
        name, body = match.group(1), match.group(2) or ""
        if name not in OPERATORS:
            problems.append(f"{name!r}: unknown operator (known: {', '.join(OPERATORS.names())})")
            continue
        op = _build(OPERATORS.get(name), body, problems)
        if op is not None:
            operators.append(op)
    if problems:
        raise ConfigError(problems, what=f"variant spec {spec!r}")
    return operators


def _build(cls: type[Operator], body: str, problems: list[str]) -> Operator | None:
    params = {f.name: f for f in fields(cls) if f.name != "below"}
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, object] = {}
    start = len(problems)
    for item in filter(None, (p.strip() for p in body.split(","))):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key not in params:
            problems.append(f"{cls.name}: unknown parameter {key!r} (parameters: {', '.join(params) or 'none'})")
            continue
        if key in kwargs:
            problems.append(f"{cls.name}: parameter {key!r} is given twice")
            continue
        hint = hints[key]
        allowed = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else None
        if allowed and value not in allowed:
            problems.append(f"{cls.name}: {key}={value!r} is not one of {', '.join(a for a in allowed if a)}")
            continue
        if hint is int:
            try:
                kwargs[key] = int(value)
            except ValueError:
                problems.append(f"{cls.name}: {key}={value!r} is not an integer")
            continue
        if hint is bool:
            if value not in ("true", "false"):
                problems.append(f"{cls.name}: {key}={value!r} must be true or false")
                continue
            kwargs[key] = value == "true"
            continue
        kwargs[key] = value
    missing = [n for n, f in params.items() if n not in kwargs and f.default is MISSING]
    problems.extend(f"{cls.name}: parameter {n!r} is required" for n in missing)
    return cls(**kwargs) if len(problems) == start else None


def resolve(name_or_spec: str) -> str:
    """A registered variant's spec, or the argument itself when it is a spec."""
    return VARIANTS.get(name_or_spec) if name_or_spec in VARIANTS else name_or_spec


@dataclass(frozen=True)
class Variant:
    """An equivalent interface to an action space: the layer stack built from a spec.

    Attributes:
        name: the suite name or the spec itself.
        spec: the canonical spec string (every parameter spelled out), rebuildable from a log.
        layers: bottom (native) first.

    Raises:
        ConfigError: from :meth:`build`, for a malformed spec or an operator that cannot apply.
    """

    name: str
    spec: str
    layers: tuple[Layer, ...]

    @classmethod
    def build(cls, name_or_spec: str, space: ActionSpace) -> Variant:
        """Build the variant ``name_or_spec`` (a suite name or a spec) over ``space``."""
        layers: list[Layer] = [NativeLayer(space)]
        for op in parse_spec(resolve(name_or_spec)):
            layers.append(op.over(layers[-1]))
        variant = cls(name_or_spec, "|".join(op.spec() for op in layers[1:]) or "native", tuple(layers))
        variant.tools()  # surface binding problems (name collisions) before anything runs
        return variant

    @property
    def top(self) -> Layer:
        """The layer the model talks to."""
        return self.layers[-1]

    def tools(self) -> list[ToolSpec]:
        """The tools the model sees."""
        return self.top.tools()

    def convention(self) -> str:
        """The calling-convention instruction of this variant: each layer's sentence, bottom up
        ("" for ``native``)."""
        sentences = [text for layer in self.layers[1:] if (text := layer.convention())]
        return " ".join(dict.fromkeys(sentences))

    @cached_property
    def openai_tools(self) -> list[dict[str, JSON]]:
        """The shown tools in the OpenAI ``tools`` format."""
        return [t.openai() for t in self.tools()]

    def plan(self, action: Action) -> Plan:
        """Encode a native action into the top layer's calls (the encoder).

        A generator: it yields a top-level call (or a :class:`Batch` of independent calls), must
        be sent that call's reply (parsed JSON; a list for a batch), and returns the native
        reply when the action has run.
        """
        plan: Plan = self.layers[0].encode(action.call())
        for layer in self.layers[1:]:
            plan = _lift(layer, plan)
        return plan


def _lift(layer: Layer, inner: Plan) -> Plan:
    """Re-encode each call ``inner`` yields through ``layer``, feeding replies back down."""
    try:
        item = next(inner)
        while True:
            if isinstance(item, Batch):
                reply = yield from _lift_batch(layer, item.calls)
            else:
                reply = yield from layer.encode(item)
            item = inner.send(reply)
    except StopIteration as stop:
        return stop.value


def _lift_batch(layer: Layer, calls: tuple[ToolCall, ...]) -> Plan:
    """Encode independent calls in lockstep: each round sends the next step of every unfinished
    encoding as one batch. Returns the list of the calls' replies, in order."""
    plans = [layer.encode(c) for c in calls]
    results: list[JSON] = [None] * len(plans)
    steps = {i: next(p) for i, p in enumerate(plans)}
    while steps:
        flat = [c for step in steps.values() for c in (step.calls if isinstance(step, Batch) else (step,))]
        replies = yield Batch(tuple(flat))
        offset = 0
        for i, step in list(steps.items()):
            size = len(step.calls) if isinstance(step, Batch) else 1
            reply = replies[offset : offset + size] if isinstance(step, Batch) else replies[offset]
            offset += size
            try:
                steps[i] = plans[i].send(reply)
            except StopIteration as stop:
                results[i] = stop.value
                del steps[i]
    return results
