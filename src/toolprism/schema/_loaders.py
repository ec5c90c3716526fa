"""Catalog loaders: OpenAI ``tools`` lists and MCP ``tools/list`` replies into an ActionSpace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from toolprism.errors import ConfigError
from toolprism.schema._model import ActionSpace, Operation, Param, _problems

JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}


def load_tools(data: Any, *, name: str, source: Literal["openai", "mcp"]) -> ActionSpace:
    """Parse a tool catalog, collecting every problem before failing.

    Raises:
        ConfigError: one line per problem (tool, parameter, reason).
    """
    if source == "mcp" and isinstance(data, Mapping):
        data = data.get("result", data)
        data = data.get("tools") if isinstance(data, Mapping) else data
    if not isinstance(data, list):
        raise ConfigError(f"expected a list of tools, got {type(data).__name__}", what=f"{source} catalog")
    problems: list[str] = []
    operations: list[Operation] = []
    for index, entry in enumerate(data):
        op = _operation(entry, index, source, problems)
        if op is not None:
            operations.append(op)
    problems += _problems(operations)
    if problems:
        raise ConfigError(problems, what=f"{source} catalog {name!r}")
    return ActionSpace(name, tuple(operations))


def _operation(entry: Any, index: int, source: str, problems: list[str]) -> Operation | None:
    where = f"tool #{index}"
    if source == "openai":
        if not isinstance(entry, Mapping) or not isinstance(entry.get("function"), Mapping):
            problems.append(f"{where}: expected {{'type': 'function', 'function': {{...}}}}")
            return None
        if entry.get("type", "function") != "function":
            problems.append(f"{where}: type must be 'function', got {entry.get('type')!r}")
        entry = entry["function"]
        schema_key = "parameters"
    else:
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: expected an object with name and inputSchema")
            return None
        schema_key = "inputSchema"
    tool_name = entry.get("name")
    if not isinstance(tool_name, str) or not tool_name:
        problems.append(f"{where}: missing 'name'")
        return None
    where = f"tool {tool_name!r}"
    schema = entry.get(schema_key, {"type": "object", "properties": {}})
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        problems.append(f"{where}: {schema_key} must be a JSON Schema of type 'object'")
        return None
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
        ptype = pschema.get("type")
        types = ptype if isinstance(ptype, list) else [ptype]
        if ptype is not None and not all(t in JSON_TYPES for t in types):
            problems.append(f"{where}, parameter {pname!r}: unknown type {ptype!r}")
        description = pschema.get("description", "")
        fragment = {k: v for k, v in pschema.items() if k != "description"}
        params.append(Param(pname, fragment, pname in required, description if isinstance(description, str) else ""))
    description = entry.get("description") or ""
    return Operation(tool_name, str(description), tuple(params))
