"""``reorder``: a seeded permutation of every tool's arguments (Action-Space Shaping, per-tool surface).

Each tool's ``properties`` and ``required`` list are shuffled by ``random.Random(f"reorder/{seed}/
{tool name}")`` (starting from sorted names, so the result does not depend on the order they came
in); properties of nested objects (and of array items) are shuffled too, each with its own
generator keyed by its path. With ``catalog=true`` the tool list itself is shuffled as well, by
``random.Random(f"reorder/{seed}")`` over the sorted tool names; by default it keeps its order, so
the operator only moves arguments. Calls are unchanged (JSON objects are unordered); the encoder
emits arguments in the shown order.

``style=paper`` is the paper's reorder arguments (ToolSchemaSpace ``toolschema/operators.py``
``_shuffle_params``; ``s_shuffle.json`` uses seed 13 for every tool): each tool's top-level
properties, in the order they come, are shuffled by ``random.Random(seed * 1000003 + sum of the
code points of the tool name)``, and ``required`` follows the new property order; nested objects
and the tool list keep their order. ``reorder(seed=13,style=paper)`` reproduces
``schemas/08_reorder_arguments.json``. Differences from toolprism's: a numeric seed per tool instead
of a string key, the incoming order instead of the sorted one, no nested shuffling.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import ConfigError
from toolprism.schema import JSON, ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan
from toolprism.shaping.operators._paper import spec_without_defaults


def shuffled(schema: JSON, key: str) -> JSON:
    """A copy of ``schema`` with its properties and required list (and those of nested objects and
    array items) in a seeded order; ``key`` seeds the top level, ``key/<name>`` each property."""
    if not isinstance(schema, Mapping):
        return schema
    out = dict(schema)
    rng = random.Random(key)
    if isinstance(props := schema.get("properties"), Mapping):
        names = sorted(props)
        rng.shuffle(names)
        out["properties"] = {n: shuffled(props[n], f"{key}/{n}") for n in names}
    if isinstance(required := schema.get("required"), list | tuple):
        out["required"] = sorted(required)
        rng.shuffle(out["required"])
    if isinstance(schema.get("items"), Mapping):
        out["items"] = shuffled(schema["items"], f"{key}/[]")
    return out


def paper_shuffled(parameters: JSON, tool: str, seed: int) -> JSON:
    """``parameters`` with its top-level properties in the paper's seeded order (see the module doc)."""
    props = list(parameters.get("properties", {}).items())
    random.Random(seed * 1000003 + sum(map(ord, tool))).shuffle(props)
    required = set(parameters.get("required", []))
    return {**parameters, "properties": dict(props), "required": [p for p, _ in props if p in required]}


def ordered(value: JSON, schema: JSON) -> JSON:
    """``value`` with its object keys in ``schema``'s property order (unknown keys last)."""
    if isinstance(value, Mapping) and isinstance(schema, Mapping) and isinstance(schema.get("properties"), Mapping):
        props = schema["properties"]
        keys = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: ordered(value[k], props.get(k)) for k in keys}
    if isinstance(value, list) and isinstance(schema, Mapping) and isinstance(schema.get("items"), Mapping):
        return [ordered(v, schema["items"]) for v in value]
    return value


@dataclass(frozen=True)
class Reorder(Operator):
    """Show every tool's arguments (and, with ``catalog``, the tools) in a seeded order; ``style=paper``
    uses the paper's permutation (module doc).

    Raises:
        ConfigError: when binding, ``catalog=true`` with ``style=paper``.
    """

    name = "reorder"
    seed: int = 0
    catalog: bool = False
    style: Literal["", "toolprism", "paper"] = ""

    def spec(self) -> str:
        return spec_without_defaults(self, {"style": "toolprism"})

    @cached_property
    def _tools(self) -> list[ToolSpec]:
        if self.style == "paper":
            if self.catalog:
                raise ConfigError(["catalog=true: style=paper keeps the tool order"], what=f"operator {self.spec()}")
            return [replace(t, parameters=paper_shuffled(t.parameters, t.name, self.seed)) for t in self.below.tools()]
        tools = [
            replace(t, parameters=shuffled(t.parameters, f"reorder/{self.seed}/{t.name}")) for t in self.below.tools()
        ]
        if self.catalog:
            names = sorted(t.name for t in tools)
            random.Random(f"reorder/{self.seed}").shuffle(names)
            rank = {n: i for i, n in enumerate(names)}
            tools.sort(key=lambda t: rank[t.name])
        return tools

    def tools(self) -> list[ToolSpec]:
        return list(self._tools)

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        return Forward(ToolCall(call.name, dict(call.arguments)))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: decoding never reads the arguments,
        so wrong ones pass down unchanged."""
        return self.decode(call, state)

    def encode(self, call: ToolCall) -> Plan:
        return (yield ToolCall(call.name, ordered(dict(call.arguments), self.tool_index[call.name].parameters)))
