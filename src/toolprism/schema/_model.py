"""Schema IR: parameters, operations, tool definitions, calls and actions (the action space, an
ordered set of operations, is in ``_space``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import jsonschema

from toolprism.errors import RejectedCall, RejectionKind

JSON = Any
"""A JSON value (dict / list / str / int / float / bool / None)."""

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Tool names the OpenAI tools format accepts."""


def canonical_json(value: JSON) -> str:
    """Deterministic JSON text: sorted keys, no spaces, UTF-8 kept. Used for hashing and prompts."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_numbers(value: JSON) -> JSON:
    """``value`` with every integral float written as an int, at any depth (``12.0`` → ``12``;
    ``12.5``, ``NaN`` and strings such as ``"12"`` unchanged).

    JSON has one number type and JSON Schema compares numbers by value (``12.0`` is a valid
    ``integer`` and equals ``12`` under ``enum``/``const``), so an action's arguments are compared
    by value too: a correct call that spells ``12`` as ``12.0`` is the same action."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: canonical_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [canonical_numbers(v) for v in value]
    return value


@dataclass(frozen=True)
class Param:
    """One typed parameter of an operation.

    Attributes:
        name: the argument name.
        schema: its JSON Schema fragment (kept as given, e.g. ``{"type": "string", "enum": [...]}``).
        required: whether a call must give it.
        description: free text shown to the model.
    """

    name: str
    schema: Mapping[str, JSON]
    required: bool = True
    description: str = ""

    @property
    def enum(self) -> tuple[JSON, ...] | None:
        """The enumerated values, if the schema is a closed ``enum``; else None."""
        values = self.schema.get("enum")
        return tuple(values) if isinstance(values, list) else None


@dataclass(frozen=True)
class ToolSpec:
    """A tool as shown at some layer of a variant: name, description, JSON Schema of arguments.

    ``group`` is not shown to the model; it carries the operation class (for ``merge(by=class)``
    and namespaced renames).
    """

    name: str
    description: str
    parameters: Mapping[str, JSON]
    group: str = ""

    def openai(self) -> dict[str, JSON]:
        """This tool in the OpenAI ``tools`` format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": _plain(self.parameters),
            },
        }

    def validate(self, arguments: Mapping[str, JSON]) -> None:
        """Check ``arguments`` against :attr:`parameters`.

        Raises:
            RejectedCall: INVALID_ARGUMENTS, listing every schema violation.
        """
        errors = sorted(self._validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
        if errors:
            problems = "; ".join(_describe(e) for e in errors)
            raise RejectedCall(RejectionKind.INVALID_ARGUMENTS, f"invalid arguments for tool '{self.name}': {problems}")

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_validator"}  # rebuilt on demand

    @cached_property
    def _validator(self) -> jsonschema.Draft202012Validator:
        # built once per tool: a merged dispatcher's schema holds every member's, and copying it
        # per call dominated validating merged variants of large catalogs
        return jsonschema.Draft202012Validator(_plain(self.parameters))


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.path)
    return f"{where}: {error.message}" if where else error.message


def _plain(value: JSON) -> JSON:
    """Deep copy mappings/sequences into plain dicts/lists (for jsonschema and JSON output)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class ToolCall:
    """A call at some layer: a tool name and JSON arguments, as a model or an encoder issues it.

    Attributes:
        name: tool name at that layer.
        arguments: JSON object of arguments.
        id: the model's call id when it has one (OpenAI ``tool_call_id``), else None.
    """

    name: str
    arguments: Mapping[str, JSON] = field(default_factory=dict)
    id: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """``{"name": ..., "arguments": {...}}``."""
        return {"name": self.name, "arguments": _plain(self.arguments)}


@dataclass(frozen=True, order=True)
class Action:
    """One native call in canonical form: hashable, so episodes are scored on multisets of actions.

    ``args`` is a sorted tuple of ``(name, canonical JSON text)`` pairs, so two actions with equal
    normalised arguments compare equal whatever the key order or integer/float spelling
    (:func:`canonical_numbers`: ``12.0`` is ``12``, never ``"12"``).
    Build one with :meth:`ActionSpace.action`, which validates and normalises.
    """

    op: str
    args: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.args, tuple):
            raise TypeError(
                f"Action.args is a sorted tuple of (name, canonical JSON) pairs, got {type(self.args).__name__}; "
                "build an action with ActionSpace.action(op, arguments) or Action.from_json({'op': ..., 'args': {...}})"
            )

    @property
    def arguments(self) -> dict[str, JSON]:
        """The arguments as a JSON object."""
        return {k: json.loads(v) for k, v in self.args}

    def to_json(self) -> dict[str, JSON]:
        """``{"op": ..., "args": {...}}``."""
        return {"op": self.op, "args": self.arguments}

    @classmethod
    def of(cls, op: str, arguments: Mapping[str, JSON]) -> Action:
        """The action of ``op`` with ``arguments`` in canonical form (no validation)."""
        return cls(op, tuple(sorted((k, canonical_json(canonical_numbers(v))) for k, v in arguments.items())))

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Action:
        """Rebuild an action from :meth:`to_json` output (no validation: it was validated once;
        numbers re-canonicalised, so a trace stored with ``12.0`` reads as ``12``)."""
        return cls.of(data["op"], data["args"])

    def call(self) -> ToolCall:
        """This action as a native-layer :class:`ToolCall`."""
        return ToolCall(self.op, self.arguments)

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.args)
        return f"{self.op}({inner})"


@dataclass(frozen=True)
class Operation:
    """A native operation of a domain.

    Attributes:
        name: tool name.
        description: what it does, shown to the model.
        params: its parameters in declaration order.
        kind: ``"read"`` (no state change) or ``"write"``.
        group: the operation class (e.g. ``"lights"``, ``"orders"``) used by class-level operators.
        original: the catalog's own name when the loader had to rename the tool (a dotted or
            non-ASCII name, see :func:`toolprism.schema.safe_tool_name`); ``""`` when ``name`` is it.
    """

    name: str
    description: str = ""
    params: tuple[Param, ...] = ()
    kind: Literal["read", "write"] = "write"
    group: str = ""
    original: str = ""

    @property
    def source_name(self) -> str:
        """The name the catalog itself gives this tool (``original`` if renamed, else ``name``)."""
        return self.original or self.name

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``, or None."""
        return next((p for p in self.params if p.name == name), None)

    def parameters_schema(self) -> dict[str, JSON]:
        """The JSON Schema object of this operation's arguments (closed: no extra properties)."""
        return {
            "type": "object",
            "properties": {
                p.name: ({**_plain(p.schema), "description": p.description} if p.description else _plain(p.schema))
                for p in self.params
            },
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }

    def tool(self) -> ToolSpec:
        """This operation as a native :class:`ToolSpec` (built once; treat it as read-only)."""
        return self._tool

    @cached_property
    def _tool(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters_schema(), self.group)


def _normalise(value: JSON, schema: Mapping[str, JSON]) -> JSON:
    if not isinstance(schema, Mapping):  # boolean schemas (``items: false``) constrain nothing to normalise
        return value
    if schema.get("type") == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if schema.get("type") == "object" and isinstance(value, Mapping):
        props = schema.get("properties", {})
        return {k: _normalise(v, props.get(k, {})) for k, v in value.items()}
    if schema.get("type") == "array" and isinstance(value, list):
        prefix = schema.get("prefixItems", [])
        return [_normalise(v, prefix[i] if i < len(prefix) else schema.get("items", {})) for i, v in enumerate(value)]
    return value


_SCHEMA_CHECKS: dict[str, str | None] = {}
"""Canonical parameter schema → its metaschema problem (None: valid). Checking a schema against the
2020-12 metaschema costs about a millisecond, and catalogs repeat the same parameter schemas."""


def _without_prose(value: JSON) -> JSON:
    """``value`` with every string ``description``/``title`` emptied: the metaschema only asks that
    they be strings, so validity is unchanged, and schemas that differ only in prose share a check."""
    if isinstance(value, Mapping):
        return {
            k: "" if k in ("description", "title") and isinstance(v, str) else _without_prose(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_without_prose(v) for v in value]
    return value


def _schema_problem(schema: JSON) -> str | None:
    """The first reason ``schema`` is not valid JSON Schema 2020-12, or None (memoised)."""
    schema = _without_prose(schema)
    try:
        key = canonical_json(schema)
    except (TypeError, ValueError):  # not JSON (an API caller's object): check it uncached
        key = None
    if key is None or key not in _SCHEMA_CHECKS:
        if len(_SCHEMA_CHECKS) > 100_000:
            _SCHEMA_CHECKS.clear()
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
            problem = None
        except jsonschema.SchemaError as e:
            problem = e.message
        if key is None:
            return problem
        _SCHEMA_CHECKS[key] = problem
    return _SCHEMA_CHECKS[key]


def _problems(operations: Iterable[Operation]) -> Iterable[str]:
    seen: set[str] = set()
    for op in operations:
        if not TOOL_NAME.match(op.name):
            yield f"tool {op.name!r}: name must match {TOOL_NAME.pattern}"
        if op.name in seen:
            yield f"tool {op.name!r}: defined twice"
        seen.add(op.name)
        names: set[str] = set()
        for p in op.params:
            if p.name in names:
                yield f"tool {op.name!r}, parameter {p.name!r}: defined twice"
            names.add(p.name)
            if (problem := _schema_problem(_plain(p.schema))) is not None:
                yield f"tool {op.name!r}, parameter {p.name!r}: invalid JSON Schema: {problem}"
