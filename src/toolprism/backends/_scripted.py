"""``scripted``: a test backend that replays a fixed list of turns, or asks a callback.

Used to drive the episode loop with exact, reproducible model behaviour (including bad calls).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolprism.backends._base import EpisodeContext, Message, ModelTurn, ScriptedTurns
from toolprism.schema import JSON

Script = Callable[[EpisodeContext, Sequence[Message]], ModelTurn]


@dataclass
class _ScriptedAgent:
    context: EpisodeContext
    script: Script | Sequence[ModelTurn]
    position: int = 0

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        if callable(self.script):
            return self.script(self.context, messages)
        if self.position >= len(self.script):
            return ScriptedTurns.answer("Done.")
        self.position += 1
        return self.script[self.position - 1]


@dataclass
class ScriptedBackend:
    """Backend that plays ``script``: a list of turns (then a final answer), or a callback
    ``(context, messages) -> ModelTurn``. Every episode restarts the list."""

    script: Script | Sequence[ModelTurn]
    name: str = "scripted"
    label: dict[str, JSON] = field(default_factory=dict)

    def settings(self) -> dict[str, JSON]:
        """``{"backend": "scripted", "constraint": "none", **label}``."""
        return {"backend": "scripted", "constraint": "none", **self.label}

    def agent(self, context: EpisodeContext) -> _ScriptedAgent:
        """A fresh agent at the start of the script."""
        return _ScriptedAgent(context, self.script)
