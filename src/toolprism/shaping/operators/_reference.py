"""``reference``: pass values by handle (Action-Space Shaping, cross-call protocols, reference resolution).

Two constructions, chosen by ``style``:

- ``style=paper`` (the paper's reference resolution: ToolSchemaSpace ``toolschema/operators.py``
  ``_apply_indirect``, ``simenv.py`` ``_resolve``; see :mod:`._resolve`): one
  ``resolve_<op>__<param>(query)`` per referenced (operation, parameter) over a value table, the
  operation taking ``<param>_ref`` instead.
- ``style=value`` (toolprism's, the default when ``style`` is not given), described next.

``resolve_<arg>(value)`` answers ``{"handle": "h_<n>"}``; every operation taking ``<arg>`` takes
``<arg>_handle`` instead. ``args=order_id+user_id`` names the referenced arguments; by default they
are the argument names that some operation requires as a plain string (no enum): ids, names, emails.
Operations without referenced arguments pass through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from toolprism.errors import ConfigError, RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec
from toolprism.shaping._layer import Answer, Batch, Control, Decoded, Forward, Operator, Plan, reject
from toolprism.shaping.operators._paper import spec_without_defaults
from toolprism.shaping.operators._resolve import PaperResolve
from toolprism.shaping.operators._transaction import closed, tool_name, value_check


@dataclass
class ReferenceState:
    """Per-episode protocol state: handle → (argument name, value), in issue order."""

    handles: dict[str, tuple[str, JSON]] = field(default_factory=dict)


def _plain_string(schema: JSON) -> bool:
    return schema.get("type") == "string" and "enum" not in schema and "const" not in schema


def _default_names(tools: list) -> list[str]:
    """Required free-string arguments; failing those, required enumerated strings."""
    required = [
        (arg, schema)
        for tool in tools
        for arg, schema in tool.parameters.get("properties", {}).items()
        if arg in tool.parameters.get("required", []) and isinstance(schema, dict) and schema.get("type") == "string"
    ]
    plain = [arg for arg, schema in required if _plain_string(schema)]
    return list(dict.fromkeys(plain or [arg for arg, schema in required if "enum" in schema]))


@dataclass(frozen=True)
class Reference(Operator):
    """Replace referenced arguments by handles that resolver tools issue.

    ``style=paper``: the paper's construction (:mod:`._resolve`), with ``file`` (a paper spec file
    giving the value tables) and ``min_values`` (the rule without one). The rest of this docstring
    is ``style=value``, toolprism's: ``args`` names the referenced arguments (``order_id+user_id``).
    By default: every argument some operation requires as a free string (ids, names, emails); in a
    catalog with none, every required enumerated string argument (rooms, modes) instead, so the
    operator always applies.

    Rejections: a handle never issued in this episode, or issued for another argument (UNKNOWN_HANDLE);
    a handle whose value the operation's own schema refuses (INVALID_ARGUMENTS).

    Raises:
        ConfigError: when binding, for a named argument no operation takes, a resolver name that is
            already a tool's, or an ``<arg>_handle`` an operation already takes; ``file`` or
            ``min_values`` without ``style=paper``, ``args`` with it; see :class:`PaperResolve`.
    """

    name = "reference"
    args: str = ""
    style: Literal["", "value", "paper"] = ""
    file: str = ""
    min_values: int = 6

    def spec(self) -> str:
        return spec_without_defaults(self, {"style": "value", "min_values": 6})

    @cached_property
    def _paper(self) -> PaperResolve | None:
        if self.style != "paper":
            problems = [f"{k} applies to style=paper only" for k in ("file", "min_values") if self._changed(k)]
            if problems:
                raise ConfigError(problems, what=f"operator {self.spec()}")
            return None
        if self.args:
            raise ConfigError(["args applies to style=value only (style=paper takes file)"], what=self.spec())
        if self.min_values < 1:
            raise ConfigError([f"min_values must be at least 1, got {self.min_values}"], what=self.spec())
        return PaperResolve(self.below.tools(), self.file, self.min_values, self.spec())

    def _changed(self, key: str) -> bool:
        return getattr(self, key) != {"file": "", "min_values": 6}[key]

    @cached_property
    def _resolvers(self) -> dict[str, tuple[str, list[JSON]]]:
        """Resolver name → (argument name, its distinct schemas)."""
        lower = self.below.tools()
        named = [a for a in self.args.split("+") if a] or _default_names(lower)
        found: dict[str, list[JSON]] = {}
        for tool in lower:
            for arg in tool.parameters.get("properties", {}):
                if arg in named:
                    found.setdefault(arg, [])
        for tool in lower:  # every schema of a referenced name, required or not
            for arg, schema in tool.parameters.get("properties", {}).items():
                if arg in found and schema not in found[arg]:
                    found[arg].append(schema)
        problems = [f"args: no tool takes an argument {a!r}" for a in named if a not in found]
        table: dict[str, tuple[str, list[JSON]]] = {}
        taken = {t.name for t in lower}
        for arg, schemas in found.items():
            shown = tool_name(f"resolve_{arg}")
            if shown in taken or shown in table:
                problems.append(f"argument {arg!r}: resolver name {shown!r} is already taken")
            table[shown] = (arg, schemas)
        problems += [
            f"tool {t.name!r}, argument {a!r}: it already takes an argument '{a}_handle'"
            for t in lower
            for a in t.parameters.get("properties", {})
            if a in found and f"{a}_handle" in t.parameters["properties"]
        ]
        if problems:
            raise ConfigError(problems, what=f"operator {self.spec()}")
        return table

    @cached_property
    def _resolver_of(self) -> dict[str, str]:
        return {arg: name for name, (arg, _) in self._resolvers.items()}

    def _show(self, tool: ToolSpec) -> ToolSpec:
        props = tool.parameters.get("properties", {})
        if not any(a in self._resolver_of for a in props):
            return tool
        new: dict[str, JSON] = {}
        for arg, schema in props.items():
            if arg in self._resolver_of:
                about = f"the {arg}" + (f" ({schema['description']})" if "description" in schema else "")
                schema = {
                    "type": "string",
                    "description": f"a handle from {self._resolver_of[arg]} standing for {about}",
                }
            new[arg + ("_handle" if arg in self._resolver_of else "")] = schema
        required = [r + ("_handle" if r in self._resolver_of else "") for r in tool.parameters.get("required", [])]
        return ToolSpec(
            tool.name, tool.description, {**tool.parameters, "properties": new, "required": required}, tool.group
        )

    def tools(self) -> list[ToolSpec]:
        if self._paper is not None:
            return self._paper.tools()
        lower = self.below.tools()
        resolvers = []
        for name, (arg, schemas) in self._resolvers.items():
            users = ", ".join(t.name for t in lower if arg in t.parameters.get("properties", {}))
            value = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
            description = f"Resolve a {arg} to a handle; pass the handle as {arg}_handle to: {users}."
            resolvers.append(ToolSpec(name, description, closed({"value": value}, ["value"])))
        return [self._show(t) for t in lower] + resolvers

    def convention(self) -> str:
        if self._paper is not None:
            return self._paper.convention()
        if not self._resolvers:
            return ""
        return (
            "Some arguments are passed by handle: call resolve_<argument>(value) to get a handle, then pass it "
            "as <argument>_handle."
        )

    def new_state(self) -> ReferenceState:
        return ReferenceState()

    def decode(self, call: ToolCall, state: ReferenceState) -> Decoded:
        if self._paper is not None:
            return self._paper.decode(call)
        if call.name in self._resolvers:
            handle = f"h_{len(state.handles) + 1}"
            state.handles[handle] = (self._resolvers[call.name][0], call.arguments["value"])
            return Answer({"handle": handle})
        tool = self.below.tool(call.name)
        args = dict(call.arguments)
        for arg, schema in tool.parameters.get("properties", {}).items():
            if f"{arg}_handle" not in args or arg not in self._resolver_of:
                continue
            handle = args.pop(f"{arg}_handle")
            kind, value = state.handles.get(handle, (None, None))
            fix = f"get one with {self._resolver_of[arg]}(value)"
            if kind is None:
                raise reject(RejectionKind.UNKNOWN_HANDLE, f"unknown handle {handle!r} for {arg}_handle; {fix}")
            if kind != arg:
                raise reject(RejectionKind.UNKNOWN_HANDLE, f"handle {handle!r} was issued for {kind}, not {arg}; {fix}")
            value_check(schema, value, f"the value behind handle {handle!r} is invalid for '{arg}' of {call.name}")
            args[arg] = value
        return Forward(ToolCall(call.name, args))

    def decode_unchecked(self, call: ToolCall, state: ReferenceState, control: Control) -> Decoded:
        """Adapter controls ``paper`` / ``loose``: a handle that does not resolve for its argument
        (never issued, or issued for another argument) passes down as the value
        ``<UNRESOLVED:handle>``, and a resolved value is not checked, as the paper decodes handles
        (``toolschema/operators.py``, ``SeqDecoder._resolve_handles``): the call runs and scores
        as wrong arguments. Resolver calls are decoded as under ``strict``.
        """
        if self._paper is not None:
            return self._paper.decode_unchecked(call)
        if call.name in self._resolvers:
            return super().decode_unchecked(call, state, control)
        args = dict(call.arguments)
        for arg in self.below.tool(call.name).parameters.get("properties", {}):
            if f"{arg}_handle" in args and arg in self._resolver_of:
                handle = args.pop(f"{arg}_handle")
                kind, value = state.handles.get(handle, (None, None)) if isinstance(handle, str) else (None, None)
                args[arg] = value if kind == arg else f"<UNRESOLVED:{handle}>"
        return Forward(ToolCall(call.name, args))

    def encode(self, call: ToolCall) -> Plan:
        if self._paper is not None:
            return (yield from self._paper.encode(call))
        refs = [a for a in call.arguments if a in self._resolver_of]
        if not refs:
            return (yield call)
        replies = yield Batch(tuple(ToolCall(self._resolver_of[a], {"value": call.arguments[a]}) for a in refs))
        args = {k: v for k, v in call.arguments.items() if k not in refs}
        args.update({f"{a}_handle": reply["handle"] for a, reply in zip(refs, replies, strict=True)})
        return (yield ToolCall(call.name, args))
