"""Trace records: everything needed to re-score and replay an episode from the trace alone.

Version 2 typed every record: the task (:class:`~toolprism.domains.TaskRecord`), the
perturbation instances and injections (:class:`~toolprism.perturb.Instance`,
:class:`~toolprism.perturb.Injection`), the decoded actions
(:class:`~toolprism.schema.ActionRecord`) and the calls (one record kind per outcome), in the JSON
shape version 1 had. Version 3 adds ``control``, the adapter control the episode ran under
(``strict``, ``paper`` or ``loose``; see :data:`toolprism.shaping.Control`). Version 4 adds the
ends ``context_overflow`` and ``backend_error`` (:data:`UNSCORED_ENDS`) and ``error``, their
cause. Version 5 (this module) adds ``mitigations``, the mitigations the episode ran under
(:data:`toolprism.run.Mitigation`). :func:`upgrade_trace` brings an older trace to version 5
(version 1: the task fields it could leave out are filled; versions 1 and 2: ``control`` is
``strict``, the only control they had; versions 1 to 3: an episode the embedded backend ended
because its prompt outgrew the context, recorded then as ``no_output``, is a
``context_overflow``; versions 1 to 4: ``mitigations`` is ``[]``, as none existed) and
:meth:`Trace.load` reads any of them.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from toolprism.domains import TaskRecord
from toolprism.errors import ConfigError, RejectionKind, validation_problems
from toolprism.perturb import Injection, Instance
from toolprism.schema import ActionRecord, ToolCallRecord
from toolprism.shaping import Control, upgrade_spec

TRACE_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)
"""Trace versions :meth:`Trace.load` reads (older ones are upgraded, see :func:`upgrade_trace`)."""

EpisodeEnd = Literal["answered", "turn_limit", "no_output", "context_overflow", "backend_error"]
"""Why an episode stopped: the model answered without a tool call, the turn limit was hit, the
backend produced nothing, the prompt outgrew the model's context
(:class:`~toolprism.errors.ContextOverflow`), or the backend failed
(:class:`~toolprism.errors.BackendError`, after its own retries). The last two are
:data:`UNSCORED_ENDS`."""
UNSCORED_ENDS: frozenset[str] = frozenset({"context_overflow", "backend_error"})
"""Ends that say nothing about the model's skill: success rates, stage scores, failure modes,
attribution, interactions and repair leave these episodes out and count them apart (per model,
variant and condition). A ``backend_error`` episode is not finished: ``toolprism run --resume``
runs it again; a ``context_overflow`` is a recorded outcome of its own (variants that show more
tools overflow first, so counting it as a failure would bias the comparison)."""
Mitigation = Literal["instruction", "constrain-first", "constrain-all"]
"""A training-free mitigation of a variant's cost ("Training repairs what it sees", the
calling-convention instruction and constrained decoding of the first call): ``instruction`` adds
the variant's calling-convention sentences (:meth:`toolprism.shaping.Variant.convention`) to the
system prompt (:func:`initial_messages`); ``constrain-first`` and ``constrain-all`` decode the
model's turns under a grammar of the variant's valid calls, until the first tool call or on every
turn (the backend does it: ``create_backend(..., constrain="first" | "all")``). The episode loop
itself only records them (:attr:`EpisodeSpec.mitigations`, :attr:`toolprism.run.Trace.mitigations`)."""
MITIGATIONS: tuple[Mitigation, ...] = get_args(Mitigation)
"""The mitigations a run can apply, in the order the paper tries them (see :data:`Mitigation`)."""
CallOutcome = Literal["executed", "answered", "rejected", "failed"]
"""What the adapter did with a call (see :class:`toolprism.shaping.Decision`)."""


class Record(BaseModel):
    """Base of trace records: closed (no unknown fields), JSON-serialisable."""

    model_config = ConfigDict(extra="forbid")


class _Call(Record):
    """Fields every call record has (see :data:`CallRecord`).

    Attributes:
        id: the call id.
        name: the tool name as emitted.
        raw_arguments: the arguments text as emitted.
        arguments: the parsed arguments (None when they did not parse).
        outcome: see :data:`CallOutcome`; it selects the record kind.
        rejection: the :class:`~toolprism.errors.RejectionKind` (rejected calls only).
        path: the call at each layer, top first, down to where it stopped.
        action: the decoded native action (executed and failed calls only).
        reply: the JSON the model was shown.
        layer: index of the layer that answered or rejected (0 = native; 0 for a failed call).
    """

    id: str
    name: str
    raw_arguments: str
    arguments: Any = None
    outcome: CallOutcome
    rejection: RejectionKind | None = None
    path: list[ToolCallRecord] = []
    action: ActionRecord | None = None
    reply: Any = None
    layer: int | None = None


class ExecutedCallRecord(_Call):
    """A call decoded to a native action that ran."""

    outcome: Literal["executed"] = "executed"
    rejection: None = None
    action: ActionRecord


class AnsweredCallRecord(_Call):
    """A call a layer answered itself (e.g. ``begin`` of a transaction); nothing ran."""

    outcome: Literal["answered"] = "answered"
    rejection: None = None
    action: None = None


class RejectedCallRecord(_Call):
    """A call the adapter rejected (shown to the model with the reason); nothing ran."""

    outcome: Literal["rejected"] = "rejected"
    rejection: RejectionKind
    action: None = None


class FailedCallRecord(_Call):
    """A call decoded to a native action that the runtime refused (a runtime perturbation)."""

    outcome: Literal["failed"] = "failed"
    rejection: None = None
    action: ActionRecord


CallRecord = Annotated[
    ExecutedCallRecord | AnsweredCallRecord | RejectedCallRecord | FailedCallRecord, Field(discriminator="outcome")
]
"""One tool call the model made and what the adapter did with it: a union discriminated on
``outcome``; every kind has the fields of :class:`_Call`."""
CALL_RECORD: TypeAdapter[CallRecord] = TypeAdapter(CallRecord)
"""Builds a :data:`CallRecord` of the right kind: ``CALL_RECORD.validate_python({...})``."""


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
        version: trace format version (:data:`TRACE_VERSION`; read older ones with :meth:`load`).
        episode_id: ``<task id>@<variant>[+<condition>]#<seed>``.
        task: the task (the query as posed, before any perturbation; the perturbed one is the
            first user message).
        variant: the variant name; ``spec``: its canonical spec string.
        condition: the perturbations as ``C2:medium`` (``+``-joined when mixed); ``""`` clean.
        perturbations: the planned instances: subtype, severity, strength, target, expected gold,
            runtime-decision labels, stages.
        injections: every change the perturbations made, in order: site, target, original,
            replacement.
        model: backend settings (model id, constraint, sampling; open JSON, as the backend gives them).
        control: the adapter control the calls were handled under (version 3; older traces:
            ``strict``).
        mitigations: the mitigations the episode ran under (:data:`toolprism.run.Mitigation`;
            version 5; older traces: ``[]``); the backend's own record of its decoding is in
            ``model`` (its ``constrain`` setting, where it has one).
        seed: the episode seed.
        tools: the tools shown, OpenAI format (JSON Schema fragments stay JSON).
        messages: the full conversation, OpenAI chat format.
        turns: per-turn records.
        actions: decoded native actions in execution order.
        end: why the episode stopped (see :data:`EpisodeEnd`).
        error: the cause when ``end`` is ``context_overflow`` or ``backend_error`` (the backend's
            message; version 4), else None.
        max_turns: the turn limit.
        final_state_hash: SHA-256 of the environment's state at the end (see ``state_hash``).
        duration_ms: wall time of the episode (excluded from determinism checks).
    """

    version: Literal[5] = TRACE_VERSION
    episode_id: str
    task: TaskRecord
    variant: str
    spec: str
    condition: str = ""
    perturbations: list[Instance] = []
    injections: list[Injection] = []
    model: dict[str, Any]
    control: Control = "strict"
    mitigations: list[Mitigation] = []
    seed: int
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    turns: list[TurnRecord]
    actions: list[ActionRecord]
    end: EpisodeEnd
    max_turns: int
    final_state_hash: str
    duration_ms: float = 0.0
    error: str | None = None

    @property
    def scored(self) -> bool:
        """Whether the episode is scored: its end is not one of :data:`UNSCORED_ENDS`."""
        return self.end not in UNSCORED_ENDS

    @property
    def calls(self) -> list[CallRecord]:
        """Every call of every turn, in order."""
        return [c for t in self.turns for c in t.calls]

    @property
    def failed_calls(self) -> int:
        """How many decoded calls the runtime refused (runtime perturbations)."""
        return sum(c.outcome == "failed" for c in self.calls)

    @property
    def rejected_calls(self) -> int:
        """How many calls the adapter rejected."""
        return sum(c.outcome == "rejected" for c in self.calls)

    @property
    def answer(self) -> str | None:
        """The final answer: the content of the last turn without a call, None if none."""
        return next((t.content for t in reversed(self.turns) if not t.calls), None)

    def deterministic_view(self) -> dict[str, Any]:
        """The trace without timings: equal for equal seeds, prompts and replies."""
        data = self.model_dump(mode="json", exclude={"duration_ms"})
        for turn in data["turns"]:
            turn.pop("latency_ms")
        return data

    @classmethod
    def load(cls, text: str | bytes) -> Trace:
        """Read a stored trace of any version in :data:`READABLE_VERSIONS` (upgrading older ones).

        Args:
            text: the trace's JSON, as :meth:`model_dump_json` wrote it (of this or an older version).

        Raises:
            ConfigError: not a JSON object; a version this toolprism does not read (``what`` is
                ``"trace version"`` and the message names the version); or records that do not
                match the version's shape (the first ten problems listed, never a pydantic traceback).
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise ConfigError(f"a trace is JSON text (str or bytes), not {type(text).__name__}", what="trace")
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ConfigError(f"not valid JSON ({e})", what="trace") from None
        if not isinstance(data, dict):
            raise ConfigError(f"a trace is a JSON object, not {type(data).__name__}", what="trace")
        version = data.get("version", 1)
        if not _is_int(version) or version not in READABLE_VERSIONS:
            newer = _is_int(version) and version > TRACE_VERSION
            raise ConfigError(
                f"trace version {version!r} is not supported (this toolprism reads versions "
                f"{', '.join(map(str, READABLE_VERSIONS))}; "
                f"{'a newer toolprism wrote it?' if newer else 'not a trace version'})",
                what="trace version",
            )
        if version != TRACE_VERSION:
            data = upgrade_trace(data)
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise ConfigError(validation_problems(e, root="trace"), what=f"trace (version {version})") from None


OVERFLOW_NOTE = re.compile(r"prompt of \d+ tokens exceeds n_ctx \d+")
"""The note the embedded backend gave (before version 4) on a turn whose prompt did not fit."""


def upgrade_trace(data: dict[str, Any]) -> dict[str, Any]:
    """An older trace (JSON) as the current version (:data:`TRACE_VERSION`), one version at a
    time. Version 1 → 2: the same shape, with the task fields version 1 could leave out filled as
    its readers defaulted them (``world_seed`` 0, ``kind`` ``single``, ``form`` ``easy``,
    ``reference`` empty). Version 2 → 3: ``control`` is ``strict`` (the only adapter control
    before version 3), and ``spec`` is carried to today's names of the constructions it built
    (:func:`toolprism.shaping.upgrade_spec`: ``merge(args=flat)`` was toolprism's ``shared``...).
    Version 3 → 4: an episode that ended ``no_output`` on a last turn that produced nothing with
    the embedded backend's overflow note (:data:`OVERFLOW_NOTE`) ends ``context_overflow``, that
    turn removed (it was no model turn: nothing ran) and its note the trace's ``error``; every
    other trace is unchanged. Version 4 → 5: ``mitigations`` is ``[]`` (none existed before
    version 5). Pure: ``data`` is not modified.

    Raises:
        ConfigError: ``data`` is not a trace of an older version (its ``version``, 1 when absent,
            is not 1, 2, 3 or 4).
    """
    version = data.get("version", 1)
    if not _is_int(version) or version not in READABLE_VERSIONS[:-1]:
        raise ConfigError(f"upgrade_trace reads versions 1, 2, 3 and 4, got version {version!r}", what="trace")
    if version == 1:
        task = data.get("task")
        if isinstance(task, dict):
            task = {"world_seed": 0, "kind": "single", "form": "easy", "reference": [], **task}
        data = {**data, "version": 2, "task": task}
    if version <= 2:
        spec = data.get("spec")
        upgraded = upgrade_spec(spec) if isinstance(spec, str) else spec
        data = {**data, "version": 3, "control": data.get("control", "strict"), "spec": upgraded}
    if version <= 3:
        data = {**data, "version": 4, **_overflowed(data)}
    return {**data, "version": 5, "mitigations": data.get("mitigations", [])}


def _overflowed(data: dict[str, Any]) -> dict[str, Any]:
    """The fields a version-3 ``no_output`` trace changes when its last turn was the embedded
    backend's context overflow (see :func:`upgrade_trace`); ``{}`` for any other trace."""
    turns, messages = data.get("turns"), data.get("messages")
    if data.get("end") != "no_output" or not isinstance(turns, list) or not turns or not isinstance(messages, list):
        return {}
    last = turns[-1]
    if not isinstance(last, dict) or str(last.get("raw", "")).strip() or last.get("calls"):
        return {}
    note = last.get("error")
    if not isinstance(note, str) or not OVERFLOW_NOTE.fullmatch(note):
        return {}
    prompt = last.get("prompt_messages")
    kept = messages[:prompt] if _is_int(prompt) and 0 <= prompt < len(messages) else messages
    return {"end": "context_overflow", "error": note, "turns": turns[:-1], "messages": kept}


def _is_int(value: object) -> bool:
    """A JSON integer: an int, not a bool (``true == 1``) nor a float (``1.0 == 1``)."""
    return type(value) is int
