"""The ``toolprism`` command: one thin module per command over the public Python API."""

from __future__ import annotations

import importlib
import inspect
import re
import sys

import typer
from typer.core import TyperGroup

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("_run", "run"),
    "validate": ("_validate", "validate"),
    "score": ("_score", "score"),
    "diagnose": ("_diagnose", "diagnose"),
    "domains": ("_domains", "domains"),
    "perturbations": ("_perturbations", "perturbations"),
    "fault-arms": ("_perturbations", "fault_arms_command"),
    "variants": ("_variants", "app"),
    "import": ("_import", "app"),
    "export": ("_export", "app"),
    "proxy": ("_proxy", "proxy"),
    "serve-mcp": ("_mcp", "serve_mcp"),
    "probe": ("_probe", "app"),
    "report": ("_report", "report"),
}
"""Command name -> (module of ``toolprism.cli``, its command function or sub-app), in ``--help``
order. A module is imported only when its command runs (or ``--help`` lists them all), so
``toolprism run`` does not pay for the probes' scipy or the validator."""


class _LazyGroup(TyperGroup):
    """The root command group: each command is built from its module on first use."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: typer.Context, cmd_name: str) -> typer.core.TyperCommand | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = _build(cmd_name)
        return self.commands.get(cmd_name)


def _build(name: str) -> typer.core.TyperCommand:
    """The click command ``name``: its module imported, its help reflowed, built by typer."""
    module, attr = COMMANDS[name]
    target = getattr(importlib.import_module(f"toolprism.cli.{module}"), attr)
    holder = typer.Typer(pretty_exceptions_enable=False)
    holder.callback()(lambda: None)  # a group even with one command, so the command keeps its name
    if isinstance(target, typer.Typer):
        _reflow_help(target)
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
        _reflow_help(holder)
    return typer.main.get_command(holder).commands[name]  # type: ignore[attr-defined]


app = typer.Typer(
    cls=_LazyGroup,
    help="toolprism: how robust is a tool-calling agent to equivalent tool interfaces?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    pass


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


def main() -> None:
    """Console entry point."""
    sys.exit(app())
