"""``toolprism serve-mcp``: a variant of an MCP server's tools, served over MCP (stdio)."""

from __future__ import annotations

from typing import Annotated

import typer

from toolprism.cli._common import friendly_errors
from toolprism.cli._run import ControlChoice
from toolprism.interop import serve_mcp as serve


@friendly_errors
def serve_mcp(
    upstream: Annotated[
        str,
        typer.Option(
            help="The upstream MCP server's command line, quoted as one argument "
            "(e.g. 'mcp-server-git --repository /path/to/repo'); started now, stopped when the client leaves.",
            show_default=False,
        ),
    ],
    variant: Annotated[
        str,
        typer.Option(
            help="The variant the client sees: a name (see 'toolprism variants list') or a spec string such as "
            "'discovery', 'reference', 'transaction', 'merge(by=class)|rename(style=opaque)'.",
        ),
    ] = "native",
    control: Annotated[
        ControlChoice,
        typer.Option(
            envvar="TOOLPRISM_CONTROL",
            help="How invalid calls are treated: 'strict' (rejected with a helpful message), 'paper' or 'loose' "
            "(the Action-Space Shaping paper's controls); a rejection is an isError result with the message.",
        ),
    ] = ControlChoice.strict,
) -> None:
    """Serve a variant of another MCP server's tools over MCP (stdio), for any MCP host or agent harness.

    The client sees the variant's tools. Protocol-only calls (begin/set/commit of transaction, the
    resolve_* handles of reference, list_methods of discovery) are answered here; invalid calls are
    rejected under --control as isError results carrying the rejection message; calls that decode to
    native calls are forwarded to the upstream server and its results come back unchanged. An
    upstream protocol or transport failure is a JSON-RPC error, not an isError result.

    Stdout is the MCP channel: start it from an MCP client, e.g. command 'toolprism', args
    ['serve-mcp', '--upstream', 'mcp-server-time', '--variant', 'discovery']. Needs the extra
    toolprism\\[mcp]."""
    serve(upstream, variant, control=control.value)
