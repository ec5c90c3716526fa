"""``flatten``: the inverse of ``nest``, for catalogs that arrive nested (JSON-RPC / MCP style).

A tool whose only parameter is one required object with ``properties`` (and no other top-level
arguments allowed) takes that object's properties as its own top-level arguments: the lifted
schema is the object's schema, unchanged, so ``nest|flatten`` gives back the native tools
exactly. Tools of any other shape pass through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan


def wrapper(tool: ToolSpec, only: str = "") -> str | None:
    """The name of ``tool``'s single, required, closed-over object parameter (named ``only`` if
    given), or None when the tool is not of that shape."""
    props = tool.parameters.get("properties", {})
    if len(props) != 1 or tool.parameters.get("additionalProperties", True) is not False:
        return None
    pname, inner = next(iter(props.items()))
    if (only and pname != only) or pname not in tool.parameters.get("required", []):
        return None
    if not isinstance(inner, dict) or inner.get("type") != "object" or not isinstance(inner.get("properties"), dict):
        return None
    return pname


@dataclass(frozen=True)
class Flatten(Operator):
    """Lift the properties of a tool's single object parameter (any name, or only ``param``) to
    the top level. Since the object is the tool's only parameter, lifting cannot collide."""

    name = "flatten"
    param: str = ""

    @cached_property
    def _wrappers(self) -> dict[str, str]:
        """Tool name → its wrapper parameter, for the tools this layer flattens."""
        return {t.name: p for t in self.below.tools() if (p := wrapper(t, self.param)) is not None}

    def tools(self) -> list[ToolSpec]:
        return [
            replace(t, parameters=dict(t.parameters["properties"][self._wrappers[t.name]]))
            if t.name in self._wrappers
            else t
            for t in self.below.tools()
        ]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        pname = self._wrappers.get(call.name)
        return Forward(call if pname is None else ToolCall(call.name, {pname: dict(call.arguments)}))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: decoding wraps the arguments without reading them,
        so wrong ones pass down unchanged."""
        return self.decode(call, state)

    def encode(self, call: ToolCall) -> Plan:
        pname = self._wrappers.get(call.name)
        return (yield call if pname is None else ToolCall(call.name, dict(call.arguments[pname])))
