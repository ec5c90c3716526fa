"""serve-mcp keeps a tool's isError result apart from an upstream protocol failure, and rejects
invalid calls under the chosen control as isError results (a small SDK server written here)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client  # noqa: E402

pytestmark = pytest.mark.mcp
SRC = Path(__file__).resolve().parents[2] / "src"

SERVER = '''
import os
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("flaky")


@server.tool()
def shout(text: str) -> str:
    """Say it louder."""
    return text.upper()


@server.tool()
def refuse(text: str) -> str:
    """Always fails, as a tool."""
    raise ToolError(f"cannot do {text}")


@server.tool()
def crash(text: str) -> str:
    """Kills the server."""
    os._exit(3)


server.run()
'''


async def _session(upstream: Path, variant: str, control: str) -> dict[str, object]:
    args = ["-m", "toolprism", "serve-mcp", "--upstream", shlex.join([sys.executable, str(upstream)])]
    params = StdioServerParameters(
        command=sys.executable,
        args=[*args, "--variant", variant, "--control", control],
        env={"PYTHONPATH": str(SRC)},
    )
    seen: dict[str, object] = {}
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        seen["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
        ok = await session.call_tool("shout", {"text": "hi"})
        seen["ok"] = (ok.is_error, ok.content[0].text)
        refused = await session.call_tool("refuse", {"text": "that"})
        seen["refused"] = (refused.is_error, refused.content[0].text)
        bad = await session.call_tool("shout", {"txt": "typo"})
        seen["bad"] = (bad.is_error, bad.content[0].text)
        try:
            await session.call_tool("crash", {"text": "now"})
            seen["crash"] = "no error"
        except MCPError as e:
            seen["crash"] = str(e)
    return seen


@pytest.mark.parametrize("control", ["strict", "paper"])
def test_iserror_rejection_and_protocol_failure_stay_apart(tmp_path: Path, control: str) -> None:
    upstream = tmp_path / "flaky_server.py"
    upstream.write_text(SERVER)
    seen = anyio.run(_session, upstream, "native", control)
    assert seen["tools"] == ["crash", "refuse", "shout"]
    assert seen["ok"] == (False, "HI")
    refused_error, refused_text = seen["refused"]
    assert refused_error is True and "cannot do that" in refused_text  # the upstream tool's own error, passed on
    bad_error, bad_text = seen["bad"]
    assert bad_error is True and "invalid arguments for tool 'shout'" in bad_text  # the adapter's words, not upstream's
    assert bad_text.startswith("call rejected:") == (control == "strict")  # the paper's terse form otherwise
    assert "upstream failure" in seen["crash"] and "flaky_server.py" in seen["crash"]  # a JSON-RPC error
