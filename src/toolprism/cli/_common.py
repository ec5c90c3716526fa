"""Helpers shared by commands: error display and JSON output."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from toolprism.errors import ToolprismError

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
