"""``scripted``: a test backend that replays a fixed list of turns, or asks a callback.

Used to drive the episode loop with exact, reproducible model behaviour (including bad calls).
:func:`native_names` is a ready-made callback: an agent that ignores the variant and keeps calling
the native tools (the behaviour behind the Action-Space Shaping paper's rejection ablation).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolprism.backends._base import Constrain, EpisodeContext, Message, ModelTurn, ScriptedTurns, check_constrain
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
    ``(context, messages) -> ModelTurn``. Every episode restarts the list.

    ``constrain`` accepts only ``none``: a script's turns are given, not decoded (a test that
    needs constrained output scripts it).

    Raises:
        ConfigError: ``constrain`` other than ``none``.
    """

    script: Script | Sequence[ModelTurn]
    name: str = "scripted"
    label: dict[str, JSON] = field(default_factory=dict)
    constrain: Constrain = "none"

    def __post_init__(self) -> None:
        check_constrain(
            self.constrain,
            what="scripted backend",
            supported=("none",),
            why="a script's turns are given, not decoded; script the constrained output instead",
        )

    def settings(self) -> dict[str, JSON]:
        """``{"backend": "scripted", "constraint": "none", "constrain": "none", **label}``."""
        return {"backend": "scripted", "constraint": "none", "constrain": self.constrain, **self.label}

    def agent(self, context: EpisodeContext) -> _ScriptedAgent:
        """A fresh agent at the start of the script."""
        return _ScriptedAgent(context, self.script)

    @classmethod
    def native_names(cls) -> ScriptedBackend:
        """A backend playing :func:`native_names` (label ``{"script": "native-names"}``)."""
        return cls(native_names, label={"script": "native-names"})


NATIVE_PATIENCE = 3
"""Error replies in a row after which :func:`native_names` gives up and answers."""


def native_names(context: EpisodeContext, messages: Sequence[Message]) -> ModelTurn:
    """A script that calls the task's gold actions by their native tool names and arguments,
    whatever tools the variant shows: one call per turn, the next action once a call's reply is
    not an error, the same call again after an error; it answers when every action has run, or
    gives up (answers) after :data:`NATIVE_PATIENCE` error replies in a row.

    Under a variant that hides the native names (``merge(by=full)``), the ``strict`` and ``paper``
    adapter controls reject every call, so the agent ends rejected and stuck, having run nothing
    (the paper's ``rejected_stuck``); the ``loose`` control runs each call as its native action
    and the agent succeeds (Action-Space Shaping: the rejection ablation, ``toolschema/simenv.py``
    controls). Deterministic: the turn depends only on the task and the replies so far.
    """
    replies = [_is_error(m.get("content")) for m in messages if m.get("role") == "tool"]
    done = replies.count(False)
    failing = next((i for i, error in enumerate(reversed(replies)) if not error), len(replies))  # errors in a row
    gold = context.task.gold
    if done >= len(gold):
        return ScriptedTurns.answer("Done.")
    if failing >= NATIVE_PATIENCE:
        return ScriptedTurns.answer(f"I could not run {gold[done].op}.")
    return ScriptedTurns(issued=len(messages)).call(gold[done].op, gold[done].arguments)


def _is_error(content: object) -> bool:
    """Whether a tool message's content is an ``{"error": ...}`` reply (or not JSON at all)."""
    try:
        reply = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return True
    return isinstance(reply, dict) and "error" in reply
