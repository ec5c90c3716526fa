"""``toolprism import mcp``: an MCP server's ``tools/list`` as a catalog file.

The file is the ``tools/list`` result itself (MCP wire JSON: ``tools`` with ``inputSchema``,
``outputSchema`` and ``annotations`` as the server sent them), with the server's name and command
under ``_meta["toolprism/server"]`` for provenance; :func:`toolprism.schema.load_catalog` reads it,
so every command's ``--catalog`` accepts it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolprism.interop._mcp_client import list_server_tools, split_command
from toolprism.interop._mcp_server import server_space

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
    server_space(name, tools)  # every problem now, before anything is written
    catalog = {"tools": tools, "_meta": {META_KEY: {"name": name, "command": words}}}
    path = Path(out) if out is not None else Path(f"{server_space(name, tools).name}.tools.json")
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path, catalog
