"""``toolprism variants``: list the variant suite, or show the tools a model would see."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.schema import ActionSpace, load_catalog
from toolprism.shaping import CATALOG_DOMAIN, PAPER, SUITES, Variant, variant_scope

app = typer.Typer(
    help="The variant suite and the tools each variant shows.", no_args_is_help=False, invoke_without_command=True
)


@app.callback()
def main(ctx: typer.Context) -> None:
    """List the named variants (or use 'show')."""
    if ctx.invoked_subcommand is None:
        list_variants(domain="smart_home", suite="all", json_output=False)


@app.command("list")
@friendly_errors
def list_variants(
    domain: Annotated[
        str,
        typer.Option(
            "--domain",
            "-d",
            help="Domain(s) for the tool-count ratio, comma list: the ratio is the variants' tools over the native "
            f"tools summed over them. Whole-catalog arms are counted on '{CATALOG_DOMAIN}'.",
        ),
    ] = "smart_home",
    suite: Annotated[
        str,
        typer.Option(
            "--suite",
            "-s",
            help="'paper': Action-Space Shaping's 32 variants under the paper's names; 'extended': toolprism's own; "
            "'all': both.",
        ),
    ] = "all",
    json_output: Annotated[
        bool,
        typer.Option(
            "--json", help="Print a JSON list of {name, title, figure, scope, spec, tools, tool_count_ratio, ...}."
        ),
    ] = False,
) -> None:
    """List a suite's variants: name, the paper's label, spec, and tool count relative to native."""
    if suite not in SUITES:
        raise ConfigError(f"unknown suite {suite!r} (known: {', '.join(SUITES)})", what="--suite")
    spaces = [get_domain(d.strip()).action_space() for d in domain.split(",") if d.strip()]
    catalog: list[ActionSpace] = []
    rows = []
    for name in SUITES[suite]:
        scope = variant_scope(name)
        if scope == "catalog" and not catalog:
            catalog.append(get_domain(CATALOG_DOMAIN).action_space())
        over = catalog if scope == "catalog" else spaces
        built = [Variant.build(name, space) for space in over]
        tools = sum(len(v.tools()) for v in built)
        native = sum(len(space.operations) for space in over)
        paper = PAPER.get(name)
        rows.append(
            {
                "name": name,
                "title": paper.title if paper else "",
                "figure": paper.figure if paper else "",
                "scope": scope,
                "spec": built[0].spec,
                "tools": tools,
                "tool_count_ratio": round(tools / native, 3),
                "convention": built[0].convention(),
            }
        )
    if json_output:
        print_json(rows)
        return
    table = Table(title=f"{suite} suite on {domain} (whole-catalog arms on {CATALOG_DOMAIN})")
    for column in ("variant", "paper name", "spec", "tools", "ratio"):  # names and specs wrap rather than being cut
        table.add_column(column, overflow="fold", justify="right" if column in ("tools", "ratio") else "left")
    for row in rows:
        table.add_row(row["name"], row["title"], row["spec"], str(row["tools"]), f"{row['tool_count_ratio']:.2f}x")
    Console().print(table)


@app.command("show")
@friendly_errors
def show(
    spec: Annotated[
        str, typer.Argument(metavar="SPEC", help="A variant name (see 'toolprism variants list') or a spec string.")
    ],
    domain: Annotated[str, typer.Option("--domain", "-d", help="Domain whose action space to shape.")] = "smart_home",
    catalog: Annotated[
        Path | None,
        typer.Option(help="Shape an external catalog (OpenAI tools, MCP tools/list, BFCL, ToolSchemaSpace) instead."),
    ] = None,
) -> None:
    """Print the tools (OpenAI format, JSON) a model would see under SPEC in DOMAIN (or --catalog).

    The variant's calling-convention instruction (a training-free mitigation) and what loading the
    catalog rewrote (renamed tools, normalised type names) go to stderr."""
    if catalog is not None:
        space = load_catalog(catalog)
        for note in space.notes:
            Console(stderr=True).print(f"note: {note}", markup=False, soft_wrap=True)
    else:
        space = get_domain(domain).action_space()
    variant = Variant.build(spec, space)
    if variant.convention():
        Console(stderr=True).print(f"convention: {variant.convention()}", markup=False, soft_wrap=True)
    print_json(variant.openai_tools)
