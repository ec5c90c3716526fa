"""The paper's three argument encodings of a merged dispatcher (Action-Space Shaping, "merge";
paper code ``toolschema/schema_transform.py`` ``_execute_tool`` and ``toolschema/merge_encodings.py``):

- ``flat``: ``execute(operation, <op>::<param>, ...)``: every member parameter namespaced by its
  operation and optional; the paper's "fully merged".
- ``nested``: ``execute(operation, arguments={...})``: ``arguments`` is a typed object whose
  properties are the union of the member parameters (``additionalProperties: false``).
- ``union``: ``execute(<op>={...})``: one optional object per member operation, no selector;
  exactly one must be present.

The descriptions the model sees are the paper's own rendered text (its data, CC BY 4.0, Liu et
al. 2026), so a reproduced catalog reads as the paper's did. Deviations, each forced by strict
JSON Schema validation or by losslessness, are stated on the functions below.
"""

from __future__ import annotations

from typing import Any

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec

OPERATION = "operation"
ARGUMENTS = "arguments"
NAMESPACE = "::"
EMPTY = ("", None)
"""Values the paper's flat decoder treats as "omitted"."""


def props(tool: ToolSpec) -> dict[str, Any]:
    """The tool's parameter schemas by name, in order."""
    return dict(tool.parameters.get("properties", {}))


def _prefixed(schema: Any, op: str) -> dict[str, Any]:
    out = dict(schema) if isinstance(schema, dict) else {}
    out["description"] = f"[{op}] " + str(out.get("description", ""))
    return out


def _ops_text(members: tuple[ToolSpec, ...]) -> str:
    return f"Dispatch entry point handling ONLY these {len(members)} operations: {', '.join(t.name for t in members)}."


def _selector(members: tuple[ToolSpec, ...]) -> dict[str, Any]:
    return {"type": "string", "enum": [t.name for t in members], "description": "Which operation to perform."}


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def flat_key(op: str, param: str) -> str:
    """The shown name of ``param`` of ``op`` in a ``flat`` dispatcher."""
    return f"{op}{NAMESPACE}{param}"


def flat_tool(name: str, members: tuple[ToolSpec, ...]) -> tuple[str, dict[str, Any]]:
    """(description, parameters) of the paper's flat dispatcher.

    Deviation: the parameters are closed (``additionalProperties: false``), as every toolprism
    schema is; the paper leaves them open (its file has no such key).
    """
    properties: dict[str, Any] = {OPERATION: _selector(members)}
    for t in members:
        properties.update({flat_key(t.name, p): _prefixed(s, t.name) for p, s in props(t).items()})
    text = f"{_ops_text(members)} Pick `operation`, then supply that operation's namespaced arguments."
    return text, _closed(properties, [OPERATION])


def nested_tool(name: str, members: tuple[ToolSpec, ...]) -> tuple[str, dict[str, Any]]:
    """(description, parameters) of the paper's nested dispatcher.

    ``arguments`` holds the union of member parameters, the first member's schema (description
    prefixed ``[op]``) for each name. Deviation: where members declare one name with different
    schemas the paper keeps only the first, so strict validation would refuse the others' values;
    here the schema widens to accept all of them (:func:`_widen`), keeping the first description.
    """
    union: dict[str, Any] = {}
    seen: dict[str, list[Any]] = {}
    for t in members:
        for p, s in props(t).items():
            union.setdefault(p, _prefixed(s, t.name))
            bare = _bare(s)
            if bare not in seen.setdefault(p, []):
                seen[p].append(bare)
    for p, schemas in seen.items():
        if len(schemas) > 1:
            union[p] = {**_widen(schemas), "description": union[p]["description"]}
    arguments = {
        "type": "object",
        "description": "Arguments for the selected operation only, using that operation's original parameter names.",
        "properties": union,
        "additionalProperties": False,
    }
    text = (
        f"{_ops_text(members)} Set `operation`, then put that operation's own arguments inside `arguments`. "
        "Do not namespace argument names and do not include arguments for any other operation."
    )
    return text, _closed({OPERATION: _selector(members), ARGUMENTS: arguments}, [OPERATION, ARGUMENTS])


def _bare(schema: Any) -> Any:
    return {k: v for k, v in schema.items() if k != "description"} if isinstance(schema, dict) else schema


def _widen(schemas: list[Any]) -> dict[str, Any]:
    """One schema accepting every value of ``schemas``: string/number enums of one type become
    the union of their values; anything else becomes ``anyOf``."""
    enums = all(isinstance(s, dict) and set(s) == {"type", "enum"} for s in schemas)
    if enums and len({str(s["type"]) for s in schemas}) == 1:
        values: list[Any] = []
        for s in schemas:
            values += [v for v in s["enum"] if v not in values]
        return {"type": schemas[0]["type"], "enum": values}
    return {"anyOf": schemas}


def union_tool(name: str, members: tuple[ToolSpec, ...]) -> tuple[str, dict[str, Any]]:
    """(description, parameters) of the paper's union dispatcher: one object per operation.

    Deviation: the top level is closed (``additionalProperties: false``); the paper's is open.
    """
    properties = {}
    for t in members:
        intro = f"Arguments for `{t.name}` only. Provide this object for this operation and omit every other"
        properties[t.name] = {
            **dict(t.parameters),
            "type": "object",
            "description": f"{intro} operation object. {t.description}".strip(),
            "properties": props(t),
            "required": list(t.parameters.get("required", [])),
            "additionalProperties": False,
        }
    text = f"{_ops_text(members)} Provide exactly one operation object and leave the others unset."
    return text, {"type": "object", "properties": properties, "required": [], "additionalProperties": False}


def _reject(reason: str) -> RejectedCall:
    return RejectedCall(RejectionKind.INVALID_ARGUMENTS, reason)


def decode_flat(index: dict[str, ToolSpec], args: dict[str, JSON]) -> tuple[str, dict[str, JSON]]:
    """(operation, its arguments) of a flat dispatcher call (already valid against its schema).

    Empty values (``""`` / null) of other operations' keys are dropped, as the paper's decoder
    drops them. Deviation (strict): the chosen operation's own keys are passed on as given (the
    paper drops its empties too, which would make an empty string unencodable), and a non-empty
    key of another operation is refused (the paper strips its prefix and passes it on).

    Raises:
        RejectedCall: INVALID_ARGUMENTS, for another operation's non-empty argument.
    """
    op = str(args[OPERATION])
    own, foreign = {}, []
    for key, value in args.items():
        if key == OPERATION:
            continue
        owner, _, param = key.partition(NAMESPACE)
        if owner == op:
            own[param] = value
        elif value not in EMPTY:
            foreign.append(key)
    if foreign:
        raise _reject(
            f"operation '{op}' takes no argument(s) {', '.join(map(repr, foreign))}; "
            f"its arguments are: {', '.join(flat_key(op, p) for p in props(index[op])) or 'none'}"
        )
    return op, own


def decode_nested(args: dict[str, JSON]) -> tuple[str, dict[str, JSON]]:
    """(operation, its arguments) of a nested dispatcher call."""
    return str(args[OPERATION]), dict(args.get(ARGUMENTS) or {})


def decode_union(index: dict[str, ToolSpec], args: dict[str, JSON]) -> tuple[str, dict[str, JSON]]:
    """(operation, its arguments) of a union dispatcher call: the one key whose value is a
    non-empty object. Deviation: a call of an operation without arguments (none declared, or
    none required and none given) can only pass an empty object, which the paper never counts as
    present; here empty objects count when no object is non-empty.

    Raises:
        RejectedCall: INVALID_ARGUMENTS, unless exactly one operation object is present.
    """
    present = [k for k, v in args.items() if isinstance(v, dict) and v]
    if not present:
        present = [k for k, v in args.items() if isinstance(v, dict)]
    if len(present) != 1:
        got = ", ".join(map(repr, present)) or "none"
        raise _reject(f"expected exactly one operation object, got {got}; the operations are: {', '.join(index)}")
    return present[0], dict(args[present[0]])


def encode(style: str, call: ToolCall) -> dict[str, JSON]:
    """The dispatcher arguments for a member call under paper ``style``."""
    if style == "flat":
        return {OPERATION: call.name, **{flat_key(call.name, k): v for k, v in call.arguments.items()}}
    if style == "nested":
        return {OPERATION: call.name, ARGUMENTS: dict(call.arguments)}
    return {call.name: dict(call.arguments)}
