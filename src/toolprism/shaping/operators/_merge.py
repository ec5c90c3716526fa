"""``merge``: fold several tools into one dispatcher whose ``operation`` argument picks the tool
(seed 000, tool-set partitioning). ``by=full`` makes one dispatcher for the whole catalog,
``by=class`` one per operation group; ``args=flat`` puts every tool's arguments side by side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Decoded, Forward, Operator, Plan

OPERATION = "operation"


def _signature(tool: ToolSpec) -> str:
    props = tool.parameters.get("properties", {})
    return f"{tool.name}({', '.join(props)})"


def selector(tools: list[ToolSpec]) -> str:
    """The dispatcher's selector argument: ``operation``, or ``operation_2``, ``operation_3``...
    when the merged tools already take an argument of that name (e.g. ``merge|merge``)."""
    taken = {p for t in tools for p in t.parameters.get("properties", {})}
    return next(k for k in (OPERATION, *(f"{OPERATION}_{i}" for i in range(2, len(taken) + 3))) if k not in taken)


def _dispatcher(name: str, tools: list[ToolSpec]) -> ToolSpec:
    """One flat dispatcher over ``tools``: an ``operation`` enum plus the union of parameters.

    A parameter name shared with different schemas becomes ``anyOf`` the schemas; the chosen
    operation's own schema is enforced when the call is decoded.
    """
    key = selector(tools)
    properties: dict[str, Any] = {
        key: {"type": "string", "enum": [t.name for t in tools], "description": "the operation to run"}
    }
    for tool in tools:
        for pname, pschema in tool.parameters.get("properties", {}).items():
            current = properties.get(pname)
            if current is None or current == pschema:
                properties[pname] = pschema
            else:
                options = current["anyOf"] if "anyOf" in current else [current]
                properties[pname] = {"anyOf": options + ([pschema] if pschema not in options else [])}
    lines = [f"- {_signature(t)}: {t.description}" for t in tools]
    description = (
        f"Runs one of {len(tools)} operations. Set '{key}' to the operation's name and pass "
        "that operation's arguments alongside it:\n" + "\n".join(lines)
    )
    parameters = {"type": "object", "properties": properties, "required": [key], "additionalProperties": False}
    return ToolSpec(name, description, parameters, tools[0].group if len({t.group for t in tools}) == 1 else "")


@dataclass(frozen=True)
class Merge(Operator):
    """Merge tools into dispatchers named ``execute`` (``by=full``) or ``<group>`` (``by=class``)."""

    name = "merge"
    by: Literal["full", "class"] = "full"
    args: Literal["flat"] = "flat"

    @cached_property
    def _groups(self) -> dict[str, list[ToolSpec]]:
        groups: dict[str, list[ToolSpec]] = {}
        for tool in self.below.tools():
            key = "execute" if self.by == "full" else (tool.group or "execute")
            groups.setdefault(key, []).append(tool)
        return groups

    def convention(self) -> str:
        return (
            "Operations are reached through dispatcher tools: call the dispatcher, put the operation's name "
            "in its selector argument, and pass that operation's own arguments alongside."
        )

    def tools(self) -> list[ToolSpec]:
        return [_dispatcher(name, tools) for name, tools in self._groups.items()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        args = dict(call.arguments)
        members = {t.name: t for t in self._groups[call.name]}
        op = args.pop(selector(list(members.values())))
        if op not in members:  # unreachable after schema validation; kept as a guard
            raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"unknown operation {op!r}")
        target = members[op]
        foreign = sorted(set(args) - set(target.parameters.get("properties", {})))
        if foreign:
            raise RejectedCall(
                RejectionKind.INVALID_ARGUMENTS,
                f"operation '{op}' takes no argument(s) {', '.join(map(repr, foreign))}; "
                f"its arguments are: {', '.join(target.parameters.get('properties', {})) or 'none'}",
            )
        try:
            target.validate(args)
        except RejectedCall as e:
            raise RejectedCall(e.kind, e.reason.replace(f"tool '{op}'", f"operation '{op}'")) from None
        return Forward(ToolCall(op, args))

    def encode(self, call: ToolCall) -> Plan:
        group = next(name for name, tools in self._groups.items() if any(t.name == call.name for t in tools))
        return (yield ToolCall(group, {selector(self._groups[group]): call.name, **call.arguments}))
