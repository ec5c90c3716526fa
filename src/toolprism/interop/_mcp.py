"""``toolprism import mcp``: an MCP server's ``tools/list`` as a catalog file.

The file is the ``tools/list`` result itself (MCP wire JSON: ``tools`` with ``inputSchema``,
``outputSchema`` and ``annotations`` as the server sent them), with the server's name and command
under ``_meta["toolprism/server"]`` for provenance; :func:`toolprism.schema.load_catalog` reads it,
so every command's ``--catalog`` accepts it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from toolprism.domains import DomainPack, PackServer, catalog_pack
from toolprism.interop._mcp_client import list_server_tools, split_command
from toolprism.interop._mcp_server import server_space

Scope = Literal["episode", "run"]
"""How long one server process lives: an episode, or the whole run (see :class:`~toolprism.domains.PackServer`)."""

META_KEY = "toolprism/server"
"""The ``_meta`` key of an imported catalog that records where it came from."""


def import_mcp(command: str | Sequence[str], out: str | Path | None = None) -> tuple[Path, dict[str, Any]]:
    """Start an MCP server, read its tools and write them as a catalog file.

    Args:
        command: the server's command line.
        out: the catalog file (default ``<server name>.tools.json`` in the current directory).

    Returns:
        The path written and the catalog (``{"tools": [...], "_meta": {...}}``).

    Raises:
        ConfigError: the ``mcp`` package is missing, or a tool toolprism cannot read (checked
            before anything is written); McpServerError: the server cannot be started or breaks
            the protocol.
    """
    words = split_command(command)
    name, tools = list_server_tools(words)
    return import_mcp_tools(name, tools, words, out)


def import_mcp_tools(
    name: str, tools: list[dict[str, Any]], command: list[str], out: str | Path | None = None
) -> tuple[Path, dict[str, Any]]:
    """Write tools already read from a server as a catalog file (see :func:`import_mcp`).

    Raises:
        ConfigError: a tool toolprism cannot read (nothing is written).
    """
    space = server_space(name, tools)  # every problem now, before anything is written
    catalog = {"tools": tools, "_meta": {META_KEY: {"name": name, "command": command}}}
    path = Path(out) if out is not None else Path(f"{space.name}.tools.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path, catalog


def mcp_pack(
    command: str | Sequence[str], tasks: str | Path, catalog_dir: str | Path, *, scope: Scope = "episode"
) -> DomainPack:
    """A domain pack whose calls a live MCP server executes: the server's tools (imported now with
    :func:`import_mcp`, the catalog kept as ``<catalog_dir>/<name>.tools.json``), the task file's
    tasks (checked against the tools), and the server to start (its command, run from the current
    directory) for each episode, or once per run with ``scope="run"`` (see
    :class:`~toolprism.domains.PackServer`).

    Raises:
        ConfigError: the ``mcp`` package is missing, the task file's problems, gold calls the
            server's tools refuse (every problem listed); McpServerError: the server cannot be
            started or breaks the protocol.
    """
    words = split_command(command)
    name, tools = list_server_tools(words)
    space = server_space(name, tools)
    path, _ = import_mcp_tools(name, tools, words, Path(catalog_dir) / f"{space.name}.tools.json")
    pack = catalog_pack(path, tasks)
    return pack.model_copy(update={"server": PackServer(command=words, cwd=os.getcwd(), scope=scope)})
