"""SFT export: gold trajectories encoded in chosen variants, as chat fine-tuning data (issue #17,
item 3; seed 000, "Training repairs what it sees": SFT repairs the variants it is trained on).

One row is one episode of the oracle (:class:`toolprism.backends.OracleBackend`, which plays the
task's gold through the variant's encoder) run by the real episode loop
(:func:`toolprism.run.run_episode`): the system prompt a run shows
(:func:`toolprism.run.initial_messages`), the user query, the variant-level assistant tool calls
with the tool replies the adapter gave (one call per assistant turn unless
``SftOptions.sequential`` is off), and the final answer, plus the tools shown. A call that
needs an earlier reply (a transaction id, a handle, a discovered schema) carries the value that
reply gave. An episode that does not end answered with exactly the gold actions and no rejected
call is skipped and counted (``skipped`` in the manifest), never written.

Layout of an export directory ``OUT``:

- ``openai``: ``train.jsonl`` and ``test.jsonl`` in the OpenAI chat fine-tuning format, one object
  per line with ``messages``, ``tools`` and ``parallel_tool_calls`` only (function-call
  ``arguments`` are JSON strings; an assistant message that calls a tool has no ``content``).
  OpenAI's validator refuses other keys, so each row's provenance lives in the line-aligned
  ``train.meta.jsonl`` / ``test.meta.jsonl`` (line *i* describes line *i*; fields of
  :class:`SftRow`).
- ``hf``: ``data/train.parquet`` and ``data/test.parquet`` and a ``README.md`` dataset card whose
  front matter declares the splits, so ``datasets.load_dataset(OUT)`` reads it. Columns:
  ``messages`` (a list of structs: ``role``, ``content``, ``tool_calls``, ``tool_call_id``; absent
  fields are null), ``tools`` as **JSON text** (the tools' JSON Schemas differ from row to row and
  Arrow cannot hold them as one struct type; TRL's ``SFTTrainer`` decodes a string ``tools``
  column with ``json.loads``), and the :class:`SftRow` fields. Arguments stay JSON strings as in
  the OpenAI format; a chat template that wants objects needs ``json.loads`` on them.
- ``manifest.json`` (both): options, per split the variants, domains, task ids and row count, and
  the skipped episodes.

Splits (so held-out data stays held out): ``task``: per domain a fraction of the tasks is held out,
chosen by a seeded hash of the task's id; the easy and hard forms of one task (``.../hard``) are one
unit, so the same task is never in both splits. ``domain``: the ``test_domains`` are held out
whole. Mixtures: with ``mix`` every task is rendered in one variant drawn by weight from a
``random.Random`` seeded by the seed and the task id (so a task's draw does not depend on which
other tasks are exported), instead of in every variant.

Output is byte-identical for the same options (sorted JSON keys, no timings, no paths but the
domain sources given).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Literal

from toolprism._version import __version__
from toolprism.backends import OracleBackend
from toolprism.domains import Domain, Task, domain_names, get_domain
from toolprism.errors import ConfigError
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.schema import JSON, Action, ToolCall, canonical_json
from toolprism.score import score_actions
from toolprism.shaping import AdapterSession, Variant

SftFormat = Literal["openai", "hf"]
SplitMethod = Literal["task", "domain"]
SFT_FORMATS: tuple[str, ...] = ("openai", "hf")
SPLIT_METHODS: tuple[str, ...] = ("task", "domain")
SPLITS = ("train", "test")
INSTRUCTIONS = ("toolprism", "paper")
DEFAULT_TEST_FRACTION = 0.2
"""Share of each domain's tasks held out under ``split="task"`` when no fraction is given."""
MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
ORACLE_MAX_TURNS = 256
"""Turn limit of the oracle's episodes (a stacked protocol may take many turns)."""
HARD_SUFFIX = "/hard"

Progress = Callable[[int, int, str], None]
"""Called after each episode with (episodes done, episodes in all, episode id)."""


@dataclass(frozen=True)
class SftOptions:
    """What :func:`export_sft` writes.

    Attributes:
        variants: variant names or spec strings; None: the ``mix``'s variants, else native only.
        domains: built-in names or domain pack paths; None: every built-in domain.
        format: ``openai`` or ``hf`` (module doc).
        split: ``task`` or ``domain`` (module doc).
        test_fraction: share of each domain's tasks held out, ``0 <= f < 1`` (``task`` only;
            default :data:`DEFAULT_TEST_FRACTION`).
        test_domains: the domains held out whole (``domain`` only; at least one, not all).
        mix: ``(variant, weight > 0)`` pairs, or their text form (``"native=0.5"``, see
            :func:`parse_mix`): each task in one variant drawn by weight; None: every task in
            every variant.
        seed: seeds the split and the mixture draws.
        task_seed: the task and world seed (the suite's tasks at that seed).
        limit: at most this many tasks per domain (the first: easy forms come first).
        instruction: the calling instruction in the system prompt, as a run's ``instruction``
            (``toolprism`` or ``paper``; see :class:`toolprism.run.EpisodeSpec`), so the data
            shows the prompt the evaluation shows.
        sequential: one tool call per assistant turn, as the ``toolprism`` instruction asks ("Call
            one tool at a time"); the oracle batches independent calls (a transaction's ``set``
            calls) into one turn, which False keeps (``parallel_tool_calls`` true on those rows).
    """

    variants: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None
    format: str = "openai"
    split: str = "task"
    test_fraction: float | None = None
    test_domains: tuple[str, ...] = ()
    mix: tuple[tuple[str, float] | str, ...] | None = None
    seed: int = 0
    task_seed: int = 0
    limit: int | None = None
    instruction: Literal["toolprism", "paper"] = "toolprism"
    sequential: bool = True


@dataclass(frozen=True)
class SftRow:
    """Where one row comes from (the ``*.meta.jsonl`` line of an ``openai`` export; columns of an
    ``hf`` one).

    Attributes:
        domain: the domain's name.
        task_id: the task's id.
        task_hash: the task's pin (:attr:`toolprism.domains.Task.content_hash`).
        world_seed: the seed of the world the task is posed on.
        variant: the variant's name; ``variant_spec``: its canonical spec string.
        split: ``train`` or ``test``.
    """

    domain: str
    task_id: str
    task_hash: str
    world_seed: int
    variant: str
    variant_spec: str
    split: str


@dataclass(frozen=True)
class SftExample:
    """One row read back: the chat (``messages`` and ``tools``, OpenAI format) and its provenance."""

    messages: list[dict[str, JSON]]
    tools: list[dict[str, JSON]]
    row: SftRow


@dataclass(frozen=True)
class SftSummary:
    """What an export wrote: ``path`` (the directory), ``format``, ``rows`` per split, ``skipped``
    episodes, every file written and their total size in ``bytes``, and the ``manifest``."""

    path: Path
    format: str
    rows: dict[str, int]
    skipped: int
    files: tuple[Path, ...]
    bytes: int
    manifest: dict[str, JSON]


@dataclass(frozen=True)
class Replay:
    """One row replayed (:func:`replay_sft`): the native ``actions`` its calls decode to, in order;
    ``rejected``: calls the adapter refused; ``replies_match``: every tool reply in the row equals
    the reply the fresh session gave."""

    row: SftRow
    actions: tuple[Action, ...]
    rejected: int
    replies_match: bool


@dataclass(frozen=True)
class _Source:
    arg: str
    domain: Domain
    tasks: list[Task]
    variants: dict[str, Variant]


@dataclass
class _Written:
    lines: dict[str, list[tuple[SftRow, dict[str, JSON]]]] = field(default_factory=lambda: {s: [] for s in SPLITS})
    skipped: list[dict[str, JSON]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# export


def export_sft(
    out: str | Path, options: SftOptions, *, overwrite: bool = False, progress: Progress | None = None
) -> SftSummary:
    """Write the gold trajectories of ``options`` to the directory ``out`` (layout: module doc).

    Args:
        out: the export directory (created; an existing non-empty one needs ``overwrite``).
        options: see :class:`SftOptions`.
        overwrite: replace the files of an earlier export in ``out``.
        progress: see :data:`Progress`.

    Returns:
        What was written; ``rows`` counts rows per split, ``skipped`` the oracle episodes that did
        not reproduce the gold (listed in the manifest).

    Raises:
        ConfigError: every problem with the options (unknown format, split, domain or variant, a
            variant that does not apply to a domain, a bad fraction, mixture or held-out domain)
            or the target, all at once and before anything runs or is written.
    """
    out = Path(out)
    options, sources = _sources(options)
    _check_target(out, overwrite)
    splits = _assign_splits(sources, options)
    written = _render(sources, splits, options, progress)
    files = _write_hf(written, out) if options.format == "hf" else _write_openai(written, out)
    manifest = _manifest(sources, written, options)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    files.append(out / MANIFEST)
    return SftSummary(
        path=out,
        format=options.format,
        rows={s: len(written.lines[s]) for s in SPLITS},
        skipped=len(written.skipped),
        files=tuple(files),
        bytes=sum(f.stat().st_size for f in files),
        manifest=manifest,
    )


def parse_mix(items: Iterable[tuple[str, float] | str]) -> tuple[tuple[str, float], ...]:
    """``["native=0.5", "merge(by=full)=2"]`` -> ``(("native", 0.5), ("merge(by=full)", 2.0))``: a
    text item's weight follows its last ``=`` (a spec may hold ``=`` inside parentheses); pairs pass
    through.

    Raises:
        ConfigError: every text item without ``=<weight>`` or with a weight that is no number.
    """
    problems, pairs = [], []
    for item in items:
        if not isinstance(item, str):
            pairs.append((item[0], float(item[1])))
            continue
        name, eq, weight = item.strip().rpartition("=")
        if not eq or not name or name.count("(") != name.count(")"):
            problems.append(f"mixture item {item.strip()!r} is not <variant>=<weight>")
            continue
        try:
            pairs.append((name.strip(), float(weight)))
        except ValueError:
            problems.append(f"mixture weight {weight!r} of {name.strip()!r} is not a number")
    if problems:
        raise ConfigError(problems, what="--mix")
    return tuple(pairs)


def _sources(options: SftOptions) -> tuple[SftOptions, list[_Source]]:
    """The options with the mixture parsed, and what to export; every problem at once."""
    problems: list[str] = []
    if options.mix is not None:
        try:
            options = replace(options, mix=parse_mix(options.mix))
        except ConfigError as e:
            problems += e.problems
            options = replace(options, mix=None)
    problems += _option_problems(options)
    domains = list(options.domains or domain_names())
    variants = list(options.variants or [name for name, _ in options.mix or ()] or ["native"])
    for kind, names in (("domain", domains), ("variant", variants)):
        problems += [f"{kind} {n!r} is listed more than once" for n in sorted(set(names)) if names.count(n) > 1]
    sources = []
    for arg in dict.fromkeys(domains):
        try:
            domain = get_domain(arg)
            tasks = domain.tasks(options.task_seed, options.limit) if options.task_seed >= 0 else []
        except ConfigError as e:
            named = len(e.problems) == 1 and arg in e.problems[0]
            problems += e.problems if named else [f"{arg}: {p}" for p in e.problems]
            continue
        built = {}
        for v in dict.fromkeys(variants):
            try:
                built[v] = Variant.build(v, domain.action_space())
            except ConfigError as e:
                problems += [f"variant {v!r} on {domain.name}: {p}" for p in e.problems]
        sources.append(_Source(arg, domain, tasks, built))
    names = [s.domain.name for s in sources]
    problems += [f"two domains are named {n!r}" for n in sorted(set(names)) if names.count(n) > 1]
    problems += _split_problems(options, domains, {s.arg: s.domain.name for s in sources})
    if options.mix and options.variants and set(options.variants) != {n for n, _ in options.mix}:
        problems.append(
            f"--mix names {', '.join(n for n, _ in options.mix)} but --variants names "
            f"{', '.join(options.variants)}; give the same variants or leave --variants out"
        )
    if problems:
        raise ConfigError(problems, what="SFT export options")
    return options, sources


def _option_problems(options: SftOptions) -> list[str]:
    problems = []
    if options.format not in SFT_FORMATS:
        problems.append(f"format must be one of {', '.join(SFT_FORMATS)}, got {options.format!r}")
    if options.split not in SPLIT_METHODS:
        problems.append(f"split must be one of {', '.join(SPLIT_METHODS)}, got {options.split!r}")
    for name in ("seed", "task_seed"):
        if getattr(options, name) < 0:
            problems.append(f"{name.replace('_', '-')} must be at least 0, got {getattr(options, name)}")
    if options.limit is not None and options.limit < 1:
        problems.append(f"limit must be at least 1, got {options.limit}")
    if options.instruction not in INSTRUCTIONS:
        problems.append(f"instruction must be one of {', '.join(INSTRUCTIONS)}, got {options.instruction!r}")
    if options.variants is not None and not options.variants:
        problems.append("at least one variant is needed")
    if options.domains is not None and not options.domains:
        problems.append("at least one domain is needed")
    for name, weight in options.mix or ():
        if not (math.isfinite(weight) and weight > 0):
            problems.append(f"mixture weight of {name!r} must be a positive number, got {weight}")
    if options.mix is not None and not options.mix:
        problems.append("the mixture names no variant")
    return problems


def _split_problems(options: SftOptions, given: list[str], loaded: Mapping[str, str]) -> list[str]:
    """Problems of the split options; ``given``: the domain arguments, ``loaded``: argument ->
    domain name for those that loaded (a held-out domain may be named either way)."""
    problems = []
    fraction, held = options.test_fraction, list(options.test_domains)
    if options.split == "task":
        if held:
            problems.append("--test-domains goes with --split domain (under --split task tasks are held out)")
        if fraction is not None and not (0 <= fraction < 1):
            problems.append(f"test fraction must be at least 0 and below 1, got {fraction}")
    elif options.split == "domain":
        if fraction is not None:
            problems.append("--test-fraction goes with --split task (under --split domain whole domains are held out)")
        if not held:
            problems.append("--split domain needs --test-domains (the domains held out)")
        known = set(given) | set(loaded.values())
        problems += [f"test domain {d!r} is not among the exported domains" for d in held if d not in known]
        problems += [f"test domain {d!r} is listed more than once" for d in sorted(set(held)) if held.count(d) > 1]
        if held and given and all(a in held or loaded.get(a) in held for a in given):
            problems.append("every exported domain is held out; the train split would be empty")
    return problems


def _check_target(out: Path, overwrite: bool) -> None:
    blocker = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise ConfigError(f"{blocker} is a file, not a directory", what="export target")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out} is a file; the SFT export writes a directory", what="export target")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise ConfigError(f"{out} already exists and is not empty; remove it or pass --overwrite", what="export target")


def _group(task_id: str) -> str:
    """The unit a split keeps together: a task and its hard form."""
    return task_id.removesuffix(HARD_SUFFIX)


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}/{key}".encode()).hexdigest()


def _assign_splits(sources: list[_Source], options: SftOptions) -> dict[tuple[str, str], str]:
    """``(domain, task id) -> "train" | "test"`` for every task."""
    splits = {}
    held = set(options.test_domains)
    fraction = DEFAULT_TEST_FRACTION if options.test_fraction is None else options.test_fraction
    for source in sources:
        name = source.domain.name
        if options.split == "domain":
            test = name in held or source.arg in held
            splits.update({(name, t.id): "test" if test else "train" for t in source.tasks})
            continue
        groups = sorted(dict.fromkeys(_group(t.id) for t in source.tasks), key=lambda g: _rank(options.seed, g))
        n = len(groups)
        k = min(max(round(fraction * n), 1 if fraction > 0 and n > 1 else 0), max(n - 1, 0))
        test_groups = set(groups[:k])
        splits.update({(name, t.id): "test" if _group(t.id) in test_groups else "train" for t in source.tasks})
    return splits


def _chosen(source: _Source, task: Task, options: SftOptions) -> list[Variant]:
    """The variants ``task`` is rendered in: all, or one drawn from the mixture."""
    if not options.mix:
        return list(source.variants.values())
    built = [source.variants[name] for name, _ in options.mix]
    weights = [w for _, w in options.mix]
    rng = random.Random(f"{options.seed}/{source.domain.name}/{task.id}")
    return rng.choices(built, weights=weights, k=1)


def _render(
    sources: list[_Source], splits: Mapping[tuple[str, str], str], options: SftOptions, progress: Progress | None
) -> _Written:
    written = _Written()
    plan = [(s, t, v) for s in sources for t in s.tasks for v in _chosen(s, t, options)]
    for done, (source, task, variant) in enumerate(plan, 1):
        spec = EpisodeSpec(source.domain, task, variant, task.world_seed, instruction=options.instruction)
        trace = asyncio.run(run_episode(spec, OracleBackend(), max_turns=ORACLE_MAX_TURNS))
        problem = _failure(task, trace)
        if problem:
            written.skipped.append({"domain": task.domain, "task_id": task.id, "variant": variant.name, "why": problem})
        else:
            split = splits[source.domain.name, task.id]
            row = SftRow(
                source.domain.name, task.id, task.content_hash, task.world_seed, variant.name, variant.spec, split
            )
            written.lines[split].append((row, _chat(trace, options.sequential)))
        if progress is not None:
            progress(done, len(plan), spec.episode_id)
    return written


def _failure(task: Task, trace: Trace) -> str | None:
    """Why the oracle's episode is no gold trajectory, or None when it is one."""
    if trace.end != "answered":
        return f"episode ended {trace.end}"
    if trace.rejected_calls:
        return f"{trace.rejected_calls} rejected call(s)"
    score = score_actions(task.gold, [a.to_action() for a in trace.actions], end=trace.end)
    if not score.success:
        return f"actions differ from the gold (missing {score.missing}, extra {score.extra})"
    return None


def _chat(trace: Trace, sequential: bool) -> dict[str, JSON]:
    """The OpenAI fine-tuning object of a trace (``content`` left out where it is None), with one
    call per assistant turn when ``sequential``; ``parallel_tool_calls`` says whether any assistant
    turn makes several calls."""
    messages = [{k: v for k, v in m.items() if v is not None} for m in trace.messages]
    if sequential:
        messages = _one_call_per_turn(messages)
    parallel = any(len(m.get("tool_calls") or ()) > 1 for m in messages)
    return {"messages": messages, "tools": trace.tools, "parallel_tool_calls": parallel}


def _one_call_per_turn(messages: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    """An assistant turn of k calls as k turns, each followed by its own tool reply. The replies
    stay valid: the adapter ran the calls one after another, in this order. Unchanged when tool
    call ids repeat (a reply could not be paired with its call)."""
    replies = [m for m in messages if m["role"] == "tool"]
    by_id = {m["tool_call_id"]: m for m in replies}
    if len(by_id) != len(replies):
        return messages
    out: list[dict[str, JSON]] = []
    for message in messages:
        calls = message.get("tool_calls") or []
        if message["role"] == "tool" or (message["role"] == "assistant" and len(calls) > 1):
            for index, call in enumerate(calls):  # a tool message is re-placed after its call
                first = {k: v for k, v in message.items() if k != "tool_calls"} if index == 0 else {"role": "assistant"}
                out += [{**first, "tool_calls": [call]}, by_id[call["id"]]]
            continue
        out.append(message)
        out += [by_id[c["id"]] for c in calls]
    return out


# ---------------------------------------------------------------------------------------------
# writers


def _write_openai(written: _Written, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    for old in ("data/train.parquet", "data/test.parquet", "README.md"):  # an earlier hf export
        (out / old).unlink(missing_ok=True)
    files = []
    for split in SPLITS:
        rows = written.lines[split]
        files.append(_write_lines(out / f"{split}.jsonl", (chat for _, chat in rows)))
        files.append(_write_lines(out / f"{split}.meta.jsonl", (asdict(row) for row, _ in rows)))
    return files


def _write_lines(path: Path, objects: Iterable[Mapping[str, JSON]]) -> Path:
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("w", encoding="utf-8", newline="\n") as f:
        for obj in objects:
            f.write(canonical_json(obj) + "\n")
    partial.replace(path)
    return path


def _hf_schema():  # noqa: ANN202  # pyarrow is imported lazily
    import pyarrow as pa

    call = pa.struct(
        [
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]
    )
    message = pa.struct(
        [
            ("role", pa.string()),
            ("content", pa.string()),
            ("tool_calls", pa.list_(call)),
            ("tool_call_id", pa.string()),
        ]
    )
    meta = [(f.name, pa.int64() if f.name == "world_seed" else pa.string()) for f in fields(SftRow)]
    return pa.schema([("messages", pa.list_(message)), ("tools", pa.string()), *meta])


def _write_hf(written: _Written, out: Path) -> list[Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _hf_schema()
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        for old in (f"{split}.jsonl", f"{split}.meta.jsonl"):  # an earlier openai export
            (out / old).unlink(missing_ok=True)
    files = []
    for split in SPLITS:
        rows = [
            {"messages": chat["messages"], "tools": canonical_json(chat["tools"]), **asdict(row)}
            for row, chat in written.lines[split]
        ]
        path = data / f"{split}.parquet"
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="zstd", write_statistics=False)
        files.append(path)
    card = out / "README.md"
    card.write_text(_card(written), encoding="utf-8")
    return [*files, card]


def _card(written: _Written) -> str:
    """The dataset card: the non-empty splits in the front matter, and what the columns hold."""
    lines = ["---", "configs:", "- config_name: default", "  data_files:"]
    for split in SPLITS:
        if written.lines[split]:
            lines += [f"  - split: {split}", f"    path: data/{split}.parquet"]
    lines += ["---", "", "# toolprism SFT data", ""]
    lines += [
        "Gold tool-calling trajectories of the toolprism suite, encoded in the exported variants (written by "
        "`toolprism export sft --format hf`; `manifest.json` names the options, splits and skipped episodes).",
        "",
        "| split | rows |",
        "|---|---|",
        *(f"| {s} | {len(written.lines[s])} |" for s in SPLITS),
        "",
        "| column | type | meaning |",
        "|---|---|---|",
        "| `messages` | list of structs | OpenAI chat messages: system, user, assistant tool calls "
        "(`arguments` as JSON text), tool replies, final answer; absent fields are null |",
        "| `tools` | JSON text | the tools shown, OpenAI format (`json.loads`; TRL's SFTTrainer decodes it) |",
        "| `domain`, `task_id`, `task_hash`, `world_seed` | string, int64 | the task and its pin |",
        "| `variant`, `variant_spec` | string | the interface the calls are encoded in |",
        "| `split` | string | `train` or `test` |",
        "",
    ]
    return "\n".join(lines)


def _manifest(sources: list[_Source], written: _Written, options: SftOptions) -> dict[str, JSON]:
    variants = {v.name: v.spec for s in sources for v in s.variants.values()}
    manifest: dict[str, JSON] = {
        "version": MANIFEST_VERSION,
        "toolprism": __version__,
        "format": options.format,
        "seed": options.seed,
        "task_seed": options.task_seed,
        "limit": options.limit,
        "instruction": options.instruction,
        "sequential": options.sequential,
        "variants": list(variants),
        "variant_specs": variants,
        "mix": dict(options.mix) if options.mix else None,
        "split_method": options.split,
        "test_fraction": (
            (DEFAULT_TEST_FRACTION if options.test_fraction is None else options.test_fraction)
            if options.split == "task"
            else None
        ),
        "test_domains": [_name_of(sources, d) for d in options.test_domains],
        "domains": [s.domain.name for s in sources],
        "domain_sources": {s.domain.name: s.arg for s in sources},
        "skipped": written.skipped,
    }
    for split in SPLITS:
        rows = [row for row, _ in written.lines[split]]
        manifest[split] = {
            "rows": len(rows),
            "variants": [v for v in variants if any(r.variant == v for r in rows)],
            "domains": list(dict.fromkeys(r.domain for r in rows)),
            "tasks": list(dict.fromkeys(r.task_id for r in rows)),
        }
    return manifest


def _name_of(sources: list[_Source], held: str) -> str:
    return next((s.domain.name for s in sources if held in (s.arg, s.domain.name)), held)


# ---------------------------------------------------------------------------------------------
# reading back


def read_sft(directory: str | Path) -> Iterator[SftExample]:
    """The rows of an export directory, train split first, in file order.

    Raises:
        ConfigError: no ``manifest.json`` in ``directory``, or a meta file whose length differs
            from its data file's.
    """
    directory = Path(directory)
    manifest = _read_manifest(directory)
    for split in SPLITS:
        if manifest["format"] == "hf":
            yield from _read_hf_split(directory, split)
            continue
        chats = _read_lines(directory / f"{split}.jsonl")
        metas = _read_lines(directory / f"{split}.meta.jsonl")
        if len(chats) != len(metas):
            raise ConfigError(
                f"{split}.jsonl has {len(chats)} rows but {split}.meta.jsonl {len(metas)}", what="SFT export"
            )
        for chat, meta in zip(chats, metas, strict=True):
            yield SftExample(chat["messages"], chat["tools"], SftRow(**meta))


def _read_manifest(directory: Path) -> dict[str, JSON]:
    path = directory / MANIFEST
    if not path.is_file():
        raise ConfigError(f"{path} not found; is {directory} an SFT export?", what="SFT export")
    return json.loads(path.read_text(encoding="utf-8"))


def _read_lines(path: Path) -> list[dict[str, JSON]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _read_hf_split(directory: Path, split: str) -> Iterator[SftExample]:
    import pyarrow.parquet as pq

    names = [f.name for f in fields(SftRow)]
    for record in pq.read_table(directory / "data" / f"{split}.parquet").to_pylist():
        messages = [{k: v for k, v in m.items() if v is not None} for m in record["messages"]]
        yield SftExample(messages, json.loads(record["tools"]), SftRow(**{n: record[n] for n in names}))


def replay_sft(directory: str | Path) -> list[Replay]:
    """Replay every row's assistant tool calls, in order, through a fresh
    :class:`~toolprism.shaping.AdapterSession` of the row's variant (rebuilt from its spec) over
    a fresh environment of the row's domain (from the manifest's ``domain_sources``) and world.

    The export's round trip (issue #17, "Done when"): for a faithful export every row's decoded
    actions match its task's gold as a multiset, nothing is rejected, and the replies match.

    Returns:
        One :class:`Replay` per row, in :func:`read_sft` order.

    Raises:
        ConfigError: not an export directory, or a domain or variant that no longer loads.
    """
    directory = Path(directory)
    sources = _read_manifest(directory)["domain_sources"]
    domains: dict[str, Domain] = {}
    variants: dict[tuple[str, str], Variant] = {}
    replays = []
    for example in read_sft(directory):
        row = example.row
        domain = domains.get(row.domain) or domains.setdefault(row.domain, get_domain(sources[row.domain]))
        key = (row.domain, row.variant_spec)
        variant = variants.get(key) or variants.setdefault(key, Variant.build(row.variant_spec, domain.action_space()))
        replays.append(_replay(example, domain, variant))
    return replays


def _replay(example: SftExample, domain: Domain, variant: Variant) -> Replay:
    session = AdapterSession(variant, domain.environment(example.row.world_seed).execute)
    replies = {m["tool_call_id"]: m["content"] for m in example.messages if m["role"] == "tool"}
    actions, rejected, match = [], 0, True
    for message in example.messages:
        for call in message.get("tool_calls") or ():
            function = call["function"]
            decision = session.handle(ToolCall(function["name"], json.loads(function["arguments"]), call["id"]))
            rejected += decision.outcome == "rejected"
            match &= replies.get(call["id"]) == decision.content
            if decision.outcome == "executed" and decision.action is not None:
                actions.append(decision.action)
    return Replay(example.row, tuple(actions), rejected, match)
