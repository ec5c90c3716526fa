"""Importer for the ToolSchemaSpace release (the Action-Space Shaping paper's own benchmark): its native catalog
(``tools.json``) and tasks (``queries.jsonl``) become one domain pack per tool group.

Mapping (the release's fields are documented in its README, ``benchmarks/synthetic``):

- domain ``<group>`` → pack ``tss_<group>`` (prefixed so it never shadows a built-in domain);
  policy = the tasks' ``system`` prompt; tools = the group's tools with their plain names;
  read/write from the name (:func:`toolprism.domains.kind_from_name`; the release has no
  tags). A tool name that is not a valid tool name (``set.room_light``, ``réglér_brightness``) is
  renamed reversibly by :func:`toolprism.schema.safe_tool_name` (the original kept in the tool's
  description); the gold calls are mapped through the same rename, and every rename is a note
  (:attr:`Imported.notes`).
- task → id ``<template>/<index>`` from the release id ``<group>__<template>__<index>`` (the whole
  id as template, index 0, when it has another shape); kind = ``type``; hard form = ``query``
  (the released request); easy form = ``query_easy``, else ``query_llm``, else ``query_base``;
  gold = ``gold_calls``.

Whole catalog (``whole_catalog=True``; the paper's class arms, ``toolschema/hierarchy.py``): one pack
``tss_whole_catalog`` over every imported group instead, as the built-in ``whole_catalog`` domain is
over the twelve device domains: tool ``<group>__<name>`` (the paper's class-qualified native
identity; five names repeat across groups), ``group`` = the class; task ids
``<group>__<template>/<index>``, gold in those names; each query opens with its class
(``smart home: ...``) and the policy gives every class's ``system`` prompt: the paper sends each
task with its own domain's system prompt, a pack has one policy.

Which tasks: with ``domains``, only the tasks of those groups (the other lines are skipped unread
beyond their ``domain``); without, every group of the tools file, and tasks of a domain the tools file
does not have are one problem per such domain (count and first line), since they cannot be imported.

Everything is checked before anything is written: every bad line (file:line, task id, problem)
is reported together, and each pack is read back from its own text as a reader would (tools load,
tasks build, gold calls decode), so a pack that would not load is never returned.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolprism.domains import (
    TASK_KINDS,
    DomainPack,
    PackCall,
    PackSource,
    PackTask,
    PackTool,
    kind_from_name,
)
from toolprism.errors import ConfigError, ToolprismError
from toolprism.schema import ActionSpace, load_tools

PREFIX = "tss_"
"""Imported domain names are ``tss_<group>``."""


def domain_name(group: str) -> str:
    """``tss_<group>``, with every character outside ``[A-Za-z0-9_]`` made ``_``."""
    return PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", group)


LICENCE = "CC-BY-4.0"
ATTRIBUTION = (
    'Liu, Tan, Wang, Guo, "Action-Space Shaping for LLM Agents: Measuring and Mitigating Tool-Schema Bias", '
    "2026. Data from https://github.com/williamLyh/ToolSchemaSpace (benchmarks/synthetic)."
)
DATASET = "ToolSchemaSpace synthetic benchmark"
REPOSITORY = "github.com/williamLyh/ToolSchemaSpace (benchmarks/synthetic)"
EASY_FIELDS = ("query_easy", "query_llm", "query_base")
"""Where the easy form comes from, first present non-empty field wins."""
DEFAULT_OUT = Path("imported") / "toolschemaspace"
WHOLE_CATALOG = PREFIX + "whole_catalog"
"""The name of the whole-catalog pack."""

_RELEASE_ID = re.compile(r"^(?P<template>[A-Za-z0-9_.-]+)__(?P<index>[0-9]+)$")
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Imported:
    """The result of an import: packs in group order, the groups left out (no tasks), and what
    reading the catalog rewrote (renamed tools), one line each, ``<pack>: <note>``."""

    packs: tuple[DomainPack, ...]
    without_tasks: tuple[str, ...]
    notes: tuple[str, ...] = ()


def import_toolschemaspace(
    tools: str | Path, queries: str | Path, *, domains: Sequence[str] | None = None, whole_catalog: bool = False
) -> Imported:
    """Read a ToolSchemaSpace ``tools.json`` and ``queries.jsonl`` into domain packs.

    Deterministic: the same files give equal packs (file names and SHA-256s are recorded, not
    paths). Writes nothing (see :func:`write_packs`).

    Args:
        tools: the release's ``tools.json`` (``[{uid, group, name, description, parameters}]``).
        queries: its ``queries.jsonl`` (one task per line; a head of it works too).
        domains: groups to import (default: every group that has tasks); tasks of other groups
            are skipped.
        whole_catalog: one pack :data:`WHOLE_CATALOG` over every imported group (the tools of
            ``domains``, or of every group; see the module docstring) instead of one pack per group.

    Raises:
        ConfigError: unreadable or malformed files, unknown groups, tasks of a domain the tools
            file lacks (without ``domains``; one problem per domain), any task line whose fields or
            gold calls do not fit the catalog, or a pack that does not load back; every problem
            listed, tasks as ``file:line``.
    """
    tools, queries = Path(tools), Path(queries)
    catalog = _catalog(tools)
    groups = list(dict.fromkeys(str(t["group"]) for t in catalog))
    wanted = list(domains) if domains else list(groups)
    unknown = [g for g in wanted if g not in groups]
    if unknown:
        raise ConfigError(
            [f"no tool group {g!r} in {tools} (groups: {', '.join(groups)})" for g in unknown], what="--domains"
        )
    spaces = {g: _space(catalog, g, tools) for g in wanted}
    problems: list[str] = []
    rows = _task_rows(queries, problems)
    tasks: dict[str, list[PackTask]] = {g: [] for g in wanted}
    policies: dict[str, str] = {}
    seen: dict[str, str] = {}
    absent: dict[str, list[str]] = {}  # domain the tools file lacks -> where its tasks are
    for where, row in rows:
        group = row.get("domain")
        if not isinstance(group, str) or not group:
            problems.append(f"{where}: task {row.get('id')!r}: 'domain' is missing or not a string")
            continue
        if group not in groups and not domains:
            absent.setdefault(group, []).append(where)
            continue
        if group not in spaces:
            continue
        task = _task(row, spaces[group], where, problems)
        if task is None:
            continue
        key = f"{group}/{task.id}"
        if key in seen:
            problems.append(f"{where}: task {row['id']!r}: same task id as {seen[key]}")
        seen[key] = where
        policy = row.get("system")
        if not isinstance(policy, str) or not policy.strip():
            problems.append(f"{where}: task {row['id']!r}: 'system' (the domain's policy) is missing or empty")
        elif policies.setdefault(group, policy) != policy:
            problems.append(f"{where}: task {row['id']!r}: 'system' differs from the first task of {group!r}")
        tasks[group].append(task)
    problems += [
        f"{queries}: {len(lines)} task(s) of domain {g!r} (first at {lines[0]}), which is not a tool group of "
        f"{tools.name} (groups: {', '.join(groups)}); pass --domains to import only the groups it has"
        for g, lines in absent.items()
    ]
    if domains:
        problems += [f"{queries}: no task of domain {g!r}" for g in wanted if not tasks[g]]
    if problems:
        raise ConfigError(problems, what="ToolSchemaSpace import")
    source = PackSource(
        dataset=DATASET, repository=REPOSITORY, files={tools.name: _sha256(tools), queries.name: _sha256(queries)}
    )
    packs = tuple(
        DomainPack(
            name=domain_name(group),
            source=source,
            licence=LICENCE,
            attribution=ATTRIBUTION,
            policy=policies[group],
            tools=[PackTool.from_operation(op) for op in spaces[group].operations],
            tasks=tasks[group],
        )
        for group in wanted
        if tasks[group]
    )
    without = tuple(g for g in wanted if not tasks[g])
    notes = tuple(f"{domain_name(g)}: {note}" for g in wanted if tasks[g] for note in spaces[g].notes)
    if whole_catalog and packs:
        packs = (_whole_catalog(spaces, tasks, policies, source),)
        notes = tuple(f"{WHOLE_CATALOG}: group {g!r}: {note}" for g in spaces for note in spaces[g].notes)
    _check_loads(packs)
    return Imported(packs, without, notes)


def _check_loads(packs: Sequence[DomainPack]) -> None:
    """Read every pack back from its own text, as ``toolprism run -d <pack>.json`` does: the tools
    load, the tasks build and every gold call decodes against the pack's own tools (not the
    catalog's, which also know the original names of renamed tools).

    Raises:
        ConfigError: every problem of every pack that would not load.
    """
    problems: list[str] = []
    for pack in packs:
        try:
            DomainPack.model_validate_json(pack.dumps()).domain().tasks(0)
        except ToolprismError as e:
            found = e.problems if isinstance(e, ConfigError) else [str(e)]
            problems += [f"pack {pack.name}: {p}" for p in found]
    if problems:
        raise ConfigError(problems, what="ToolSchemaSpace import (a pack does not load back)")


def _whole_catalog(
    spaces: Mapping[str, ActionSpace],
    tasks: Mapping[str, Sequence[PackTask]],
    policies: Mapping[str, str],
    source: PackSource,
) -> DomainPack:
    """One pack over every group of ``spaces``, in order (see the module docstring)."""
    tools = [
        PackTool.from_operation(op).model_copy(update={"name": f"{group}__{op.name}", "group": group})
        for group, space in spaces.items()
        for op in space.operations
    ]
    lifted = [
        task.model_copy(
            update={
                "id": f"{group}__{task.id}",
                "easy": f"{_label(group)}: {task.easy}",
                "hard": None if task.hard is None else f"{_label(group)}: {task.hard}",
                "gold": [PackCall(name=f"{group}__{c.name}", arguments=c.arguments) for c in task.gold],
            }
        )
        for group in spaces
        for task in tasks[group]
    ]
    classes = "\n".join(f"- {_label(g)} ({g}): {policies[g].strip()}" for g in spaces if g in policies)
    policy = (
        f"The tools span {len(spaces)} device and service classes. Each request opens with the class it is "
        "about; act on that class only, since several classes have tools of the same name. The classes, with "
        f"their own instructions:\n{classes}"
    )
    return DomainPack(
        name=WHOLE_CATALOG,
        source=source,
        licence=LICENCE,
        attribution=ATTRIBUTION,
        policy=policy,
        tools=tools,
        tasks=lifted,
    )


def _label(group: str) -> str:
    return group.replace("_", " ")


def write_packs(packs: Sequence[DomainPack], out: str | Path) -> list[Path]:
    """Write one ``<name>.json`` per pack into ``out`` (created if needed); return the paths.

    Files of the same names are replaced; other files in ``out`` are left alone.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for pack in packs:
        path = out / f"{pack.name}.json"
        partial = path.with_name(f".{path.name}.partial")
        partial.write_text(pack.dumps(), encoding="utf-8")
        partial.replace(path)
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------------------------


def _catalog(tools: Path) -> list[Mapping[str, Any]]:
    """The entries of a ToolSchemaSpace ``tools.json``, checked for the fields that identify one."""
    what = "ToolSchemaSpace tools"
    try:
        data: Any = json.loads(tools.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {tools}: {e.strerror}", what=what) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{tools} is not JSON: {e}", what=what) from None
    except RecursionError:
        raise ConfigError(f"{tools}: JSON nested too deeply to read", what=what) from None
    if not isinstance(data, list) or not data:
        raise ConfigError(f"{tools}: expected a non-empty list of tools", what=what)
    bad = [i for i, t in enumerate(data) if not (isinstance(t, Mapping) and {"uid", "group", "name"} <= set(t))]
    if bad:
        raise ConfigError(
            [f"{tools}: tool #{i} is not a ToolSchemaSpace tool (needs uid, group, name, parameters)" for i in bad],
            what=what,
        )
    return data


def _space(catalog: list[Mapping[str, Any]], group: str, tools: Path) -> ActionSpace:
    """One group's action space: plain tool names, kinds from the names (the release has no tags).

    Raises:
        ConfigError: any tool of the group the catalog loader refuses.
    """
    entries = [
        {**t, "annotations": {"readOnlyHint": kind_from_name(str(t["name"])) == "read"}}
        for t in catalog
        if str(t["group"]) == group
    ]
    try:
        return load_tools(entries, name=domain_name(group), source="toolschemaspace")
    except ConfigError as e:
        raise ConfigError([f"{tools}: {p}" for p in e.problems], what="ToolSchemaSpace tools") from None


def _task_rows(queries: Path, problems: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """``(file:line, object)`` for every non-blank line; lines that are not objects are problems."""
    try:
        text = queries.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read {queries}: {e.strerror}", what="ToolSchemaSpace queries") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{queries} is not UTF-8 text: {e}", what="ToolSchemaSpace queries") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{queries}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: not JSON ({e.msg})")
            continue
        except RecursionError:
            problems.append(f"{where}: JSON nested too deeply to read")
            continue
        if not isinstance(row, dict):
            problems.append(f"{where}: expected a JSON object, got {type(row).__name__}")
            continue
        rows.append((where, row))
    if not rows and not problems:
        problems.append(f"{queries}: no tasks (the file is empty)")
    return rows


def _task(row: dict[str, Any], space: ActionSpace, where: str, problems: list[str]) -> PackTask | None:
    """One line as a pack task, or None after recording its problems."""
    task_id = row.get("id")
    if not isinstance(task_id, str) or not task_id:
        problems.append(f"{where}: 'id' is missing or not a string")
        return None
    found: list[str] = []
    kind = row.get("type")
    if kind not in TASK_KINDS:
        found.append(f"'type' must be one of {', '.join(TASK_KINDS)}, got {kind!r}")
    hard = row.get("query")
    if not isinstance(hard, str) or not hard.strip():
        found.append("'query' is missing or empty")
    easy = next((row[f] for f in EASY_FIELDS if isinstance(row.get(f), str) and row[f].strip()), None)
    if easy is None:
        found.append(f"no easy form: none of {', '.join(EASY_FIELDS)} is a non-empty string")
    gold = _gold(row.get("gold_calls"), space, found)
    problems += [f"{where}: task {task_id!r}: {p}" for p in found]
    if found:
        return None
    return PackTask(id=_pack_id(task_id, row["domain"]), kind=kind, easy=easy, hard=hard, gold=gold, source_id=task_id)


def _gold(calls: Any, space: ActionSpace, found: list[str]) -> list[PackCall]:
    if not isinstance(calls, list) or not calls:
        found.append("'gold_calls' must be a non-empty list of {name, arguments}")
        return []
    gold = []
    for i, call in enumerate(calls):
        if not (isinstance(call, Mapping) and isinstance(call.get("name"), str)):
            found.append(f"gold call {i}: expected {{name, arguments}}")
            continue
        arguments = call.get("arguments", {})
        if not isinstance(arguments, Mapping):
            found.append(f"gold call {i} {call['name']}: arguments must be an object")
            continue
        try:
            space.action(call["name"], arguments)
        except ToolprismError as e:
            found.append(f"gold call {i} {call['name']}: {e}")
            continue
        # the tool's name in the pack: a renamed tool's original name maps to its safe name
        gold.append(PackCall(name=space.get(call["name"]).name, arguments=dict(arguments)))
    return gold


def _pack_id(release_id: str, group: str) -> str:
    """``smart_home__room_window_chain__10`` (group ``smart_home``) → ``room_window_chain/10``."""
    match = _RELEASE_ID.match(release_id.removeprefix(f"{group}__"))
    if match:
        return f"{match['template']}/{match['index']}"
    return f"{_SAFE.sub('_', release_id)}/0"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
