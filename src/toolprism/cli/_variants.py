"""``toolprism variants``: list the variant suite, or show the tools a model would see."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, print_json
from toolprism.domains import get_domain
from toolprism.shaping import VARIANTS, Variant

app = typer.Typer(
    help="The variant suite and the tools each variant shows.", no_args_is_help=False, invoke_without_command=True
)


@app.callback()
def main(ctx: typer.Context) -> None:
    """List the named variants (or use 'show')."""
    if ctx.invoked_subcommand is None:
        list_variants(domain="smart_home", json_output=False)


@app.command("list")
@friendly_errors
def list_variants(
    domain: Annotated[str, typer.Option("--domain", "-d", help="Domain for the tool-count ratio.")] = "smart_home",
    json_output: Annotated[
        bool, typer.Option("--json", help="Print a JSON list of {name, spec, tool_count_ratio}.")
    ] = False,
) -> None:
    """List the named variants: name, spec, and tool count relative to native on DOMAIN."""
    space = get_domain(domain).action_space()
    native = len(space.operations)
    rows = []
    for name in VARIANTS.names():
        variant = Variant.build(name, space)
        rows.append(
            {
                "name": name,
                "spec": variant.spec,
                "tools": len(variant.tools()),
                "tool_count_ratio": round(len(variant.tools()) / native, 3),
                "convention": variant.convention(),
            }
        )
    if json_output:
        print_json(rows)
        return
    table = Table(title=f"variant suite on {domain} ({native} native tools)")
    for column in ("variant", "spec", "tools", "ratio"):  # names and specs wrap rather than being cut
        table.add_column(column, overflow="fold", justify="right" if column in ("tools", "ratio") else "left")
    for row in rows:
        table.add_row(row["name"], row["spec"], str(row["tools"]), f"{row['tool_count_ratio']:.2f}x")
    Console().print(table)


@app.command("show")
@friendly_errors
def show(
    spec: Annotated[
        str, typer.Argument(metavar="SPEC", help="A variant name (see 'toolprism variants list') or a spec string.")
    ],
    domain: Annotated[str, typer.Option("--domain", "-d", help="Domain whose action space to shape.")] = "smart_home",
) -> None:
    """Print the tools (OpenAI format, JSON) a model would see under SPEC in DOMAIN.

    The variant's calling-convention instruction (a training-free mitigation) goes to stderr."""
    variant = Variant.build(spec, get_domain(domain).action_space())
    if variant.convention():
        Console(stderr=True).print(f"convention: {variant.convention()}", markup=False, soft_wrap=True)
    print_json(variant.openai_tools)
