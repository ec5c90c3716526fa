"""``toolprism export``: the suite's tasks for others (``toolprism export tasks``) and gold
trajectories as fine-tuning data (``toolprism export sft``)."""

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
from toolprism.train import SFT_FORMATS, SPLIT_METHODS, SftOptions, export_sft

app = typer.Typer(
    help="Export the suite's tasks so others can use them, or gold trajectories as fine-tuning data.",
    no_args_is_help=True,
)


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


@app.command("sft")
@friendly_errors
def sft(
    out: Annotated[Path, typer.Option("--out", "-o", help="The export directory (manifest.json and the splits).")],
    format: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(SFT_FORMATS)}.")] = "openai",
    variants: Annotated[
        list[str] | None,
        typer.Option("--variants", "-v", help="Variants the calls are encoded in ('all': the suite). Default: native."),
    ] = None,
    domains: Annotated[
        list[str] | None,
        typer.Option("--domains", "-d", help="Domains or domain pack paths (comma list or repeated). Default: all."),
    ] = None,
    split: Annotated[
        str, typer.Option(help=f"Hold out tasks or whole domains; one of: {', '.join(SPLIT_METHODS)}.")
    ] = "task",
    test_domains: Annotated[
        list[str] | None, typer.Option("--test-domains", help="Domains held out whole (--split domain).")
    ] = None,
    test_fraction: Annotated[
        float | None,
        typer.Option("--test-fraction", help="Share of each domain's tasks held out (--split task; default 0.2)."),
    ] = None,
    mix: Annotated[
        list[str] | None,
        typer.Option(help="Render each task in one variant drawn by weight, e.g. native=0.5,merge=0.5."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the split and the mixture draws.")] = 0,
    task_seed: Annotated[int, typer.Option(help="Task and world seed.")] = 0,
    limit: Annotated[int | None, typer.Option(help="At most this many tasks per domain (default: all).")] = None,
    instruction: Annotated[
        str, typer.Option(help="The system prompt's calling instruction, as a run's: toolprism or paper.")
    ] = "toolprism",
    sequential: Annotated[
        bool,
        typer.Option(
            help="One call per assistant turn, as the prompt asks; --no-sequential keeps the oracle's batches."
        ),
    ] = True,
    overwrite: Annotated[bool, typer.Option(help="Replace an earlier export in --out.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Write gold trajectories encoded in the chosen variants as fine-tuning data: the run's system
    prompt, the tools shown, the user query, the variant's tool calls with their replies and the
    final answer, played by the oracle through the real episode loop.

    openai: train.jsonl and test.jsonl in the OpenAI chat fine-tuning format, with each row's
    domain, task, variant and split in the line-aligned train.meta.jsonl / test.meta.jsonl. hf: a
    Hugging Face datasets directory (data/train.parquet, data/test.parquet, README.md) with
    messages, tools (JSON text) and the provenance columns.

    --split task holds out a seeded share of each domain's tasks (a task and its hard form stay
    together); --split domain holds out --test-domains whole. manifest.json records the options and
    per split the variants, domains, tasks and rows. Byte-identical for the same options."""
    progress = ProgressReport("episodes", transient=True)

    def advance(done: int, total: int, episode_id: str) -> None:
        progress.update(done=done, total=total, note=episode_id)

    options = SftOptions(
        variants=tuple(expand_variants(_split(variants))) if variants else None,
        domains=tuple(_split(domains) or ()) if domains else None,
        format=format,
        split=split,
        test_fraction=test_fraction,
        test_domains=tuple(_split(test_domains) or ()),
        mix=tuple(_split(mix) or ()) if mix else None,
        seed=seed,
        task_seed=task_seed,
        limit=limit,
        instruction=instruction,  # type: ignore[arg-type]  # checked by export_sft
        sequential=sequential,
    )
    with progress:
        summary = export_sft(out, options, overwrite=overwrite, progress=advance)
    manifest = summary.manifest
    document = {
        "path": str(summary.path),
        "format": summary.format,
        "rows": summary.rows,
        "skipped": summary.skipped,
        "files": [str(f) for f in summary.files],
        "bytes": summary.bytes,
        **{s: {k: manifest[s][k] for k in ("variants", "domains", "rows")} for s in ("train", "test")},
    }
    if json_output:
        print_json(document)
        return
    print(
        f"wrote {summary.rows['train']} train and {summary.rows['test']} test rows "
        f"({len(manifest['variants'])} variant(s), {len(manifest['domains'])} domain(s), "
        f"{summary.skipped} skipped) to {summary.path} ({summary.format}, {summary.bytes:,} bytes)"
    )
