"""``toolprism perturbations``: the fourteen subtypes, their severities and the mixed pairs."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json
from toolprism.perturb import FAMILIES, MIXED_PAIRS, SEVERITIES, SUBTYPES, suite


def subtype_rows() -> list[dict]:
    """One row per subtype: id, family, name, stages, and each severity's description and strength."""
    suite()  # loads the subtype modules
    rows = []
    for name in sorted(SUBTYPES.names()):
        s = SUBTYPES.get(name)
        rows.append(
            {
                "id": s.id,
                "family": FAMILIES[s.family],
                "name": s.name,
                "primary_stage": s.primary,
                "spillover": list(s.spillover),
                "levels": {v: {"does": s.levels[v], "strength": s.strength[v]} for v in SEVERITIES},
            }
        )
    return rows


@friendly_errors
def perturbations(
    json_output: Annotated[bool, typer.Option("--json", help="Print the subtypes as one JSON document.")] = False,
) -> None:
    """List the perturbation subtypes (seed 002: A tool interface, B user intent, C tool output,
    D runtime), what each severity does, and the representative mixed-family pairs.

    Use them with 'toolprism run --perturb C2:medium,D2:light' or '--perturb-suite all'."""
    rows = subtype_rows()
    if json_output:
        print_json({"subtypes": rows, "mixed_pairs": [list(p) for p in MIXED_PAIRS]})
        return
    table = Table(title="perturbation subtypes", show_lines=True)
    for column in ("id", "family", "name", "stage", *SEVERITIES):
        table.add_column(column, overflow="fold")
    for r in rows:
        stage = r["primary_stage"] + (f" (+{','.join(r['spillover'])})" if r["spillover"] else "")
        levels = [f"{r['levels'][v]['does']} [{r['levels'][v]['strength']:g}]" for v in SEVERITIES]
        table.add_row(r["id"], r["family"], r["name"], stage, *levels)
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 160))
    console.print(table)
    console.print("mixed pairs: " + ", ".join(f"{a}+{b}" for a, b in MIXED_PAIRS))
