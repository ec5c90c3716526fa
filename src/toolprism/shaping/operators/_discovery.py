"""``discovery``: list a class's methods at runtime, then invoke one (Action-Space Shaping, cross-call
protocols; essentially the MCP pattern). Classes are the operations' groups; operations without a
group form a class named after the action space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import ToolCall, ToolSpec
from toolprism.shaping._layer import Answer, Control, Decoded, Forward, Operator, Plan, reject
from toolprism.shaping.operators._transaction import closed


@dataclass
class DiscoveryState:
    """Per-episode protocol state: the classes listed so far."""

    listed: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Discovery(Operator):
    """Show only ``list_methods(class)`` and ``invoke(class, method, arguments)``.

    Rejections: invoking a class not listed yet in the episode (UNDISCOVERED); a method the class
    does not have (UNKNOWN_TOOL); arguments the method's schema refuses (INVALID_ARGUMENTS).
    """

    name = "discovery"

    @cached_property
    def _classes(self) -> dict[str, dict[str, ToolSpec]]:
        """Class → method name → the tool below."""
        classes: dict[str, dict[str, ToolSpec]] = {}
        for tool in self.below.tools():
            classes.setdefault(tool.group or self.namespace, {})[tool.name] = tool
        return classes

    def tools(self) -> list[ToolSpec]:
        names = list(self._classes)
        cls = {"type": "string", "enum": names, "description": "the class"}
        listing = (
            f"List the methods of a class, with their descriptions and parameter JSON Schemas. "
            f"Classes: {', '.join(names)}."
        )
        invoking = "Call a method of a class listed with list_methods, passing the method's arguments as an object."
        invoke_params = {
            "class": cls,
            "method": {"type": "string", "description": "the method's name, as list_methods gives it"},
            "arguments": {"type": "object", "description": "the method's arguments ({} when it takes none)"},
        }
        return [
            ToolSpec("list_methods", listing, closed({"class": cls}, ["class"])),
            ToolSpec("invoke", invoking, closed(invoke_params, ["class", "method"])),
        ]

    def convention(self) -> str:
        return (
            "Operations are discovered at runtime: call list_methods(class) to see a class's methods and their "
            "parameters, then call invoke(class, method, arguments)."
        )

    def new_state(self) -> DiscoveryState:
        return DiscoveryState()

    def decode(self, call: ToolCall, state: DiscoveryState) -> Decoded:
        cls = call.arguments["class"]
        methods = self._classes[cls]
        if call.name == "list_methods":
            state.listed.add(cls)
            listed = [t.openai()["function"] for t in methods.values()]
            return Answer({"class": cls, "methods": listed})
        if cls not in state.listed:
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
        try:
            methods[method].validate(arguments)
        except RejectedCall as e:
            reason = e.reason.replace(f"tool '{method}'", f"method '{method}' of class '{cls}'", 1)
            raise reject(e.kind, reason) from None
        return Forward(ToolCall(method, arguments))

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
        return Forward(ToolCall(str(method), dict(arguments) if isinstance(arguments, dict) else {}))

    def encode(self, call: ToolCall) -> Plan:
        cls = next(c for c, methods in self._classes.items() if call.name in methods)
        yield ToolCall("list_methods", {"class": cls})
        return (yield ToolCall("invoke", {"class": cls, "method": call.name, "arguments": dict(call.arguments)}))
