"""``oracle``: a scripted agent that issues the gold actions through the variant's encoder.

It reacts to replies (a transaction id it was given flows into its next calls), so it succeeds
on 100% of tasks under every correct variant: the end-to-end proof (DESIGN.md principle 5).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolprism.backends._base import EpisodeContext, Message, ModelTurn, ScriptedTurns
from toolprism.schema import JSON
from toolprism.shaping import Plan


@dataclass
class OracleAgent:
    """Walks the task's gold actions in order, one encoded call per turn."""

    context: EpisodeContext
    _turns: ScriptedTurns = field(default_factory=ScriptedTurns)
    _pending: list = field(init=False)
    _plan: Plan | None = None

    def __post_init__(self) -> None:
        self._pending = list(self.context.task.gold)

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        call = None
        if self._plan is not None:
            last = messages[-1]
            reply = json.loads(last["content"]) if last.get("role") == "tool" else None
            try:
                call = self._plan.send(reply)
            except StopIteration:
                self._plan = None
        while call is None and self._pending:
            self._plan = self.context.variant.plan(self._pending.pop(0))
            call = next(self._plan)
        if call is None:
            return ScriptedTurns.answer("Done.")
        return self._turns.call(call.name, dict(call.arguments))


class OracleBackend:
    """Backend ``oracle``: one :class:`OracleAgent` per episode."""

    name = "oracle"

    def settings(self) -> dict[str, JSON]:
        """No parameters: the oracle is fully determined by the task and the variant."""
        return {"backend": "oracle", "constraint": "none"}

    def agent(self, context: EpisodeContext) -> OracleAgent:
        """A fresh oracle agent for ``context``."""
        return OracleAgent(context)
