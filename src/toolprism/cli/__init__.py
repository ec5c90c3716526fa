"""The ``toolprism`` command: one thin module per command over the public Python API."""

from __future__ import annotations

import inspect
import re
import sys

import typer

from toolprism.cli import (
    _diagnose,
    _domains,
    _export,
    _import,
    _perturbations,
    _probe,
    _report,
    _run,
    _score,
    _validate,
    _variants,
)

app = typer.Typer(
    help="toolprism: how robust is a tool-calling agent to equivalent tool interfaces?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("run")(_run.run)
app.add_typer(_variants.app, name="variants")
app.command("validate")(_validate.validate)
app.command("score")(_score.score)
app.command("diagnose")(_diagnose.diagnose)
app.command("domains")(_domains.domains)
app.command("perturbations")(_perturbations.perturbations)
app.command("fault-arms")(_perturbations.fault_arms_command)
app.add_typer(_import.app, name="import")
app.add_typer(_export.app, name="export")
app.add_typer(_probe.app, name="probe")
app.command("report")(_report.report)


def _reflow(text: str) -> str:
    """A docstring as ``--help`` should wrap it: each paragraph one line (the terminal wraps it),
    except lines that start a list item."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(re.sub(r"\n(?!\s*(?:- |\* |\d+\. ))\s*", " ", p) for p in paragraphs)


def _reflow_help(typer_app: typer.Typer) -> None:
    for info in typer_app.registered_commands:
        if info.help is None and info.callback is not None and info.callback.__doc__:
            info.help = _reflow(info.callback.__doc__)
    for group in typer_app.registered_groups:
        _reflow_help(group.typer_instance)


_reflow_help(app)


def main() -> None:
    """Console entry point."""
    sys.exit(app())
