"""``toolprism diagnose RUN_DIR``: counterfactual repair of a run's failed episodes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import counting_progress, friendly_errors, print_json
from toolprism.repair import diagnose_run

REPORT = "diagnose.json"


@friendly_errors
def diagnose(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory written by 'toolprism run'.")],
    limit: Annotated[int | None, typer.Option(help="Repair at most this many failed episodes.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as one JSON document.")] = False,
) -> None:
    """Counterfactual repair: re-run failed episodes with their error corrected; tiers 1-3.

    Each failed episode is re-run with its attributed primary error corrected (the clean return
    restored, the right tool or value named, the calling convention given, or more turns), then
    with the gold calls spelled out, using the run's own model; each failure is Tier 1 (the
    first repair recovers it), Tier 2 (only the second does) or Tier 3 (neither).

    The report is also written to RUN_DIR/diagnose.json."""
    progress = counting_progress("repairing")
    bar = progress.add_task("finding failed episodes", total=None)

    def advance(done: int, total: int, episode_id: str) -> None:
        progress.update(bar, completed=done, total=total, description=episode_id)

    with progress:
        report = diagnose_run(run_dir, limit=limit, progress=advance)
    (Path(run_dir) / REPORT).write_text(json.dumps(report.model_dump(), indent=2) + "\n")
    if json_output:
        print_json(report.model_dump())
        return
    if not report.repairs:
        Console().print(f"no failed episodes to repair in {run_dir}", markup=False)
        return
    table = Table(title=f"counterfactual repair of {report.failures} failed episode(s): {run_dir}")
    for column in ("source stage", "primary error", "failures", "tier 1", "tier 2", "tier 3"):
        table.add_column(column, justify="left" if column in ("source stage", "primary error") else "right")
    cells = Counter((r.source_stage, r.primary_error, r.tier) for r in report.repairs)
    for stage, error in sorted({(r.source_stage, r.primary_error) for r in report.repairs}):
        tiers = [cells[(stage, error, t)] for t in (1, 2, 3)]
        table.add_row(stage, error, str(sum(tiers)), *map(str, tiers))
    Console().print(table)
    Console().print(f"report written to {Path(run_dir) / REPORT}", markup=False)
