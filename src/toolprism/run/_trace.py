"""Trace records: everything needed to re-score and replay an episode from the trace alone."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

TRACE_VERSION = 1


class Record(BaseModel):
    """Base of trace records: closed (no unknown fields), JSON-serialisable."""

    model_config = ConfigDict(extra="forbid")


class CallRecord(Record):
    """One tool call the model made and what the adapter did with it.

    Attributes:
        id: the call id.
        name: the tool name as emitted.
        raw_arguments: the arguments text as emitted.
        arguments: the parsed arguments (None when they did not parse).
        outcome: executed | answered | rejected | failed (the runtime refused a decoded call).
        rejection: the rejection kind when rejected (see ``RejectionKind``).
        path: the call at each layer, top first (``{"name", "arguments"}``).
        action: the decoded native action (``{"op", "args"}``) when executed or failed.
        reply: the JSON the model was shown.
        layer: index of the layer that answered or rejected (0 = native).
    """

    id: str
    name: str
    raw_arguments: str
    arguments: Any = None
    outcome: Literal["executed", "answered", "rejected", "failed"]
    rejection: str | None = None
    path: list[dict[str, Any]] = []
    action: dict[str, Any] | None = None
    reply: Any = None
    layer: int | None = None


class TurnRecord(Record):
    """One model turn.

    Attributes:
        index: 0-based turn number.
        prompt_messages: how many messages of :attr:`Trace.messages` were sent in this turn (the
            conversation is append-only, so the exact prompt is ``messages[:prompt_messages]``).
        raw: the exact model output.
        content: the final text, if the model answered.
        error: a backend note on output it could not interpret.
        calls: the tool calls of this turn.
        latency_ms: model time for this turn.
        prompt_tokens / completion_tokens: when the backend reports them.
    """

    index: int
    prompt_messages: int
    raw: str
    content: str | None = None
    error: str | None = None
    calls: list[CallRecord] = []
    latency_ms: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Trace(Record):
    """A whole episode.

    Attributes:
        version: trace format version.
        episode_id: ``<task id>@<variant>[+<condition>]#<seed>``.
        task: the task (id, query, gold, reference) as JSON (the query as posed, before any
            perturbation; the perturbed one is the first user message).
        variant: the variant name; ``spec``: its canonical spec string.
        condition: the perturbations as ``C2:medium`` (``+``-joined when mixed); ``""`` clean.
        perturbations: the planned instances (``toolprism.perturb.Instance`` as JSON): subtype,
            severity, strength, target, expected gold, runtime-decision labels, stages.
        injections: every change the perturbations made, in order
            (``toolprism.perturb.Injection`` as JSON): site, target, original, replacement.
        model: backend settings (model id, constraint, sampling).
        seed: the episode seed.
        tools: the tools shown, OpenAI format.
        messages: the full conversation, OpenAI format.
        turns: per-turn records.
        actions: decoded native actions in execution order (``{"op", "args"}``).
        end: why the episode stopped: ``answered`` (no tool call), ``turn_limit``, or ``no_output``
            (the backend produced nothing, e.g. the prompt outgrew the model's context).
        max_turns: the turn limit.
        final_state_hash: SHA-256 of the environment's state at the end (see ``state_hash``).
        duration_ms: wall time of the episode (excluded from determinism checks).
    """

    version: int = TRACE_VERSION
    episode_id: str
    task: dict[str, Any]
    variant: str
    spec: str
    condition: str = ""
    perturbations: list[dict[str, Any]] = []
    injections: list[dict[str, Any]] = []
    model: dict[str, Any]
    seed: int
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    turns: list[TurnRecord]
    actions: list[dict[str, Any]]
    end: Literal["answered", "turn_limit", "no_output"]
    max_turns: int
    final_state_hash: str
    duration_ms: float = 0.0

    @property
    def failed_calls(self) -> int:
        """How many decoded calls the runtime refused (runtime perturbations)."""
        return sum(c.outcome == "failed" for t in self.turns for c in t.calls)

    @property
    def rejected_calls(self) -> int:
        """How many calls the adapter rejected."""
        return sum(c.outcome == "rejected" for t in self.turns for c in t.calls)

    def deterministic_view(self) -> dict[str, Any]:
        """The trace without timings: equal for equal seeds, prompts and replies."""
        data = self.model_dump(mode="json", exclude={"duration_ms"})
        for turn in data["turns"]:
            turn.pop("latency_ms")
        return data
