"""``discovery``: list a class's methods at runtime, then invoke one (Action-Space Shaping, cross-call
protocols, "schema discovery"; paper code ``toolschema/hierarchy.py``, arm ``disclose``; essentially
the MCP pattern). Classes and methods: :mod:`toolprism.shaping.operators._classes` (a class is a
group; tools without a group form a class named after the action space).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Answer, Control, Decoded, Forward, Operator, Plan, reject
from toolprism.shaping.operators._classes import classes
from toolprism.shaping.operators._transaction import closed


@dataclass
class DiscoveryState:
    """Per-episode protocol state: the classes listed so far."""

    listed: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Discovery(Operator):
    """Show only ``list_methods(class)`` and ``invoke(class, method, arguments)``.

    ``list_methods`` answers ``{"class", "methods": [{name, description, parameters}]}``, each
    method under its name within the class. Styles:

    - ``paper`` (the paper's schema discovery): ``invoke`` is not gated on a prior listing and
      takes all three arguments; its description names every class's methods (the argument
      schemas only come from ``list_methods``); classes are sorted by name. The encoder invokes
      directly (the paper's oracle lists the class once per episode first; a per-action encoder
      has no episode to do that in).
    - ``gated`` (toolprism's own; classes in the order the tools come): invoking a class not
      listed yet in the episode is rejected (UNDISCOVERED), ``arguments`` may be left out
      (``{}``), and the encoder lists the class before every invoke.

    Rejections (both styles): a method the class does not have (UNKNOWN_TOOL); arguments the
    method's schema refuses (INVALID_ARGUMENTS). Deviation from the paper's hard control, which
    executes wrong arguments and scores them as wrong (the adapter controls decide that).

    Raises:
        ConfigError: when binding, two tools of one class with the same method.
    """

    name = "discovery"
    style: Literal["paper", "gated"] = "paper"

    @cached_property
    def _classes(self) -> dict[str, dict[str, ToolSpec]]:
        """Class → method → the tool below."""
        return classes(self.below.tools(), self.namespace)

    def tools(self) -> list[ToolSpec]:
        names = sorted(self._classes) if self.style == "paper" else list(self._classes)
        cls = {"type": "string", "enum": names, "description": "the class"}
        listing = (
            f"List the methods of a class, with their descriptions and parameter JSON Schemas. "
            f"Classes: {', '.join(names)}."
        )
        invoke_params = {
            "class": cls,
            "method": {"type": "string", "description": "the method's name, as list_methods gives it"},
            "arguments": {"type": "object", "description": "the method's arguments ({} when it takes none)"},
        }
        if self.style == "gated":
            invoking = "Call a method of a class listed with list_methods, passing the method's arguments as an object."
            required = ["class", "method"]
        else:
            methods = "; ".join(f"{c}: {', '.join(self._classes[c])}" for c in names)
            invoking = (
                f"Call one method of one class with its arguments as an object. Methods by class: {methods}. "
                "Each method's arguments are given by list_methods."
            )
            required = ["class", "method", "arguments"]
        return [
            ToolSpec("list_methods", listing, closed({"class": cls}, ["class"])),
            ToolSpec("invoke", invoking, closed(invoke_params, required)),
        ]

    def convention(self) -> str:
        if self.style == "gated":
            return (
                "Operations are discovered at runtime: call list_methods(class) to see a class's methods and their "
                "parameters, then call invoke(class, method, arguments)."
            )
        return (
            "Operations are reached through invoke(class, method, arguments); list_methods(class) gives a class's "
            "methods and their parameters."
        )

    def new_state(self) -> DiscoveryState:
        return DiscoveryState()

    def decode(self, call: ToolCall, state: DiscoveryState) -> Decoded:
        cls = call.arguments["class"]
        methods = self._classes[cls]
        if call.name == "list_methods":
            state.listed.add(cls)
            listed = [replace(t, name=m).openai()["function"] for m, t in methods.items()]
            return Answer({"class": cls, "methods": listed})
        if self.style == "gated" and cls not in state.listed:
            raise reject(
                RejectionKind.UNDISCOVERED,
                f"class '{cls}' has not been listed yet; call list_methods(class='{cls}') first",
            )
        method = call.arguments["method"]
        if method not in methods:
            home = next((c for c, ms in self._classes.items() if method in ms), None)
            hint = f"'{method}' is a method of class '{home}'" if home else f"its methods are: {', '.join(methods)}"
            raise reject(RejectionKind.UNKNOWN_TOOL, f"class '{cls}' has no method '{method}'; {hint}")
        arguments = call.arguments.get("arguments", {})
        tool = methods[method]
        try:
            tool.validate(arguments)
        except RejectedCall as e:
            reason = e.reason.replace(f"tool '{tool.name}'", f"method '{method}' of class '{cls}'", 1)
            raise reject(e.kind, reason) from None
        return Forward(ToolCall(tool.name, arguments))

    def decode_unchecked(self, call: ToolCall, state: DiscoveryState, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``, as the paper's discovery arm decodes
        (``toolschema/hierarchy.py``, ``HierEnv.call``): ``invoke`` is not gated on
        ``list_methods``; arguments that are not an object become ``{}`` and are not checked here.
        An unknown class (``list_methods`` under both controls; ``invoke`` under ``paper``) or a
        method the class lacks (``paper``) is rejected with the paper's message; under ``loose``
        an invoke of any native operation runs it, whatever the class.

        Raises:
            RejectedCall: INVALID_ARGUMENTS (unknown class), UNKNOWN_TOOL (unknown method).
        """
        cls = call.arguments.get("class")
        methods = self._classes.get(cls) if isinstance(cls, str) else None
        if methods is None and (call.name == "list_methods" or control == "paper"):
            raise reject(RejectionKind.INVALID_ARGUMENTS, f"unknown class {cls!r}; classes: {sorted(self._classes)}")
        if call.name == "list_methods":
            return self.decode(call, state)
        method = call.arguments.get("method")
        if control == "paper" and method not in methods:
            raise reject(
                RejectionKind.UNKNOWN_TOOL,
                f"class `{cls}` has no method {method!r}; call list_methods first. Methods: {list(methods)}",
            )
        arguments = call.arguments.get("arguments")
        target = methods[method].name if methods and isinstance(method, str) and method in methods else str(method)
        return Forward(ToolCall(target, dict(arguments) if isinstance(arguments, dict) else {}))

    def encode(self, call: ToolCall) -> Plan:
        cls, method = next((c, m) for c, ms in self._classes.items() for m, t in ms.items() if t.name == call.name)
        if self.style == "gated":
            yield ToolCall("list_methods", {"class": cls})
        return (yield ToolCall("invoke", {"class": cls, "method": method, "arguments": dict(call.arguments)}))
