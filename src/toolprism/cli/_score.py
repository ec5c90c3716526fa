"""``toolprism score RUN_DIR``: re-score a stored run (no model is called)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json
from toolprism.score import FailureMode, score_run


@friendly_errors
def score(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by 'toolprism run'.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print the scores as one JSON document.")] = False,
) -> None:
    """Recompute success, schema-form success and failure modes from the stored traces."""
    result = score_run(run_dir)
    if json_output:
        print_json(result.model_dump())
        return
    table = Table(title=f"re-scored: {result.run_dir}")
    for column in ("variant", "episodes", "success", "schema-form success", *(m.value for m in FailureMode)):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for v in result.variants:
        modes = [str(v.modes.get(m.value, 0)) for m in FailureMode]
        table.add_row(v.variant, str(v.episodes), f"{v.success_rate:.0%}", f"{v.schema_form_success_rate:.0%}", *modes)
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 160))
    console.print(table)
