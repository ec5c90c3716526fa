"""Family A, tool interface: a layer over the variant's top layer changes the tools the model sees
(ToolRobustBench, A1-A3). Unlike operators these are *not* equivalences the validator proves: names may
mislead, distractors do the wrong thing, and the documented schema drifts from the accepted one.
The oracle encodes through the accepted interface, so it still succeeds.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field, replace
from typing import Any

from toolprism.domains import Task
from toolprism.errors import RejectedCall, RejectionKind
from toolprism.perturb._model import Instance, Severity
from toolprism.perturb._subtype import Subtype, register
from toolprism.schema import JSON, ActionSpace, ToolCall, ToolSpec
from toolprism.shaping import Answer, Decoded, Forward, Layer, NativeLayer, Plan


@dataclass(frozen=True)
class _Over(Layer):
    below: Layer = field(repr=False, compare=False)

    @property
    def namespace(self) -> str:
        return self.below.namespace


# --- A1: name shift ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NameShift(_Over):
    """Tools (and, with ``params``, their parameters) shown under other names; descriptions kept."""

    names: dict[str, str] = field(default_factory=dict)  # below name -> shown name
    params: dict[str, dict[str, str]] = field(default_factory=dict)  # below tool -> {below param: shown}

    def tools(self) -> list[ToolSpec]:
        out = []
        for tool in self.below.tools():
            rename = self.params.get(tool.name, {})
            schema = dict(tool.parameters)
            if rename:
                schema["properties"] = {rename.get(k, k): v for k, v in schema.get("properties", {}).items()}
                schema["required"] = [rename.get(k, k) for k in schema.get("required", [])]
            out.append(replace(tool, name=self.names.get(tool.name, tool.name), parameters=schema))
        return out

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        down = {v: k for k, v in self.names.items()}
        name = down.get(call.name, call.name)
        back = {v: k for k, v in self.params.get(name, {}).items()}
        return Forward(ToolCall(name, {back.get(k, k): v for k, v in call.arguments.items()}))

    def encode(self, call: ToolCall) -> Plan:
        rename = self.params.get(call.name, {})
        args = {rename.get(k, k): v for k, v in call.arguments.items()}
        return (yield ToolCall(self.names.get(call.name, call.name), args))


def _opaque(name: str, prefix: str = "fn_") -> str:
    return prefix + hashlib.sha256(name.encode()).hexdigest()[:6]


@register
class NameShiftSubtype(Subtype):
    """A1: opaque or misleading tool and parameter names, truthful descriptions."""

    id = "A1"
    name = "name shift"
    primary = "S1"
    spillover = ("S2", "S3", "S5")
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.0}
    levels = {
        "light": "opaque tool names",
        "medium": "opaque tool and parameter names",
        "heavy": "misleading tool names (each tool shows another tool's name) and opaque parameter names",
    }

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        return self.instance(task, severity, target="tools", params={"seed": rng.getrandbits(32)})

    def layer(self, instance: Instance, below: Layer) -> Layer:
        tools = below.tools()
        names = [t.name for t in tools]
        if instance.severity == "heavy" and len(names) > 1:
            shifted = names[1:] + names[:1]  # a derangement: no tool keeps its own name
            rng = random.Random(instance.params["seed"])
            order = list(range(len(names)))
            rng.shuffle(order)
            shown = {names[i]: shifted[i] for i in order}
        else:
            shown = {n: _opaque(n) for n in names}
        params = {}
        if instance.severity != "light":
            params = {
                t.name: {k: f"arg{i + 1}" for i, k in enumerate(t.parameters.get("properties", {}))} for t in tools
            }
        return NameShift(below, shown, params)


# --- A2: similarity / distractors --------------------------------------------------------------


@dataclass(frozen=True)
class Distractors(_Over):
    """Near-duplicate tools next to the real ones; calling one runs nothing."""

    fakes: dict[str, tuple[str, JSON]] = field(default_factory=dict)  # fake name -> (original, reply)
    first: bool = False  # list the distractors before the real tools

    def tools(self) -> list[ToolSpec]:
        below = self.below.tools()
        index = {t.name: t for t in below}
        fakes = [replace(index[orig], name=name) for name, (orig, _) in self.fakes.items()]
        return [*fakes, *below] if self.first else [*below, *fakes]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        if call.name in self.fakes:
            return Answer(self.fakes[call.name][1])
        return Forward(call)

    def encode(self, call: ToolCall) -> Plan:
        return (yield call)


_FAKE_SUFFIXES = ("_v2", "_legacy", "_beta")


@register
class DistractorSubtype(Subtype):
    """A2: near-duplicate distractor tools with the same description that fail or do nothing."""

    id = "A2"
    name = "similarity / distractors"
    primary = "S1"
    spillover = ("S5",)
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.5}
    levels = {
        "light": "one distractor for one gold tool; it fails with 'deprecated'",
        "medium": "two distractors per gold tool: one fails, one claims success and does nothing",
        "heavy": "three distractors per gold tool, including one that claims success, listed before the real tools",
    }

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        ops = list(dict.fromkeys(a.op for a in task.gold))
        targets = [rng.choice(ops)] if severity == "light" else ops
        return self.instance(task, severity, target=targets[0], params={"ops": targets})

    def layer(self, instance: Instance, below: Layer) -> Layer:
        count = {"light": 1, "medium": 2, "heavy": 3}[instance.severity]
        shown = {t.name for t in below.tools()}
        fakes: dict[str, tuple[str, JSON]] = {}
        for op in instance.params["ops"]:
            # the gold op may be hidden under the variant's names: attach fakes to every shown tool
            # whose name contains the op name, else to every tool (dispatchers).
            hosts = [n for n in sorted(shown) if op in n] or sorted(shown)[:1]
            for host in hosts:
                for i, suffix in enumerate(_FAKE_SUFFIXES[:count]):
                    fake = f"{host}{suffix}"[:64]
                    if fake in shown or fake in fakes:
                        continue
                    reply: JSON = (
                        {"error": f"{fake} is deprecated; it no longer changes anything"}
                        if i != 1
                        else {"status": "ok"}
                    )
                    fakes[fake] = (host, reply)
        return Distractors(below, fakes, first=instance.severity == "heavy")


# --- A3: schema drift --------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaDrift(_Over):
    """A parameter accepted under a new name (medium: as a string; heavy: nested) while the tool
    documents the old one; a call in the documented form is rejected with what changed."""

    tool_name: str = ""
    old: str = ""
    new: str = ""
    form: str = "renamed"  # renamed | retyped | nested

    def tools(self) -> list[ToolSpec]:
        out = []
        for t in self.below.tools():
            if t.name != self.tool_name:
                out.append(t)
                continue
            schema = dict(t.parameters)
            schema.pop("additionalProperties", None)  # the accepted form must pass the shown schema
            schema["required"] = [r for r in schema.get("required", []) if r != self.old]
            out.append(replace(t, parameters=schema))
        return out

    def _accepted(self, value: Any) -> Any:
        if self.form == "retyped":
            return str(value)
        if self.form == "nested":
            return {"value": value}
        return value

    def _change(self) -> str:
        what = {"renamed": "", "retyped": " and is now a string", "nested": ' and is now an object {"value": ...}'}
        return f"parameter '{self.old}' of {self.tool_name} was renamed to '{self.new}'{what[self.form]}"

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        if call.name != self.tool_name:
            return Forward(call)
        args = dict(call.arguments)
        if self.old in args:
            raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"schema changed: {self._change()}")
        if self.new not in args:  # a call that does not use the parameter (another operation of a dispatcher)
            return Forward(call)
        value = args.pop(self.new)
        try:
            if self.form == "retyped":
                value = json_value(value)
            elif self.form == "nested":
                value = value["value"]
        except (KeyError, TypeError, ValueError):
            raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"schema changed: {self._change()}") from None
        return Forward(ToolCall(call.name, {**args, self.old: value}))

    def encode(self, call: ToolCall) -> Plan:
        if call.name != self.tool_name or self.old not in call.arguments:
            return (yield call)
        args = dict(call.arguments)
        args[self.new] = self._accepted(args.pop(self.old))
        return (yield ToolCall(call.name, args))


def json_value(text: Any) -> Any:
    """A string written back as the JSON value it spells (``"40"`` → 40); other values as they are."""
    if not isinstance(text, str):
        raise ValueError("expected a string")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _native(layer: Layer) -> NativeLayer:
    while not isinstance(layer, NativeLayer):
        layer = layer.below  # type: ignore[attr-defined]
    return layer


@register
class SchemaDriftSubtype(Subtype):
    """A3: a parameter renamed, retyped or restructured between documentation and acceptance."""

    id = "A3"
    name = "schema drift"
    primary = "S2"
    spillover = ("S3", "S5")
    strength = {"light": 1.0, "medium": 2.0, "heavy": 2.5}
    levels = {
        "light": "one parameter of a gold tool accepted under a new name",
        "medium": "renamed and retyped to a string",
        "heavy": "renamed and nested in an object",
    }

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        if any(a.arguments for a in task.gold):
            return None
        return "no gold call has an argument to drift"

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        action = rng.choice([a for a in task.gold if a.arguments])
        old = rng.choice(sorted(action.arguments))
        return self.instance(task, severity, target=action.op, params={"param": old})

    def layer(self, instance: Instance, below: Layer) -> Layer | None:
        old = instance.params["param"]
        carriers = [t for t in below.tools() if old in t.parameters.get("properties", {})]
        # the tool named after the operation, else one that routes to it (a dispatcher's enum)
        named = [t for t in carriers if instance.target in t.name]
        routed = [t for t in carriers if instance.target in json.dumps(t.parameters)]
        native = _native(below).space.get(instance.target).description
        described = [t for t in carriers if t.description == native]  # renamed, description kept
        for tool in named or routed or described:
            form = {"light": "renamed", "medium": "retyped", "heavy": "nested"}[instance.severity]
            return SchemaDrift(below, tool.name, old, f"{old}_v2", form)
        return None
