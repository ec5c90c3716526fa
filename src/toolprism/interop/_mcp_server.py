"""``toolprism serve-mcp``: an MCP server that shows a variant of another MCP server's tools.

Built on the official SDK's low-level ``Server`` over stdio. Its client (any MCP host or agent
harness) sees the variant's tools; each ``tools/call`` goes through one
:class:`~toolprism.shaping.AdapterSession` (one per connection, so open transactions, handles and
discovered classes live as long as the client's session):

- a protocol-only call (``begin``/``set``/``commit`` of ``transaction`` before the commit,
  ``resolve_*`` of ``reference``, ``list_methods`` of ``discovery``) is answered here, its reply as
  JSON text (and ``structuredContent`` when it is an object); nothing reaches the upstream server;
- an invalid call is rejected under the chosen control: an ``isError`` result whose text is the
  adapter's rejection message; nothing reaches the upstream server;
- a call that decodes to a native call is forwarded to the upstream server, and the upstream's
  result comes back unchanged (its ``isError`` included);
- an upstream protocol or transport failure is a JSON-RPC error of this server (not an ``isError``
  result): the client can tell a tool's error from a broken server.

The variant's tools carry no ``outputSchema`` (a merged or protocol tool has no single output).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolprism.interop._mcp_client import McpConnection, McpServerError, ToolResult
from toolprism.schema import JSON, Action, ActionSpace, ToolCall, canonical_json, load_tools
from toolprism.shaping import AdapterSession, Control, Decision, Variant


def server_space(name: str, tools: list[dict[str, Any]]) -> ActionSpace:
    """The native action space of an MCP server's ``tools/list`` (``readOnlyHint`` marks reads).

    Raises:
        ConfigError: a tool toolprism cannot read (every problem listed).
    """
    safe = re.sub(r"[^A-Za-z0-9_]", "_", name) or "mcp"
    return load_tools(tools, name=safe, source="mcp")


@dataclass
class VariantProxy:
    """The state of one ``serve-mcp`` connection: the variant, its adapter session, the upstream.

    Attributes:
        variant: the interface shown to the client.
        upstream: the live upstream server.
        control: how invalid calls are treated (``strict``, ``paper``, ``loose``).
        forwarded: how many calls reached the upstream (for the tests and the log).
    """

    variant: Variant
    upstream: McpConnection
    control: Control = "strict"
    forwarded: int = 0
    _session: AdapterSession = field(init=False)
    _last: ToolResult | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self._session = AdapterSession(self.variant, self._execute, self.control)

    def tools(self) -> list[dict[str, Any]]:
        """The variant's tools in MCP wire form (``name``, ``description``, ``inputSchema``)."""
        return [
            {"name": f["name"], "description": f.get("description", ""), "inputSchema": f["parameters"]}
            for f in (t["function"] for t in self.variant.openai_tools)
        ]

    def _execute(self, action: Action) -> JSON:
        self._last = self.upstream.call_tool(action.op, action.arguments)
        self.forwarded += 1
        return self._last.reply

    def handle(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """One ``tools/call`` of the client, as a ``CallToolResult`` in wire JSON.

        Raises:
            McpServerError: the upstream failed (a protocol error for the client).
        """
        self._last = None
        decision = self._session.handle(ToolCall(name, arguments if arguments is not None else {}))
        return decision_result(decision, self._last)


def decision_result(decision: Decision, upstream: ToolResult | None) -> dict[str, Any]:
    """The ``CallToolResult`` (wire JSON) for what the adapter decided: the upstream's own result
    when the call reached it; else the adapter's reply as JSON text, ``isError`` when it is a
    rejection (or a call the paper control records but does not run)."""
    if decision.outcome == "executed" and upstream is not None:
        return upstream.raw
    reply = decision.reply
    refused = decision.outcome != "answered"
    text = reply["error"] if refused and isinstance(reply, dict) and isinstance(reply.get("error"), str) else None
    result: dict[str, Any] = {"content": [{"type": "text", "text": text or canonical_json(reply)}], "isError": refused}
    if not refused and isinstance(reply, dict):
        result["structuredContent"] = reply
    return result


def serve_mcp(upstream: str | Sequence[str], variant: str, *, control: Control = "strict") -> None:
    """Serve ``variant`` of the ``upstream`` MCP server's tools over stdio until the client leaves.

    Args:
        upstream: the upstream server's command line (started now, stopped at the end).
        variant: a variant name or spec string (``discovery``, ``merge(by=class)|rename(style=opaque)``).
        control: ``strict`` (default), ``paper`` or ``loose`` (see :data:`toolprism.shaping.Control`).

    Raises:
        ConfigError: the ``mcp`` package is missing, a bad variant spec or control, or upstream tools
            toolprism cannot read; McpServerError: the upstream cannot be started (both before
            anything is served).
    """
    with McpConnection(upstream) as connection:
        space = server_space(connection.server_name, connection.list_tools())
        proxy = VariantProxy(Variant.build(variant, space), connection, control)
        import anyio

        anyio.run(_serve, proxy, f"toolprism[{proxy.variant.name}] {connection.server_name}")


async def _serve(proxy: VariantProxy, name: str) -> None:
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": proxy.tools()})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            raw = await anyio.to_thread.run_sync(proxy.handle, params.name, params.arguments)
        except McpServerError as e:
            raise MCPError(code=types.INTERNAL_ERROR, message=f"upstream failure: {e}") from None
        return types.CallToolResult.model_validate(raw)

    server = Server(name, on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
