"""The execution adapter: one session per episode, decoding variant calls to native actions.

Reject, never guess (DESIGN.md principle 4): a call is decoded through every layer *before*
anything runs; if any layer rejects it, the layers' protocol state is restored, nothing is
executed, and the model gets the reason.

That is the ``strict`` control (the default). The ``paper`` and ``loose`` controls reproduce the
Action-Space Shaping paper's adapter (``toolschema/simenv.py``), which rejects less and executes
more; see :data:`~toolprism.shaping.Control` and :meth:`AdapterSession.handle`.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from toolprism.errors import ConfigError, RejectedCall, RejectionKind, ToolFault
from toolprism.schema import JSON, Action, ToolCall
from toolprism.shaping._layer import CONTROLS, Answer, Control, Execute, Forward, unknown_function
from toolprism.shaping._pipeline import Variant

Outcome = Literal["executed", "answered", "rejected", "failed"]

MAX_ARGUMENT_DEPTH = 64
"""Deepest nesting of a call's arguments that is read (an object or array is one level)."""


def read_arguments(text: str) -> JSON:
    """A call's argument text read as strict JSON (RFC 8259), any JSON value.

    Refused: text that is not JSON, ``NaN``/``Infinity`` and numbers outside the float range, an
    integer of more digits than Python converts (4,300), nesting deeper than
    :data:`MAX_ARGUMENT_DEPTH`, and strings holding a lone UTF-16 surrogate (``"\\ud800"``: no
    Unicode character, and no trace could store it).

    Raises:
        RejectedCall: MALFORMED_CALL with the reason, for each of the above.
    """
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as e:
        raise RejectedCall(RejectionKind.MALFORMED_CALL, f"arguments are not valid JSON ({e.msg})") from None
    except RecursionError:
        raise RejectedCall(RejectionKind.MALFORMED_CALL, _too_deep()) from None
    except ValueError as e:  # NaN/Infinity, an out-of-range float, too many digits
        raise RejectedCall(RejectionKind.MALFORMED_CALL, f"arguments are not valid JSON ({e})") from None
    _check_value(value)
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of the range of numbers")
    return value


def _too_deep() -> str:
    return f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"


def _check_value(value: JSON) -> None:
    """Depth and lone surrogates, walked without recursion (the value may be deep)."""
    stack: list[tuple[JSON, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= MAX_ARGUMENT_DEPTH:
                raise RejectedCall(RejectionKind.MALFORMED_CALL, _too_deep())
            children = list(item.items()) if isinstance(item, dict) else [(None, v) for v in item]
            for key, child in children:
                if key is not None:
                    _check_text(key)
                stack.append((child, depth + 1))
        elif isinstance(item, str):
            _check_text(item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RejectedCall(
            RejectionKind.MALFORMED_CALL, "arguments hold a lone surrogate escape (no Unicode character)"
        ) from None


@dataclass(frozen=True)
class Decision:
    """What the adapter did with one model call (a trace event).

    Attributes:
        outcome: ``executed`` (decoded to a native action and run), ``answered`` (by a layer,
            e.g. ``begin``), ``rejected``, or ``failed`` (decoded, but the runtime refused to run
            it: a :class:`~toolprism.errors.ToolFault`; the layers' protocol state is restored so
            the same call can be retried).
        call: the call as the model made it.
        path: the call at each layer from the top down to where it stopped.
        action: the native action, when executed (or attempted, when failed).
        reply: what the model is shown (JSON).
        rejection: the rejection kind, when rejected.
        layer: index of the layer that answered or rejected (0 = native), else None.
    """

    outcome: Outcome
    call: ToolCall
    path: tuple[ToolCall, ...]
    reply: JSON
    action: Action | None = None
    rejection: RejectionKind | None = None
    layer: int | None = None

    @property
    def content(self) -> str:
        """The tool message content shown to the model (:func:`reply_text` of :attr:`reply`)."""
        return reply_text(self.reply)


def reply_text(reply: JSON) -> str:
    """A tool reply as the model is shown it in a ``tool`` message: compact JSON, keys in the order
    the tool (or a perturbation) wrote them, non-ASCII kept. Not sorted: ToolRobustBench's C1 at
    light severity *is* a reordering of the fields, which sorted keys would undo. Deterministic:
    every domain builds its replies in a fixed order (checked across hash seeds by
    ``tests/run/test_reply_order.py``)."""
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=False)


@dataclass
class AdapterSession:
    """Protocol state of one episode (open transactions, handles, ...) over one environment.

    Attributes:
        variant: the interface the model is shown.
        execute: runs one native action and returns its JSON reply (an environment's
            ``execute``; perturbations of the runtime wrap it).
        control: ``strict`` (default), ``paper`` or ``loose`` (see :data:`~toolprism.shaping.Control`).

    Raises:
        ConfigError: an unknown control.
    """

    variant: Variant
    execute: Callable[[Action], JSON]
    control: Control = "strict"
    states: list[Any] = field(init=False)

    def __post_init__(self) -> None:
        if self.control not in CONTROLS:
            raise ConfigError(
                f"unknown control {self.control!r} (known: {', '.join(CONTROLS)})", what="adapter control"
            )
        self.states = [layer.new_state() for layer in self.variant.layers]

    def handle(self, call: ToolCall) -> Decision:
        """Decode ``call`` through every layer, then answer, execute, or reject it.

        Under ``strict`` each layer checks the call against its tool's JSON Schema, then decodes
        it; a rejection is shown as ``{"error": "call rejected: <reason>"}``. Under ``paper`` and
        ``loose`` each layer decodes it with :meth:`~toolprism.shaping.Layer.decode_unchecked`,
        a rejection is shown as the paper shows one, ``{"error": "<reason>"}``, and:

        - a tool name the variant does not show is rejected (``Unknown function `x`. Use only the
          provided tools.``), except under ``loose`` when it names a native operation: then it
          runs as that native call (the paper's loose control runs off-schema names as native
          calls; a name that is no native operation either is still rejected here, since no
          native action can be decoded from it);
        - a native action the native schema refuses is recorded as executed, not run (see
          :class:`~toolprism.shaping.Execute`).

        Never raises for a bad call: rejections come back as a :class:`Decision`.
        """
        saved = copy.deepcopy(self.states)
        path: list[ToolCall] = []
        index = len(self.variant.layers) - 1
        current = call
        try:
            if not isinstance(call.arguments, dict):
                raise RejectedCall(RejectionKind.MALFORMED_CALL, "arguments must be a JSON object")
            if self.control == "loose" and call.name not in self.variant.top.tool_index:
                index = 0 if call.name in self.variant.layers[0].tool_index else index  # a native name runs natively
            while True:
                path.append(current)
                layer = self.variant.layers[index]
                if self.control == "strict":
                    layer.tool(current.name).validate(current.arguments)
                    decoded = layer.decode(current, self.states[index])
                else:
                    if current.name not in layer.tool_index:
                        raise RejectedCall(RejectionKind.UNKNOWN_TOOL, unknown_function(current.name))
                    decoded = layer.decode_unchecked(current, self.states[index], self.control)
                if isinstance(decoded, Forward):
                    current, index = decoded.call, index - 1
                    continue
                break
        except RejectedCall as e:
            self.states = saved
            reason = f"call rejected: {e.reason}" if self.control == "strict" else e.reason
            return Decision("rejected", call, tuple(path), {"error": reason}, rejection=e.kind, layer=index)
        if isinstance(decoded, Answer):
            return Decision("answered", call, tuple(path), decoded.reply, layer=index)
        assert isinstance(decoded, Execute)
        if decoded.refused is not None:
            return Decision("executed", call, tuple(path), {"error": decoded.refused}, action=decoded.action)
        try:
            reply = self.execute(decoded.action)
        except ToolFault as fault:
            self.states = saved
            return Decision("failed", call, tuple(path), fault.reply, action=decoded.action, layer=0)
        return Decision("executed", call, tuple(path), reply, action=decoded.action)

    def reject_malformed(self, name: str, reason: str) -> Decision:
        """Record a call the model emitted but that could not be parsed at all (under every
        control: the paper's runner cannot run text that is not a call either)."""
        return Decision(
            "rejected",
            ToolCall(name or "?", {}),
            (),
            {"error": f"call rejected: {reason}" if self.control == "strict" else reason},
            rejection=RejectionKind.MALFORMED_CALL,
            layer=len(self.variant.layers) - 1,
        )
