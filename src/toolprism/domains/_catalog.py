"""Domains built from data: a tool catalog, a policy and tasks, with an action-log environment.

A :class:`CatalogDomain` needs no simulator. Its state is the log of the write actions executed so
far (so the state hash changes on every write), and every call is answered with an
acknowledgement, ``{"status": "ok", "tool": name, "arguments": {...}}`` (arguments normalised by
the action space: defaults filled in). Arguments are validated by the :class:`ActionSpace` as for
any domain. Tasks are data too: the same for every world seed (the seed is only recorded).

A **domain pack** is the file form of such a domain: one JSON document (``"format":
"toolprism.domain/1"``, see :class:`DomainPack`) with a name, its source, licence and attribution,
the policy text, the tools and the tasks. ``toolprism import`` writes packs, and
:func:`toolprism.domains.get_domain` accepts a pack's path wherever a domain name is expected.

A pack may name a **live tool server** (:class:`PackServer`, today an MCP server over stdio): its
episodes' native calls are then executed by that server instead of being acknowledged (see
:meth:`CatalogDomain.environment`); the state is still the log of the writes, and the tasks'
reference replies are still the action log's (scoring replays gold offline, never on the server).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import importlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolprism.domains._base import Domain, Environment, OperationDef, OperationFn, Task, TaskDraft, TaskKind
from toolprism.domains._grammar import find_spans
from toolprism.domains._tau2 import TAU2_PACK_FORMAT, Tau2Domain, read_tau2_pack
from toolprism.errors import ConfigError, ToolprismError
from toolprism.schema import JSON, Action, ActionSpace, Operation, load_catalog, load_tools

PACK_FORMAT = "toolprism.domain/1"
"""The version tag every domain pack carries; a reader refuses any other."""

READ_PREFIXES = ("get_", "list_", "search_", "find_", "check_", "query_")
"""Catalogs with no read/write tags (ToolSchemaSpace has none): a tool whose name starts with one of
these is a read, every other tool a write (see :func:`kind_from_name`)."""

DOMAIN_NAME = re.compile(r"[A-Za-z0-9_]+")
"""A domain name: what pack names and task ids are made of."""
TASK_ID = re.compile(r"^[A-Za-z0-9_.-]+/[0-9]+$")
"""A pack task id: ``<template>/<index>``; the toolprism task id is ``<domain>/<template>/<index>``."""


def kind_from_name(name: str) -> Literal["read", "write"]:
    """``"read"`` for names starting with one of :data:`READ_PREFIXES`, else ``"write"``.

    Case-insensitive: ``get_status`` and ``Get_Status`` are reads, ``set_light`` a write.
    """
    return "read" if name.lower().startswith(READ_PREFIXES) else "write"


# ---------------------------------------------------------------------------------------------
# the pack file


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PackTool(_Closed):
    """One native tool of a pack.

    Attributes:
        name: tool name (``[A-Za-z0-9_-]{1,64}``).
        description: shown to the model.
        group: the operation class (used by ``merge(by=class)`` and namespaced renames).
        kind: ``read`` (recorded nowhere) or ``write`` (appended to the action log).
        parameters: JSON Schema of type ``object`` of the arguments.
    """

    name: str
    description: str = ""
    group: str = ""
    kind: Literal["read", "write"]
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    @classmethod
    def from_operation(cls, op: Operation) -> PackTool:
        """The pack form of a native operation (parameter descriptions kept in the schema)."""
        return cls(
            name=op.name, description=op.description, group=op.group, kind=op.kind, parameters=op.parameters_schema()
        )


class PackCall(_Closed):
    """A native call: tool name and JSON arguments."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class PackTask(_Closed):
    """One task of a pack: both phrasings and the gold calls.

    Attributes:
        id: ``<template>/<index>`` (see :data:`TASK_ID`), unique within the pack.
        kind: ``single``, ``compound`` or ``compositional``.
        easy: the easy form of the request (direct wording).
        hard: the hard form (indirect, reordered, chatter); None when the source has none.
        gold: the native calls a correct episode makes, in execution order; empty for a request
            no tool serves (BFCL's irrelevance: answering without a call is the success).
        source_id: the task's id in the source dataset (provenance only).
        replies: scripted replies, one per gold call: what the tool returns when it is called
            with exactly that call's (normalised) arguments, in any task of the domain; None: every
            call is acknowledged (see the module doc).
    """

    id: str
    kind: TaskKind
    easy: str
    hard: str | None = None
    gold: list[PackCall]
    source_id: str = ""
    replies: list[Any] | None = None


class PackSource(_Closed):
    """Where a pack's content comes from.

    Attributes:
        dataset: the dataset or benchmark, in words.
        repository: where it is published.
        files: source file name → SHA-256 (hex) of the bytes that were read.
    """

    dataset: str
    repository: str = ""
    files: dict[str, str] = Field(default_factory=dict)


LIVE_SERVERS: dict[str, tuple[str, str]] = {"mcp": ("toolprism.interop", "live_environment")}
"""Server kind -> (module, function) that makes a live environment,
``fn(domain, server, world_seed) -> Environment``. Named, not imported: the live clients sit above
``domains`` (in ``interop``, with their SDKs) and are loaded only when a live pack runs."""


class PackServer(_Closed):
    """The live tool server that executes a pack's native calls (see the module doc).

    Attributes:
        kind: ``mcp``: an MCP server over stdio (``toolprism run --mcp``).
        command: the server's command line, as words.
        cwd: its working directory (relative paths in ``command`` resolve there); None: the
            directory the run is started from.
        scope: ``episode`` (default): one server process per episode, started at the episode's
            first call and stopped at its end (the server's own in-process state never leaks between
            episodes); ``run``: one process per run (per worker process), started at the first call
            and stopped when the process exits, for servers without state (saves a start per
            episode). State a server keeps outside, in files or databases, is not reset by toolprism.
    """

    kind: Literal["mcp"] = "mcp"
    command: list[str] = Field(min_length=1)
    cwd: str | None = None
    scope: Literal["episode", "run"] = "episode"


class DomainPack(_Closed):
    """A domain as data: the file format ``toolprism.domain/1`` (one JSON document per domain).

    Attributes:
        format: always :data:`PACK_FORMAT`.
        name: the domain name (``[A-Za-z0-9_]+``); task ids start with it.
        source: provenance of the content.
        licence: the licence of the content (e.g. ``CC-BY-4.0``).
        attribution: the credit line the licence asks for.
        policy: the system prompt text of the domain.
        tools: the native tools.
        tasks: the tasks, in the order they are posed.
        server: the live tool server that executes the calls; None (default): the action log
            acknowledges them.
    """

    format: Literal["toolprism.domain/1"] = PACK_FORMAT
    name: str = Field(pattern=r"^[A-Za-z0-9_]+$")
    source: PackSource
    licence: str
    attribution: str = ""
    policy: str
    tools: list[PackTool]
    tasks: list[PackTask]
    server: PackServer | None = None

    def action_space(self) -> ActionSpace:
        """The native action space of the pack's tools (schemas normalised as catalogs are).

        Raises:
            ConfigError: every malformed tool and parameter.
        """
        entries = [
            {**t.model_dump(exclude={"kind"}), "annotations": {"readOnlyHint": t.kind == "read"}} for t in self.tools
        ]
        return load_tools(entries, name=self.name, source="toolschemaspace")

    def domain(self) -> CatalogDomain:
        """The pack as a runnable domain.

        Raises:
            ConfigError: malformed tools, or gold calls the tools refuse (every problem listed).
        """
        return CatalogDomain(
            self.action_space(),
            self.policy,
            self.tasks,
            licence=self.licence,
            attribution=self.attribution,
            server=self.server,
        )

    def dumps(self) -> str:
        """The pack file's text: indented JSON, keys in model order, UTF-8 kept, final newline.

        Deterministic: equal packs give byte-identical text."""
        data = self.model_dump(mode="json")
        if self.server is None:  # packs without a live server read and write as before it existed
            del data["server"]
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def is_pack_path(name: str) -> bool:
    """Whether a domain argument names a pack file rather than a built-in domain: it ends in
    ``.json`` or contains a path separator (built-in names are identifiers)."""
    return name.endswith(".json") or "/" in name or os.sep in name


def _pack_json(path: Path) -> Any:
    """The parsed JSON of a pack file (``ConfigError`` for a directory, an unreadable file, not JSON)."""
    what = f"domain pack {path}"
    if path.is_dir():
        raise ConfigError(f"{path} is a directory; pass one pack file (*.json)", what=what)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}", what=what) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not JSON: {e}", what=what) from None


def read_pack(path: str | Path) -> DomainPack:
    """Read and check a domain pack file (the model only; see :func:`load_pack` for the domain).

    Raises:
        ConfigError: unreadable file, not JSON, wrong ``format``, or fields that do not fit
            :class:`DomainPack` (every problem listed with its JSON path).
    """
    path = Path(path)
    return _domain_pack(_pack_json(path), f"domain pack {path}")


def _domain_pack(data: Any, what: str) -> DomainPack:
    if not isinstance(data, dict) or data.get("format") != PACK_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f'expected "format": {PACK_FORMAT!r} or {TAU2_PACK_FORMAT!r}, found {found!r}', what=what)
    try:
        return DomainPack.model_validate(data)
    except ValidationError as e:
        problems = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()]
        raise ConfigError(problems, what=what) from None


def load_pack(path: str | Path) -> Domain:
    """The domain a pack file describes: a :class:`CatalogDomain` for a ``toolprism.domain/1`` pack,
    a :class:`~toolprism.domains._tau2.Tau2Domain` for a ``toolprism.tau2/1`` pack (loaded once per
    process while the file is unchanged: its database and task replay take a few seconds).

    Raises:
        ConfigError: see :func:`read_pack`, :meth:`DomainPack.domain` and :class:`Tau2Domain`.
    """
    path = Path(path)
    key = (str(path.resolve()), *_stamp(path))
    if key in _TAU2_LOADED:
        return _TAU2_LOADED[key]
    data = _pack_json(path)
    if isinstance(data, dict) and data.get("format") == TAU2_PACK_FORMAT:
        _TAU2_LOADED[key] = read_tau2_pack(data, f"tau2 pack {path}").domain()
        return _TAU2_LOADED[key]
    return _domain_pack(data, f"domain pack {path}").domain()


_TAU2_LOADED: dict[tuple[str, int, int], Tau2Domain] = {}
"""Loaded tau2 packs by (resolved path, modification time in ns, size in bytes)."""


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (0, 0)  # reported by _pack_json
    return (stat.st_mtime_ns, stat.st_size)


# ---------------------------------------------------------------------------------------------
# the domain


class LoggedAction(_Closed):
    """One executed write: the tool and its normalised arguments."""

    tool: str
    arguments: dict[str, Any]


class ActionLog(_Closed):
    """The whole state of a catalog domain: the writes executed so far, in order."""

    actions: list[LoggedAction] = Field(default_factory=list)


def _acknowledge(op: Operation, replies: Mapping[Action, JSON]) -> OperationFn:
    """The executor of ``op``: log it if it writes; reply with the scripted reply of that exact
    call when the tasks give one, else with an acknowledgement."""

    def execute(log: ActionLog, /, **arguments: JSON) -> JSON:  # positional: a tool may have a "log" argument
        if op.kind == "write":
            log.actions.append(LoggedAction(tool=op.name, arguments=copy.deepcopy(arguments)))
        scripted = replies.get(Action.of(op.name, arguments), _UNSCRIPTED)
        if scripted is not _UNSCRIPTED:
            return copy.deepcopy(scripted)
        return {"status": "ok", "tool": op.name, "arguments": copy.deepcopy(arguments)}

    execute.__name__ = op.name
    return execute


class CatalogDomain(Domain):
    """A domain built from an action space, a policy text and a list of tasks (see module doc).

    Unlike built-in domains, its name, policy and operations belong to the instance: two packs
    are two instances of this one class. Not registered in :data:`toolprism.domains.DOMAINS`.

    Args:
        space: the native action space; its name is the domain name.
        policy: the system prompt text.
        tasks: the tasks in order; task ids must match :data:`TASK_ID` and be unique.
        licence / attribution: of the content, carried into exports.
        server: a live tool server that executes the episodes' calls (see :meth:`environment`).

    Raises:
        ConfigError: every bad task id and every gold call the space refuses (unknown tool,
            invalid arguments), listed together.
    """

    def __init__(
        self,
        space: ActionSpace,
        policy: str,
        tasks: Sequence[PackTask],
        *,
        licence: str = "",
        attribution: str = "",
        server: PackServer | None = None,
    ) -> None:
        self.name = space.name  # type: ignore[misc]  # instance-level on purpose (see class doc)
        self.policy = policy  # type: ignore[misc]
        self.licence = licence
        self.attribution = attribution
        self.server = server
        self._space = space
        self._tasks = list(tasks)
        problems = _task_problems(space, self._tasks)
        replies = _scripted_replies(space, self._tasks, problems)
        self._definitions_ = {op.name: OperationDef(op, _acknowledge(op, replies)) for op in space.operations}
        if problems:
            raise ConfigError(problems, what=f"tasks of domain {space.name!r}")
        self._drafts = tuple(_draft(t) for t in self._tasks)

    def definitions(self) -> dict[str, OperationDef]:  # type: ignore[override]
        """Operation name → definition (acknowledging executors)."""
        return self._definitions_

    def action_space(self) -> ActionSpace:  # type: ignore[override]
        """The native action space given at construction."""
        return self._space

    def initial_state(self, world_seed: int) -> ActionLog:
        """An empty action log (the same for every seed)."""
        return ActionLog()

    def environment(self, world_seed: int = 0) -> Environment:
        """A fresh environment: the action log, or, for a pack with a :class:`PackServer`, a live
        environment whose calls that server executes (made by the function :data:`LIVE_SERVERS`
        names; the server process starts at the first call)."""
        if self.server is None:
            return super().environment(world_seed)
        module, function = LIVE_SERVERS[self.server.kind]
        return getattr(importlib.import_module(module), function)(self, self.server, world_seed)

    def offline_environment(self, world_seed: int = 0) -> Environment:
        """The action-log environment, even for a pack with a live server (scoring replays gold here)."""
        return super().environment(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The tasks as drafts, in order (the same for every seed)."""
        return list(self._drafts)

    def tasks(self, seed: int = 0, limit: int | None = None) -> list[Task]:
        """The tasks, identical for every ``seed`` (recorded as the world seed), ids from the data.

        Ids are ``<domain>/<pack task id>`` for easy forms and ``.../hard`` for hard forms; easy
        forms come first, then the hard ones, as for every domain.
        """
        tasks = super().tasks(seed)
        ids = [f"{self.name}/{t.id}" for t in self._tasks]
        ids += [f"{self.name}/{t.id}/hard" for t in self._tasks if t.hard is not None]
        relabelled = [dataclasses.replace(task, id=task_id) for task, task_id in zip(tasks, ids, strict=True)]
        return relabelled[:limit] if limit is not None else relabelled


def _draft(task: PackTask) -> TaskDraft:
    """``task`` as a draft, with the spans of its gold values found in its queries (once, at load)."""
    gold = [(c.name, c.arguments) for c in task.gold]
    spans = find_spans(task.easy, gold)
    hard_spans = find_spans(task.hard, gold) if task.hard is not None else ()
    return TaskDraft(task.id.split("/")[0], task.easy, gold, task.kind, task.hard, spans, hard_spans)


def _task_problems(space: ActionSpace, tasks: Sequence[PackTask]) -> list[str]:
    problems: list[str] = [] if tasks else ["the pack has no tasks"]
    seen: set[str] = set()
    for task in tasks:
        if not TASK_ID.match(task.id):
            problems.append(f"task {task.id!r}: id must be <template>/<index> (e.g. 'set_light/0')")
        if task.id in seen:
            problems.append(f"task {task.id!r}: id is used more than once")
        seen.add(task.id)
        if task.replies is not None and len(task.replies) != len(task.gold):
            problems.append(
                f"task {task.id!r}: {len(task.replies)} replies for {len(task.gold)} gold calls (one reply per call)"
            )
        for i, call in enumerate(task.gold):
            try:
                space.action(call.name, call.arguments)
            except ToolprismError as e:
                problems.append(f"task {task.id!r}: gold call {i} {call.name}: {e}")
    return problems


_UNSCRIPTED = object()


def _scripted_replies(space: ActionSpace, tasks: Sequence[PackTask], problems: list[str]) -> dict[Action, JSON]:
    """Call -> scripted reply over every task's ``replies`` (appending to ``problems`` each call that
    two tasks script differently: the environment answers a call the same way in every task)."""
    table: dict[Action, JSON] = {}
    where: dict[Action, str] = {}
    for task in tasks:
        for call, reply in zip(task.gold, task.replies or (), strict=False):
            try:
                action = space.action(call.name, call.arguments)
            except ToolprismError:
                continue  # reported by _task_problems
            if reply is None:
                continue  # acknowledged
            if action in table and table[action] != reply:
                problems.append(
                    f"task {task.id!r}: call {call.name} {json.dumps(call.arguments, sort_keys=True)} is scripted "
                    f"with another reply by task {where[action]!r} (a call has one reply in every task)"
                )
                continue
            table[action], where[action] = reply, task.id
    return table


# ---------------------------------------------------------------------------------------------
# a user's catalog and task file


DEFAULT_POLICY = (
    "You are an assistant with access to the tools below. Use them to do what the user asks, "
    "exactly as their schemas say."
)
"""The system prompt of a domain made from a catalog and a task file when none is given."""


class TaskLine(_Closed):
    """One line of a task file (JSON Lines), the format ``toolprism run --catalog --tasks`` reads.

    Attributes:
        query: the user request.
        gold: the native calls (``{"name", "arguments"}``, names as the catalog gives them) a correct
            episode makes, in order; scored as a multiset.
        id: ``<template>/<index>`` (default ``task/<line number>``, from 0).
        kind: ``single``, ``compound`` or ``compositional`` (default: ``single`` for one gold call,
            else ``compound``).
        hard: an indirect phrasing of the same request (its own task, ``.../hard``).
        replies: one scripted reply per gold call (a JSON object, or null for the acknowledgement),
            returned when the model makes that call; calls without one are acknowledged
            (``{"status": "ok", "tool", "arguments"}``). A reply with an ``error`` key is a tool's
            refusal.
    """

    query: str = Field(min_length=1)
    gold: list[PackCall]
    id: str | None = None
    kind: TaskKind | None = None
    hard: str | None = Field(default=None, min_length=1)
    replies: list[dict[str, Any] | None] | None = None

    def task(self, index: int) -> PackTask:
        """The pack task of line ``index`` (0-based)."""
        kind = self.kind or ("single" if len(self.gold) == 1 else "compound")
        return PackTask(
            id=self.id or f"task/{index}",
            kind=kind,
            easy=self.query,
            hard=self.hard,
            gold=self.gold,
            replies=self.replies,
        )


def read_task_file(path: str | Path) -> list[PackTask]:
    """Read a task file: JSON Lines of :class:`TaskLine` (blank lines skipped).

    Raises:
        ConfigError: unreadable file, no task, or lines that are not JSON or do not fit
            :class:`TaskLine` (every problem listed with its line number).
    """
    path = Path(path)
    what = f"task file {path}"
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()  # a byte-order mark is no JSON
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}", what=what) from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not UTF-8 text: {e}", what=what) from None
    tasks: list[PackTask] = []
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            tasks.append(TaskLine.model_validate_json(line).task(len(tasks)))
        except ValidationError as e:
            for err in e.errors():
                where = ".".join(str(p) for p in err["loc"])
                problems.append(f"line {number}: {where + ': ' if where else ''}{err['msg']}")
    if not tasks and not problems:
        problems.append("no task (one JSON object per line: query, gold)")
    if problems:
        raise ConfigError(problems, what=what)
    return tasks


def catalog_pack(
    catalog: str | Path, tasks: str | Path, *, name: str | None = None, policy: str = DEFAULT_POLICY
) -> DomainPack:
    """A domain pack from a user's tool catalog and task file, checked as a run reads it.

    Args:
        catalog: any catalog :func:`toolprism.schema.load_catalog` reads (OpenAI ``tools``, MCP
            ``tools/list``, BFCL function docs, ToolSchemaSpace ``tools.json``). A tool is a read
            when the catalog says so (MCP ``readOnlyHint``) or its name starts with a read prefix
            (:data:`READ_PREFIXES`), else a write.
        tasks: a task file (:func:`read_task_file`).
        name: the domain name (``[A-Za-z0-9_]+``; default: the catalog file's name up to its first
            dot, every other character made ``_``).
        policy: the system prompt text.

    Raises:
        ConfigError: the catalog's or the task file's problems, or gold calls the catalog refuses
            (every problem listed).
    """
    if name is not None and not DOMAIN_NAME.fullmatch(name):
        raise ConfigError(f"--name {name!r}: a domain name is letters, digits and _ only", what="catalog")
    if name is None:  # the file's name up to its first dot, made a domain name
        name = re.sub(r"[^A-Za-z0-9_]", "_", Path(catalog).name.split(".")[0]) or "catalog"
    space = load_catalog(catalog, name=name)
    files = {Path(p).name: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in (catalog, tasks)}
    pack = DomainPack(
        name=space.name,
        source=PackSource(dataset="a user's catalog and task file", files=files),
        licence="unspecified",
        policy=policy,
        tools=[_user_tool(op) for op in space.operations],
        tasks=read_task_file(tasks),
    )
    pack.domain()  # every problem now, before anything runs
    return pack


def _user_tool(op: Operation) -> PackTool:
    """``op`` as a pack tool, a read when the catalog marks it read-only or its name says so."""
    kind = "read" if op.kind == "read" or kind_from_name(op.name) == "read" else "write"
    return PackTool.from_operation(op).model_copy(update={"kind": kind})
