"""Interoperability: importing other benchmarks as domain packs, exporting the suite's tasks.

- :func:`import_toolschemaspace` / :func:`write_packs`: the Action-Space Shaping paper's ToolSchemaSpace release
  (``tools.json`` + ``queries.jsonl``) as one domain pack per tool group, or one whole-catalog pack;
- :func:`import_tau2`: a tau2-bench domain (tools, ``tasks.json``, ``db.json``) as a stateful tau2 pack;
  :func:`tau2_reward` / :func:`score_tau2`: tau2's own reward (database hash, communicate checks)
  beside toolprism's multiset score;
- :func:`export_tasks`: tasks with the oracle's encoded gold trace per variant, as JSON lines or a
  Hugging Face ``datasets`` directory;
- :class:`ProxyConfig` / :func:`create_proxy_app` / :func:`serve_proxy`: the OpenAI-compatible schema
  proxy that puts a variant in front of any agent harness (``toolprism proxy``; needs the extra
  ``toolprism[proxy]``: starlette and uvicorn, imported only when these names are first used);
- BFCL (loaded on first use): :func:`read_bfcl` (entries + possible answers as :class:`BfclTask`),
  :func:`bfcl_check` (BFCL's AST checker semantics over native calls, :class:`BfclVerdict`),
  :func:`import_bfcl` / :func:`bfcl_pack` (one domain pack per entry), :func:`score_bfcl_run`
  (a stored run re-scored by BFCL's checker).
- MCP (the extra ``toolprism[mcp]``, the official SDK): :func:`import_mcp` (a server's ``tools/list``
  as a catalog), :class:`McpConnection` (a live server over stdio), :func:`serve_mcp` (a variant of
  a server's tools served over MCP) and the live environment of ``toolprism run --mcp``.
"""

import importlib
from typing import Any

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
from toolprism.interop._tau2 import (
    TAU2_COMMIT,
    CommunicateCheck,
    Tau2Reward,
    Tau2Row,
    communicate_checks,
    gold_hash,
    import_tau2,
    score_tau2,
    tau2_reward,
)
from toolprism.interop._toolschemaspace import (
    DEFAULT_OUT,
    WHOLE_CATALOG,
    Imported,
    import_toolschemaspace,
    write_packs,
)

_LAZY = {
    "ProxyConfig": ("toolprism.interop._proxy", "ProxyConfig"),
    "create_proxy_app": ("toolprism.interop._proxy", "create_app"),
    "serve_proxy": ("toolprism.interop._proxy", "serve"),
    "PROXY_LOG_FILE": ("toolprism.interop._proxy_wire", "LOG_FILE"),
    "ProxyExchangeRecord": ("toolprism.interop._proxy_wire", "ExchangeRecord"),
}
_BFCL = (
    "BFCL_CATEGORIES",
    "BfclEpisode",
    "BfclImport",
    "BfclRow",
    "BfclRunScore",
    "BfclTask",
    "BfclVerdict",
    "Numbers",
    "bfcl_check",
    "bfcl_pack",
    "category_name",
    "gold_calls",
    "import_bfcl",
    "read_bfcl",
    "score_bfcl_run",
    "trace_calls",
)
_LAZY |= {name: ("toolprism.interop._bfcl", name) for name in _BFCL}
"""Names imported on first use (the proxy needs starlette, an optional extra; BFCL the run store)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'toolprism.interop' has no attribute {name!r}")


__all__ = [
    *_BFCL,
    "PROXY_LOG_FILE",
    "ProxyConfig",
    "ProxyExchangeRecord",
    "create_proxy_app",
    "serve_proxy",
    "TAU2_COMMIT",
    "CommunicateCheck",
    "Tau2Reward",
    "Tau2Row",
    "communicate_checks",
    "gold_hash",
    "import_tau2",
    "score_tau2",
    "tau2_reward",
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
