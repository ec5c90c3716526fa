"""``toolprism probe``: log-probability probes (one sub-command per study)."""

from __future__ import annotations

import typer

from toolprism.cli import _probe_variants

app = typer.Typer(
    help="Log-probability probes: Xu et al.'s fault arms, Action-Space Shaping's variant probes.",
    no_args_is_help=True,
)
app.command("variants")(_probe_variants.variants_command)
