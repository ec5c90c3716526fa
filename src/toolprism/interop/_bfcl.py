"""BFCL's single-turn categories as toolprism tasks, scored both ways: toolprism's multiset and BFCL's
own AST checker (:func:`bfcl_check`).

Source: the Berkeley Function Calling Leaderboard (gorilla, ``berkeley-function-call-leaderboard/
bfcl_eval/data``): ``BFCL_v4_<category>.json`` (JSON Lines: ``id``, ``question``, ``function``) and
``possible_answer/BFCL_v4_<category>.json`` (``id``, ``ground_truth``: one ``{name: {param:
[acceptable values]}}`` per expected call). Categories: ``simple_python`` (``simple`` in BFCL v3),
``multiple``, ``parallel``, ``parallel_multiple`` and ``irrelevance`` (no possible answer: the right
output is no call).

Mapping (one domain per entry):

- entry → :class:`BfclTask`: its own functions as the action space (``ActionSpace.from_bfcl``:
  dotted names made tool-safe, ``math.factorial`` → ``math_factorial``, reversibly), its one user
  message as the query, its possible answer as the gold.
- :func:`bfcl_pack`: a task as a domain pack ``<entry id>`` (e.g. ``simple_python_12``), whose one task
  ``query/0`` has as gold **one** acceptable answer (per parameter: left out where ``""`` is
  acceptable and the parameter is optional, else the first acceptable value its schema accepts).
  One pack per entry, not one per category with the union of the functions: BFCL poses each entry
  with its own 1-4 functions (choosing among them is what ``multiple`` tests), and entries reuse
  names with different docs, so a union would change every task. Deviation: a parameter's
  ``default`` moves from its schema into its description (``Default is: X.``, BFCL's own wording
  where a model's schema has no ``default``), because toolprism fills declared defaults into
  native actions, and BFCL's checker must see what the model sent. ``irrelevance`` entries have no
  gold call, which a pack cannot hold: they are read and checked, not written as packs.
- :func:`bfcl_check`: BFCL's verdict on native calls (``toolprism.interop._bfcl_check`` has the
  semantics), names mapped back to BFCL's own. Calls made under any variant are decoded by the
  adapter first, so the check is the same under every variant.
- :func:`score_bfcl_run`: a stored run of such packs re-scored by :func:`bfcl_check`. The model's
  output is every native call the adapter accepted in the episode (executed or failed, in order,
  as decoded, before defaults are filled): a call the adapter rejected executed nothing and is
  not part of it (under ``strict`` the model saw why and may have tried again, which BFCL's one
  response cannot), and calls over several turns count together (a ``transaction`` variant
  needs several turns for one native call). So a call whose type the tool's JSON Schema refuses
  (``"5"`` for an integer) is rejected by the adapter and scored as a missing call
  (``..._checker:wrong_count`` or ``cannot_find_match``), where BFCL would say ``type_error``:
  invalid either way. The policy (system prompt) is toolprism's ``DEFAULT_POLICY``; BFCL sends
  function-calling models none.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict

from toolprism.domains import DEFAULT_POLICY, DomainPack, PackCall, PackSource, PackTask, PackTool, kind_from_name
from toolprism.errors import ConfigError, ToolprismError
from toolprism.interop._bfcl_check import BfclVerdict, check_output, json_numbers
from toolprism.run import RunStore, Trace
from toolprism.schema import ActionSpace, Operation, Param, ToolCall

BFCL_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
"""The single-turn categories this importer reads (``simple`` is taken as ``simple_python``)."""

_ALIASES = {"simple": "simple_python"}
_NAME = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True)
class BfclTask:
    """One BFCL entry with its possible answer.

    Attributes:
        id: BFCL's entry id (``parallel_multiple_3``).
        category: one of :data:`BFCL_CATEGORIES`.
        query: the user message.
        functions: the entry's function docs as BFCL gives them (BFCL names and types).
        answers: the possible answer, one ``{name: {param: [acceptable values]}}`` per expected
            call (``""`` acceptable: the parameter may be left out); empty for irrelevance.
        space: the functions as a native action space (tool-safe names, originals kept).
    """

    id: str
    category: str
    query: str
    functions: tuple[Mapping[str, Any], ...]
    answers: tuple[Mapping[str, Mapping[str, list[Any]]], ...]
    space: ActionSpace

    @property
    def domain(self) -> str:
        """The domain (pack) name of this entry: its id made a domain name."""
        return _NAME.sub("_", self.id)


def category_name(category: str) -> str:
    """``category`` as this module names it (``simple`` → ``simple_python``).

    Raises:
        ConfigError: not a single-turn category this importer reads.
    """
    name = _ALIASES.get(category, category)
    if name not in BFCL_CATEGORIES:
        raise ConfigError(f"unknown BFCL category {category!r} (known: {', '.join(BFCL_CATEGORIES)})", what="BFCL")
    return name


def read_bfcl(data: str | Path, category: str) -> list[BfclTask]:
    """Read one category's entries and possible answers from a BFCL data directory.

    Args:
        data: the directory holding ``BFCL_v*_<category>.json`` and ``possible_answer/``.
        category: one of :data:`BFCL_CATEGORIES` (or ``simple``).

    Raises:
        ConfigError: missing files, lines that are not JSON, entries that are not single-turn
            (one user message), functions that do not load, entries without a possible answer
            (every problem listed).
    """
    category = category_name(category)
    data = Path(data)
    entries_path = _data_file(data, category)
    problems: list[str] = []
    entries = _json_lines(entries_path, problems)
    answers: dict[str, Any] = {}
    if category != "irrelevance":
        answers = {a.get("id"): a.get("ground_truth") for a in _json_lines(_answer_file(data, entries_path), problems)}
    tasks = []
    for entry in entries:
        try:
            tasks.append(_task(entry, category, answers))
        except (ConfigError, KeyError, TypeError, ValueError) as e:
            problems.append(f"entry {entry.get('id')!r}: {e}")
    if problems:
        raise ConfigError(problems, what=f"BFCL {category} in {data}")
    return tasks


def _data_file(data: Path, category: str) -> Path:
    names = [category, "simple"] if category == "simple_python" else [category]
    pattern = re.compile(rf"BFCL_v(\d+)_({'|'.join(names)})\.json")
    found = sorted(
        (p for p in data.glob("BFCL_v*.json") if pattern.fullmatch(p.name)),
        key=lambda p: (int(pattern.fullmatch(p.name).group(1)), p.name),  # type: ignore[union-attr]
    )
    if not found:
        raise ConfigError(f"no BFCL_v*_{category}.json in {data}", what="BFCL")
    return found[-1]  # the newest version present


def _answer_file(data: Path, entries: Path) -> Path:
    path = data / "possible_answer" / entries.name
    if not path.is_file():
        raise ConfigError(f"no possible answer file {path}", what="BFCL")
    return path


def _json_lines(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    """BFCL ``.json`` files are JSON Lines."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{path.name}:{number}: not JSON ({e})")
            continue
        if not isinstance(row, dict):
            problems.append(f"{path.name}:{number}: not a JSON object")
            continue
        rows.append(row)
    return rows


def _task(entry: Mapping[str, Any], category: str, answers: Mapping[str, Any]) -> BfclTask:
    entry_id = str(entry["id"])
    turns = entry["question"]
    if len(turns) != 1 or len(turns[0]) != 1 or turns[0][0].get("role") != "user":
        raise ValueError("not single-turn (one user message expected)")
    answer: Any = ()
    if category != "irrelevance":
        if entry_id not in answers:
            raise ValueError("no possible answer")
        answer = answers[entry_id]
        if not isinstance(answer, list) or not all(isinstance(a, dict) and len(a) == 1 for a in answer):
            raise ValueError("the possible answer is not a list of {name: {param: [values]}}")
    functions = tuple(entry["function"])
    space = ActionSpace.from_bfcl(functions, name=_NAME.sub("_", entry_id))
    return BfclTask(entry_id, category, str(turns[0][0]["content"]), functions, tuple(answer), space)


Numbers = Literal["python", "json"]
"""How :func:`bfcl_check` reads numbers: ``python``, BFCL's own way (``1`` is an int, refused in an
array of floats); ``json``, one number type (an int where the doc says float counts as a float:
see :func:`~toolprism.interop._bfcl_check.json_numbers`)."""


def bfcl_check(task: BfclTask, calls: Sequence[ToolCall], *, numbers: Numbers = "python") -> BfclVerdict:
    """BFCL's AST checker verdict on native calls for ``task`` (see ``_bfcl_check`` for the rules).

    Args:
        task: the entry and its possible answer.
        numbers: ``python`` (BFCL's semantics, the default) or ``json`` (see :data:`Numbers`).
        calls: the native calls the model made, in order, with the arguments as decoded (tool
            names as toolprism shows them, ``math_factorial``, or BFCL's own, ``math.factorial``).

    Returns:
        ``(valid, error_type, message)``, ``error_type`` in BFCL's words.
    """
    output: list[Any] = [{_bfcl_name(task.space, c.name): dict(c.arguments)} for c in calls]
    if numbers == "json":
        output = json_numbers(task.functions, output)
    return check_output(task.category, task.functions, output, task.answers)


def _bfcl_name(space: ActionSpace, name: str) -> str:
    try:
        return space.get(name).source_name
    except ToolprismError:
        return name  # an unknown tool keeps its name: BFCL's checker reports it


# ---------------------------------------------------------------------------------------------
# packs


def _instance(value: Any, schema: Mapping[str, Any]) -> Any:
    """An acceptable value as a call gives it: BFCL writes an acceptable dict as ``{key:
    [acceptable values]}`` (a list of dicts: a list of those); each key gets its first value, or is
    left out where ``""`` is acceptable."""
    if schema.get("type") == "object" and isinstance(value, dict):
        return {k: v[0] for k, v in value.items() if isinstance(v, list) and v and "" not in v}
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, Mapping) and isinstance(value, list):
        return [_instance(v, items) if items.get("type") == "object" else v for v in value]
    return value


def gold_calls(task: BfclTask, *, fit_schema: bool = True) -> list[ToolCall]:
    """One acceptable answer as native calls (tool-safe names): per parameter, left out when ``""``
    is acceptable and the parameter is optional, else the first acceptable value (with
    ``fit_schema``: the first its JSON Schema accepts; BFCL's answers hold a few values their own
    docs refuse, e.g. strings in an integer array, which its checker accepts as variables).

    Raises:
        ConfigError: with ``fit_schema``, a parameter none of whose acceptable values fits.
    """
    calls = []
    for answer in task.answers:
        ((name, acceptable),) = answer.items()
        op = task.space.get(name)
        arguments = {}
        for param, values in acceptable.items():
            spec = op.param(param)
            if "" in values and not (spec is not None and spec.required):
                continue
            arguments[param] = _first(spec, f"{op.name}.{param}", values, fit_schema)
        calls.append(ToolCall(op.name, arguments))
    return calls


def _first(spec: Param | None, where: str, values: Sequence[Any], fit_schema: bool) -> Any:
    schema = spec.schema if spec is not None else {}
    validator = jsonschema.Draft202012Validator(schema)
    for value in values:
        value = _instance(value, schema)
        if value != "" and (not fit_schema or validator.is_valid(value)):
            return value
    raise ConfigError(f"{where}: no acceptable value of {values!r} fits its schema", what="BFCL")


def bfcl_pack(task: BfclTask, *, files: Mapping[str, str] | None = None) -> DomainPack:
    """The entry as a domain pack (see the module doc): its functions, one task with one acceptable
    answer as gold.

    An irrelevance entry has no gold call: the task is solved by answering without one (BFCL:
    irrelevance = no call), under any variant.

    Raises:
        ConfigError: a gold call the tools refuse.
    """
    gold = gold_calls(task)
    pack = DomainPack(
        name=task.domain,
        source=PackSource(
            dataset=f"BFCL {task.category} (Berkeley Function Calling Leaderboard), entry {task.id}",
            repository="https://github.com/ShishirPatil/gorilla (berkeley-function-call-leaderboard)",
            files=dict(files or {}),
        ),
        licence="Apache-2.0",
        attribution="Berkeley Function Calling Leaderboard (gorilla), Apache-2.0",
        policy=DEFAULT_POLICY,
        tools=[_pack_tool(op) for op in task.space.operations],
        tasks=[
            PackTask(
                id="query/0",
                kind="single" if len(gold) == 1 else "compound",
                easy=task.query,
                gold=[PackCall(name=c.name, arguments=dict(c.arguments)) for c in gold],
                source_id=task.id,
            )
        ],
    )
    pack.domain()  # every problem now
    return pack


def _pack_tool(op: Operation) -> PackTool:
    """``op`` as a pack tool, each parameter's ``default`` moved into its description."""
    tool = PackTool.from_operation(op)
    parameters = json.loads(json.dumps(tool.parameters))
    for schema in parameters.get("properties", {}).values():
        if isinstance(schema, dict) and "default" in schema:
            default = schema.pop("default")
            schema["description"] = f"{schema.get('description', '')} Default is: {default}.".strip()
    return tool.model_copy(update={"parameters": parameters, "kind": kind_from_name(op.name)})


@dataclass(frozen=True)
class BfclImport:
    """What :func:`import_bfcl` made.

    Attributes:
        packs: one pack per entry, in the data's order.
        skipped: ``(entry id, reason)`` of each entry no pack can hold: its possible answer has no
            value its own schema accepts (the gold of a pack must be a valid call).
    """

    packs: tuple[DomainPack, ...]
    skipped: tuple[tuple[str, str], ...]


def import_bfcl(data: str | Path, category: str, *, limit: int | None = None) -> BfclImport:
    """One pack per entry of ``category`` (of the first ``limit`` entries when given), each checked.

    Raises:
        ConfigError: see :func:`read_bfcl`.
    """
    category = category_name(category)
    tasks = read_bfcl(data, category)[:limit]
    entries = _data_file(Path(data), category)
    read = (entries,) if category == "irrelevance" else (entries, _answer_file(Path(data), entries))
    files = {f"{category}/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in read}
    packs, skipped = [], []
    for task in tasks:
        try:
            packs.append(bfcl_pack(task, files=files))
        except ConfigError as e:
            skipped.append((task.id, "; ".join(e.problems) if e.problems else str(e)))
    return BfclImport(tuple(packs), tuple(skipped))


# ---------------------------------------------------------------------------------------------
# scoring a stored run


def trace_calls(trace: Trace) -> list[ToolCall]:
    """The native calls an episode's adapter accepted (executed or failed), in order, with their
    arguments as decoded at the native layer (before defaults are filled in)."""
    return [
        ToolCall(call.path[-1].name, call.path[-1].arguments)
        for turn in trace.turns
        for call in turn.calls
        if call.outcome in ("executed", "failed") and call.path
    ]


class BfclEpisode(BaseModel):
    """One episode's two verdicts."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str
    entry: str
    category: str
    variant: str
    condition: str
    valid: bool
    error_type: str
    multiset_success: bool


class BfclRow(BaseModel):
    """BFCL accuracy and toolprism's multiset success of one (variant, condition, category)."""

    model_config = ConfigDict(extra="forbid")

    variant: str
    condition: str
    category: str
    episodes: int
    bfcl_valid: int
    multiset_success: int
    agree: int
    errors: dict[str, int]


class BfclRunScore(BaseModel):
    """A run re-scored by BFCL's checker: rows per (variant, condition, category), every episode."""

    model_config = ConfigDict(extra="forbid")

    run_dir: str
    numbers: Numbers
    rows: list[BfclRow]
    episodes: list[BfclEpisode]
    unscored: int
    not_bfcl: int


def score_bfcl_run(run_dir: str | Path, data: str | Path, *, numbers: Numbers = "python") -> BfclRunScore:
    """Re-score a stored run of BFCL packs with :func:`bfcl_check`, beside its multiset success.

    ``numbers``: see :data:`Numbers`. The oracle's calls are canonical (``1.0`` written ``1``), so
    under ``python`` it fails the few entries whose answer has integral floats in an array of floats.

    An episode whose domain is no BFCL entry of ``data`` is counted in ``not_bfcl``; one that ended
    unscored (context overflow, backend error) in ``unscored``.

    Raises:
        ConfigError: ``run_dir`` is not a run directory, ``data`` cannot be read, or no episode of
            the run is of a BFCL entry of ``data`` (as ``--scorer tau2`` refuses a run without tau2).
    """
    store = RunStore.open(Path(run_dir))
    try:
        results = list(store.results())
        tasks = _tasks_by_domain(data, {r.domain for r in results})
        if results and not any(Path(r.domain).name.removesuffix(".json") in tasks for r in results):
            raise ConfigError(
                f"{run_dir}: no episode of a BFCL entry of {data} (runs of 'toolprism import bfcl' packs)",
                what="BFCL scoring",
            )
        episodes, unscored, not_bfcl = [], 0, 0
        for result in results:
            trace = store.trace(result.episode_id)
            task = tasks.get(trace.task.domain)
            if task is None:
                not_bfcl += 1
                continue
            if not trace.scored:
                unscored += 1
                continue
            verdict = bfcl_check(task, trace_calls(trace), numbers=numbers)
            episodes.append(
                BfclEpisode(
                    episode_id=result.episode_id,
                    entry=task.id,
                    category=task.category,
                    variant=result.variant,
                    condition=result.condition or "",
                    valid=verdict.valid,
                    error_type=verdict.error_type,
                    multiset_success=result.success,
                )
            )
    finally:
        store.close()
    return BfclRunScore(
        run_dir=str(run_dir),
        numbers=numbers,
        rows=_rows(episodes),
        episodes=episodes,
        unscored=unscored,
        not_bfcl=not_bfcl,
    )


def _tasks_by_domain(data: str | Path, domains: set[str]) -> dict[str, BfclTask]:
    """The BFCL tasks whose domain names appear among ``domains`` (pack paths or names)."""
    names = {Path(d).name.removesuffix(".json") for d in domains}
    prefixes = {
        c: (f"{c}_", "simple_") if c == "simple_python" else (f"{c}_",) for c in BFCL_CATEGORIES
    }  # v3: simple_<n>
    wanted = {c for c in BFCL_CATEGORIES if any(n.startswith(prefixes[c]) for n in names)}
    return {t.domain: t for c in sorted(wanted) for t in read_bfcl(data, c) if t.domain in names}


def _rows(episodes: Sequence[BfclEpisode]) -> list[BfclRow]:
    groups: dict[tuple[str, str, str], list[BfclEpisode]] = {}
    for e in episodes:
        groups.setdefault((e.variant, e.condition, e.category), []).append(e)
    return [
        BfclRow(
            variant=variant,
            condition=condition,
            category=category,
            episodes=len(group),
            bfcl_valid=sum(e.valid for e in group),
            multiset_success=sum(e.multiset_success for e in group),
            agree=sum(e.valid == e.multiset_success for e in group),
            errors=dict(Counter(e.error_type for e in group if not e.valid)),
        )
        for (variant, condition, category), group in sorted(groups.items())
    ]
