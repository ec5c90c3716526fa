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

Bad input is refused at load, every problem listed (toolprism's reading of real-world catalogs):

- type names: the seven JSON Schema types, matched case-insensitively (ToolBench and StableToolBench
  write ``STRING``, ``NUMBER``); a case-normalised name is recorded in :attr:`ActionSpace.notes`.
  Any other name (``ENUM``, ``DATE``, ``text``) is refused: toolprism does not guess what it means.
- ``required`` entries must be strings naming a property.
- a schema no value can satisfy is refused: enum or const values the rest of their schema refuses
  (an ``integer`` parameter with string enum values), an empty ``enum`` or ``type`` list, a lower
  bound above its upper bound (``minimum``/``maximum``, ``minLength``/``maxLength``,
  ``minItems``/``maxItems``, ``minProperties``/``maxProperties``), a required ``false`` parameter.
  Only places every valid call must satisfy are checked (not the branches of ``anyOf``, ``oneOf``,
  ``not``, ``if``/``then``/``else``, where an empty branch is legitimate).
- a tool nested more than :data:`MAX_DEPTH` JSON levels deep is refused (no schema walk recurses
  without bound).
- tool names: a name outside ``[A-Za-z0-9_-]{1,64}`` (``math.add``, ``fs/read``, ``天气``) is renamed,
  as BFCL's loader does, by :func:`safe_tool_name`; the original is kept
  (:attr:`Operation.original`, ``ActionSpace.get`` finds it, ``ActionSpace.source_call`` maps an
  action back), added to the description (``(original name: ...)``; BFCL: ``(BFCL name: ...)``) and
  recorded in :attr:`ActionSpace.notes`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import unquote

import jsonschema

from toolprism.errors import ConfigError
from toolprism.schema._keywords import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_ONE
from toolprism.schema._model import TOOL_NAME, Operation, Param, _problems

MAX_DEPTH = 64
"""The deepest JSON nesting (objects and arrays) one tool definition may have: real catalogs stay
under 15; every schema walk (loading, operators, validation, synthesis) is recursive."""

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


def safe_tool_name(name: str) -> str:
    """The tool name a catalog tool gets when its own is not a valid tool name (the OpenAI format
    accepts ``[A-Za-z0-9_-]{1,64}``). An ASCII name gets :func:`bfcl_tool_name` (``math.add`` →
    ``math_add``, BFCL's rule); a name with other characters is folded to ASCII (NFKD, the rest
    dropped) and gets ``_`` and 8 hex digits of the SHA-256 of the original (``café`` →
    ``cafe_<hash>``, ``天气`` → ``tool_<hash>``), so two originals never fold together; a name over
    64 characters keeps 55 and gets the same hash. A valid name is returned unchanged."""
    if TOOL_NAME.match(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    if name.isascii():
        safe = bfcl_tool_name(name)
    else:
        folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
        safe = f"{bfcl_tool_name(folded).strip('_') or 'tool'}_{digest}"
    return safe if len(safe) <= 64 else f"{safe[:55]}_{digest}"


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests objects/arrays more than ``limit`` levels deep (iterative: safe on
    any depth)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        kind = type(node)
        if kind is dict or kind is not list and kind is not str and isinstance(node, Mapping):
            children: Any = node.values()
        elif kind is list or kind is tuple:
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((v, depth + 1) for v in children if type(v) is not str)
    return False


def parse_tools(
    data: Any, *, name: str, source: Source, group: str = "", notes: list[str] | None = None
) -> tuple[Operation, ...]:
    """The operations of a tool catalog, collecting every problem before failing.

    Args:
        notes: if given, receives one line per rewrite the reading made (renamed tools,
            case-normalised type names; see the module docstring).

    Raises:
        ConfigError: one line per problem (tool, parameter, reason).
    """
    notes = notes if notes is not None else []
    if source == "mcp" and isinstance(data, Mapping):
        data = data.get("result", data)
        data = data.get("tools") if isinstance(data, Mapping) else data
    if not isinstance(data, list):
        raise ConfigError(f"expected a list of tools, got {type(data).__name__}", what=f"{source} catalog")
    problems: list[str] = []
    entries = [e for i, entry in enumerate(data) if (e := _entry(entry, i, source, group, problems))]
    entries = _safe_names(entries, source, problems, notes)
    operations = [op for e in entries if (op := _operation(*e, source, problems, notes)) is not None]
    problems += _problems(operations)
    if problems:
        raise ConfigError(problems, what=f"{source} catalog {name!r}")
    return tuple(operations)


# ---------------------------------------------------------------------------------------------
# one tool

_Entry = tuple[str, str, Any, str, str, str, str]  # name, description, schema, schema key, group, kind, original


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
    if too_deep(entry):
        label = f"tool {entry['name']!r}" if isinstance(entry.get("name"), str) else where
        problems.append(f"{label}: nested more than {MAX_DEPTH} levels deep")
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
    kind = "read" if read_only else "write"
    return tool_name, str(description), schema, schema_key, str(tool_group or ""), kind, ""


def _safe_names(entries: list[_Entry], source: Source, problems: list[str], notes: list[str]) -> list[_Entry]:
    """Names outside ``[A-Za-z0-9_-]{1,64}`` → :func:`safe_tool_name` (the original kept).

    A renamed tool whose new name another tool already has: under BFCL a problem (BFCL's rule);
    elsewhere the hash suffix is added too, so the catalog still loads and stays reversible."""
    taken: dict[str, str] = {e[0]: e[0] for e in entries if TOOL_NAME.match(e[0])}
    renamed = []
    for original, description, schema, key, group, kind, _ in entries:
        new = safe_tool_name(original)
        if new == original:
            renamed.append((new, description, schema, key, group, kind, ""))
            continue
        if new in taken and taken[new] != original:
            if source == "bfcl":
                problems.append(f"tool {original!r}: its tool name {new!r} is already taken by {taken[new]!r}")
                continue
            digest = hashlib.sha256(original.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            new = f"{new[:55]}_{digest}"
        taken[new] = original
        label = "BFCL name" if source == "bfcl" else "original name"
        description = f"{description} ({label}: {original})".strip()
        if source == "bfcl":
            group = group or bfcl_tool_name(original.rpartition(".")[0])
        notes.append(f"tool {original!r}: renamed {new!r} (not a valid tool name)")
        renamed.append((new, description, schema, key, group, kind, original))
    return renamed


def _operation(
    tool_name: str,
    description: str,
    schema: Any,
    schema_key: str,
    group: str,
    kind: str,
    original: str,
    source: Source,
    problems: list[str],
    notes: list[str],
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
    for bad in [r for r in required if not isinstance(r, str)]:
        problems.append(f"{where}: 'required' entry {bad!r} is not a string (a parameter name)")
    required = [r for r in required if isinstance(r, str)]
    for missing in [r for r in required if r not in properties]:
        problems.append(f"{where}, parameter {missing!r}: listed in 'required' but not in 'properties'")
    params = []
    for pname, pschema in properties.items():
        if pschema is False and pname in required:
            problems.append(f"{where}, parameter {pname!r}: required, but its schema is false: no value can satisfy it")
            continue
        if not isinstance(pschema, Mapping):
            problems.append(f"{where}, parameter {pname!r}: schema must be an object")
            continue
        found: list[str] = []
        changed: list[str] = []
        fragment = _Normaliser(schema, source, found, changed).run(pschema)
        problems += [f"{where}, parameter {pname!r}: {p}" for p in found]
        notes += [f"{where}, parameter {pname!r}: {n}" for n in changed]
        pdescription = fragment.pop("description", "")
        params.append(Param(pname, fragment, pname in required, pdescription if isinstance(pdescription, str) else ""))
    return Operation(tool_name, description, tuple(params), kind=kind, group=group, original=original)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# one parameter schema


class _Normaliser:
    """Rewrites one parameter schema into a standalone draft 2020-12 schema (see module doc)."""

    def __init__(
        self, root: Mapping[str, Any], source: Source, problems: list[str], notes: list[str] | None = None
    ) -> None:
        self.root, self.source, self.problems = root, source, problems
        self.notes = notes if notes is not None else []
        self.stack: list[str] = []

    def run(self, schema: Any) -> Any:
        return self.node(schema)

    def node(self, schema: Any, must: bool = True) -> Any:
        """``must``: every valid value must satisfy this subschema (not a branch of anyOf, not, ...)."""
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
                inner = must and key == "properties"
                out[key] = {k: self.node(v, inner) for k, v in out[key].items()}
        for key in SUBSCHEMA_ONE:
            if key in out and not (key == "items" and isinstance(out[key], list)):
                out[key] = self.node(out[key], must and key in _MUST_ONE)
        for key in SUBSCHEMA_LISTS:
            if isinstance(out.get(key), list):
                out[key] = [self.node(v, must and key in ("allOf", "prefixItems")) for v in out[key]]
        if isinstance(out.get("items"), list):  # draft-07 tuple form
            out["prefixItems"] = [self.node(v, must) for v in out.pop("items")]
            if "additionalItems" in out:
                out["items"] = self.node(out.pop("additionalItems"), must)
        if "type" in out:
            out = self.types(out)
        if schema.get("nullable") is True:
            out = _nullable(out)
        if "$ref" in schema:
            out = self.ref(schema["$ref"], out, must)
        if "default" in out and not _valid(out["default"], out):
            del out["default"]  # e.g. BFCL's "None" for an integer: no call could ever pass it
        if must:
            self.problems.extend(_unsatisfiable(out))
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
            if t not in JSON_TYPES and t.lower() in JSON_TYPES:
                self.notes.append(f"type {t!r} read as {t.lower()!r}")
                t = t.lower()
            if t not in JSON_TYPES:
                known = ", ".join(sorted(JSON_TYPES))
                self.problems.append(f"unknown type {given!r} (JSON Schema types, any case: {known})")
                return out
            if t not in mapped:
                mapped.append(t)
        out["type"] = mapped if isinstance(given, list) else mapped[0]
        return out

    def ref(self, ref: Any, siblings: dict[str, Any], must: bool = True) -> dict[str, Any]:
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
        resolved = self.node(target, must)
        self.stack.pop()
        if isinstance(resolved, bool):
            return siblings if resolved else {**siblings, "not": {}}
        clash = (set(siblings) & set(resolved)) - _ANNOTATIONS
        if clash:  # both constrain the same keyword: keep both, as $ref-with-siblings means
            return {**siblings, "allOf": [*siblings.get("allOf", []), resolved]}
        return {**resolved, **siblings}


_MUST_ONE = {"items", "additionalProperties", "unevaluatedItems", "unevaluatedProperties"}
"""Single-subschema keywords every value present there must satisfy (``not``, ``if``, ``contains``... need not)."""
_BOUNDS = (
    ("minimum", "maximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
)


def _unsatisfiable(out: Mapping[str, Any]) -> list[str]:
    """Why no value can satisfy ``out`` (see the module docstring for the forms detected)."""
    found = []
    if out.get("type") == []:
        found.append("'type' is an empty list: no value can satisfy it")
    for low, high in _BOUNDS:
        lo, hi = out.get(low), out.get(high)
        if _number(lo) and _number(hi) and lo > hi:
            found.append(f"{low} {lo} is above {high} {hi}: no value can satisfy it")
    for key, values in (("enum", out.get("enum")), ("const", [out["const"]] if "const" in out else None)):
        if not isinstance(values, list):
            continue
        if not values:
            found.append("'enum' is empty: no value can satisfy it")
            continue
        rest = {k: v for k, v in out.items() if k not in ("enum", "const", "default")}
        refused = _refused(values, rest)
        if refused:
            by = f"type {rest['type']!r}" if "type" in rest else "its other constraints"
            if len(refused) == len(values):
                found.append(f"{key} value(s) {values!r} all refused by {by}: no value can satisfy it")
            else:
                found.append(f"{key} value(s) {refused!r} refused by {by}: no call could pass them")
    return found


def _refused(values: list[Any], schema: Mapping[str, Any]) -> list[Any]:
    """The values ``schema`` refuses (one validator for all of them; none if the schema is invalid)."""
    try:
        validator = jsonschema.Draft202012Validator(schema)
        return [v for v in values if not validator.is_valid(v)]
    except Exception:  # noqa: BLE001 - SchemaError, UnknownType, a bad $ref...: the schema is reported elsewhere
        return []


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _valid(value: Any, schema: Mapping[str, Any]) -> bool:
    rest = {k: v for k, v in schema.items() if k != "default"}
    try:
        return jsonschema.Draft202012Validator(rest).is_valid(value)
    except Exception:  # noqa: BLE001 - SchemaError, UnknownType, a bad $ref...: the schema is reported elsewhere
        return True


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    given = out.get("type")
    if isinstance(given, str):
        return {**out, "type": [given, "null"]} if given != "null" else out
    if isinstance(given, list):
        return {**out, "type": given + (["null"] if "null" not in given else [])}
    annotations = {k: v for k, v in out.items() if k in _ANNOTATIONS}
    rest = {k: v for k, v in out.items() if k not in _ANNOTATIONS}
    return {**annotations, "anyOf": [rest, {"type": "null"}]} if rest else out
