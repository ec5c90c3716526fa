"""Tool parsing: the tools of an OpenAI ``tools`` list, an MCP ``tools/list`` reply, BFCL function
docs or a ToolSchemaSpace ``tools.json`` into :class:`Operation` objects (:func:`parse_tools`); the
loaders (``_loaders``) and the constructors of :class:`ActionSpace` (``_space``) build on it.

Every parameter schema becomes a standalone JSON Schema (draft 2020-12): local ``$ref``s are
inlined (``$defs``/``definitions`` dropped), ``$schema`` is dropped, draft-07 tuple ``items`` become
``prefixItems``, OpenAPI ``nullable`` becomes a ``null`` type, and BFCL's Python type names map to
JSON types. One annotation is dropped on purpose: a ``default`` its own schema refuses (BFCL's
``"None"`` for an integer, tau2's ``null`` for a string), since native actions fill defaults in and
no layer could pass that value. Any constraint that cannot be carried over faithfully is a
:class:`ConfigError` line naming the tool, the parameter and the reason; none is silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import unquote

import jsonschema

from toolprism.errors import ConfigError
from toolprism.schema._keywords import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_ONE
from toolprism.schema._model import Operation, Param, _problems

JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}

BFCL_TYPES: dict[str, str | None] = {
    **{t: t for t in JSON_TYPES},
    "dict": "object",
    "float": "number",
    "double": "number",
    "int": "integer",
    "str": "string",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "any": None,
}
"""BFCL (Python-flavoured) type names → JSON Schema types, matched case-insensitively; None: any."""

Source = Literal["openai", "mcp", "bfcl", "toolschemaspace"]

_ANNOTATIONS = {"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly"}
_ROOT_KEYS = {"type", "properties", "required", "$defs", "definitions", "$schema", "$id", "title", "description"}
_ROOT_KEYS |= {"additionalProperties", "default", "optional", "examples"}
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def bfcl_tool_name(name: str) -> str:
    """The tool name a BFCL function gets: every character outside ``[A-Za-z0-9_-]`` (BFCL uses
    dots, ``math.factorial``) becomes ``_``. Apply it to possible answers to compare calls."""
    return _NAME_CHARS.sub("_", name)


def parse_tools(data: Any, *, name: str, source: Source, group: str = "") -> tuple[Operation, ...]:
    """The operations of a tool catalog, collecting every problem before failing.

    Raises:
        ConfigError: one line per problem (tool, parameter, reason).
    """
    if source == "mcp" and isinstance(data, Mapping):
        data = data.get("result", data)
        data = data.get("tools") if isinstance(data, Mapping) else data
    if not isinstance(data, list):
        raise ConfigError(f"expected a list of tools, got {type(data).__name__}", what=f"{source} catalog")
    problems: list[str] = []
    entries = [e for i, entry in enumerate(data) if (e := _entry(entry, i, source, group, problems))]
    if source == "bfcl":
        entries = _bfcl_names(entries, problems)
    operations = [op for e in entries if (op := _operation(*e, source, problems)) is not None]
    problems += _problems(operations)
    if problems:
        raise ConfigError(problems, what=f"{source} catalog {name!r}")
    return tuple(operations)


# ---------------------------------------------------------------------------------------------
# one tool

_Entry = tuple[str, str, Any, str, str, str]  # name, description, schema, schema key, group, kind


def _entry(entry: Any, index: int, source: Source, group: str, problems: list[str]) -> _Entry | None:
    where = f"tool #{index}"
    if source == "openai":
        if not isinstance(entry, Mapping) or not isinstance(entry.get("function"), Mapping):
            problems.append(f"{where}: expected {{'type': 'function', 'function': {{...}}}}")
            return None
        if entry.get("type", "function") != "function":
            problems.append(f"{where}: type must be 'function', got {entry.get('type')!r}")
        entry = entry["function"]
    elif not isinstance(entry, Mapping):
        problems.append(f"{where}: expected an object with a name and a schema")
        return None
    schema_key = "inputSchema" if source == "mcp" else "parameters"
    tool_name = entry.get("name")
    if not isinstance(tool_name, str) or not tool_name:
        problems.append(f"{where}: missing 'name'")
        return None
    schema = entry.get(schema_key, {"type": "object", "properties": {}})
    annotations = entry.get("annotations")
    read_only = isinstance(annotations, Mapping) and annotations.get("readOnlyHint") is True
    tool_group = entry.get("group", group) if source == "toolschemaspace" else group
    description = entry.get("description") or ""
    return tool_name, str(description), schema, schema_key, str(tool_group or ""), "read" if read_only else "write"


def _bfcl_names(entries: list[_Entry], problems: list[str]) -> list[_Entry]:
    """Dotted BFCL names → tool-safe names (original kept in the description), checking collisions."""
    taken: dict[str, str] = {}
    renamed = []
    for original, description, schema, key, group, kind in entries:
        new = bfcl_tool_name(original)
        if new in taken and taken[new] != original:
            problems.append(f"tool {original!r}: its tool name {new!r} is already taken by {taken[new]!r}")
            continue
        taken[new] = original
        if new != original:
            description = f"{description} (BFCL name: {original})".strip()
            group = group or bfcl_tool_name(original.rpartition(".")[0])
        renamed.append((new, description, schema, key, group, kind))
    return renamed


def _operation(
    tool_name: str, description: str, schema: Any, schema_key: str, group: str, kind: str, source: Source, problems
) -> Operation | None:
    where = f"tool {tool_name!r}"
    if not isinstance(schema, Mapping):
        problems.append(f"{where}: {schema_key} must be a JSON Schema of type 'object'")
        return None
    root_type = schema.get("type", "object")
    if source == "bfcl" and isinstance(root_type, str):
        root_type = BFCL_TYPES.get(root_type.lower(), root_type)
    if root_type != "object":
        problems.append(f"{where}: {schema_key} must be a JSON Schema of type 'object'")
        return None
    extra = sorted(set(schema) - _ROOT_KEYS)
    if extra:
        problems.append(f"{where}: {schema_key} keyword(s) {', '.join(extra)} cannot be carried per parameter")
    if isinstance(schema.get("additionalProperties"), Mapping):
        problems.append(f"{where}: {schema_key} with an additionalProperties schema (open arguments) is not supported")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        problems.append(f"{where}: 'properties' must be an object")
        return None
    required = schema.get("required", [])
    if not isinstance(required, list):
        problems.append(f"{where}: 'required' must be a list")
        required = []
    for missing in [r for r in required if r not in properties]:
        problems.append(f"{where}, parameter {missing!r}: listed in 'required' but not in 'properties'")
    params = []
    for pname, pschema in properties.items():
        if not isinstance(pschema, Mapping):
            problems.append(f"{where}, parameter {pname!r}: schema must be an object")
            continue
        found: list[str] = []
        fragment = _Normaliser(schema, source, found).run(pschema)
        problems += [f"{where}, parameter {pname!r}: {p}" for p in found]
        pdescription = fragment.pop("description", "")
        params.append(Param(pname, fragment, pname in required, pdescription if isinstance(pdescription, str) else ""))
    return Operation(tool_name, description, tuple(params), kind=kind, group=group)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# one parameter schema


class _Normaliser:
    """Rewrites one parameter schema into a standalone draft 2020-12 schema (see module doc)."""

    def __init__(self, root: Mapping[str, Any], source: Source, problems: list[str]) -> None:
        self.root, self.source, self.problems = root, source, problems
        self.stack: list[str] = []

    def run(self, schema: Any) -> Any:
        return self.node(schema)

    def node(self, schema: Any) -> Any:
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, Mapping):
            self.problems.append(f"subschema must be an object, got {type(schema).__name__}")
            return {}
        out = {k: v for k, v in schema.items() if k not in ("$schema", "$defs", "definitions", "$ref", "nullable")}
        if self.source == "bfcl":
            out.pop("optional", None)
        for key in SUBSCHEMA_MAPS:
            if isinstance(out.get(key), Mapping):
                out[key] = {k: self.node(v) for k, v in out[key].items()}
        for key in SUBSCHEMA_ONE:
            if key in out and not (key == "items" and isinstance(out[key], list)):
                out[key] = self.node(out[key])
        for key in SUBSCHEMA_LISTS:
            if isinstance(out.get(key), list):
                out[key] = [self.node(v) for v in out[key]]
        if isinstance(out.get("items"), list):  # draft-07 tuple form
            out["prefixItems"] = [self.node(v) for v in out.pop("items")]
            if "additionalItems" in out:
                out["items"] = self.node(out.pop("additionalItems"))
        if "type" in out:
            out = self.types(out)
        if schema.get("nullable") is True:
            out = _nullable(out)
        if "$ref" in schema:
            out = self.ref(schema["$ref"], out)
        if "default" in out and not _valid(out["default"], out):
            del out["default"]  # e.g. BFCL's "None" for an integer: no call could ever pass it
        return out

    def types(self, out: dict[str, Any]) -> dict[str, Any]:
        given = out["type"]
        names = given if isinstance(given, list) else [given]
        mapped: list[str] = []
        for t in names:
            if not isinstance(t, str):
                self.problems.append(f"type must be a string or a list of strings, got {given!r}")
                return out
            if self.source == "bfcl" and t.lower() in BFCL_TYPES:
                if BFCL_TYPES[t.lower()] is None:  # 'any': no type constraint at all
                    return {k: v for k, v in out.items() if k != "type"}
                t = BFCL_TYPES[t.lower()]  # type: ignore[assignment]
            if t not in JSON_TYPES:
                self.problems.append(f"unknown type {given!r}")
                return out
            if t not in mapped:
                mapped.append(t)
        out["type"] = mapped if isinstance(given, list) else mapped[0]
        return out

    def ref(self, ref: Any, siblings: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#/") and ref != "#":
            self.problems.append(f"unresolvable $ref {ref!r}: only local JSON pointers ('#/...') are supported")
            return siblings
        if ref in self.stack:
            self.problems.append(f"unresolvable $ref {ref!r}: it is recursive and cannot be inlined")
            return siblings
        target: Any = self.root
        for part in ref[2:].split("/") if ref != "#" else []:
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                self.problems.append(f"unresolvable $ref {ref!r}: no {part!r} in the tool's schema")
                return siblings
        self.stack.append(ref)
        resolved = self.node(target)
        self.stack.pop()
        if isinstance(resolved, bool):
            return siblings if resolved else {**siblings, "not": {}}
        clash = (set(siblings) & set(resolved)) - _ANNOTATIONS
        if clash:  # both constrain the same keyword: keep both, as $ref-with-siblings means
            return {**siblings, "allOf": [*siblings.get("allOf", []), resolved]}
        return {**resolved, **siblings}


def _valid(value: Any, schema: Mapping[str, Any]) -> bool:
    rest = {k: v for k, v in schema.items() if k != "default"}
    try:
        return jsonschema.Draft202012Validator(rest).is_valid(value)
    except jsonschema.SchemaError:
        return True  # an invalid schema is reported by the space's own check


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    given = out.get("type")
    if isinstance(given, str):
        return {**out, "type": [given, "null"]} if given != "null" else out
    if isinstance(given, list):
        return {**out, "type": given + (["null"] if "null" not in given else [])}
    annotations = {k: v for k, v in out.items() if k in _ANNOTATIONS}
    rest = {k: v for k, v in out.items() if k not in _ANNOTATIONS}
    return {**annotations, "anyOf": [rest, {"type": "null"}]} if rest else out
