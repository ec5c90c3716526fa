"""Dispatchers for ``merge``: one tool whose selector argument picks the operation.

Argument encodings (``args``). The paper's three (Action-Space Shaping; see
:mod:`toolprism.shaping.operators._encodings`): ``flat`` (``<op>::<param>``, all optional),
``nested`` (a typed ``arguments`` object), ``union`` (one object per operation, no selector).
toolprism's own three, under honest names (before the rename they were called ``flat``,
``union`` and ``nested``; :func:`toolprism.shaping.upgrade_spec` translates old specs):
``shared`` (the operations' arguments side by side, un-namespaced, ``anyOf`` on clashes),
``prefixed`` (side by side, namespaced ``<operation>__<argument>``), ``prose`` (one untyped
``arguments`` object whose schema is given in the description).

Operation names. A dispatcher shows each member under its catalog name, except that under the
paper's encodings, when every member is class-qualified (``<group>__<method>``, a whole catalog's
native form, or any catalog after ``rename(style=namespaced)``) and no two share a method, it shows
methods, as the paper's class arms do (``toolschema/hierarchy.py``, ``toolschema/class_grouping.py``).
No per-domain catalog is class-qualified natively; toolprism's own encodings always show catalog
names, so specs recorded before this rule (upgraded to them) show what they showed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec, canonical_json
from toolprism.shaping.operators import _encodings as paper
from toolprism.shaping.operators._classes import method_names, pad_description
from toolprism.shaping.operators._encodings import ARGUMENTS, OPERATION

ArgStyle = Literal["flat", "nested", "union", "shared", "prefixed", "prose"]
PAPER_STYLES = ("flat", "nested", "union")
_PAPER_TOOLS = {"flat": paper.flat_tool, "nested": paper.nested_tool, "union": paper.union_tool}


def selector(tools: list[ToolSpec]) -> str:
    """The dispatcher's selector argument: ``operation``, or ``operation_2``, ``operation_3``...
    when the merged tools already take an argument of that name (e.g. ``merge|merge``)."""
    taken = {p for t in tools for p in _props(t)}
    return next(k for k in (OPERATION, *(f"{OPERATION}_{i}" for i in range(2, len(taken) + 3))) if k not in taken)


def _props(tool: ToolSpec) -> dict[str, Any]:
    return dict(tool.parameters.get("properties", {}))


def _signature(tool: ToolSpec) -> str:
    return f"{tool.name}({', '.join(_props(tool))})"


@dataclass(frozen=True)
class Dispatcher:
    """One dispatcher tool called ``name`` over ``members`` (in the given order)."""

    name: str
    members: tuple[ToolSpec, ...]
    args: ArgStyle = "flat"
    pad_to: int = 0
    """When non-zero, the description is padded with the paper's filler until name and description
    together are this long (the paper's neutral dispatchers, ``class_grouping.py``)."""

    @cached_property
    def key(self) -> str:
        """The selector argument's name (always ``operation`` in the paper's encodings, whose
        member arguments never sit beside it un-namespaced)."""
        return OPERATION if self.args in PAPER_STYLES else selector(list(self.members))

    @cached_property
    def index(self) -> dict[str, ToolSpec]:
        """Member catalog name → member."""
        return {t.name: t for t in self.members}

    @cached_property
    def shown(self) -> dict[str, str]:
        """Member catalog name → its operation name in this dispatcher (see the module docstring)."""
        methods = (method_names(self.members) if self.args in PAPER_STYLES else None) or [t.name for t in self.members]
        return {t.name: m for t, m in zip(self.members, methods, strict=True)}

    @cached_property
    def ops(self) -> dict[str, ToolSpec]:
        """Operation name → member under that name (the members as this dispatcher shows them)."""
        return {self.shown[t.name]: replace(t, name=self.shown[t.name]) for t in self.members}

    @cached_property
    def _catalog(self) -> dict[str, str]:
        return {op: name for name, op in self.shown.items()}

    @cached_property
    def namespaced(self) -> dict[str, tuple[str, str]]:
        """``prefixed`` only: shown property → (operation, its argument)."""
        return {f"{op}__{p}": (op, p) for op, t in self.ops.items() for p in _props(t)}

    def problems(self) -> list[str]:
        """Binding problems: namespaced properties of two operations that coincide (``prefixed``)."""
        if self.args != "prefixed":
            return []
        seen: dict[str, str] = {}
        out = []
        for t in self.ops.values():
            for p in _props(t):
                shown = f"{t.name}__{p}"
                if shown in seen:
                    out.append(f"dispatcher {self.name!r}: argument {shown!r} of {t.name!r} and {seen[shown]!r}")
                seen[shown] = t.name
        return out

    def tool(self) -> ToolSpec:
        """The dispatcher as a shown tool."""
        groups = {t.group for t in self.members}
        group = groups.pop() if len(groups) == 1 else ""
        members = tuple(self.ops.values())
        if self.args in PAPER_STYLES:
            description, parameters = _PAPER_TOOLS[self.args](self.name, members)
            return ToolSpec(self.name, pad_description(description, self.name, self.pad_to), parameters, group)
        enum = {"type": "string", "enum": list(self.ops), "description": "the operation to run"}
        properties: dict[str, Any] = {self.key: enum}
        required = [self.key]
        if self.args == "shared":
            properties.update(self._shared_properties())
            how = "pass that operation's arguments alongside it"
            lines = [f"- {_signature(t)}: {t.description}" for t in members]
        elif self.args == "prefixed":
            for shown, (op, p) in self.namespaced.items():
                schema = dict(self.ops[op].parameters["properties"][p])
                schema["description"] = f"{op}: {schema.get('description', p)}"
                properties[shown] = schema
            how = "pass that operation's arguments prefixed with its name and '__' (e.g. 'op__arg')"
            lines = [f"- {t.name}({', '.join(f'{t.name}__{p}' for p in _props(t))}): {t.description}" for t in members]
        else:
            properties[ARGUMENTS] = {
                "type": "object",
                "description": "the chosen operation's arguments, as its schema in this tool's description says",
            }
            how = f"pass that operation's arguments as the object '{ARGUMENTS}'; each operation's argument schema"
            lines = [f"- {t.name}: {t.description} {ARGUMENTS}: {self._schema_text(t)}" for t in members]
        count = f"{len(self.members)} operation{'s' if len(self.members) != 1 else ''}"
        description = f"Runs one of {count}. Set '{self.key}' to the operation's name and {how}:\n" + "\n".join(lines)
        parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        return ToolSpec(self.name, pad_description(description, self.name, self.pad_to), parameters, group)

    def _shared_properties(self) -> dict[str, Any]:
        """The union of parameters; a name shared with different schemas becomes ``anyOf`` them."""
        properties: dict[str, Any] = {}
        for tool in self.ops.values():
            for pname, pschema in _props(tool).items():
                current = properties.get(pname)
                if current is None or current == pschema:
                    properties[pname] = pschema
                else:
                    options = current["anyOf"] if "anyOf" in current else [current]
                    properties[pname] = {"anyOf": options + ([pschema] if pschema not in options else [])}
        return properties

    @staticmethod
    def _schema_text(tool: ToolSpec) -> str:
        params = tool.parameters
        return canonical_json({k: params[k] for k in ("properties", "required") if k in params})

    def decode(self, arguments: dict[str, JSON]) -> ToolCall:
        """The lower call (the member's catalog name and its arguments) for a dispatcher call,
        already valid against :meth:`tool`'s schema.

        Raises:
            RejectedCall: INVALID_ARGUMENTS, for arguments the chosen operation does not take or
                values its own schema refuses, phrased in terms of this dispatcher.
        """
        args = dict(arguments)
        if self.args == "union":
            op, args = paper.decode_union(self.ops, args)
        elif self.args == "flat":
            op, args = paper.decode_flat(self.ops, args)
        else:
            op = args.pop(self.key)
        if op not in self.ops:  # unreachable after schema validation; kept as a guard
            raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"unknown operation {op!r}")
        target, where = self.ops[op], ""
        if self.args in ("nested", "prose"):
            args, where = dict(args.get(ARGUMENTS) or {}), f" in '{ARGUMENTS}'"
        elif self.args == "prefixed":
            target = self._namespaced_tool(target)
        known = list(_props(target))
        _refuse_foreign(op, sorted(set(args) - set(known)), known, where)
        try:
            target.validate(args)
        except RejectedCall as e:
            reason = e.reason.replace(f" for tool '{op}'", f"{where} for operation '{op}'")
            raise RejectedCall(e.kind, reason) from None
        if self.args == "prefixed":
            args = {self.namespaced[k][1]: v for k, v in args.items()}
        return ToolCall(self._catalog[op], args)

    def decode_unchecked(self, arguments: dict[str, JSON], control: str) -> ToolCall:
        """The lower call under the ``paper`` / ``loose`` controls, as the paper decodes a merged call
        (``toolschema/merge_encodings.py``, ``decode_merged``; ``validate_merged`` is its hard control).

        ``flat``: empty values dropped, every ``<op>::`` prefix stripped, un-namespaced keys kept;
        ``nested``: the ``arguments`` object (``{}`` when it is not one); ``union``: the one non-empty
        operation object. The member's own schema is not checked: a wrong value runs as a wrong action.
        toolprism's encodings (``shared``, ``prose``, ``prefixed``) keep the strict path.

        Raises:
            RejectedCall: INVALID_ARGUMENTS with the paper's messages: under ``paper``, an operation
                outside the enum, keys that do not belong to the chosen operation (``nested`` and
                ``union``), no or several union objects; under ``loose``, only a call from which no
                operation can be read.
        """
        if self.args not in PAPER_STYLES:
            self.tool().validate(arguments)
            return self.decode(arguments)
        args = dict(arguments)
        allowed = {op: list(_props(t)) for op, t in self.ops.items()}
        if self.args == "union":
            present = [k for k, v in args.items() if isinstance(v, dict) and v] or [
                k for k, v in args.items() if isinstance(v, dict)
            ]
            extra = [k for k in args if k not in allowed and args[k] not in ("", None, {})]
            if control == "paper" and extra:
                raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"unknown union keys {extra}")
            if len(present) != 1:
                got = "none" if not present else present
                raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"expected exactly one operation object; got {got}")
            op, native = present[0], dict(args[present[0]])
        else:
            op = args.get(OPERATION)
            if self.args == "nested":
                payload = args.get(ARGUMENTS)
                extra = [k for k in args if k not in (OPERATION, ARGUMENTS)]
                if control == "paper" and not isinstance(payload, dict):
                    raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"`{ARGUMENTS}` must be an object")
                if control == "paper" and extra:
                    raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"unexpected top-level keys {extra}")
                native = dict(payload) if isinstance(payload, dict) else {}
            else:
                native = {
                    k.split(paper.NAMESPACE, 1)[-1]: v
                    for k, v in args.items()
                    if k != OPERATION and v not in ("", None)
                }
        if not isinstance(op, str) or op not in self.ops:  # a list or object is no name (nor hashable)
            if control == "paper" or not isinstance(op, str):
                raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"operation must be one of {list(self.ops)}")
            return ToolCall(op, native)  # loose: whatever names a lower tool runs
        unknown = [k for k in native if k not in allowed[op]]
        if control == "paper" and self.args != "flat" and unknown:
            raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"arguments {unknown} do not belong to `{op}`")
        return ToolCall(self._catalog[op], native)

    @staticmethod
    def _namespaced_tool(tool: ToolSpec) -> ToolSpec:
        """``tool`` with its arguments namespaced ``<tool>__<argument>`` (for ``prefixed``)."""
        params = dict(tool.parameters)
        params["properties"] = {f"{tool.name}__{p}": s for p, s in _props(tool).items()}
        params["required"] = [f"{tool.name}__{p}" for p in params.get("required", [])]
        return ToolSpec(tool.name, tool.description, params, tool.group)

    def encode(self, call: ToolCall) -> dict[str, JSON]:
        """The dispatcher arguments for a call of member ``call.name`` (its catalog name)."""
        call = ToolCall(self.shown[call.name], call.arguments, call.id)
        if self.args in PAPER_STYLES:
            return paper.encode(self.args, call)
        if self.args == "prose":
            return {self.key: call.name, ARGUMENTS: dict(call.arguments)}
        if self.args == "prefixed":
            return {self.key: call.name, **{f"{call.name}__{k}": v for k, v in call.arguments.items()}}
        return {self.key: call.name, **call.arguments}


def _refuse_foreign(op: str, foreign: list[str], known: list[str], where: str) -> None:
    if foreign:
        raise RejectedCall(
            RejectionKind.INVALID_ARGUMENTS,
            f"operation '{op}' takes no argument(s) {', '.join(map(repr, foreign))}{where}; "
            f"its arguments are: {', '.join(known) or 'none'}",
        )
