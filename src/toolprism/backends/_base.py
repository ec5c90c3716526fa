"""The backend contract: a backend makes one agent per episode; an agent answers chat turns.

Messages and tools use the OpenAI chat format (``{"role", "content", "tool_calls"}`` and
``{"type": "function", "function": {...}}``). An agent returns a :class:`ModelTurn`: the raw
output, the final text if any, and the tool calls it emitted with their arguments *unparsed*
(JSON text), so the episode loop can reject malformed ones and record them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from toolprism.errors import ConfigError
from toolprism.schema import JSON

if TYPE_CHECKING:
    from toolprism.domains import Task
    from toolprism.perturb import Instance
    from toolprism.shaping import Variant

Message = dict[str, Any]
"""One OpenAI chat message (JSON object)."""

Constrain = Literal["none", "first", "all"]
"""Which turns a backend decodes under the constraint "a call of a listed tool whose arguments
satisfy that tool's ``parameters`` JSON Schema, or a final answer": ``none``; ``first``: every turn
until the episode's first tool call has been emitted; ``all``: every turn. The grammar comes from
the tools the turn shows (tool-name choice plus each tool's arguments schema), the same rule for
every variant. Source: the constrained-decoding mitigation of Action-Space Shaping ("Training
repairs what it sees"), which constrains the first call; ``all`` is toolprism's extension."""
CONSTRAIN_MODES: tuple[Constrain, ...] = ("none", "first", "all")


def constrain_problems(constrain: str, *, supported: Sequence[str] = CONSTRAIN_MODES, why: str = "") -> list[str]:
    """What is wrong with a backend's ``constrain`` option (empty when nothing is).

    Args:
        constrain: the value given.
        supported: the modes the backend can decode under.
        why: why the other modes are not supported (and what would work), added to the problem.
    """
    if constrain not in CONSTRAIN_MODES:
        return [f"unknown constrain mode {constrain!r}; known: {', '.join(CONSTRAIN_MODES)}"]
    if constrain not in supported:
        return [f"constrain={constrain!r} is not supported" + (f": {why}" if why else "")]
    return []


def check_constrain(constrain: str, *, what: str, supported: Sequence[str] = CONSTRAIN_MODES, why: str = "") -> None:
    """Raise the problems of :func:`constrain_problems` for the backend ``what`` (``"oracle backend"``).

    Raises:
        ConfigError: ``constrain`` is not a mode of :data:`Constrain`, or not one this backend supports.
    """
    if problems := constrain_problems(constrain, supported=supported, why=why):
        raise ConfigError(problems, what=what)


def constrains_turn(constrain: Constrain, messages: Sequence[Message]) -> bool:
    """Whether the turn that answers ``messages`` is decoded under the constraint (see
    :data:`Constrain`): always under ``all``; under ``first`` while no assistant message in
    ``messages`` carries ``tool_calls`` (the episode loop records every emitted call there,
    executed or rejected); never under ``none``. Deterministic, from the conversation alone."""
    if constrain == "all":
        return True
    if constrain == "first":
        return not any(m.get("role") == "assistant" and m.get("tool_calls") for m in messages)
    return False


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
