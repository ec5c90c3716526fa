"""The episode loop: system prompt + user query → model ⇄ adapter ⇄ environment, until the model
answers without a tool call or the turn limit is hit. Async from the start; one episode per call.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from toolprism.backends import Backend, EpisodeContext, Message, ModelTurn, RawCall
from toolprism.domains import Domain, Environment, Task, TaskRecord
from toolprism.errors import BackendError, ContextOverflow, RejectedCall
from toolprism.perturb import RUNTIME_REPORT_INSTRUCTION, Instance, Perturber, asks_report
from toolprism.run._trace import CALL_RECORD, CallRecord, EpisodeEnd, Mitigation, Trace, TurnRecord
from toolprism.schema import JSON, ActionRecord, ToolCall, ToolCallRecord
from toolprism.shaping import (
    PAPER_INSTRUCTION,
    AdapterSession,
    Control,
    Decision,
    Variant,
    read_arguments,
    reply_text,
)

MAX_TURNS = 20
"""Model turns per episode: a 6-call task under `transaction` needs 19 (three calls per action, one answer)."""

SYSTEM_SUFFIX = (
    "Use the tools to do what the user asks. Call one tool at a time and read its result. "
    "When the request is complete, reply to the user without calling a tool."
)


def constrain_mode(mitigations: Iterable[str]) -> Literal["none", "first", "all"]:
    """The backend's ``constrain`` setting under ``mitigations``: ``"all"`` under ``constrain-all``,
    ``"first"`` under ``constrain-first``, else ``"none"`` (``instruction`` changes the prompt, not
    the decoding). The two together are refused earlier (:class:`toolprism.RunConfig`); here
    ``constrain-all`` wins."""
    chosen = set(mitigations)
    return "all" if "constrain-all" in chosen else "first" if "constrain-first" in chosen else "none"


UNREADABLE = "Your last reply could not be read as a tool call or an answer; please reply again"


@dataclass(frozen=True)
class EpisodeSpec:
    """What one episode runs: a task of a domain under a condition (a variant plus zero or more
    perturbation instances), with a seed, its calls handled under an adapter ``control``
    (``strict``, ``paper`` or ``loose``; see :data:`toolprism.shaping.Control`), and the calling
    ``instruction`` after the domain's policy (``toolprism``: :data:`SYSTEM_SUFFIX`; ``paper``: the
    Action-Space Shaping runner's, :data:`toolprism.shaping.PAPER_INSTRUCTION`), under the
    ``mitigations`` of the run (see :data:`Mitigation`; ``()`` none)."""

    domain: Domain
    task: Task
    variant: Variant
    seed: int
    perturbations: tuple[Instance, ...] = ()
    control: Control = "strict"
    instruction: Literal["toolprism", "paper"] = "toolprism"
    mitigations: tuple[Mitigation, ...] = ()

    @property
    def condition(self) -> str:
        """The perturbations as ``C2:medium`` or ``A3:medium+C4:medium``; ``""`` when clean."""
        return "+".join(i.key for i in self.perturbations)

    @property
    def episode_id(self) -> str:
        """``<task id>@<variant name>#<seed>``, with ``+<condition>`` after the variant when
        perturbed; unique within a run."""
        condition = f"+{self.condition}" if self.perturbations else ""
        return f"{self.task.id}@{self.variant.name}{condition}#{self.seed}"


def initial_messages(spec: EpisodeSpec, query: str | None = None) -> list[Message]:
    """The system prompt (domain policy + calling instruction) and the user query (``query``
    overrides the task's, e.g. a perturbed request).

    Under the ``instruction`` mitigation (:data:`Mitigation`) the calling instruction is followed,
    in the same paragraph, by the variant's calling-convention sentences
    (:meth:`toolprism.shaping.Variant.convention` of ``spec.variant``, the variant as planned,
    before any A-family perturbation rewrites its tools); a variant that has none (``native``,
    and operators with nothing to say, such as ``reorder``) gets nothing added, so its prompt is
    the unmitigated one.

    Under a C or D perturbation the system prompt ends with the runtime-report instruction
    (:data:`toolprism.perturb.RUNTIME_REPORT_INSTRUCTION`, ToolRobustBench section 5); clean and
    A/B-only conditions get the prompt unchanged."""
    suffix = PAPER_INSTRUCTION if spec.instruction == "paper" else SYSTEM_SUFFIX
    if "instruction" in spec.mitigations and (convention := spec.variant.convention()):
        suffix = f"{suffix} {convention}"
    system = f"{spec.domain.policy.strip()}\n\n{suffix}"
    if asks_report(spec.perturbations):
        system = f"{system}\n\n{RUNTIME_REPORT_INSTRUCTION}"
    return [{"role": "system", "content": system}, {"role": "user", "content": query or spec.task.query}]


async def run_episode(spec: EpisodeSpec, backend: Backend, *, max_turns: int = MAX_TURNS) -> Trace:
    """Run one episode to its end and return its trace.

    Deterministic given the spec and a deterministic backend: same seed, same prompts, same tool
    returns. Bad model calls never raise here; they are rejected, shown and recorded. Nor does a
    backend failure: a :class:`~toolprism.errors.ContextOverflow` ends the episode
    ``context_overflow`` and any other :class:`~toolprism.errors.BackendError` (after the
    backend's own retries, or raised by a live tool server's environment: a protocol or transport
    failure, not a tool's error reply) ``backend_error``, with its message in :attr:`Trace.error` and the
    turns before it kept (the failed request is no turn). Both are left out of every score (see
    :data:`toolprism.run.UNSCORED_ENDS`).
    """
    started = time.perf_counter()
    episode = EpisodeState.start(spec)
    end: EpisodeEnd = "turn_limit"
    error: str | None = None
    try:
        agent = backend.agent(EpisodeContext(spec.task, episode.variant, spec.seed, spec.perturbations))
    except BackendError as e:
        agent, (end, error) = None, _unscored(e)
    for _ in range(max_turns if agent is not None else 0):
        t0 = time.perf_counter()
        try:
            turn = readable(await agent.respond(list(episode.messages), episode.tools))
            ended = episode.take(turn, latency_ms=(time.perf_counter() - t0) * 1000)
        except BackendError as e:  # the model's server or a live tool server failed: recorded apart, never scored
            end, error = _unscored(e)
            break
        if ended:
            end = ended
            break
    duration_ms = (time.perf_counter() - started) * 1000
    trace = episode.trace(backend.settings(), end, max_turns=max_turns, duration_ms=duration_ms, error=error)
    episode.environment.close()
    return trace


@dataclass
class EpisodeState:
    """One episode in progress: the environment, the perturbations, the adapter session, the
    conversation so far and its records. :func:`run_episode` drives it with a backend; the RL
    environment (``toolprism.train.ToolEnv``) with the policy's actions, one :meth:`take` per
    model turn, so both run the same loop.

    Attributes:
        spec: what the episode runs.
        environment: the domain's environment on the task's world (its state hash says what ran).
        perturber: the spec's perturbations, applied to this episode (its ``injections``).
        variant: the interface shown, with family-A layers on top.
        session: the adapter session decoding the model's calls.
        tools: the tools shown (OpenAI format).
        messages: the conversation so far (OpenAI chat format), starting with the system prompt
            and the (perturbed) user query.
        turns: one record per model turn taken.
        actions: the native actions executed, in order.
    """

    spec: EpisodeSpec
    environment: Environment
    perturber: Perturber
    variant: Variant
    session: AdapterSession
    tools: list[JSON]
    messages: list[Message]
    turns: list[TurnRecord] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)

    @classmethod
    def start(cls, spec: EpisodeSpec) -> EpisodeState:
        """A fresh episode: a new environment on the task's world, the perturbations planned in
        ``spec`` applied to the tools, query and runtime, and the first two messages."""
        env = spec.domain.environment(spec.task.world_seed)
        perturber = Perturber(spec.task, spec.perturbations, spec.seed)
        variant = perturber.variant(spec.variant)
        session = AdapterSession(variant, perturber.execute(env) if spec.perturbations else env.execute, spec.control)
        messages = initial_messages(spec, perturber.query(spec.task.query))
        return cls(spec, env, perturber, variant, session, variant.openai_tools, messages)

    def take(self, turn: ModelTurn, *, latency_ms: float = 0.0) -> EpisodeEnd | None:
        """Record one model turn and answer it: each call is decoded by the adapter and executed,
        answered or rejected (never raises for a bad call), its reply appended as a ``tool``
        message; unreadable output gets a ``user`` message saying so.

        Returns:
            ``answered`` (a turn without calls) or ``no_output`` (nothing generated) when the
            turn ends the episode, else None.

        Raises:
            BackendError: a live tool server (an MCP environment) failed to answer a call: a
                protocol or transport failure, not a tool's error reply (the episode then ends
                ``backend_error``, see :func:`run_episode`).
        """
        record = TurnRecord(
            index=len(self.turns),
            prompt_messages=len(self.messages),
            raw=turn.raw,
            content=turn.content,
            error=turn.error,
            latency_ms=latency_ms,
            prompt_tokens=turn.prompt_tokens,
            completion_tokens=turn.completion_tokens,
        )
        self.turns.append(record)
        self.messages.append(_assistant_message(turn))
        if turn.error is not None and not turn.calls:
            if not turn.raw.strip():  # nothing generated (e.g. the prompt no longer fits the context)
                return "no_output"
            # output the backend could not read: shown to the model, recorded, and the episode goes on
            self.messages.append({"role": "user", "content": f"{UNREADABLE} ({turn.error})"})
            return None
        if not turn.calls:
            return "answered"
        for raw in turn.calls:
            call_record = _handle(self.session, raw)
            record.calls.append(call_record)
            if call_record.outcome == "executed":
                self.actions.append(call_record.action)
            self.messages.append({"role": "tool", "tool_call_id": raw.id, "content": _content(call_record)})
        return None

    def trace(
        self,
        model: dict[str, JSON],
        end: EpisodeEnd,
        *,
        max_turns: int,
        duration_ms: float,
        error: str | None = None,
    ) -> Trace:
        """The episode's trace so far, ended by ``end`` (``model``: the backend's settings)."""
        spec = self.spec
        return Trace(
            episode_id=spec.episode_id,
            task=TaskRecord.of(spec.task),
            variant=spec.variant.name,
            spec=spec.variant.spec,
            condition=spec.condition,
            perturbations=list(spec.perturbations),
            injections=list(self.perturber.injections),
            model=model,
            control=spec.control,
            mitigations=list(spec.mitigations),
            seed=spec.seed,
            tools=self.tools,
            messages=self.messages,
            turns=self.turns,
            actions=self.actions,
            end=end,
            max_turns=max_turns,
            final_state_hash=self.environment.state_hash(),
            duration_ms=duration_ms,
            error=error,
        )


def readable(turn: ModelTurn) -> ModelTurn:
    """``turn`` with every lone UTF-16 surrogate in its text replaced by U+FFFD (a backend may hand
    over text no UTF-8 trace could store; valid text is returned unchanged, as the same object)."""
    texts = (turn.raw, turn.content, turn.error, *(t for c in turn.calls for t in (c.id, c.name, c.arguments)))
    if all(_encodes(t) for t in texts):
        return turn
    calls = tuple(RawCall(_repair(c.id), _repair(c.name), _repair(c.arguments)) for c in turn.calls)
    return replace(turn, raw=_repair(turn.raw), content=_repair(turn.content), error=_repair(turn.error), calls=calls)


def _encodes(text: str | None) -> bool:
    if text is None:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _repair(text: str | None) -> str | None:
    return None if text is None else text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _unscored(error: BackendError) -> tuple[EpisodeEnd, str]:
    """The end and the recorded cause of an episode the backend failed."""
    end: EpisodeEnd = "context_overflow" if isinstance(error, ContextOverflow) else "backend_error"
    return end, str(error) or type(error).__name__


def _assistant_message(turn: ModelTurn) -> Message:
    message: Message = {"role": "assistant", "content": turn.content}
    if turn.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in turn.calls
        ]
    return message


def _handle(session: AdapterSession, raw: RawCall) -> CallRecord:
    try:
        arguments = read_arguments(raw.arguments) if raw.arguments.strip() else {}
    except RejectedCall as e:
        decision = session.reject_malformed(raw.name, e.reason)
        return _record(raw, None, decision)
    if arguments is None:  # ``null`` arguments, as some servers send for a parameterless tool
        arguments = {}
    if not isinstance(arguments, dict):
        decision = session.reject_malformed(raw.name, "arguments must be a JSON object")
        return _record(raw, arguments, decision)
    return _record(raw, arguments, session.handle(ToolCall(raw.name, arguments, raw.id)))


def _record(raw: RawCall, arguments: object, decision: Decision) -> CallRecord:
    return CALL_RECORD.validate_python(
        {
            "id": raw.id,
            "name": raw.name,
            "raw_arguments": raw.arguments,
            "arguments": arguments,
            "outcome": decision.outcome,
            "rejection": decision.rejection,
            "path": [ToolCallRecord.of(c) for c in decision.path],
            "action": ActionRecord.of(decision.action) if decision.action else None,
            "reply": decision.reply,
            "layer": decision.layer,
        }
    )


def _content(record: CallRecord) -> str:
    return reply_text(record.reply)
