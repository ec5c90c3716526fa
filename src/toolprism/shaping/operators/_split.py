"""``split``: move an enumerated argument's values into tool names (seed 000, tool-set partitioning).

``set_mode(room, mode∈{heat,cool})`` becomes ``set_mode__heat(room)`` and ``set_mode__cool(room)``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema import JSON, ToolCall, ToolSpec, canonical_json
from toolprism.shaping._layer import Decoded, Forward, Operator, Plan


def _enum_param(tool: ToolSpec, only: str) -> str | None:
    """The first required parameter with a closed enum (named ``only`` if given)."""
    props = tool.parameters.get("properties", {})
    for pname in tool.parameters.get("required", []):
        if (not only or pname == only) and isinstance(props.get(pname, {}).get("enum"), list):
            return pname
    return None


def _suffix(value: JSON) -> str:
    text = re.sub(r"[^A-Za-z0-9]+", "_", str(value)).strip("_").lower()
    return text or "v" + hashlib.sha256(canonical_json(value).encode()).hexdigest()[:6]


def _without(parameters: dict, pname: str) -> dict:
    props = {k: v for k, v in parameters.get("properties", {}).items() if k != pname}
    required = [r for r in parameters.get("required", []) if r != pname]
    return {**parameters, "properties": props, "required": required}


@dataclass(frozen=True)
class Split(Operator):
    """Split each tool on its first required enumerated parameter (or on ``arg`` only).

    Tools with no such parameter pass through unchanged.

    Raises:
        ConfigError: when binding, if two split tools would share a name.
    """

    name = "split"
    arg: str = ""

    @cached_property
    def _table(self) -> dict[str, tuple[str, str | None, JSON]]:
        """Shown name → (lower tool, split parameter or None, value)."""
        table: dict[str, tuple[str, str | None, JSON]] = {}
        problems = []
        for tool in self.below.tools():
            pname = _enum_param(tool, self.arg)
            entries = (
                [(tool.name, None, None)]
                if pname is None
                else [
                    (_fit(f"{tool.name}__{_suffix(v)}"), pname, v) for v in tool.parameters["properties"][pname]["enum"]
                ]
            )
            for shown, p, v in entries:
                if shown in table:
                    problems.append(f"tool {tool.name!r}: split name {shown!r} is already taken")
                table[shown] = (tool.name, p, v)
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return table

    def convention(self) -> str:
        return (
            "Some argument values are part of tool names: call the tool whose name ends with the value "
            "you want instead of passing that argument."
        )

    def tools(self) -> list[ToolSpec]:
        lower = self.below.tool_index
        shown = []
        for name, (tool_name, pname, value) in self._table.items():
            tool = lower[tool_name]
            if pname is None:
                shown.append(tool)
                continue
            description = f"{tool.description} (with {pname}={canonical_json(value)})".strip()
            shown.append(
                replace(tool, name=name, description=description, parameters=_without(dict(tool.parameters), pname))
            )
        return shown

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        tool_name, pname, value = self._table[call.name]
        args = dict(call.arguments)
        if pname is not None:
            args[pname] = value
        return Forward(ToolCall(tool_name, args))

    def encode(self, call: ToolCall) -> Plan:
        args = dict(call.arguments)
        for name, (tool_name, pname, value) in self._table.items():
            if tool_name == call.name and (pname is None or args.get(pname) == value):
                if pname is not None:
                    del args[pname]
                return (yield ToolCall(name, args))
        raise ValueError(f"split cannot encode {call.name} with {call.arguments}")


def _fit(name: str) -> str:
    """Keep a tool name within 64 characters (truncate, add a short hash)."""
    if len(name) <= 64:
        return name
    return name[:57] + "_" + hashlib.sha256(name.encode()).hexdigest()[:6]
