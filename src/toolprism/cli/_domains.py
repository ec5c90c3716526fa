"""``toolprism domains``: the built-in domains with their operation, enum-argument and task counts."""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json
from toolprism.domains import TASK_KINDS, domain_names, get_domain, task_set_hash


def domain_row(name: str, seed: int) -> dict:
    """Counts for one domain at ``seed``: operations, enum arguments, tasks by kind and form,
    and the histogram of gold calls per task (over distinct drafts, i.e. easy forms)."""
    domain = get_domain(name)
    operations = domain.action_space().operations
    tasks = domain.tasks(seed)
    drafts = [t for t in tasks if t.form == "easy"]
    kinds = Counter(t.kind for t in drafts)
    return {
        "domain": name,
        "operations": len(operations),
        "reads": sum(op.kind == "read" for op in operations),
        "writes": sum(op.kind == "write" for op in operations),
        "enum_arguments": sum(p.enum is not None for op in operations for p in op.params),
        "tasks": len(tasks),
        "easy": len(drafts),
        "hard": sum(t.form == "hard" for t in tasks),
        "by_kind": {kind: kinds.get(kind, 0) for kind in TASK_KINDS},
        "gold_calls": dict(sorted(Counter(len(t.gold) for t in drafts).items())),
    }


def hash_row(name: str, seed: int) -> dict:
    """The pin of one domain's task set at ``seed``: its version, task count and set hash."""
    domain = get_domain(name)
    tasks = domain.tasks(seed)
    return {
        "domain": name,
        "seed": seed,
        "version": domain.version,
        "tasks": len(tasks),
        "set_hash": task_set_hash(tasks),
    }


@friendly_errors
def domains(
    seed: Annotated[int, typer.Option("--seed", min=0, help="World and task seed the task counts are for.")] = 0,
    hashes: Annotated[
        bool,
        typer.Option(
            "--hashes",
            help="Print each domain's version and task-set hash instead of the counts (what run headers and "
            "tests/domains/pinned_task_sets.json pin).",
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON list of per-domain rows.")] = False,
) -> None:
    """List the built-in domains: operations (read/write), enumerated arguments, and tasks.

    Each task has an easy and a hard form of the same query; task kinds and the gold-calls
    histogram count distinct tasks (easy forms). With --hashes: the pinned task-set hashes (a
    run records each task's content hash, and score, diagnose and --resume refuse a run whose
    tasks the code now generates differently)."""
    if hashes:
        rows = [hash_row(name, seed) for name in domain_names()]
        if json_output:
            print_json(rows)
            return
        table = Table(title=f"task-set hashes (seed {seed})")
        for column in ("domain", "version", "tasks", "set hash"):
            table.add_column(column, justify="right" if column in ("version", "tasks") else "left")
        for r in rows:
            table.add_row(r["domain"], str(r["version"]), str(r["tasks"]), r["set_hash"])
        Console().print(table)
        return
    rows = [domain_row(name, seed) for name in domain_names()]
    if json_output:
        print_json(rows)
        return
    table = Table(title=f"built-in domains (seed {seed})")
    columns = ("domain", "ops", "read/write", "enum args", "tasks", *TASK_KINDS, "gold calls: count")
    for column in columns:
        table.add_column(column, justify="left" if column in ("domain", "gold calls: count") else "right")
    for r in rows:
        histogram = " ".join(f"{n}:{c}" for n, c in r["gold_calls"].items())
        kinds = [str(r["by_kind"][k]) for k in TASK_KINDS]
        table.add_row(
            r["domain"], str(r["operations"]), f"{r['reads']}/{r['writes']}", str(r["enum_arguments"]),
            f"{r['tasks']} ({r['easy']}+{r['hard']} hard)", *kinds, histogram,
        )  # fmt: skip
    total = [sum(r[k] for r in rows) for k in ("operations", "enum_arguments", "tasks")]
    table.add_section()
    table.add_row("total", str(total[0]), "", str(total[1]), str(total[2]))
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 140))
    console.print(table)
