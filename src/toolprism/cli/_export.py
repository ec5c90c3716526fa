"""``toolprism export``: the suite's tasks for others (``toolprism export tasks``)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from toolprism.cli._common import ProgressReport, friendly_errors, print_json
from toolprism.cli._run import _split
from toolprism.domains import catalog_pack
from toolprism.errors import ConfigError
from toolprism.evaluation import expand_variants
from toolprism.interop import FORMATS, export_tasks, write_packs

app = typer.Typer(help="Export the suite's tasks so others can use them.", no_args_is_help=True)


@app.command("tasks")
@friendly_errors
def tasks(
    out: Annotated[Path, typer.Option(help="A .jsonl file (jsonl) or a directory (hf).")],
    format: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")] = "jsonl",
    domains: Annotated[
        list[str] | None,
        typer.Option("--domains", "-d", help="Domains or domain pack paths (comma list or repeated). Default: all."),
    ] = None,
    variants: Annotated[
        list[str] | None,
        typer.Option(
            "--variants", "-v", help="Variants whose encoded gold trace each task carries ('all': the suite)."
        ),
    ] = None,
    catalog: Annotated[
        Path | None,
        typer.Option(help="Your own tool catalog, exported with the tasks of --tasks (as 'toolprism run --catalog')."),
    ] = None,
    task_file: Annotated[
        Path | None, typer.Option("--tasks", help="With --catalog: your task file (JSON Lines; see the README).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Task and world seed.")] = 0,
    limit: Annotated[int | None, typer.Option(help="At most this many tasks per domain (default: all).")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing export at --out.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Write the tasks (and, per variant, the oracle's encoded gold trace) as JSON lines, or as a
    Hugging Face datasets directory (Parquet under data/ plus a README.md dataset card).

    Byte-identical for the same options. Default: every built-in domain, native only."""
    progress = ProgressReport("tasks", transient=True)

    def advance(done: int, total: int, task_id: str) -> None:
        progress.update(done=done, total=total, note=task_id)

    with progress, tempfile.TemporaryDirectory(prefix="toolprism-pack-") as packs:
        summary = export_tasks(
            out,
            format=format,  # type: ignore[arg-type]  # checked by export_tasks
            domains=_with_catalog(_split(domains), catalog, task_file, Path(packs)),
            variants=expand_variants(_split(variants) or ["native"]),
            seed=seed,
            limit=limit,
            overwrite=overwrite,
            progress=advance,
        )
    document = {
        "path": str(summary.path),
        "format": summary.format,
        "domains": list(summary.domains),
        "variants": list(summary.variants),
        "tasks": summary.tasks,
        "files": [str(f) for f in summary.files],
        "bytes": summary.bytes,
    }
    if json_output:
        print_json(document)
        return
    print(
        f"wrote {summary.tasks} tasks of {len(summary.domains)} domain(s), {len(summary.variants)} variant(s), "
        f"to {summary.path} ({summary.format}, {len(summary.files)} file(s), {summary.bytes:,} bytes)"
    )


def _with_catalog(
    domains: list[str] | None, catalog: Path | None, task_file: Path | None, packs: Path
) -> list[str] | None:
    """``domains`` plus the pack of ``--catalog`` and ``--tasks``, written into ``packs``.

    Raises:
        ConfigError: one of the two options without the other; the catalog's or task file's problems."""
    if (catalog is None) != (task_file is None):
        raise ConfigError("--catalog and --tasks go together: your tools and your task file", what="options")
    if catalog is None or task_file is None:
        return domains
    return [*(domains or []), str(write_packs([catalog_pack(catalog, task_file)], packs)[0])]
