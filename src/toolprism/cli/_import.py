"""``toolprism import``: other benchmarks as domain packs (``toolschemaspace``, ``tau2``, ``bfcl``), your own
catalog and tasks (``catalog``), an MCP server's tools as a catalog (``mcp``)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json, stderr
from toolprism.cli._run import _split
from toolprism.domains import DEFAULT_POLICY, TASK_KINDS, catalog_pack
from toolprism.interop import BFCL_CATEGORIES, DEFAULT_OUT, import_mcp, import_tau2, import_toolschemaspace, write_packs

app = typer.Typer(help="Import another benchmark's catalog and tasks as domain packs.", no_args_is_help=True)


@app.command("catalog")
@friendly_errors
def catalog(
    catalog: Annotated[
        Path,
        typer.Option(
            help="Your tool catalog: OpenAI tools, MCP tools/list, BFCL function docs or ToolSchemaSpace tools.json."
        ),
    ],
    tasks: Annotated[
        Path, typer.Option(help="Your task file: JSON Lines, a query and its gold calls per line (see the README).")
    ],
    out: Annotated[Path, typer.Option(help="Directory for the pack (<name>.json).")] = Path("imported"),
    name: Annotated[
        str | None, typer.Option(help="The domain name (default: the catalog file's name up to its first dot).")
    ] = None,
    policy: Annotated[str, typer.Option(help="The system prompt text of the domain.")] = DEFAULT_POLICY,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Make a domain pack of your own tools and tasks, with an action-log environment (writes are
    logged; a call is answered with the task file's scripted reply for it, else acknowledged).

    Everything is checked first (each gold call against the catalog's schemas); nothing is written
    when anything is wrong. 'toolprism run --catalog TOOLS --tasks FILE' does the same inside a run;
    the pack runs anywhere a domain does: 'toolprism run -d <pack>.json', 'toolprism validate -d
    <pack>.json', 'toolprism variants show SPEC -d <pack>.json', 'toolprism export tasks -d <pack>.json'."""
    pack = catalog_pack(catalog, tasks, name=name, policy=policy)
    path = write_packs([pack], out)[0]
    kinds = Counter(t.kind for t in pack.tasks)
    row = {
        "domain": pack.name,
        "path": str(path),
        "tools": len(pack.tools),
        "reads": sum(t.kind == "read" for t in pack.tools),
    }
    row |= {"tasks": len(pack.tasks), "by_kind": {k: kinds.get(k, 0) for k in TASK_KINDS}}
    if json_output:
        print_json(row)
        return
    print(f"wrote {path}: {row['tools']} tools ({row['reads']} reads), {row['tasks']} tasks")
    print(f"run:      toolprism run --model oracle -d {path}")


@app.command("tau2")
@friendly_errors
def tau2(
    tools: Annotated[Path, typer.Option(help="tau2-bench's tool schemas of the domain, an OpenAI tools list.")],
    tasks: Annotated[Path, typer.Option(help="tau2-bench's tasks.json of the domain.")],
    db: Annotated[Path, typer.Option(help="tau2-bench's db.json of the domain (retail).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the pack (<name>.json).")] = Path("imported"),
    name: Annotated[str, typer.Option(help="The domain name (task ids start with it).")] = "tau2_retail",
    policy: Annotated[
        Path | None, typer.Option(help="tau2-bench's policy.md, the system prompt (default: a short one of ours).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Import a tau2-bench domain (retail) as a stateful pack: tau2's database is the state, the
    tools run with tau2's semantics, and the state hash is tau2's database hash, so a run's final-state
    check is tau2's DB check. Each task is posed as one user message (tau2's brief to its simulated
    customer); its gold is the task's evaluation_criteria.actions.

    Everything is checked first (tools have executors, the database fits tau2's model, every gold
    action fits its tool); nothing is written when anything is wrong. Then: 'toolprism run -d
    <pack>.json --model oracle -v native,merge,transaction' and 'toolprism score RUN_DIR --scorer tau2'
    (toolprism's multiset score beside tau2's reward)."""
    started = time.perf_counter()
    pack = import_tau2(tools, tasks, db, name=name, policy=policy)
    path = write_packs([pack], out)[0]  # type: ignore[list-item]  # any pack with a name and dumps()
    domain = pack.domain()
    imported = domain.tasks()
    row = {
        "domain": pack.name,
        "path": str(path),
        "tools": len(domain.action_space().operations),
        "writes": sum(op.kind == "write" for op in domain.action_space().operations),
        "tasks": len(imported),
        "gold_actions": sum(len(t.gold) for t in imported),
        "refused_gold_actions": sum(
            isinstance(s.reply, dict) and "error" in s.reply for t in imported for s in t.reference
        ),
        "with_communicate_info": sum(bool(t.facts) for t in imported),
        "seconds": round(time.perf_counter() - started, 2),
    }
    if json_output:
        print_json(row)
        return
    print(
        f"wrote {path}: {row['tools']} tools ({row['writes']} writes), {row['tasks']} tasks, "
        f"{row['gold_actions']} gold actions ({row['refused_gold_actions']} refused, as in tau2), "
        f"{row['with_communicate_info']} tasks with communicate_info"
    )
    print(f"run:      toolprism run --model oracle -d {path} -v native,merge,transaction --max-turns 100")


@app.command("mcp")
@friendly_errors
def mcp(
    command: Annotated[
        list[str],
        typer.Argument(
            help="The MCP server's command line, after '--' (e.g. -- mcp-server-time --local-timezone UTC).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="The catalog file to write. Default: <server name>.tools.json here."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Start an MCP server over stdio (the official mcp SDK's client), read its tools (tools/list: input
    and output schemas, annotations) and write them as a catalog file, the tools/list result itself.

    Every command's --catalog reads the file: 'toolprism variants show SPEC --catalog FILE',
    'toolprism validate --catalog FILE', 'toolprism run --catalog FILE --tasks TASKS'. To run episodes
    against the live server instead of an action log: 'toolprism run --mcp "CMD ARGS" --tasks TASKS'.
    A command that is no MCP server, or a server that exits, is an error naming the cause and the
    server's last stderr lines. Needs the extra toolprism\\[mcp]."""
    path, catalog = import_mcp(command, out)
    tools = catalog["tools"]
    row = {
        "path": str(path),
        "server": catalog["_meta"]["toolprism/server"]["name"],
        "tools": len(tools),
        "reads": sum(bool((t.get("annotations") or {}).get("readOnlyHint")) for t in tools),
        "with_output_schema": sum("outputSchema" in t for t in tools),
    }
    if json_output:
        print_json(row)
        return
    print(f"wrote {path}: {row['tools']} tools of MCP server {row['server']!r} ({row['reads']} read-only)")
    print(f"show:     toolprism variants show discovery --catalog {path}")


@app.command("toolschemaspace")
@friendly_errors
def toolschemaspace(
    tools: Annotated[Path, typer.Option(help="The release's tools.json.")],
    queries: Annotated[Path, typer.Option(help="The release's queries.jsonl (or a head of it).")],
    out: Annotated[Path, typer.Option(help="Directory for the packs (one <domain>.json each).")] = DEFAULT_OUT,
    domains: Annotated[
        list[str] | None,
        typer.Option(
            "--domains",
            "-d",
            help="Tool groups to import (comma list or repeated); the tasks of other groups are skipped. "
            "Default: every group of the tools file.",
        ),
    ] = None,
    whole_catalog: Annotated[
        bool,
        typer.Option(
            "--whole-catalog",
            help="Write one pack, tss_whole_catalog, over every imported group instead (tools <group>__<name>, "
            "group = class: the paper's class arms).",
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Turn the ToolSchemaSpace release (the Action-Space Shaping paper's benchmark) into one domain
    pack per tool group,
    named tss_<group>, with an action-log environment (writes are recorded, replies acknowledge);
    with --whole-catalog, one pack tss_whole_catalog over every group instead.

    Tasks: with --domains, only those groups' tasks are read; without, a task whose domain is not a
    group of the tools file is an error (one line per such domain; pass --domains to import the
    groups the tools file has). Tool names that are not valid tool names (dotted, non-ASCII) are
    renamed reversibly, gold calls with them; each rename is a 'note:' line on stderr.

    Everything is checked before anything is written, down to each pack loading back as
    'toolprism run' reads it. Run a pack with
    'toolprism run -d <pack>.json' or validate it with 'toolprism validate -d <pack>.json'."""
    started = time.perf_counter()
    imported = import_toolschemaspace(tools, queries, domains=_split(domains), whole_catalog=whole_catalog)
    for note in imported.notes:
        stderr.print(f"note: {note}", markup=False, soft_wrap=True)
    paths = write_packs(imported.packs, out)
    rows = []
    for pack, path in zip(imported.packs, paths, strict=True):
        kinds = Counter(t.kind for t in pack.tasks)
        rows.append(
            {
                "domain": pack.name,
                "path": str(path),
                "tools": len(pack.tools),
                "reads": sum(t.kind == "read" for t in pack.tools),
                "tasks": len(pack.tasks),
                "by_kind": {k: kinds.get(k, 0) for k in TASK_KINDS},
            }
        )
    seconds = round(time.perf_counter() - started, 2)
    if json_output:
        skipped = list(imported.without_tasks)
        notes = list(imported.notes)
        print_json({"out": str(out), "domains": rows, "without_tasks": skipped, "notes": notes, "seconds": seconds})
        return
    _print_summary(rows, imported.without_tasks, out, seconds)


@app.command("bfcl")
@friendly_errors
def bfcl(
    data: Annotated[
        Path, typer.Option(help="BFCL's data directory: BFCL_v4_<category>.json and possible_answer/ (JSON Lines).")
    ],
    category: Annotated[
        list[str],
        typer.Option(
            "--category",
            "-c",
            help=f"Categories (comma list or repeated): {', '.join(BFCL_CATEGORIES)} ('simple' = simple_python). "
            "An irrelevance pack has no gold call: answering without one is the success.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the packs: OUT/<category>/<id>.json.")] = Path(
        "imported/bfcl"
    ),
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N entries of each category.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Turn BFCL's single-turn entries into domain packs, one per entry: its own functions as the
    tools, its question as the one task, one acceptable answer as the gold.

    Run them like any pack ('toolprism run --model oracle -d OUT/simple_python/simple_python_0.json,...'),
    then score the run BFCL's way beside toolprism's: 'toolprism score RUN_DIR --bfcl DATA'
    (BFCL's AST checker, with every acceptable value of the possible answer, over the native calls
    the adapter decoded, so under any variant). An entry whose possible answer has no value its
    own schema accepts is skipped and named on stderr."""
    from toolprism.interop import category_name, import_bfcl

    started = time.perf_counter()
    rows = []
    for name in _split(category) or []:
        imported = import_bfcl(data, name, limit=limit)
        paths = write_packs(imported.packs, out / category_name(name))
        for entry, reason in imported.skipped:
            stderr.print(f"skipped {entry}: {reason}", markup=False, soft_wrap=True)
        calls = sum(len(p.tasks[0].gold) for p in imported.packs)
        directory = str(paths[0].parent) if paths else ""
        skipped = [{"entry": e, "reason": r} for e, r in imported.skipped]
        rows.append(
            {
                "category": category_name(name),
                "dir": directory,
                "packs": len(paths),
                "gold_calls": calls,
                "skipped": skipped,
            }
        )
    seconds = round(time.perf_counter() - started, 2)
    if json_output:
        print_json({"out": str(out), "categories": rows, "seconds": seconds})
        return
    for r in rows:
        made = f"{r['packs']} packs ({r['gold_calls']} gold calls) in {r['dir']}"
        print(f"{r['category']}: {made}, {len(r['skipped'])} skipped")
    print(f"done in {seconds:.2f}s; score a run of them with: toolprism score RUN_DIR --bfcl {data}")


def _print_summary(rows: list[dict], without_tasks: tuple[str, ...], out: Path, seconds: float) -> None:
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 140))
    table = Table(title=f"imported from ToolSchemaSpace into {out}")
    for column in ("domain", "tools", "reads", "tasks", *TASK_KINDS):
        table.add_column(column, justify="left" if column == "domain" else "right")
    for r in rows:
        table.add_row(r["domain"], str(r["tools"]), str(r["reads"]), str(r["tasks"]), *map(str, r["by_kind"].values()))
    table.add_section()
    totals = [sum(r[k] for r in rows) for k in ("tools", "reads", "tasks")]
    by_kind = [str(sum(r["by_kind"][k] for r in rows)) for k in TASK_KINDS]
    table.add_row(f"total ({len(rows)} domains)", *map(str, totals), *by_kind)
    console.print(table)
    console.print(
        f"{len(rows)} pack(s) written in {seconds:.2f}s; each task has an easy and a hard form.", markup=False
    )
    for group in without_tasks:
        stderr.print(f"skipped group {group!r}: no task in the queries file", markup=False)
    if rows:
        first = rows[0]["path"]
        console.print(f"run:      toolprism run --model oracle -d {first}", markup=False, soft_wrap=True)
        console.print(f"validate: toolprism validate -d {first}", markup=False, soft_wrap=True)
