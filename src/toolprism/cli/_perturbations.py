"""``toolprism perturbations``: the fourteen subtypes, their severities and the mixed pairs."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json
from toolprism.domains import get_domain
from toolprism.perturb import ARMS, FAMILIES, MIXED_PAIRS, PAPER_MIXED_PAIRS, SEVERITIES, SUBTYPES, fault_arms, suite


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
    """List the 14 perturbation subtypes, what each severity does, and the mixed pairs.

    ToolRobustBench's families: A tool interface, B user intent, C tool output, D runtime. The
    number in brackets after each level is its intrinsic strength score (it grows with severity).

    Use them with 'toolprism run --perturb C2:medium,D2:light' or '--perturb-suite all'."""
    rows = subtype_rows()
    if json_output:
        pairs = {"mixed_pairs": [list(p) for p in MIXED_PAIRS]}
        print_json({"subtypes": rows, **pairs, "paper_mixed_pairs": [list(p) for p in PAPER_MIXED_PAIRS]})
        return
    table = Table(
        title="perturbation subtypes",
        caption="\\[n]: the level's intrinsic strength score; stage: primary stage (+ allowed spillover)",
        show_lines=True,
    )
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
    paper = ", ".join(f"{a}+{b}" for a, b in MIXED_PAIRS if (a, b) in PAPER_MIXED_PAIRS)
    own = ", ".join(f"{a}+{b}" for a, b in MIXED_PAIRS if (a, b) not in PAPER_MIXED_PAIRS)
    console.print(f"mixed pairs: {paper} (ToolRobustBench, section 6); {own} (toolprism's fifth pair)", markup=False)


@friendly_errors
def fault_arms_command(
    domain: Annotated[str, typer.Option("--domain", "-d", help="Domain whose tasks to scan.")] = "retail",
    tool: Annotated[str, typer.Option(help="The read tool whose first call at position 2+ is the site.")] = (
        "get_order_details"
    ),
    seed: Annotated[int, typer.Option(min=0, help="World and task seed.")] = 0,
    json_output: Annotated[bool, typer.Option("--json", help="Print every site with its arms as JSON.")] = False,
) -> None:
    """Xu et al.'s fault arms (C, F, Ns, Nm) at each task's injection site.

    The site is the first call of TOOL at position 2 or later; the arms are the clean (C), failed
    (F), inconsistent-status (Ns) and inconsistent-identifier (Nm) returns, over a replayed,
    byte-identical prefix. The JSON 'position' is the site's 0-based index in the trace."""
    target = get_domain(domain)
    tasks = [t for t in target.tasks(seed) if t.form == "easy"]
    sites = [s for t in tasks if (s := fault_arms(target, t, tool)) is not None]
    if json_output:
        print_json([s.model_dump(mode="json") for s in sites])
        return
    table = Table(title=f"fault arms at the first {tool} call at position 2+ ({domain}, seed {seed})")
    for column in ("arm", "eligible tasks", "note"):
        table.add_column(column)
    policy_only = sum(bool(s.arms["Ns"].policy_only) for s in sites if "Ns" in s.arms)
    verbatim = sum(bool(s.arms["Nm"].verbatim_in_prefix) for s in sites if "Nm" in s.arms)
    notes = {
        "C": "the true return",
        "F": "the environment's own error string",
        "Ns": f"contradiction visible only through the policy: {policy_only}",
        "Nm": f"true identifier verbatim in the prefix: {verbatim}",
    }
    for arm in ARMS:
        table.add_row(arm, str(sum(arm in s.arms for s in sites)), notes[arm])
    Console().print(table)
    Console().print(f"{len(sites)} of {len(tasks)} tasks have an injection site")
