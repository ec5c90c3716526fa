"""``toolprism probe``: log-probability probes (one module per probe command)."""

from __future__ import annotations

import typer

from toolprism.cli import _probe_faults, _probe_variants

app = typer.Typer(
    help="Log-probability probes: Xu et al.'s fault arms, Action-Space Shaping's variant probes.",
    no_args_is_help=True,
)
app.command("faults")(_probe_faults.faults_command)
app.command("variants")(_probe_variants.variants_command)
