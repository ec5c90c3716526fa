"""``nest``: every tool takes all its arguments inside one object parameter (Action-Space Shaping, per-tool
surface; the JSON-RPC / MCP way of packaging arguments).

``lock_door(lock)`` becomes ``lock_door(arguments={lock})``. The nested object's schema is the
tool's own parameter schema, unchanged. A tool without parameters still takes the (empty, but
required) object, so the rule has no exceptions and ``flatten`` undoes it exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan

PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def wrap(parameters: dict[str, Any], param: str) -> dict[str, Any]:
    """The parameter schema whose single required property ``param`` is ``parameters``."""
    return {"type": "object", "properties": {param: parameters}, "required": [param], "additionalProperties": False}


@dataclass(frozen=True)
class Nest(Operator):
    """Move each tool's arguments into one required object parameter called ``param``.

    Raises:
        ConfigError: when binding, if ``param`` is not a plain identifier.
    """

    name = "nest"
    param: str = "arguments"

    @cached_property
    def _checked(self) -> str:
        if not PARAM_NAME.match(self.param):
            raise ConfigError(
                [f"param={self.param!r}: must be an identifier (letters, digits, _; at most 64)"],
                what=f"operator {self.spec()}",
            )
        return self.param

    def convention(self) -> str:
        return f"Pass all of a tool's arguments inside its single '{self.param}' object."

    def tools(self) -> list[ToolSpec]:
        param = self._checked
        return [replace(t, parameters=wrap(dict(t.parameters), param)) for t in self.below.tools()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
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
        return (yield ToolCall(call.name, {self.param: dict(call.arguments)}))
