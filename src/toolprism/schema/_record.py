"""Records of calls and actions as traces and perturbation instances store them (pydantic, JSON).

The in-memory values are :class:`~toolprism.schema.Action` and :class:`~toolprism.schema.ToolCall`
(frozen dataclasses); these are their serialised forms, with the same JSON shape as
``Action.to_json`` and ``ToolCall.to_json``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from toolprism.schema._model import Action, ToolCall


class ActionRecord(BaseModel):
    """A native action as stored: ``{"op": <operation>, "args": {<name>: <JSON value>}}``.

    Attributes:
        op: the native operation name.
        args: the arguments as a JSON object.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    op: str
    args: dict[str, Any] = {}

    @classmethod
    def of(cls, action: Action) -> ActionRecord:
        """The record of ``action``."""
        return cls(op=action.op, args=action.arguments)

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments (as :attr:`Action.arguments` names them)."""
        return self.args

    def to_action(self) -> Action:
        """The canonical, hashable :class:`Action` (no validation: it was validated once)."""
        return Action.from_json({"op": self.op, "args": self.args})


class ToolCallRecord(BaseModel):
    """A call at one layer of a variant as stored: ``{"name": <tool>, "arguments": {...}}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    arguments: dict[str, Any] = {}

    @classmethod
    def of(cls, call: ToolCall) -> ToolCallRecord:
        """The record of ``call``."""
        return cls.model_validate(call.to_json())
