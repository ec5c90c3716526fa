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

Adapter controls (:data:`Control`): under ``strict`` the adapter checks each call against the
layer's JSON Schema and calls ``decode``; under ``paper`` and ``loose`` it calls
``decode_unchecked`` instead, which checks only what the Action-Space Shaping paper's adapter
checks (see :meth:`Layer.decode_unchecked`).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, ClassVar, Literal

from toolprism.errors import RejectedCall, RejectionKind
from toolprism.schema import JSON, Action, ActionSpace, ToolCall, ToolSpec

Control = Literal["strict", "paper", "loose"]
"""How strictly the adapter treats invalid calls (DESIGN.md glossary, "control"):

- ``strict``: toolprism's own control: every call is checked against the shown tool's JSON Schema
  at every layer and the layers' protocols; an invalid call is rejected with a helpful message
  (it names the tools, the missing ``set_`` call, ...) and nothing runs.
- ``paper``: the Action-Space Shaping paper's ``hard`` control (``toolschema/simenv.py``
  ``SimEnv.call``, ``toolschema/schema_adapter.py`` ``classify_call``): rejects, with the paper's
  terse messages, only off-schema tool names, off-enum ``operation`` values, out-of-interval calls
  of interval-split tools and transaction errors; a call whose name exists but whose values or
  argument names are wrong is executed (its native action is recorded; see :class:`Execute`).
- ``loose``: the paper's ``loose`` control: like ``paper``, but executes instead of rejecting
  wherever a native action can still be decoded (a native tool name shown nowhere in the variant
  runs that native action; an off-enum operation that is a native operation runs it; ...).
"""
CONTROLS: tuple[Control, ...] = ("strict", "paper", "loose")
"""The adapter controls, default first."""


def unknown_function(name: str) -> str:
    """The paper's rejection of an off-schema tool name (``toolschema/simenv.py``)."""
    return f"Unknown function `{name}`. Use only the provided tools."


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
    """The native layer's decoding: run this action in the environment.

    Attributes:
        action: the native action.
        refused: under the ``paper`` and ``loose`` controls only: the native schema's refusal of
            ``action`` (its arguments are wrong; ``action`` then holds them as given, not
            normalised). The environment is not called: the adapter records the call as executed,
            with this action (so scoring sees a wrong-argument action, as the paper's adapter
            records one), and the model is shown ``{"error": refused}``, the reply our
            environments give to a native call their schema refuses; the state is unchanged.
    """

    action: Action
    refused: str | None = None


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

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """Decode a call under the ``paper`` or ``loose`` control: the adapter has checked only
        that the tool exists at this layer, not its arguments.

        A layer raises :class:`~toolprism.errors.RejectedCall` here only for what the paper's
        control rejects at it (off-enum operations, out-of-interval calls, transaction errors;
        under ``loose`` only where no native action can be decoded), with the paper's terse
        message; a call whose values or argument names are wrong is passed down as it is, to be
        executed as a wrong-argument action by the native layer.

        The default is the strict path (the JSON Schema check, then :meth:`decode`): a layer that
        does not override this keeps rejecting invalid arguments under every control. Layers
        whose ``decode`` never reads argument values override it with ``decode``.
        """
        self.tool(call.name).validate(call.arguments)
        return self.decode(call, state)

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

    def decode_unchecked(self, call: ToolCall, state: Any, control: Control) -> Decoded:
        """An operation that exists runs whatever its arguments: valid ones as under ``strict``,
        invalid ones as a refused :class:`Execute` (the paper executes calls whose names exist
        but whose values or argument names are wrong; they score as wrong arguments).

        Raises:
            RejectedCall: UNKNOWN_TOOL with the paper's message, for a name that is no operation
                (reached only through a layer that forwards names it does not know, e.g. a
                discovery ``invoke`` of an unknown method).
        """
        if call.name not in self.tool_index:
            raise RejectedCall(RejectionKind.UNKNOWN_TOOL, unknown_function(call.name))
        try:
            return Execute(self.space.action(call.name, call.arguments))
        except RejectedCall as e:
            raw = Action.of(call.name, call.arguments)
            return Execute(raw, refused=e.reason)

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
