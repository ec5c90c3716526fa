"""The layer protocol every operator implements (DESIGN.md, "Operators compose like wrappers").

A variant is a stack of layers over the native action space. Each layer knows only the layer
below it and does three things:

- ``tools()``: the tools it shows (the model sees the top layer's tools);
- ``decode(call, state)``: map one call at this layer to a call of the layer below
  (:class:`Forward`), answer it itself (:class:`Answer`, e.g. ``begin`` returns a transaction
  id), or raise :class:`~toolprism.errors.RejectedCall`. The adapter has already checked that
  the tool exists and the arguments satisfy this layer's JSON Schema;
- ``encode(call)``: the inverse, a generator that yields this layer's calls for one call of the
  layer below, receives each call's reply, and returns the reply of the lower call.

Layers are frozen: per-episode protocol state lives in the object ``new_state()`` returns, which
the adapter owns and passes to ``decode``.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, ClassVar

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import JSON, Action, ActionSpace, ToolCall, ToolSpec


@dataclass(frozen=True)
class Batch:
    """Calls that do not depend on each other's replies, so an agent may issue them in one turn.

    A plan that yields a batch is sent the list of replies, in order.
    """

    calls: tuple[ToolCall, ...]


Plan = Generator["ToolCall | Batch", JSON, JSON]
"""Yields calls (or batches) at one layer, is sent each reply (a list for a batch), and returns
the reply of the call it encodes."""


@dataclass(frozen=True)
class Forward:
    """Decoded into this call of the layer below."""

    call: ToolCall


@dataclass(frozen=True)
class Answer:
    """Answered by the layer itself; nothing reaches the environment."""

    reply: JSON


@dataclass(frozen=True)
class Execute:
    """The native layer's decoding: run this action in the environment."""

    action: Action


Decoded = Forward | Answer | Execute


class Layer:
    """Base of every layer. Subclasses override :meth:`tools`, :meth:`decode`, :meth:`encode`."""

    def tools(self) -> list[ToolSpec]:
        """The tools this layer shows."""
        raise NotImplementedError

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        """Map a validated call at this layer one step down.

        Raises:
            RejectedCall: the call is invalid under this layer's protocol.
        """
        raise NotImplementedError

    def encode(self, call: ToolCall) -> Plan:
        """Yield this layer's calls that produce ``call`` one layer down; return its reply."""
        raise NotImplementedError
        yield  # pragma: no cover

    def new_state(self) -> Any:
        """Fresh per-episode protocol state (None for stateless layers)."""
        return None

    def convention(self) -> str:
        """One or two plain sentences telling a model how to call tools under this layer's
        rewrite ("" when there is nothing to say). Used as a training-free mitigation."""
        return ""

    @property
    def namespace(self) -> str:
        """Name of the action space at the bottom of the stack."""
        raise NotImplementedError

    @cached_property
    def tool_index(self) -> dict[str, ToolSpec]:
        """Tool name → tool, for lookup."""
        return {t.name: t for t in self.tools()}

    def tool(self, name: str) -> ToolSpec:
        """The shown tool called ``name``.

        Raises:
            RejectedCall: UNKNOWN_TOOL, listing the tools that exist.
        """
        try:
            return self.tool_index[name]
        except KeyError:
            known = ", ".join(sorted(self.tool_index))
            raise RejectedCall(
                RejectionKind.UNKNOWN_TOOL, f"unknown tool '{name}'; the available tools are: {known}"
            ) from None


@dataclass(frozen=True)
class NativeLayer(Layer):
    """The bottom of every stack: the domain's own tools; decodes a call into an :class:`Action`."""

    space: ActionSpace

    def tools(self) -> list[ToolSpec]:
        return self.space.tools()

    def decode(self, call: ToolCall, state: Any) -> Decoded:
        return Execute(self.space.action(call.name, call.arguments))

    def encode(self, call: ToolCall) -> Plan:
        return (yield call)

    @property
    def namespace(self) -> str:
        return self.space.name


@dataclass(frozen=True)
class Operator(Layer):
    """An equivalence-preserving rewrite: its parameters are dataclass fields, ``below`` is bound
    by :meth:`over`. Unbound operators only describe themselves (:meth:`spec`).

    Subclasses set :attr:`name` and register in :data:`toolprism.shaping.OPERATORS`.
    """

    name: ClassVar[str]
    below: Layer = field(default=None, repr=False, compare=False, kw_only=True)  # type: ignore[assignment]

    def over(self, below: Layer) -> Operator:
        """This operator bound on top of ``below`` (a new object; ``self`` is unchanged)."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "below"}
        return type(self)(**values, below=below)

    def spec(self) -> str:
        """The operator as a spec string, e.g. ``rename(style=opaque)``."""
        values = ((f.name, getattr(self, f.name)) for f in fields(self) if f.name != "below")
        args = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values if v != "")
        return f"{self.name}({args})" if args else self.name

    @property
    def namespace(self) -> str:
        return self.below.namespace


def reject(kind: RejectionKind, reason: str) -> RejectedCall:
    """Shorthand for building a :class:`RejectedCall` to raise."""
    return RejectedCall(kind, reason)
