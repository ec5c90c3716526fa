"""``toolprism diagnose RUN_DIR``: counterfactual repair of a run's failed episodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import ProgressReport, friendly_errors, print_json
from toolprism.repair import TIER_NAMES, TIER_RULES, TIERS, Recovery, diagnose_run

REPORT = "diagnose.json"


@friendly_errors
def diagnose(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory written by 'toolprism run'.")],
    limit: Annotated[int | None, typer.Option(help="Repair at most this many failed episodes.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as one JSON document.")] = False,
) -> None:
    """Tiers assigned before repair, then one repair per failure: recovery per tier.

    Each failed episode first gets its tier from its scored trace alone: 1 direct (the source
    stage failed alone), 2 cascade (the source is upstream of other failed stages), 3 evidence
    lost (a value the task needs was taken out of the episode by a perturbation and is nowhere
    else in it). Then it is re-run once, with the run's own model, with its attributed primary
    error corrected (the clean return restored, the right tool or value named, the calling
    convention given, or more turns); the report gives recovered/failures per tier and overall,
    with 95% Wilson intervals (ToolRobustBench, section 5; the tier rule is toolprism's reading).

    The report is also written to RUN_DIR/diagnose.json."""
    progress = ProgressReport("repairs", transient=True)

    def advance(done: int, total: int, episode_id: str) -> None:
        progress.update(done=done, total=total, note=episode_id)

    with progress:
        report = diagnose_run(run_dir, limit=limit, progress=advance)
    (Path(run_dir) / REPORT).write_text(json.dumps(report.model_dump(), indent=2) + "\n")
    if json_output:
        print_json(report.model_dump())
        return
    for missed in report.not_repaired:
        Console(stderr=True).print(
            f"not repaired ({missed['end']}): {missed['episode_id']}: {missed['error']}", markup=False, soft_wrap=True
        )
    if not report.repairs:
        Console().print(f"no failed episodes repaired in {run_dir}", markup=False)
        return
    table = Table(title=f"repair of {report.failures} failed episode(s), tiers assigned before repair: {run_dir}")
    for column in ("tier", "", "failures", "recovered", "rate", "95% interval"):
        table.add_column(column, justify="left" if column in ("tier", "") else "right")
    for row in [*report.tiers, report.overall]:
        table.add_row(*_cells(row), end_section=row.tier == 3)
    Console().print(table)
    for tier in TIERS:
        Console().print(f"tier {tier}: {TIER_RULES[tier]}", markup=False)
    Console().print(f"report written to {Path(run_dir) / REPORT}", markup=False)


def _cells(row: Recovery) -> list[str]:
    tier, name = ("all", "overall") if row.tier is None else (str(row.tier), TIER_NAMES[row.tier])
    if row.rate is None or row.low is None or row.high is None:
        return [tier, name, "0", "0", "-", "-"]
    interval = f"{row.low:.1%}-{row.high:.1%}"
    return [tier, name, str(row.failures), str(row.recovered), f"{row.rate:.1%}", interval]
