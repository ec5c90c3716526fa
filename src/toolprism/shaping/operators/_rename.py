"""``rename``: give every tool a new name, mapped both ways (Action-Space Shaping, per-tool surface)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import ConfigError
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan
from toolprism.shaping.operators._transaction import tool_name


@dataclass(frozen=True)
class Rename(Operator):
    """Rename tools: ``opaque`` gives ``t_`` plus 6 hex digits of SHA-256 of the name;
    ``namespaced`` gives ``<space>__<group>__<name>`` (group omitted when empty). A name that would
    break ``^[a-zA-Z0-9_-]{1,64}$`` is made valid deterministically: invalid characters become
    ``_`` and an over-long name keeps 57 characters plus ``_`` and 6 hex digits of its SHA-256.

    Raises:
        ConfigError: when binding, if two tools would get the same name.
    """

    name = "rename"
    style: Literal["opaque", "namespaced"] = "opaque"

    def _new_name(self, tool: ToolSpec) -> str:
        if self.style == "opaque":
            return "t_" + hashlib.sha256(tool.name.encode()).hexdigest()[:6]
        parts = [self.namespace, tool.group, tool.name]
        return tool_name("__".join(p for p in parts if p))

    @cached_property
    def _maps(self) -> tuple[dict[str, str], dict[str, str]]:
        up = {t.name: self._new_name(t) for t in self.below.tools()}
        down = {v: k for k, v in up.items()}
        problems = [f"tools {k!r} collide as {v!r}" for k, v in up.items() if down[v] != k]
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return up, down

    def convention(self) -> str:
        if self.style == "opaque":
            return "Tool names are opaque identifiers: choose a tool by its description, not its name."
        return "Tool names carry a domain and class prefix; call them by their full names."

    def tools(self) -> list[ToolSpec]:
        up, _ = self._maps
        return [replace(t, name=up[t.name]) for t in self.below.tools()]

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        _, down = self._maps
        return Forward(ToolCall(down[call.name], call.arguments))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: decoding maps the name only, never reads the arguments,
        so wrong ones pass down unchanged."""
        return self.decode(call, state)

    def encode(self, call: ToolCall) -> Plan:
        up, _ = self._maps
        return (yield ToolCall(up[call.name], call.arguments))
