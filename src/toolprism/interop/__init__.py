"""Interoperability: importing other benchmarks as domain packs, exporting the suite's tasks.

- :func:`import_toolschemaspace` / :func:`write_packs`: the Action-Space Shaping paper's ToolSchemaSpace release
  (``tools.json`` + ``queries.jsonl``) as one domain pack per tool group, or one whole-catalog pack;
- :func:`export_tasks`: tasks with the oracle's encoded gold trace per variant, as JSON lines or a
  Hugging Face ``datasets`` directory;
- MCP (the extra ``toolprism[mcp]``, the official SDK): :func:`import_mcp` (a server's ``tools/list``
  as a catalog), :class:`McpConnection` (a live server over stdio), :func:`serve_mcp` (a variant of
  a server's tools served over MCP) and the live environment of ``toolprism run --mcp``.
"""

from toolprism.interop._export import (
    FORMATS,
    HF_COLUMNS,
    ExportFormat,
    ExportSummary,
    encoded_gold,
    export_tasks,
    read_hf_records,
    task_from_json,
)
from toolprism.interop._mcp import META_KEY, import_mcp, import_mcp_tools, mcp_pack
from toolprism.interop._mcp_client import (
    McpConnection,
    McpServerError,
    ToolResult,
    list_server_tools,
    result_reply,
    split_command,
)
from toolprism.interop._mcp_env import McpEnvironment, live_environment
from toolprism.interop._mcp_server import VariantProxy, serve_mcp, server_space
from toolprism.interop._toolschemaspace import (
    DEFAULT_OUT,
    WHOLE_CATALOG,
    Imported,
    import_toolschemaspace,
    write_packs,
)

__all__ = [
    "DEFAULT_OUT",
    "WHOLE_CATALOG",
    "FORMATS",
    "HF_COLUMNS",
    "ExportFormat",
    "ExportSummary",
    "Imported",
    "META_KEY",
    "McpConnection",
    "McpEnvironment",
    "McpServerError",
    "ToolResult",
    "VariantProxy",
    "encoded_gold",
    "export_tasks",
    "import_mcp",
    "import_mcp_tools",
    "mcp_pack",
    "live_environment",
    "import_toolschemaspace",
    "list_server_tools",
    "result_reply",
    "serve_mcp",
    "server_space",
    "split_command",
    "read_hf_records",
    "task_from_json",
    "write_packs",
]
