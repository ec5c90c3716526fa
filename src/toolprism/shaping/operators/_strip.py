"""``strip``: remove descriptions (Action-Space Shaping, per-tool surface). ``what=tools`` blanks the tool
descriptions, ``what=params`` removes every ``description`` keyword from the parameter schemas at
any depth, ``what=all`` (the default) does both. Names, types and enums stay: calls are unchanged.

The paper's strip descriptions (ToolSchemaSpace ``toolschema/operators.py`` ``_strip_desc``,
``s_nodesc.json`` names every tool) is ``strip(what=all)``: on the paper's catalog it reproduces
``schemas/07_strip_descriptions.json`` exactly. The one difference: the paper removes
``description`` from properties and nested ``properties`` only, toolprism also inside ``items``,
``anyOf`` and the other subschema keywords (the paper's catalog has none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from toolprism.schema import JSON, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_ONE, ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan

_ONE = (*SUBSCHEMA_ONE, "additionalItems")
_MANY = (*SUBSCHEMA_LISTS, "items")  # ``items`` is a list in draft-07's tuple form


def undescribed(schema: JSON) -> JSON:
    """A copy of ``schema`` without ``description`` keywords, at any depth. Values such as
    ``enum``, ``const``, ``default`` and ``examples`` are data, copied as they are."""
    if not isinstance(schema, Mapping):
        return schema  # a boolean schema
    out: dict[str, JSON] = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key in SUBSCHEMA_MAPS and isinstance(value, Mapping):
            value = {name: undescribed(sub) for name, sub in value.items()}
        elif key in _MANY and isinstance(value, list | tuple):
            value = [undescribed(sub) for sub in value]
        elif key in _ONE:
            value = undescribed(value)
        out[key] = value
    return out


@dataclass(frozen=True)
class Strip(Operator):
    """Remove tool descriptions (``tools``), parameter descriptions (``params``), or both."""

    name = "strip"
    what: Literal["tools", "params", "all"] = "all"

    def convention(self) -> str:
        subject = {"tools": "Tools", "params": "Arguments", "all": "Tools and arguments"}[self.what]
        return f"{subject} come without descriptions: infer their meaning from names, types and allowed values."

    def tools(self) -> list[ToolSpec]:
        tools = self.below.tools()
        if self.what in ("tools", "all"):
            tools = [replace(t, description="") for t in tools]
        if self.what in ("params", "all"):
            tools = [replace(t, parameters=undescribed(t.parameters)) for t in tools]
        return tools

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        return Forward(call)

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: decoding never reads the arguments,
        so wrong ones pass down unchanged."""
        return self.decode(call, state)

    def encode(self, call: ToolCall) -> Plan:
        return (yield call)
