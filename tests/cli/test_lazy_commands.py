"""The command line imports a command's module only when that command runs: ``toolprism run``
does not pay for the probes (scipy), the validator or the importers; and a run on one domain
imports that domain only. ``--help`` still lists every command."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from toolprism.cli import COMMANDS, app

PROBE = """
import sys
from typer.main import get_command
import toolprism.cli as cli
group = get_command(cli.app)
assert group.get_command(None, "run") is not None
from toolprism.domains import DOMAINS, domain_names, get_domain
get_domain("tv")
heavy = ["scipy", "toolprism.probes", "toolprism.validate", "toolprism.repair", "toolprism.interop"]
print(" ".join(m for m in heavy if m in sys.modules) or "-")
print(" ".join(DOMAINS.names()))
print(len(domain_names()))
"""


def test_run_imports_neither_other_commands_nor_other_domains() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    loaded, registered, known = out.stdout.split("\n")[:3]
    assert loaded == "-"
    # whole_catalog's package is imported by the presets (its list of members), not its members
    assert [name for name in registered.split() if name != "whole_catalog"] == ["tv"]
    assert int(known) == 16  # every built-in domain is still known by name


def test_help_lists_every_command_in_order() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    listed = [line.split()[1] for line in result.output.splitlines() if line.startswith("│ ") and line[2] != " "]
    positions = [listed.index(name) for name in COMMANDS]
    assert positions == sorted(positions)


def test_unknown_command_is_refused() -> None:
    result = CliRunner().invoke(app, ["rnu"])
    assert result.exit_code == 2
    assert "No such command 'rnu'" in result.output
