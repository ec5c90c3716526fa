"""The action space: the ordered, named set of a domain's or catalog's native operations, which
turns native calls into validated, normalised :class:`Action` values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from toolprism.errors import ConfigError, RejectedCall, RejectionKind
from toolprism.schema._model import (
    JSON,
    Action,
    Operation,
    ToolCall,
    ToolSpec,
    _normalise,
    _problems,
)
from toolprism.schema._tools import parse_tools


@dataclass(frozen=True)
class ActionSpace:
    """The native action space of a domain or catalog: an ordered set of operations.

    Raises:
        ConfigError: from the constructor, if names are duplicated or invalid, or a parameter
            schema is not valid JSON Schema (every problem listed).
    """

    name: str
    operations: tuple[Operation, ...]
    notes: tuple[str, ...] = field(default=(), compare=False)
    """What the loader rewrote on the way in (renamed tools, normalised type names), one line each."""

    def __post_init__(self) -> None:
        problems = list(_problems(self.operations))
        if problems:
            raise ConfigError(problems, what=f"action space {self.name!r}")

    @cached_property
    def _index(self) -> dict[str, Operation]:
        index = {op.original: op for op in self.operations if op.original}
        return {**index, **{op.name: op for op in self.operations}}

    def get(self, name: str) -> Operation:
        """The operation called ``name`` (its tool name, or the catalog's original name of a
        renamed tool: ``math.add`` finds ``math_add``).

        Raises:
            RejectedCall: UNKNOWN_TOOL if there is none.
        """
        op = self._index.get(name)
        if op is None:
            raise RejectedCall(RejectionKind.UNKNOWN_TOOL, f"unknown tool '{name}'")
        return op

    def source_call(self, action: Action) -> ToolCall:
        """``action`` as a call in the catalog's own names (a renamed tool gets its original name
        back): what an exporter or a comparison with the catalog's own answers needs.

        Raises:
            RejectedCall: UNKNOWN_TOOL if the action's operation is not in this space.
        """
        return ToolCall(self.get(action.op).source_name, action.arguments)

    def tools(self) -> list[ToolSpec]:
        """Native tool definitions, in declaration order."""
        return [op.tool() for op in self.operations]

    def action(self, op: str, arguments: Mapping[str, JSON] | None = None) -> Action:
        """Validate and normalise a native call into an :class:`Action`.

        Normalisation: declared defaults are filled in; integral floats become ints where the
        schema says ``integer``. Equal calls therefore give equal actions.

        Raises:
            RejectedCall: UNKNOWN_TOOL or INVALID_ARGUMENTS.
        """
        operation = self.get(op)
        args = dict(arguments or {})
        operation.tool().validate(args)
        for p in operation.params:
            if p.name not in args and "default" in p.schema:
                args[p.name] = p.schema["default"]
            if p.name in args:
                args[p.name] = _normalise(args[p.name], p.schema)
        return Action.of(operation.name, args)

    @classmethod
    def from_openai_tools(cls, tools: Iterable[Mapping[str, JSON]], *, name: str = "catalog") -> ActionSpace:
        """Load an OpenAI ``tools`` list (``[{"type": "function", "function": {...}}, ...]``).

        Raises:
            ConfigError: listing every malformed tool and parameter.
        """
        notes: list[str] = []
        return cls(name, parse_tools(tools, name=name, source="openai", notes=notes), tuple(notes))

    @classmethod
    def from_mcp_tools_list(
        cls, reply: Mapping[str, JSON] | Iterable[Mapping[str, JSON]], *, name: str = "mcp"
    ) -> ActionSpace:
        """Load an MCP ``tools/list`` reply (``{"tools": [{"name", "description", "inputSchema"}]}``,
        a JSON-RPC envelope with ``result``, or the bare list).

        Raises:
            ConfigError: listing every malformed tool and parameter.
        """
        notes: list[str] = []
        return cls(name, parse_tools(reply, name=name, source="mcp", notes=notes), tuple(notes))

    @classmethod
    def from_bfcl(cls, functions: Iterable[Mapping[str, JSON]], *, name: str = "bfcl", group: str = "") -> ActionSpace:
        """Load BFCL function docs (``[{"name", "description", "parameters"}]``, the ``function``
        list of one BFCL entry). Dotted names become tool-safe (``math.factorial`` →
        ``math_factorial``, see :func:`toolprism.schema.bfcl_tool_name`; the original is kept in
        the description and the prefix becomes the group); Python type names map to JSON types
        (``dict`` → object, ``float`` → number, ``tuple`` → array, ``any`` → unconstrained).

        Raises:
            ConfigError: listing every malformed tool, parameter and name collision.
        """
        notes: list[str] = []
        return cls(name, parse_tools(list(functions), name=name, source="bfcl", group=group, notes=notes), tuple(notes))
