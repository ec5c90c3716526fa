"""Task export: the suite's tasks, and per variant the encoded gold trace, as JSON lines or as a
Hugging Face ``datasets`` directory (Parquet under ``data/`` plus a dataset card).

One record per task: :meth:`Task.to_json` (id, domain, query, world_seed, kind, form, gold,
reference) plus ``encodings``: variant name → ``{"spec", "calls"}``, where ``calls`` are the tool
calls the oracle makes under that variant, in order, each ``{"name", "arguments", "reply"}``. They
come from the real episode loop (:func:`toolprism.run.run_episode` with
:class:`toolprism.backends.OracleBackend`), so a call that needs an earlier reply (a transaction id,
a handle) carries the value that reply gave.

Exports are byte-deterministic for the same options (no timings, no paths, sorted JSON keys).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolprism.backends import OracleBackend
from toolprism.domains import CatalogDomain, Domain, Task, domain_names, get_domain
from toolprism.errors import ConfigError, ToolprismError
from toolprism.run import EpisodeSpec, run_episode
from toolprism.schema import JSON, canonical_json
from toolprism.score import score_actions
from toolprism.shaping import Variant

ExportFormat = Literal["jsonl", "hf"]
FORMATS: tuple[str, ...] = ("jsonl", "hf")
HF_COLUMNS = ("id", "domain", "query", "world_seed", "kind", "form", "gold", "reference", "encodings")
"""Parquet columns, in order; ``gold``, ``reference`` and ``encodings`` hold JSON text."""
_JSON_COLUMNS = ("gold", "reference", "encodings")
BUILTIN_LICENCE = "Apache-2.0"
"""Licence of the built-in domains' tasks (the project's)."""

ORACLE_MAX_TURNS = 256
"""Turn limit of the oracle's episodes: an encoding is exported whole however many turns a stacked
protocol takes (the evaluation's own limit is a run option, not a property of the encoding)."""

Progress = Callable[[int, int, str], None]
"""Called after each task with (tasks done, tasks in all, task id)."""


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote.

    Attributes:
        path: the file (jsonl) or directory (hf).
        format: ``jsonl`` or ``hf``.
        domains: domain names, in export order.
        variants: variant names whose encoded traces each record carries.
        tasks: records written.
        files: every file written.
        bytes: their total size.
    """

    path: Path
    format: str
    domains: tuple[str, ...]
    variants: tuple[str, ...]
    tasks: int
    files: tuple[Path, ...]
    bytes: int


@dataclass(frozen=True)
class _Source:
    domain: Domain
    tasks: list[Task]
    variants: list[Variant]


def export_tasks(
    out: str | Path,
    *,
    format: ExportFormat = "jsonl",
    domains: Sequence[str] | None = None,
    variants: Sequence[str] = ("native",),
    seed: int = 0,
    limit: int | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
) -> ExportSummary:
    """Export the tasks of ``domains`` at ``seed`` with the oracle's encoded gold trace per variant.

    Args:
        out: a ``.jsonl`` file (``jsonl``) or a directory (``hf``).
        format: ``jsonl``: one record per line (see module doc), sorted keys. ``hf``: Parquet files
            ``data/<domain>.parquet`` (columns :data:`HF_COLUMNS`) and ``README.md`` with YAML
            front matter: one config per domain and ``all`` (the default), split ``test``.
        domains: built-in names or domain pack paths (default: every built-in domain).
        variants: variant names or spec strings (default: native only).
        seed: task and world seed.
        limit: at most this many tasks per domain (the first ones: easy forms come first).
        overwrite: replace an existing export at ``out`` (for ``hf``: its ``README.md`` and
            ``data/*.parquet``); without it an existing target is an error.
        progress: see :data:`Progress`.

    Raises:
        ConfigError: unknown format, domain or variant, a variant that does not apply to a
            domain, or an existing target without ``overwrite``; all raised before writing.
        ToolprismError: the oracle failed to reproduce a gold trace (a bug, not a user error).
    """
    out = Path(out)
    sources = _sources(format, domains or domain_names(), variants, seed, limit)
    _check_target(out, format, overwrite)
    total = sum(len(s.tasks) for s in sources)
    records = _records(sources, total, progress)
    if format == "jsonl":
        files = _write_jsonl(records, out)
    else:
        files = _write_hf(sources, records, out)
    return ExportSummary(
        path=out,
        format=format,
        domains=tuple(s.domain.name for s in sources),
        variants=tuple(v.name for v in sources[0].variants) if sources else (),
        tasks=total,
        files=tuple(files),
        bytes=sum(f.stat().st_size for f in files),
    )


def encoded_gold(domain: Domain, task: Task, variant: Variant) -> list[dict[str, JSON]]:
    """The oracle's calls for ``task`` under ``variant``: ``[{"name", "arguments", "reply"}]``.

    Raises:
        ToolprismError: the oracle's episode did not end answered with exactly the gold actions
            and no rejected call.
    """
    spec = EpisodeSpec(domain, task, variant, task.world_seed)
    trace = asyncio.run(run_episode(spec, OracleBackend(), max_turns=ORACLE_MAX_TURNS))
    actions = [a.to_action() for a in trace.actions]
    if trace.end != "answered" or trace.rejected_calls or not score_actions(task.gold, actions).success:
        raise ToolprismError(
            f"the oracle did not reproduce the gold of {task.id} under {variant.name!r} "
            f"(end {trace.end}, {trace.rejected_calls} rejected call(s)); this is a bug in the variant or domain"
        )
    return [{"name": c.name, "arguments": c.arguments, "reply": c.reply} for t in trace.turns for c in t.calls]


def task_from_json(data: Mapping[str, JSON]) -> Task:
    """Rebuild a :class:`Task` from :meth:`Task.to_json` output (an export record works too;
    its ``encodings`` are ignored); see :meth:`Task.from_json`."""
    return Task.from_json(data)


def read_hf_records(directory: str | Path) -> list[dict[str, JSON]]:
    """The records of an ``hf`` export (JSON columns decoded), in file order of ``data/*.parquet``."""
    import pyarrow.parquet as pq

    records = []
    for path in sorted((Path(directory) / "data").glob("*.parquet")):
        for row in pq.read_table(path).to_pylist():
            records.append({k: json.loads(v) if k in _JSON_COLUMNS else v for k, v in row.items()})
    return records


# ---------------------------------------------------------------------------------------------
# what to export


def _sources(
    format: str, domains: Sequence[str], variants: Sequence[str], seed: int, limit: int | None
) -> list[_Source]:
    problems: list[str] = []
    if format not in FORMATS:
        problems.append(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    if seed < 0:
        problems.append(f"seed must be at least 0, got {seed}")
    if limit is not None and limit < 1:
        problems.append(f"limit must be at least 1, got {limit}")
    if not domains or not variants:
        problems.append("at least one domain and one variant are needed")
    for kind, names in (("domain", domains), ("variant", variants)):
        problems += [f"{kind} {n!r} is listed more than once" for n in sorted(set(names)) if names.count(n) > 1]
    sources = []
    for name in dict.fromkeys(domains):
        try:
            domain = get_domain(name)
            tasks = domain.tasks(seed, limit)
        except ConfigError as e:
            named = len(e.problems) == 1 and name in e.problems[0]  # "unknown domain 'x' ..." names it already
            problems += e.problems if named else [f"{name}: {p}" for p in e.problems]
            continue
        built = []
        for v in dict.fromkeys(variants):
            try:
                built.append(Variant.build(v, domain.action_space()))
            except ConfigError as e:
                problems += [f"variant {v!r} on {domain.name}: {p}" for p in e.problems]
        sources.append(_Source(domain, tasks, built))
    names = [s.domain.name for s in sources]
    problems += [f"two domains are named {n!r}" for n in sorted(set(names)) if names.count(n) > 1]
    if problems:
        raise ConfigError(problems, what="export options")
    return sources


def _check_target(out: Path, format: str, overwrite: bool) -> None:
    if format == "jsonl" and out.is_dir():
        raise ConfigError(f"{out} is a directory; jsonl writes one file", what="export target")
    if format == "hf" and out.exists() and not out.is_dir():
        raise ConfigError(f"{out} is a file; hf writes a directory", what="export target")
    exists = out.is_file() if format == "jsonl" else out.is_dir() and any(out.iterdir())
    if exists and not overwrite:
        raise ConfigError(f"{out} already exists; remove it or pass --overwrite", what="export target")


def _records(sources: list[_Source], total: int, progress: Progress | None) -> Iterator[tuple[str, dict]]:
    """``(domain name, record)`` for every task, in domain then task order."""
    done = 0
    for source in sources:
        for task in source.tasks:
            encodings = {
                v.name: {"spec": v.spec, "calls": encoded_gold(source.domain, task, v)} for v in source.variants
            }
            done += 1
            if progress is not None:
                progress(done, total, task.id)
            yield source.domain.name, {**task.to_json(), "encodings": encodings}


# ---------------------------------------------------------------------------------------------
# writers


def _write_jsonl(records: Iterator[tuple[str, dict]], out: Path) -> list[Path]:
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    with partial.open("w", encoding="utf-8", newline="\n") as f:
        for _, record in records:
            f.write(canonical_json(record) + "\n")
    partial.replace(out)
    return [out]


def _write_hf(sources: list[_Source], records: Iterator[tuple[str, dict]], out: Path) -> list[Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [(c, pa.int64() if c == "world_seed" else pa.string()) for c in HF_COLUMNS],
    )
    rows: dict[str, list[dict]] = {s.domain.name: [] for s in sources}
    for domain, record in records:  # every episode runs before anything is replaced
        rows[domain].append({c: canonical_json(record[c]) if c in _JSON_COLUMNS else record[c] for c in HF_COLUMNS})
    data = out / "data"
    if data.is_dir():
        for old in data.glob("*.parquet"):
            old.unlink()
    data.mkdir(parents=True, exist_ok=True)
    files = []
    for domain, domain_rows in rows.items():
        path = data / f"{domain}.parquet"
        table = pa.Table.from_pylist(domain_rows, schema=schema)
        pq.write_table(table, path, compression="zstd", write_statistics=False)
        files.append(path)
    card = out / "README.md"
    card.write_text(_card(sources, {d: len(r) for d, r in rows.items()}), encoding="utf-8")
    return [*files, card]


def _card(sources: list[_Source], counts: Mapping[str, int]) -> str:
    """The dataset card: YAML front matter (configs and splits) and a description of the fields."""
    names = [s.domain.name for s in sources]
    licences = sorted({_licence(s.domain)[0] for s in sources})
    variants = [f"`{v.name}` (`{v.spec}`)" for v in sources[0].variants]
    lines = ["---", f"license: {licences[0].lower() if len(licences) == 1 else 'other'}", "configs:"]
    lines += ["- config_name: all", "  default: true", "  data_files:", "  - split: test", "    path: data/*.parquet"]
    for name in names:
        lines += [f"- config_name: {name}", "  data_files:", "  - split: test", f"    path: data/{name}.parquet"]
    lines += ["---", "", "# toolprism tasks", ""]
    lines += [
        "Tasks of the toolprism suite (written by `toolprism export tasks --format hf`), each with the oracle's "
        "encoded gold trace under every exported variant.",
        "",
        f"Task seed: {sources[0].tasks[0].world_seed if sources and sources[0].tasks else 0}. "
        f"Variants: {', '.join(variants)}.",
        "",
        "| config | tasks | licence | attribution |",
        "|---|---|---|---|",
    ]
    for source in sources:
        licence, attribution = _licence(source.domain)
        lines.append(f"| {source.domain.name} | {counts[source.domain.name]} | {licence} | {attribution} |")
    lines += [
        "",
        "## Fields",
        "",
        "Nested fields are stored as JSON text (canonical: sorted keys, no spaces); decode them with `json.loads`.",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
        "| `id` | string | `<domain>/<template>/<index>`, `/hard` appended for the hard form |",
        "| `domain` | string | the domain |",
        "| `query` | string | the user's request |",
        "| `world_seed` | int64 | the seed of the initial state the task is posed on |",
        "| `kind` | string | `single`, `compound` or `compositional` |",
        "| `form` | string | `easy` (direct) or `hard` (indirect, reordered, with chatter) |",
        '| `gold` | JSON text | the native actions, `[{"op", "args"}]`, scored as a multiset |',
        '| `reference` | JSON text | the gold actions run in order, `[{"action", "reply"}]` |',
        '| `encodings` | JSON text | variant → `{"spec", "calls": [{"name", "arguments", "reply"}]}` |',
        "",
    ]
    return "\n".join(lines)


def _licence(domain: Domain) -> tuple[str, str]:
    if isinstance(domain, CatalogDomain):
        return domain.licence or "unknown", domain.attribution
    return BUILTIN_LICENCE, "toolprism built-in domain"
