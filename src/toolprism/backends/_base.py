"""The backend contract: a backend makes one agent per episode; an agent answers chat turns.

Messages and tools use the OpenAI chat format (``{"role", "content", "tool_calls"}`` and
``{"type": "function", "function": {...}}``). An agent returns a :class:`ModelTurn`: the raw
output, the final text if any, and the tool calls it emitted with their arguments *unparsed*
(JSON text), so the episode loop can reject malformed ones and record them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from toolprism.schema import JSON

if TYPE_CHECKING:
    from toolprism.domains import Task
    from toolprism.perturb import Instance
    from toolprism.shaping import Variant

Message = dict[str, Any]
"""One OpenAI chat message (JSON object)."""


@dataclass(frozen=True)
class RawCall:
    """A tool call as the model emitted it.

    Attributes:
        id: call id (the model's, or ``call_<turn>_<index>`` when it gave none).
        name: tool name as emitted.
        arguments: the arguments as JSON *text*, unparsed.
    """

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ModelTurn:
    """One model response.

    Attributes:
        raw: the exact model output (generated text, or the provider's message as JSON text).
        content: the text answer, if any.
        calls: the tool calls, in order; empty means the episode ends.
        prompt_tokens / completion_tokens: token counts when known, else None.
        error: a description of output the backend could not interpret (recorded; the episode
            goes on as if the model answered with ``content``).
    """

    raw: str
    content: str | None = None
    calls: tuple[RawCall, ...] = ()
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class EpisodeContext:
    """What a backend may know about the episode it serves.

    Real models must only use ``seed``; scripted agents (the oracle) also read the task and the
    variant to drive the encoder, and the oracle the perturbations' runtime labels to write a
    correct runtime report (it is the reference upper bound, not a model under test).
    """

    task: Task
    variant: Variant
    seed: int
    perturbations: tuple[Instance, ...] = ()


class Agent(Protocol):
    """Serves the model turns of one episode."""

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        """Answer the conversation so far, given the tools shown (OpenAI format).

        Raises:
            BackendError: the model could not be reached or failed to run.
        """
        ...


class Backend(Protocol):
    """A model (or scripted agent) that can serve episodes."""

    name: str

    def settings(self) -> dict[str, JSON]:
        """Everything that identifies this backend's behaviour, for the run header and traces
        (model id, file hash, sampling parameters, decoding constraint)."""
        ...

    def agent(self, context: EpisodeContext) -> Agent:
        """A fresh agent for one episode."""
        ...


@dataclass
class ScriptedTurns:
    """Build :class:`ModelTurn` values for scripted agents: call ids ``call_<n>``."""

    issued: int = field(default=0)

    def call(self, name: str, arguments: JSON | str) -> ModelTurn:
        """A turn that makes one tool call (``arguments`` JSON, or raw text for malformed tests)."""
        import json

        self.issued += 1
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)
        raw = json.dumps({"name": name, "arguments": text})
        return ModelTurn(raw=raw, calls=(RawCall(f"call_{self.issued}", name, text),))

    @staticmethod
    def answer(text: str) -> ModelTurn:
        """A final turn with no tool call."""
        return ModelTurn(raw=text, content=text)
