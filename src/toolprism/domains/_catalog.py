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
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolprism.domains._base import Domain, OperationDef, OperationFn, Task, TaskDraft, TaskKind
from toolprism.domains._grammar import find_spans
from toolprism.errors import ConfigError, ToolprismError
from toolprism.schema import JSON, ActionSpace, Operation, load_tools

PACK_FORMAT = "toolprism.domain/1"
"""The version tag every domain pack carries; a reader refuses any other."""

READ_PREFIXES = ("get_", "list_", "search_", "find_", "check_", "query_")
"""Catalogs with no read/write tags (ToolSchemaSpace has none): a tool whose name starts with one of
these is a read, every other tool a write (see :func:`kind_from_name`)."""

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
        gold: the native calls a correct episode makes, in execution order.
        source_id: the task's id in the source dataset (provenance only).
    """

    id: str
    kind: TaskKind
    easy: str
    hard: str | None = None
    gold: list[PackCall]
    source_id: str = ""


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
    """

    format: Literal["toolprism.domain/1"] = PACK_FORMAT
    name: str = Field(pattern=r"^[A-Za-z0-9_]+$")
    source: PackSource
    licence: str
    attribution: str = ""
    policy: str
    tools: list[PackTool]
    tasks: list[PackTask]

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
            self.action_space(), self.policy, self.tasks, licence=self.licence, attribution=self.attribution
        )

    def dumps(self) -> str:
        """The pack file's text: indented JSON, keys in model order, UTF-8 kept, final newline.

        Deterministic: equal packs give byte-identical text."""
        return json.dumps(self.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n"


def is_pack_path(name: str) -> bool:
    """Whether a domain argument names a pack file rather than a built-in domain: it ends in
    ``.json`` or contains a path separator (built-in names are identifiers)."""
    return name.endswith(".json") or "/" in name or os.sep in name


def read_pack(path: str | Path) -> DomainPack:
    """Read and check a domain pack file (the model only; see :func:`load_pack` for the domain).

    Raises:
        ConfigError: unreadable file, not JSON, wrong ``format``, or fields that do not fit
            :class:`DomainPack` (every problem listed with its JSON path).
    """
    path = Path(path)
    what = f"domain pack {path}"
    if path.is_dir():
        raise ConfigError(f"{path} is a directory; pass one pack file (*.json)", what=what)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}", what=what) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not JSON: {e}", what=what) from None
    if not isinstance(data, dict) or data.get("format") != PACK_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f'expected "format": {PACK_FORMAT!r}, found {found!r}', what=what)
    try:
        return DomainPack.model_validate(data)
    except ValidationError as e:
        problems = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()]
        raise ConfigError(problems, what=what) from None


def load_pack(path: str | Path) -> CatalogDomain:
    """The domain a pack file describes.

    Raises:
        ConfigError: see :func:`read_pack` and :meth:`DomainPack.domain`.
    """
    return read_pack(path).domain()


# ---------------------------------------------------------------------------------------------
# the domain


class LoggedAction(_Closed):
    """One executed write: the tool and its normalised arguments."""

    tool: str
    arguments: dict[str, Any]


class ActionLog(_Closed):
    """The whole state of a catalog domain: the writes executed so far, in order."""

    actions: list[LoggedAction] = Field(default_factory=list)


def _acknowledge(op: Operation) -> OperationFn:
    """The executor of ``op``: log it if it writes, reply with an acknowledgement."""

    def execute(log: ActionLog, /, **arguments: JSON) -> JSON:  # positional: a tool may have a "log" argument
        if op.kind == "write":
            log.actions.append(LoggedAction(tool=op.name, arguments=copy.deepcopy(arguments)))
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

    Raises:
        ConfigError: every bad task id and every gold call the space refuses (unknown tool,
            invalid arguments), listed together.
    """

    def __init__(
        self, space: ActionSpace, policy: str, tasks: Sequence[PackTask], *, licence: str = "", attribution: str = ""
    ) -> None:
        self.name = space.name  # type: ignore[misc]  # instance-level on purpose (see class doc)
        self.policy = policy  # type: ignore[misc]
        self.licence = licence
        self.attribution = attribution
        self._space = space
        self._definitions_ = {op.name: OperationDef(op, _acknowledge(op)) for op in space.operations}
        self._tasks = list(tasks)
        problems = _task_problems(space, self._tasks)
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
        if not task.gold:
            problems.append(f"task {task.id!r}: no gold calls")
        for i, call in enumerate(task.gold):
            try:
                space.action(call.name, call.arguments)
            except ToolprismError as e:
                problems.append(f"task {task.id!r}: gold call {i} {call.name}: {e}")
    return problems
