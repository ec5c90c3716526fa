"""``rename``: give every tool a new name, mapped both ways (Action-Space Shaping, per-tool surface;
the class arms of paper code ``toolschema/hierarchy.py``)."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import ConfigError
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Control, Decoded, Forward, Operator, Plan
from toolprism.shaping.operators._classes import class_method, qualified_name
from toolprism.shaping.operators._transaction import tool_name

_CONVENTIONS = {
    "opaque": "Tool names are opaque identifiers: choose a tool by its description, not its name.",
    "hash": "Tool names are opaque identifiers: choose a tool by its description, not its name.",
    "namespaced": "Tool names are <class>__<method>: pick the class first, then its method.",
    "flat": (
        "Each description opens with the tool's class in brackets; a method that several classes have ends "
        "with _<class>."
    ),
    "domain-class": "Tool names carry a domain and class prefix; call them by their full names.",
}


@dataclass(frozen=True)
class Rename(Operator):
    """Rename tools (class and method of a tool: :mod:`toolprism.shaping.operators._classes`).

    Styles:

    - ``opaque`` (the paper's "rename · opaque", spec file ``s_obf.json``, built by
      ``benchmarks/synthetic/opspecs2.py``): ``fn_`` plus the first 6 hex digits of the SHA-1 of
      ``<domain>:<name>``; the domain is the tool's class when its name is class-qualified (the whole
      catalog: ``<class>:<method>``), else the action space's name.
    - ``hash`` (toolprism's own, called ``opaque`` before the paper's form took that name): ``t_`` plus
      6 hex digits of the SHA-256 of the name.
    - ``namespaced`` (the paper's "namespaced names", ``hierarchy.py`` arm ``qualified``):
      ``<class>__<method>``; the class is the group (the action space's name when the tool has
      none). On the whole catalog, whose native names are class-qualified, the names stay as they are.
    - ``flat`` (the paper's "native · whole catalog" control, arm ``flat``): the method name, or
      ``<method>_<class>`` for a method that more than one class has; every description is prefixed
      ``[<class>] ``. Deviation: the paper's control is its native catalog; ours is this rename of
      the class-qualified native names (the same tools are shown).
    - ``domain-class`` (toolprism's own, called ``namespaced`` before the paper's form took that
      name): ``<space>__<group>__<name>``, the group left out when empty.

    ``namespaced`` and ``flat`` show the tools class by class, classes sorted by name, as the paper's
    arms do (the other styles keep the order below).

    A name that would break ``^[a-zA-Z0-9_-]{1,64}$`` is made valid deterministically: invalid
    characters become ``_`` and an over-long name keeps 57 characters plus ``_`` and 6 hex digits
    of its SHA-256.

    Raises:
        ConfigError: when binding, if two tools would get the same name (every clash listed).
    """

    name = "rename"
    style: Literal["opaque", "hash", "namespaced", "flat", "domain-class"] = "opaque"

    def _domain_key(self, tool: ToolSpec) -> str:
        """``<domain>:<name>``, the input of the paper's opaque name."""
        cls, method = class_method(tool.name, tool.group)
        return f"{cls}:{method}" if method != tool.name else f"{self.namespace}:{tool.name}"

    def _shown(self, tools: list[ToolSpec]) -> list[ToolSpec]:
        """The tools below as this style shows them, in the same order."""
        if self.style == "hash":
            return [replace(t, name="t_" + hashlib.sha256(t.name.encode()).hexdigest()[:6]) for t in tools]
        if self.style == "opaque":
            return [replace(t, name="fn_" + hashlib.sha1(self._domain_key(t).encode()).hexdigest()[:6]) for t in tools]
        if self.style == "domain-class":
            spaced = ("__".join(filter(None, (self.namespace, t.group, t.name))) for t in tools)
            return [replace(t, name=tool_name(name)) for t, name in zip(tools, spaced, strict=True)]
        pairs = [class_method(t.name, t.group) for t in tools]
        pairs = [(cls or self.namespace, method) for cls, method in pairs]
        if self.style == "namespaced":
            return [replace(t, name=tool_name(qualified_name(*pair))) for t, pair in zip(tools, pairs, strict=True)]
        homes = Counter(method for _, method in set(pairs))
        return [
            replace(
                t,
                name=tool_name(f"{method}_{cls}" if homes[method] > 1 else method),
                description=f"[{cls}] {t.description}",
            )
            for t, (cls, method) in zip(tools, pairs, strict=True)
        ]

    @cached_property
    def _maps(self) -> tuple[list[ToolSpec], dict[str, str], dict[str, str]]:
        below = self.below.tools()
        shown = self._shown(below)
        up = {t.name: s.name for t, s in zip(below, shown, strict=True)}
        down = {v: k for k, v in up.items()}
        problems = [f"tools {k!r} collide as {v!r}" for k, v in up.items() if down[v] != k]
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return shown, up, down

    def convention(self) -> str:
        return _CONVENTIONS[self.style]

    def tools(self) -> list[ToolSpec]:
        shown = list(self._maps[0])
        if self.style in ("namespaced", "flat"):
            below = self.below.tools()
            order = {t.name: (class_method(t.name, t.group)[0] or self.namespace) for t in below}
            classes = [order[t.name] for t in below]
            shown = [s for _, s in sorted(zip(classes, shown, strict=True), key=lambda pair: pair[0])]
        return shown

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        return Forward(ToolCall(self._maps[2][call.name], call.arguments))

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: decoding maps the name only, never reads the arguments,
        so wrong ones pass down unchanged."""
        return self.decode(call, state)

    def encode(self, call: ToolCall) -> Plan:
        return (yield ToolCall(self._maps[1][call.name], call.arguments))
