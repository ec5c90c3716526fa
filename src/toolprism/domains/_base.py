"""The domain contract: typed state, native operations, policy text, tasks with gold actions.

A domain subclasses :class:`Domain`, declares a pydantic state model, and writes each native
operation as a plain function ``op(state, **arguments) -> dict`` decorated with
:func:`operation`. The JSON Schema the model sees and the argument validation both come from the
function signature (one source). Operations raise :class:`~toolprism.errors.DomainError` to
refuse; the environment then replies ``{"error": ...}`` and leaves the state unchanged.
"""

from __future__ import annotations

import hashlib
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from toolprism.domains._grammar import Span, find_spans
from toolprism.errors import ConfigError, DomainError, RejectedCall, RejectionKind, ToolprismError
from toolprism.schema import JSON, Action, ActionRecord, ActionSpace, Operation, Param, canonical_json

OperationFn = Callable[..., JSON]
TaskKind = Literal["single", "compound", "compositional"]
"""The Action-Space Shaping paper's task types: one call; several independent calls; calls that depend on earlier
results or on the state."""
Form = Literal["easy", "hard"]
"""A query's phrasing: direct and in gold order, or indirect, reordered and wrapped in chatter."""
TASK_KINDS: tuple[str, ...] = get_args(TaskKind)


@dataclass(frozen=True)
class OperationDef:
    """A native operation bound to its executor function."""

    spec: Operation
    fn: OperationFn


def operation(
    *, kind: Literal["read", "write"], group: str = "", description: str | None = None
) -> Callable[[OperationFn], OperationFn]:
    """Mark a function ``fn(state, **args) -> dict`` as a native operation.

    Parameter types come from the annotations (use ``Literal[...]`` for enumerated values and
    ``Annotated[T, Field(description=...)]`` for descriptions); the docstring's first paragraph
    is the tool description unless ``description`` is given.
    """

    def mark(fn: OperationFn) -> OperationFn:
        fn.__toolprism_operation__ = (kind, group, description)  # type: ignore[attr-defined]
        return fn

    return mark


def operation_kind(fn: OperationFn) -> Literal["read", "write"]:
    """Whether a function marked with :func:`operation` reads or writes."""
    return fn.__toolprism_operation__[0]  # type: ignore[attr-defined]


def _operation_spec(fn: OperationFn) -> Operation:
    kind, group, description = fn.__toolprism_operation__  # type: ignore[attr-defined]
    hints = typing.get_type_hints(fn, include_extras=True)
    params = []
    for name, p in list(inspect.signature(fn).parameters.items())[1:]:
        annotation = hints[name]
        schema = TypeAdapter(annotation).json_schema()
        schema.pop("title", None)
        text = schema.pop("description", "")
        for meta in getattr(annotation, "__metadata__", ()):
            if isinstance(meta, FieldInfo) and meta.description:
                text = meta.description
        if p.default is not inspect.Parameter.empty:
            schema["default"] = p.default
        params.append(Param(name, schema, p.default is inspect.Parameter.empty, text))
    doc = description or inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    return Operation(fn.__name__, doc, tuple(params), kind, group)


@dataclass(frozen=True)
class ReferenceStep:
    """One step of a task's reference trace: a gold native action and the reply it produced."""

    action: Action
    reply: JSON


@dataclass(frozen=True)
class Task:
    """A task: the user's query, the gold multiset of native actions, and a reference trace.

    Attributes:
        id: stable identifier, ``"<domain>/<template>/<index>"`` for the easy form and
            ``"<domain>/<template>/<index>/hard"`` for the hard form of the same draft.
        domain: domain name.
        query: what the user asks, in natural language.
        gold: the native actions a correct episode performs (compared as a multiset).
        reference: the gold actions executed in order on a fresh environment, with replies.
        world_seed: seed of the initial state the task is posed on.
        kind: ``single``, ``compound`` or ``compositional`` (see :data:`TaskKind`).
        form: ``easy`` or ``hard`` (see :data:`Form`).
        version: the generating domain's :attr:`Domain.version` (part of :attr:`content_hash`).
    """

    id: str
    domain: str
    query: str
    gold: tuple[Action, ...]
    reference: tuple[ReferenceStep, ...] = ()
    world_seed: int = 0
    kind: TaskKind = "single"
    form: Form = "easy"
    version: int = 1
    spans: tuple[Span, ...] = field(default=(), compare=False)
    """Where :attr:`query` states each gold value (derived from the query and gold as it is written,
    so not part of :meth:`to_json` nor of :attr:`content_hash`)."""
    facts: tuple[str, ...] = field(default=(), compare=False)
    """What a correct final answer states, where the source benchmark checks it (tau2-bench's
    ``communicate_info``); data of the source, kept by its domain (not part of :meth:`to_json` nor of
    :attr:`content_hash`; a stored task is read back without it)."""

    @property
    def content_hash(self) -> str:
        """The task's pin: :func:`task_hash` of :meth:`to_json` and :attr:`version`."""
        return task_hash(self.to_json(), self.version)

    def to_json(self) -> dict[str, JSON]:
        """A JSON-ready description (for traces and exports)."""
        return {
            "id": self.id,
            "domain": self.domain,
            "query": self.query,
            "world_seed": self.world_seed,
            "kind": self.kind,
            "form": self.form,
            "gold": [a.to_json() for a in self.gold],
            "reference": [{"action": s.action.to_json(), "reply": s.reply} for s in self.reference],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Task:
        """The inverse of :meth:`to_json`: ``Task.from_json(task.to_json()) == task``.

        The :attr:`spans` are found again in the query (as an imported pack's are, see
        :func:`~toolprism.domains._grammar.find_spans`): every place the query states a gold value
        in the value's own words.

        Args:
            data: ``{"id", "domain", "query", "gold": [{"op", "args"}], "reference": [{"action",
                "reply"}], "world_seed", "kind", "form"}``; ``reference``, ``world_seed``, ``kind``
                and ``form`` may be left out (defaults ``[]``, ``0``, ``single``, ``easy``); other
                keys (an export record's ``encodings``) are ignored.

        Raises:
            ConfigError: ``data`` is not an object, or does not have the shape of :class:`TaskRecord`
                (a required key missing, a value of the wrong type, a kind or form that is not one
                of :data:`TaskKind` / :data:`Form`; every problem listed).
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"a task is a JSON object, not {type(data).__name__}", what="task")
        known = {k: v for k, v in data.items() if k in TaskRecord.model_fields}
        try:
            record = TaskRecord.model_validate(
                {"world_seed": 0, "kind": "single", "form": "easy", "reference": [], **known}, strict=True
            )
        except ValidationError as e:
            raise ConfigError([_problem(error) for error in e.errors()], what="task") from None
        gold = tuple(a.to_action() for a in record.gold)
        return cls(
            id=record.id,
            domain=record.domain,
            query=record.query,
            gold=gold,
            reference=tuple(ReferenceStep(s.action.to_action(), s.reply) for s in record.reference),
            world_seed=record.world_seed,
            kind=record.kind,
            form=record.form,
            spans=find_spans(record.query, [(a.op, a.args) for a in record.gold]),
        )


def _problem(error: Any) -> str:
    """One pydantic error of a task record as a line (``task has no 'query'``, ``gold.0.args: ...``)."""
    where = ".".join(map(str, error["loc"]))
    if error["type"] == "missing" and len(error["loc"]) == 1:
        return f"task has no {where!r}"
    if where in ("kind", "form"):
        known = TASK_KINDS if where == "kind" else get_args(Form)
        return f"task {where} {error['input']!r} is not one of {', '.join(known)}"
    return f"task {where}: {error['msg'].lower()} (got {error['input']!r})"


class ReferenceStepRecord(BaseModel):
    """One step of a task's reference trace: ``{"action": {"op", "args"}, "reply": <JSON>}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: ActionRecord
    reply: Any = None


class TaskRecord(BaseModel):
    """A task as stored in a trace (the query as posed, before any perturbation).

    Attributes:
        id / domain / query / world_seed / kind / form: as :class:`Task` has them.
        gold: the gold native actions, in execution order.
        reference: the reference trace (gold actions with their replies on a fresh world).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    domain: str
    query: str
    world_seed: int
    kind: TaskKind
    form: Form
    gold: list[ActionRecord]
    reference: list[ReferenceStepRecord]

    @classmethod
    def of(cls, task: Task) -> TaskRecord:
        """The record of ``task``."""
        return cls.model_validate(task.to_json())

    def to_task(self) -> Task:
        """The :class:`Task` again (``TaskRecord.of(task).to_task() == task``)."""
        return Task.from_json(self.model_dump(mode="json"))


def task_hash(task: Mapping[str, JSON], version: int = 1) -> str:
    """The content hash that pins a task: 16 hex digits of the SHA-256 of the canonical JSON of
    its :meth:`Task.to_json` form (id, domain, query, gold, reference trace with replies, world
    seed, kind, form) and its domain's version.

    A stored run records these (see ``toolprism.run``), so a re-score, repair or resume can tell
    that the code now generates another task under the same id. ``task`` may be a trace's stored
    task JSON (runs made before the hashes were recorded: ``version`` 1).
    """
    content = canonical_json({"task": dict(task), "domain_version": version})
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def task_set_hash(tasks: Iterable[Task]) -> str:
    """16 hex digits of the SHA-256 of the tasks' ids and :attr:`Task.content_hash`, in order:
    one hash for a domain's whole task set at a seed (``toolprism domains --hashes``)."""
    lines = "\n".join(f"{t.id} {t.content_hash}" for t in tasks)
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class TaskDraft:
    """What a domain's task generator yields: a query in both forms and the gold, before replay.

    Build drafts with :func:`toolprism.domains._phrasing.draft` rather than by hand.

    Attributes:
        template: template name (part of the task id).
        query: the easy form.
        gold: ``(operation, arguments)`` pairs in execution order.
        kind: the task type.
        hard: the hard form of the same request (``None``: the draft has no hard form).
        spans / hard_spans: where the easy / hard query states each gold value.
    """

    template: str
    query: str
    gold: Sequence[tuple[str, dict[str, JSON]]]
    kind: TaskKind = "single"
    hard: str | None = None
    spans: tuple[Span, ...] = ()
    hard_spans: tuple[Span, ...] = ()


def _detached(value: JSON) -> JSON:
    """A copy of a JSON reply that shares no list or dict with the state it was read from."""
    if type(value) is dict:
        return {k: _detached(v) for k, v in value.items()}
    if type(value) is list:
        return [_detached(v) for v in value]
    if isinstance(value, dict | list | tuple | BaseModel):  # not plain JSON: copy it whole
        import copy

        return copy.deepcopy(value)
    return value


class Environment:
    """One episode's mutable world: the domain's state plus its executors.

    Deterministic: the same world seed and the same actions give the same replies and state hash.
    """

    def __init__(self, domain: Domain, state: BaseModel) -> None:
        self.domain = domain
        self.state = state
        self.log: list[Action] = []

    def execute(self, action: Action) -> JSON:
        """Run one native action; return its JSON reply.

        A :class:`DomainError` becomes ``{"error": message}`` and leaves the state unchanged
        (the operation runs on a copy that is kept only on success). Executed actions, refused
        or not, are appended to :attr:`log`.

        Raises:
            RejectedCall: UNKNOWN_TOOL or INVALID_ARGUMENTS (the native schema's every violation),
                before anything runs or is logged; the adapter checks calls the same way first.
        """
        definition = self.domain.definitions().get(action.op)
        if definition is None:
            raise RejectedCall(RejectionKind.UNKNOWN_TOOL, f"unknown operation '{action.op}' in {self.domain.name}")
        definition.spec.tool().validate(action.arguments)
        draft = self.state.model_copy(deep=True)
        self.log.append(action)
        try:
            reply = definition.fn(draft, **action.arguments)
        except DomainError as e:
            return {"error": str(e)}
        self.state = draft
        return reply

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON of the state (hex)."""
        return hashlib.sha256(canonical_json(self.state.model_dump(mode="json")).encode()).hexdigest()

    def close(self) -> None:
        """Release what the environment holds outside this process (a live tool server); a no-op here.
        The episode loop calls it when the episode ends."""


class Domain:
    """Base of every domain. Subclasses set :attr:`name`, :attr:`policy`, :attr:`operations`,
    and implement :meth:`initial_state` and :meth:`drafts`.
    """

    name: ClassVar[str]
    version: ClassVar[int] = 1
    """Bumped with any deliberate change to what the domain generates (tasks, replies); the task
    hashes pinned in tests/domains/pinned_task_sets.json must then be re-pinned."""
    policy: ClassVar[str]
    operations: ClassVar[Sequence[OperationFn]]
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Enumerated value → other words a query may use for it (``{"F": ("fahrenheit",)}``);
    read by the grounding check (:func:`toolprism.domains._phrasing.ungrounded`)."""
    reply_values: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Reply field → its legal values, for fields that are not (only) arguments (an order's
    ``status``); tool-output perturbations swap in another legal value (Xu et al.'s Ns arm)."""
    rereading_tools: ClassVar[tuple[str, ...]] = ()
    """The read operations that re-read the state a conversation is about (Xu et al.'s two
    "state-rereading tools", section II.B): the legal-action distribution's reread mass."""
    identifier_field: ClassVar[str | None] = None
    """The reply field Xu et al.'s ``Nm`` arm falsifies (section II.C): an identifier the context
    may already carry verbatim (None: any identifier field, chosen by seed)."""
    single_step: ClassVar[bool] = False
    """Whether every task is one call (ToolRobustBench's setting): perturbation levels that need two
    gold actions then adapt to one (see ``toolprism.perturb``)."""
    neighbours: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Operation → the operations a request for it is most easily confused with, nearest first
    (ToolRobustBench, appendix B.1: route computation vs travel time)."""
    default_tasks: ClassVar[int | None] = 2
    """Tasks a run takes from this domain when it is not told how many (None: all)."""
    default_variants: ClassVar[tuple[str, ...] | None] = None
    """Variants a run puts this domain under when it is not told which (None: the run's default)."""

    _definitions: ClassVar[dict[str, OperationDef]]
    _action_space: ClassVar[ActionSpace]

    @classmethod
    def definitions(cls) -> dict[str, OperationDef]:
        """Operation name → definition, built once per class from the decorated functions."""
        if "_definitions" not in cls.__dict__:
            cls._definitions = {fn.__name__: OperationDef(_operation_spec(fn), fn) for fn in cls.operations}
        return cls._definitions

    @classmethod
    def action_space(cls) -> ActionSpace:
        """The native action space (operations in declaration order); built and validated once per
        class (it is frozen), since scoring asks for it once per trace."""
        if "_action_space" not in cls.__dict__:
            cls._action_space = ActionSpace(cls.name, tuple(d.spec for d in cls.definitions().values()))
        return cls._action_space

    def initial_state(self, world_seed: int) -> BaseModel:
        """A fresh, deterministic state for ``world_seed``."""
        raise NotImplementedError

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """Every task this domain poses on the world of ``world_seed``, deterministically."""
        raise NotImplementedError

    def expected_result(self, task: Task) -> JSON | None:
        """The result a correct final answer states for ``task``, or None where the domain fixes
        none (the stateful domains: there success is the actions taken).

        ToolRobustBench, appendix B.1: a clean anchor executes its stored arguments before any
        perturbation to fix the expected result; observation or runtime perturbations may define
        another post-execution target (their instance's labels)."""
        return None

    def answer_field(self, op: str) -> str | None:
        """The field of ``op``'s return that answers the request (``distance_km``), or None where
        the domain names none (the stateful domains). A careful reader (the oracle) states that
        field's value as the result it read (ToolRobustBench, appendix B.1: the expected result)."""
        return None

    def assigned(self, task: Task, condition: str) -> bool:
        """Whether a run poses ``task`` under ``condition`` (``""`` clean, ``C2:medium``,
        ``A3:medium+C4:medium``); every task under every condition unless a domain assigns tasks
        to conditions (ToolRobustBench: 48 of 192 anchors per subtype and severity)."""
        return True

    def environment(self, world_seed: int = 0) -> Environment:
        """A fresh environment on the world of ``world_seed``."""
        return Environment(self, self.initial_state(world_seed))

    def offline_environment(self, world_seed: int = 0) -> Environment:
        """An environment that touches nothing outside this process: :meth:`environment` for every
        domain but one whose calls a live tool server executes (scoring replays gold actions here)."""
        return self.environment(world_seed)

    def tasks(self, seed: int = 0, limit: int | None = None) -> list[Task]:
        """The domain's tasks for ``seed``: drafts replayed into reference traces.

        Deterministic in ``seed``. Each gold action is executed in order on a fresh world; a gold
        action the domain refuses is a bug in the generator. Easy forms come first (in template
        order), then the hard forms in the same order; ``limit`` keeps the first ``limit``.

        Generated once per domain object and seed (planning, pinning and scoring ask again; tasks
        are immutable, and each call gets its own list).

        Raises:
            ConfigError: if a draft's gold action is invalid or refused by the domain.
        """
        made = self.__dict__.setdefault("_tasks_by_seed", {})
        if seed not in made:
            made[seed] = tuple(self._generate_tasks(seed))
        tasks = list(made[seed])
        return tasks[:limit] if limit is not None else tasks

    def _generate_tasks(self, seed: int) -> list[Task]:
        space = self.action_space()
        easy: list[Task] = []
        hard: list[Task] = []
        problems: list[str] = []
        counters: dict[str, int] = {}
        for draft in self.drafts(seed):
            index = counters.get(draft.template, 0)
            counters[draft.template] = index + 1
            task_id = f"{self.name}/{draft.template}/{index}"
            steps = self._replay_in_place(space, draft, seed)
            if steps is None:  # a gold action is invalid or refused: replay step by step, saying which
                steps = []
                env = self.offline_environment(seed)
                for op, args in draft.gold:
                    try:
                        action = space.action(op, args)
                    except ToolprismError as e:
                        problems.append(f"task {task_id}: gold action {op}({args}) is invalid: {e}")
                        break
                    reply = env.execute(action)
                    if isinstance(reply, dict) and "error" in reply:
                        problems.append(f"task {task_id}: gold action {action} refused: {reply['error']}")
                    steps.append(ReferenceStep(action, reply))
            gold, reference = tuple(s.action for s in steps), tuple(steps)
            common = dict(domain=self.name, gold=gold, reference=reference, world_seed=seed, kind=draft.kind)
            easy.append(
                Task(task_id, query=draft.query, form="easy", version=self.version, spans=draft.spans, **common)
            )
            if draft.hard is not None:
                hard_id, spans = f"{task_id}/hard", draft.hard_spans
                hard.append(Task(hard_id, query=draft.hard, form="hard", version=self.version, spans=spans, **common))
        if problems:
            raise ConfigError(problems, what=f"tasks of domain {self.name!r}")
        return easy + hard

    def _replay_in_place(self, space: ActionSpace, draft: TaskDraft, seed: int) -> list[ReferenceStep] | None:
        """The reference steps of ``draft``'s gold on a fresh world of ``seed``, the same as
        :meth:`Environment.execute` one action after another gives, without its copy of the state
        before each action (replaying every task was most of a run's startup).

        ``initial_state`` makes a fresh world (its contract), so each action changes it in place;
        each reply is detached from the state as it is made, so a later action cannot change it
        (as the per-action copies guaranteed). None when an action is invalid or refused (its
        operation may have changed the world before refusing): the caller then replays step by
        step, as an episode would, and reports it. ``tests/domains/test_pinned_tasks.py`` pins what
        this makes for every domain.
        """
        state = self.initial_state(seed)
        definitions = self.definitions()
        steps = []
        for op, args in draft.gold:
            try:
                action = space.action(op, args)
                definition = definitions[action.op]
                definition.spec.tool().validate(action.arguments)
                reply = definition.fn(state, **action.arguments)
            except (ToolprismError, KeyError):  # DomainError, RejectedCall, an unknown operation
                return None
            steps.append(ReferenceStep(action, _detached(reply)))
        return steps
