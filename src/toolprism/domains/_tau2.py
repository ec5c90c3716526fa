"""A tau2-bench domain (retail) as a toolprism domain: tau2's tools, tasks and database in one pack.

A **tau2 pack** (``"format": "toolprism.tau2/1"``, :class:`Tau2Pack`) holds what tau2-bench publishes
for a domain: the tool schemas (OpenAI format, as tau2's ``Tool.openai_schema`` writes them), the
tasks (``tasks.json``) and the database (``db.json``), with provenance. ``toolprism import tau2``
writes one (see :mod:`toolprism.interop`); :func:`toolprism.domains.get_domain` loads it wherever a
domain is expected, like any pack path.

The domain (:class:`Tau2Domain`) is stateful: its state is tau2's database
(:class:`~toolprism.domains._tau2_retail.RetailDB`), its native executors follow tau2's tools
(:mod:`toolprism.domains._tau2_retail`), and its environment's state hash is tau2's database hash,
so toolprism's final-state check (``final_state_match``: the final hash against the hash the gold
actions give when replayed in order on a fresh database) is tau2's DB check
(``EnvironmentEvaluator``). Every task starts from the same database (the world seed is ignored).

Tasks: tau2 poses each task through an LLM user simulator briefed with ``user_scenario``; toolprism
poses it as one user message, the brief itself (:func:`brief`). The gold is the task's
``evaluation_criteria.actions`` in order (reads included); a gold action that tau2's tools refuse
(15 retail tasks have one: look-ups of a wrong id, a write the policy forbids) stays in the gold and
in the reference trace with its error reply, as tau2 replays it (logged and skipped).
:attr:`Task.facts` (and :meth:`Tau2Domain.stated_facts`) is the task's ``communicate_info``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolprism.domains._base import Domain, Environment, OperationDef, ReferenceStep, Task
from toolprism.domains._grammar import find_spans
from toolprism.domains._tau2_retail import EXECUTORS, RetailDB
from toolprism.errors import ConfigError, DomainError, RejectedCall, RejectionKind, ToolprismError
from toolprism.schema import JSON, Action, ActionSpace, load_tools

TAU2_PACK_FORMAT = "toolprism.tau2/1"
"""The version tag of a tau2 pack."""

TAU2_POLICY = (
    "You are a customer service agent of an online retail store. Help the customer with their request using "
    "the tools below: authenticate them (user id by email, or by name and zip code), look up their orders, "
    "users and products, and make only the changes they ask for."
)
"""The system prompt when an import is given no policy file (tau2's own ``policy.md`` is not part of
the data toolprism reads; ``toolprism import tau2 --policy`` takes it)."""


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Tau2Action(_Loose):
    """One gold action of a tau2 task (``evaluation_criteria.actions[i]``)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    requestor: Literal["assistant", "user"] = "assistant"


class Tau2Criteria(_Loose):
    """A tau2 task's ``evaluation_criteria``: gold actions, facts to communicate, reward basis."""

    actions: list[Tau2Action] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[str] = Field(default_factory=lambda: ["DB", "COMMUNICATE"])


class Tau2Task(_Loose):
    """The parts of a tau2 task toolprism reads (tau2's ``Task``; other keys are kept in the pack)."""

    id: str
    user_scenario: dict[str, Any] = Field(default_factory=dict)
    initial_state: dict[str, Any] | None = None
    evaluation_criteria: Tau2Criteria | None = None


class Tau2Source(BaseModel):
    """Where a tau2 pack's content comes from: the repository, commit and each file's SHA-256."""

    model_config = ConfigDict(extra="forbid")

    dataset: str = "tau2-bench"
    repository: str = "https://github.com/sierra-research/tau2-bench"
    commit: str = ""
    files: dict[str, str] = Field(default_factory=dict)


class Tau2Pack(BaseModel):
    """A tau2-bench domain as data: the file format ``toolprism.tau2/1``.

    Attributes:
        format: always :data:`TAU2_PACK_FORMAT`.
        name: the toolprism domain name (``tau2_retail``); task ids start with it.
        tau2_domain: tau2's domain name (``retail``: the executors used).
        source / licence / attribution: provenance (tau2-bench is MIT-licensed).
        policy: the system prompt.
        tools: tau2's tool schemas, OpenAI format.
        tasks: tau2's tasks as published (``tasks.json``), in order.
        db: tau2's database as published (``db.json``).
    """

    model_config = ConfigDict(extra="forbid")

    format: Literal["toolprism.tau2/1"] = TAU2_PACK_FORMAT
    name: str = Field(pattern=r"^[A-Za-z0-9_]+$")
    tau2_domain: Literal["retail"] = "retail"
    source: Tau2Source = Field(default_factory=Tau2Source)
    licence: str = "MIT"
    attribution: str = "tau2-bench (Sierra Research), MIT licence"
    policy: str = TAU2_POLICY
    tools: list[dict[str, Any]]
    tasks: list[dict[str, Any]]
    db: dict[str, Any]

    def domain(self) -> Tau2Domain:
        """The pack as a runnable domain (see :class:`Tau2Domain` for what is checked)."""
        return Tau2Domain(self)

    def dumps(self) -> str:
        """The pack file's text (compact JSON, keys in model order, final newline; deterministic)."""
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")) + "\n"


def read_tau2_pack(data: Mapping[str, Any], where: str) -> Tau2Pack:
    """A tau2 pack from its parsed JSON.

    Raises:
        ConfigError: fields that do not fit :class:`Tau2Pack` (every problem with its JSON path).
    """
    try:
        return Tau2Pack.model_validate(data)
    except ValidationError as e:
        problems = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()]
        raise ConfigError(problems, what=where) from None


def brief(task: Tau2Task) -> str:
    """The user message that poses a tau2 task: the brief tau2 gives its simulated customer
    (``user_scenario.instructions``: reason for the call, what the customer knows and does not, how
    they behave; in the second person, as tau2 writes it), under one heading line."""
    instructions = task.user_scenario.get("instructions")
    if isinstance(instructions, Mapping):
        keys = ("reason_for_call", "known_info", "unknown_info", "task_instructions")
        parts = [str(instructions[k]).strip() for k in keys if instructions.get(k)]
    else:
        parts = [str(instructions or "").strip()]
    persona = task.user_scenario.get("persona")
    if persona:
        parts.append(str(persona).strip())
    body = "\n".join(p for p in parts if p)
    return f"Customer brief (tau2-bench task {task.id}; 'you' is the customer):\n{body}"


def _task_id(name: str, tau2_id: str) -> str:
    return f"{name}/task/{re.sub(r'[^A-Za-z0-9_.-]', '_', tau2_id)}"


class Tau2Environment(Environment):
    """One episode's tau2 database, copy-on-write over the domain's pristine one.

    A fresh environment shares every product, user and order with the pristine database; before a
    write runs, the order it names (``order_id``), that order's user and the user it names
    (``user_id``) are replaced by private copies: every object a retail write changes (an order, its
    user's gift cards, a user's address). Executors check before they write, so a refused call changes
    nothing, without the copy of the whole database :class:`Environment` makes per call (tau2's retail
    database is 2.8 MB). :meth:`state_hash` is tau2's database hash, assembled from the cached JSON
    text of every untouched entity and the fresh text of the copied ones (byte for byte the text
    :func:`~toolprism.domains._tau2_retail.tau2_hash` hashes; ``tests/interop`` checks both)."""

    def __init__(self, domain: Tau2Domain, state: RetailDB, texts: dict[str, dict[str, str]]) -> None:
        super().__init__(domain, state)
        self._texts = texts
        self._owned: dict[str, set[str]] = {"orders": set(), "users": set()}

    def execute(self, action: Action) -> JSON:
        """Run one native action on the database (see :meth:`Environment.execute`)."""
        definition = self.domain.definitions().get(action.op)
        if definition is None:
            raise RejectedCall(RejectionKind.UNKNOWN_TOOL, f"unknown operation '{action.op}' in {self.domain.name}")
        arguments = action.arguments
        definition.spec.tool().validate(arguments)
        self.log.append(action)
        if definition.spec.kind == "write":
            self._own(arguments)
        try:
            return definition.fn(self.state, **arguments)
        except DomainError as e:
            return {"error": str(e)}

    def _own(self, arguments: Mapping[str, JSON]) -> None:
        """Private copies of the order and users a write with these arguments may change."""
        db: RetailDB = self.state  # type: ignore[assignment]
        order_id, user_ids = arguments.get("order_id"), [arguments.get("user_id")]
        if isinstance(order_id, str) and order_id in db.orders:
            if order_id not in self._owned["orders"]:
                db.orders[order_id] = db.orders[order_id].model_copy(deep=True)
                self._owned["orders"].add(order_id)
            user_ids.append(db.orders[order_id].user_id)
        for user_id in user_ids:
            if isinstance(user_id, str) and user_id in db.users and user_id not in self._owned["users"]:
                db.users[user_id] = db.users[user_id].model_copy(deep=True)
                self._owned["users"].add(user_id)

    def state_hash(self) -> str:
        """tau2's database hash (:func:`~toolprism.domains._tau2_retail.tau2_hash`), hex."""
        db: RetailDB = self.state  # type: ignore[assignment]
        tables = {"orders": db.orders, "products": db.products, "users": db.users}
        parts = []
        for table in sorted(tables):
            owned = self._owned.get(table, set())
            entries = (
                f"{json.dumps(key)}: {_text(row) if key in owned else self._texts[table][key]}"
                for key, row in sorted(tables[table].items())
            )
            parts.append(f"{json.dumps(table)}: {{{', '.join(entries)}}}")
        return hashlib.sha256(f"{{{', '.join(parts)}}}".encode()).hexdigest()


def _text(model: BaseModel) -> str:
    """The JSON text tau2's hash writes for one entity (sorted keys, default separators)."""
    return json.dumps(model.model_dump(), sort_keys=True, default=str)


class Tau2Domain(Domain):
    """A tau2-bench domain from a :class:`Tau2Pack` (see the module doc).

    Like :class:`~toolprism.domains.CatalogDomain`, its name, policy and operations belong to the
    instance. Operations are the pack's tools that have an executor; their kinds come from the
    executors (tau2's READ and GENERIC tools are reads, its WRITE tools writes).

    Raises:
        ConfigError: every problem at once: a tool without an executor, a database that does not fit
            tau2's model, a malformed task, a gold action of an unknown tool or with arguments the
            tool's schema refuses, a task with an initial state (not supported).
    """

    default_tasks = None

    def __init__(self, pack: Tau2Pack) -> None:
        self.name = pack.name  # type: ignore[misc]  # instance-level on purpose (see class doc)
        self.policy = pack.policy  # type: ignore[misc]
        self.licence = pack.licence
        self.attribution = pack.attribution
        problems: list[str] = []
        self._space = _action_space(pack, problems)
        self._definitions_ = {op.name: OperationDef(op, EXECUTORS[op.name][1]) for op in self._space.operations}
        try:
            self._pristine = RetailDB.model_validate(pack.db)
        except ValidationError as e:
            problems += [f"db.{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:20]]
        self._tau2_tasks = _tasks(pack.tasks, problems)
        golds = {t.id: _gold(self._space, t, problems) for t in self._tau2_tasks}
        if problems:
            raise ConfigError(problems, what=f"tau2 pack {pack.name!r}")
        self._golds = golds
        self._db_json = self._pristine.model_dump_json()
        tables = {"orders": self._pristine.orders, "products": self._pristine.products, "users": self._pristine.users}
        self._texts = {name: {key: _text(row) for key, row in table.items()} for name, table in tables.items()}
        self._by_id = {_task_id(self.name, t.id): t for t in self._tau2_tasks}

    def definitions(self) -> dict[str, OperationDef]:  # type: ignore[override]
        """Operation name → definition (tau2's tools' executors)."""
        return self._definitions_

    def action_space(self) -> ActionSpace:  # type: ignore[override]
        """The native action space: the pack's tool schemas."""
        return self._space

    def initial_state(self, world_seed: int) -> RetailDB:
        """A fresh, independent copy of the pack's database (the same for every seed)."""
        return RetailDB.model_validate_json(self._db_json)

    def environment(self, world_seed: int = 0) -> Tau2Environment:
        """A fresh episode environment on the pack's database (copy-on-write, see
        :class:`Tau2Environment`; the same for every seed)."""
        db = self._pristine
        state = RetailDB.model_construct(products=db.products, users=dict(db.users), orders=dict(db.orders))
        return Tau2Environment(self, state, self._texts)

    def tau2_task(self, task_id: str) -> Tau2Task:
        """The tau2 task behind a toolprism task id (``tau2_retail/task/7``).

        Raises:
            ConfigError: no task of this domain has that id.
        """
        if task_id not in self._by_id:
            raise ConfigError(f"no task {task_id!r} in {self.name}", what="tau2 task")
        return self._by_id[task_id]

    def stated_facts(self, task_id: str) -> tuple[str, ...]:
        """The task's ``communicate_info`` (also :attr:`Task.facts`): what tau2's communicate check
        looks for in the agent's messages.

        Raises:
            ConfigError: no task of this domain has that id.
        """
        criteria = self.tau2_task(task_id).evaluation_criteria
        return tuple(criteria.communicate_info or ()) if criteria else ()

    def tasks(self, seed: int = 0, limit: int | None = None) -> list[Task]:
        """One task per tau2 task, in the file's order, identical for every seed (recorded as the
        world seed); ids ``<name>/task/<tau2 id>``. The reference trace replays the gold on a fresh
        database, refused actions with their error replies (tau2 replays them the same way)."""
        made = self.__dict__.setdefault("_tasks_by_seed", {})
        if seed not in made:
            made[seed] = tuple(self._task(t, seed) for t in self._tau2_tasks)
        tasks = list(made[seed])
        return tasks[:limit] if limit is not None else tasks

    def _task(self, tau2: Tau2Task, seed: int) -> Task:
        gold = self._golds[tau2.id]
        env = self.environment(seed)
        reference = tuple(ReferenceStep(a, env.execute(a)) for a in gold)
        query = brief(tau2)
        return Task(
            _task_id(self.name, tau2.id),
            domain=self.name,
            query=query,
            gold=gold,
            reference=reference,
            world_seed=seed,
            kind="single" if len(gold) <= 1 else "compositional",
            version=self.version,
            spans=find_spans(query, [(a.op, a.arguments) for a in gold]),
            facts=tuple(tau2.evaluation_criteria.communicate_info or ()) if tau2.evaluation_criteria else (),
        )


def _action_space(pack: Tau2Pack, problems: list[str]) -> ActionSpace:
    """The pack's tools as an action space, each marked read or write by its executor."""
    entries = []
    for i, tool in enumerate(pack.tools):
        function = tool.get("function") if isinstance(tool, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if name not in EXECUTORS:
            problems.append(
                f"tool #{i} {name!r}: no executor (tau2 {pack.tau2_domain} has: {', '.join(sorted(EXECUTORS))})"
            )
            continue
        kind = EXECUTORS[name][0]
        entries.append({**tool, "function": {**function, "annotations": {"readOnlyHint": kind == "read"}}})
    try:
        return load_tools(entries, name=pack.name, source="openai")
    except ConfigError as e:
        problems += list(e.problems)
        return ActionSpace(pack.name, ())


def _tasks(raw: list[dict[str, Any]], problems: list[str]) -> list[Tau2Task]:
    tasks, seen = [], set()
    for i, data in enumerate(raw):
        try:
            task = Tau2Task.model_validate(data)
        except ValidationError as e:
            problems += [f"task #{i}: {'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()]
            continue
        if task.id in seen:
            problems.append(f"task {task.id!r}: id is used more than once")
        seen.add(task.id)
        if task.initial_state and any(task.initial_state.get(k) for k in task.initial_state):
            problems.append(
                f"task {task.id!r}: an initial_state (initialization data, actions or history) is not supported"
            )
        tasks.append(task)
    if not tasks and not problems:
        problems.append("the pack has no tasks")
    return tasks


def _gold(space: ActionSpace, task: Tau2Task, problems: list[str]) -> tuple[Action, ...]:
    criteria = task.evaluation_criteria
    gold = []
    for i, action in enumerate((criteria.actions or []) if criteria else []):
        if action.requestor != "assistant":
            problems.append(f"task {task.id!r}: gold action {i} is the user's (user tools are not supported)")
            continue
        try:
            gold.append(space.action(action.name, action.arguments))
        except ToolprismError as e:
            problems.append(f"task {task.id!r}: gold action {i} {action.name}: {e}")
    return tuple(gold)


def file_digest(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes (a pack's provenance)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


__all__ = [
    "TAU2_PACK_FORMAT",
    "TAU2_POLICY",
    "Tau2Domain",
    "Tau2Environment",
    "Tau2Pack",
    "Tau2Source",
    "Tau2Task",
    "brief",
    "file_digest",
    "read_tau2_pack",
]
