"""Helpers shared by commands: error display, JSON output, shared tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from toolprism.errors import ToolprismError
from toolprism.score import PerturbationSummary

stderr = Console(stderr=True)


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Show a ToolprismError, or an OSError on a path the user gave, as a clear message on stderr
    with exit code 2, not a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ToolprismError as e:
            stderr.print(f"[bold red]error:[/] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except OSError as e:  # a path the user gave cannot be read or written
            where = f": {e.filename}" if e.filename else ""
            stderr.print(f"[bold red]error:[/] {escape((e.strerror or str(e)) + where)}", markup=True, highlight=False)
            raise typer.Exit(2) from None

    return wrapper


def print_json(document: Any) -> None:
    """Print exactly one JSON document on stdout."""
    print(json.dumps(document, indent=2, sort_keys=False))


def perturbation_table(rows: list[PerturbationSummary]) -> Table:
    """Success per perturbation condition over all variants, with the 95% interval and the most
    frequent reason a (task, variant) pair was skipped."""
    table = Table(title="success per perturbation condition (all variants)")
    columns = ("subtype", "severity", "episodes", "success", "rate", "95% CI", "skipped", "why skipped (most often)")
    for column in columns:
        left = column in ("subtype", "severity", "why skipped (most often)")
        table.add_column(column, justify="left" if left else "right", overflow="fold")
    for p in rows:
        rate = "—" if p.success_rate is None else f"{p.success_rate:.0%}"
        interval = "—" if p.ci_low is None or p.ci_high is None else f"{p.ci_low:.0%}-{p.ci_high:.0%}"
        counts = (str(p.episodes), str(p.successes), rate, interval, str(p.skipped))
        table.add_row(p.subtype, p.severity, *counts, next(iter(p.reasons), ""))
    return table


def counting_progress(label: str, *, transient: bool = True) -> Progress:
    """A progress bar on stderr: ``label``, the bar, done/total, elapsed time, the current item."""
    return Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=stderr,
        transient=transient,
    )
