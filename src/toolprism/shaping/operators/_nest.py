"""``nest``: every tool takes all its arguments inside one object parameter (Action-Space Shaping, per-tool
surface; the JSON-RPC / MCP way of packaging arguments).

``lock_door(lock)`` becomes ``lock_door(arguments={lock})``. The nested object's schema is the
tool's own parameter schema, unchanged. A tool without parameters still takes the (empty, but
required) object, so the rule has no exceptions and ``flatten`` undoes it exactly.

``keep=N`` is the paper's nested args (Action-Space Shaping; ToolSchemaSpace ``toolschema/operators.py``
``_apply_pack_lift`` for ``arg_lower``, the choice of ``benchmarks/synthetic/opspecs.py``): a tool with
at least N+2 parameters keeps its first N at the top level and takes the rest inside one object
``param``, appended last; the object lists the moved parameters' required ones, says "Grouped
arguments: a, b." and is itself required when any moved parameter is; tools with fewer
parameters stay as they are. The paper's variant is ``nest(param=options,keep=1)``: on the
paper's catalog this reproduces ``pack.json`` and ``schemas/05_nested_args.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan
from toolprism.shaping.operators._paper import spec_without_defaults

PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def wrap(parameters: dict[str, Any], param: str) -> dict[str, Any]:
    """The parameter schema whose single required property ``param`` is ``parameters``."""
    return {"type": "object", "properties": {param: parameters}, "required": [param], "additionalProperties": False}


@dataclass(frozen=True)
class Nest(Operator):
    """Move each tool's arguments (``keep=-1``, the default) or all but its first ``keep`` (the
    paper's) into one object parameter called ``param``.

    Raises:
        ConfigError: when binding, if ``param`` is not a plain identifier, ``keep`` is below -1, or
            (``keep`` >= 0) a kept parameter is already called ``param``.
    """

    name = "nest"
    param: str = "arguments"
    keep: int = -1

    def spec(self) -> str:
        return spec_without_defaults(self, {"keep": -1})

    @cached_property
    def _moved(self) -> dict[str, list[str]]:
        """``keep`` >= 0: tool name → the parameters it nests (tools it leaves out are absent)."""
        problems = [] if self.keep >= -1 else [f"keep={self.keep}: must be -1 (nest all) or at least 0"]
        moved: dict[str, list[str]] = {}
        for tool in self.below.tools() if self.keep >= 0 else []:
            params = list(tool.parameters.get("properties", {}))
            if len(params) >= self.keep + 2:
                moved[tool.name] = params[self.keep :]
                if self.param in params[: self.keep]:
                    problems.append(f"tool {tool.name!r}: it keeps a parameter called {self.param!r}")
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return moved

    def _grouped(self, tool: ToolSpec) -> ToolSpec:
        if tool.name not in self._moved:
            return tool
        inner_names = self._moved[tool.name]
        props = dict(tool.parameters.get("properties", {}))
        inner = {p: props.pop(p) for p in inner_names}
        required = list(tool.parameters.get("required", []))
        inner_required = [p for p in inner_names if p in required]
        props[self.param] = {
            "type": "object",
            "properties": inner,
            "required": inner_required,
            "description": f"Grouped arguments: {', '.join(inner)}.",
        }
        outer = [r for r in required if r not in inner] + ([self.param] if inner_required else [])
        return replace(tool, parameters={**tool.parameters, "properties": props, "required": outer})

    @cached_property
    def _checked(self) -> str:
        if not PARAM_NAME.match(self.param):
            raise ConfigError(
                [f"param={self.param!r}: must be an identifier (letters, digits, _; at most 64)"],
                what=f"operator {self.spec()}",
            )
        return self.param

    def convention(self) -> str:
        if self.keep != -1:
            return f"Some tools take their later arguments inside one '{self.param}' object."
        return f"Pass all of a tool's arguments inside its single '{self.param}' object."

    def tools(self) -> list[ToolSpec]:
        param = self._checked
        if self.keep != -1:
            return [self._grouped(t) for t in self.below.tools()]
        return [replace(t, parameters=wrap(dict(t.parameters), param)) for t in self.below.tools()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        if self.keep != -1:
            if call.name not in self._moved:
                return Forward(call)
            args = dict(call.arguments)
            inner = dict(args.pop(self.param, {}))
            return Forward(ToolCall(call.name, {**args, **inner}))
        # the adapter has validated the call against wrap(): the object is there and valid below
        return Forward(ToolCall(call.name, dict(call.arguments[self.param])))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: the paper's unpacking of nested arguments
        (``toolschema/operators.py``, ``SeqDecoder._unpack``): the object's members become the
        arguments; any other key, or a ``param`` that is not an object, passes down as given."""
        args: dict[str, Any] = {}
        for key, value in call.arguments.items():
            if key == self.param and isinstance(value, dict):
                args.update(value)
            else:
                args[key] = value
        return Forward(ToolCall(call.name, args))

    def encode(self, call: ToolCall) -> Plan:
        if self.keep != -1:
            moved = self._moved.get(call.name, [])
            args = {k: v for k, v in call.arguments.items() if k not in moved}
            inner = {k: v for k, v in call.arguments.items() if k in moved}
            return (yield ToolCall(call.name, {**args, self.param: inner} if inner else args))
        return (yield ToolCall(call.name, {self.param: dict(call.arguments)}))
