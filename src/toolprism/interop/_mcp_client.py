"""A synchronous client of one MCP server over stdio, on the official ``mcp`` SDK.

:class:`McpConnection` starts the server as a subprocess (the SDK's ``stdio_client``), opens a
``ClientSession`` and keeps it on a private event loop in a background thread (an anyio blocking
portal), so the episode loop's synchronous executors and the CLI can call tools one at a time.

Two kinds of failure are kept apart (MCP specification, "Tools" / "Error Handling"):

- a tool's own error, a result with ``isError: true``, is a reply: :meth:`McpConnection.call_tool`
  returns it as a :class:`ToolResult` with ``is_error`` set (the model sees it);
- a protocol or transport failure (the server cannot be started, exits, answers something that is
  not MCP, a JSON-RPC error, no answer within the timeout) raises :class:`McpServerError`, a
  :class:`~toolprism.errors.BackendError`: an environment failure, never the model's.

The ``mcp`` package is the extra ``toolprism[mcp]``; importing this module does not need it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shlex
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolprism.errors import BackendError, ConfigError
from toolprism.schema import JSON

INSTALL_HINT = "the MCP client needs the mcp package: pip install 'toolprism[mcp]'"
START_TIMEOUT_S = 30.0
"""Seconds a server has to start and answer ``initialize`` and ``tools/list``."""
CALL_TIMEOUT_S = 60.0
"""Seconds one ``tools/call`` may take."""


_QUIET = logging.NullHandler()


class McpServerError(BackendError):
    """An MCP server could not be reached or broke the protocol (not a tool's ``isError`` reply).

    Attributes:
        command: the server command line.
    """

    def __init__(self, command: Sequence[str], message: str) -> None:
        self.command = list(command)
        super().__init__(f"MCP server {shlex.join(command)!r}: {message}")


@dataclass(frozen=True)
class ToolResult:
    """One ``tools/call`` result.

    Attributes:
        reply: the result as JSON (see :func:`result_reply`).
        is_error: the result's ``isError`` flag: the tool failed and says why in ``reply``.
        raw: the whole result as the server sent it (MCP wire JSON, camelCase keys).
    """

    reply: JSON
    is_error: bool
    raw: dict[str, Any]


def split_command(command: str | Sequence[str]) -> list[str]:
    """A server command line as its words (a string is split as a POSIX shell would, no expansion).

    Raises:
        ConfigError: an empty command or unbalanced quotes.
    """
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as e:
            raise ConfigError(f"cannot read the command {command!r}: {e}", what="MCP server command") from None
    else:
        words = list(command)
    if not words or not words[0]:
        raise ConfigError("no command given (e.g. -- mcp-server-time)", what="MCP server command")
    return words


def result_reply(raw: dict[str, Any]) -> dict[str, JSON]:
    """The JSON reply of a ``tools/call`` result (wire form): always a JSON object, as every
    toolprism domain replies (a bare string reads as malformed feedback to the scorers and the oracle).

    - ``structuredContent`` when the server gives it (a non-object wrapped as ``{"result": value}``);
    - else the text of a single text block: the object it parses to when it is a JSON object, else
      ``{"text": text}``;
    - else ``{"content": [blocks]}`` (images, resources, several blocks);
    - a result with ``isError`` becomes ``{"error": text}`` (the blocks' texts joined; the form a
      domain's refused call takes).
    """
    content = raw.get("content") or []
    texts = [block.get("text", "") for block in content if block.get("type") == "text"]
    if raw.get("isError"):
        return {"error": "\n".join(texts) if texts else content}
    structured = raw.get("structuredContent")
    if structured is not None:
        return structured if isinstance(structured, dict) else {"result": structured}
    if len(content) == 1 and len(texts) == 1:
        try:
            parsed = json.loads(texts[0])
        except ValueError:
            parsed = None
        return parsed if isinstance(parsed, dict) else {"text": texts[0]}
    return {"content": content}


class McpConnection:
    """A live stdio connection to one MCP server (one process), usable from synchronous code.

    Use it as a context manager, or call :meth:`close`. Not thread-safe: one call at a time.

    Args:
        command: the server's command line (words, or a string split by :func:`split_command`).
        cwd: working directory of the server process (default: this process's).
        env: extra environment variables for the server (over the SDK's safe default set).

    Raises:
        ConfigError: the ``mcp`` package is missing, or the command is empty.
        McpServerError: the server cannot be started, exits, or does not answer ``initialize``
            within :data:`START_TIMEOUT_S` (the message ends with the server's last stderr lines).
    """

    def __init__(
        self, command: str | Sequence[str], *, cwd: str | Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        try:
            import anyio.from_thread
            from mcp import StdioServerParameters
        except ImportError:
            raise ConfigError(INSTALL_HINT, what="MCP") from None
        self.command = split_command(command)
        logging.getLogger("mcp").addHandler(_QUIET)  # the SDK logs unreadable lines; our error says it all
        self._params = StdioServerParameters(command=self.command[0], args=self.command[1:], cwd=cwd, env=env)
        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._stack = contextlib.ExitStack()
        self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        try:
            self._session, self.server_name = self._stack.enter_context(
                self._portal.wrap_async_context_manager(self._connect())
            )
        except BaseException as e:  # the SDK raises exception groups from its task groups
            error = self._error(e, "could not start")
            self._close_quietly()
            raise error from None

    @contextlib.asynccontextmanager
    async def _connect(self) -> AsyncIterator[tuple[Any, str]]:
        import anyio
        from mcp import ClientSession, stdio_client

        async with stdio_client(self._params, errlog=self._errlog) as streams, ClientSession(*streams) as session:
            with anyio.fail_after(START_TIMEOUT_S):
                result = await session.initialize()
            yield session, result.server_info.name

    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists (all pages of ``tools/list``), in MCP wire JSON: ``name``,
        ``description``, ``inputSchema``, ``outputSchema``, ``annotations`` ... (unset fields left out).

        Raises:
            McpServerError: a protocol or transport failure.
        """
        return self._call(self._list_tools(), "tools/list failed")

    async def _list_tools(self) -> list[dict[str, Any]]:
        import anyio
        from mcp_types import PaginatedRequestParams

        tools: list[dict[str, Any]] = []
        cursor = None
        with anyio.fail_after(START_TIMEOUT_S):
            while True:
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await self._session.list_tools(params=params)
                tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    return tools

    def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Call one tool; a tool error (``isError``) is a result, not an exception.

        Raises:
            McpServerError: a protocol or transport failure (JSON-RPC error, server gone, timeout).
        """
        return self._call(self._call_tool(name, arguments), f"tools/call {name} failed")

    async def call_tool_async(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """:meth:`call_tool` for a coroutine running on another event loop (it waits in a worker thread)."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.call_tool, name, arguments)

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        import anyio

        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await self._session.call_tool(name, arguments)
        raw = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return ToolResult(result_reply(raw), bool(result.is_error), raw)

    def _call(self, coroutine: Any, what: str) -> Any:
        async def run() -> Any:
            return await coroutine

        try:
            return self._portal.call(run)
        except BaseException as e:  # noqa: BLE001 - turned into one clear error
            coroutine.close()
            raise self._error(e, what) from None

    def _error(self, error: BaseException, what: str) -> McpServerError:
        """One clear error for whatever the SDK raised, with the server's last stderr lines."""
        causes = _leaves(error)
        reasons = []
        for cause in causes:
            if isinstance(cause, FileNotFoundError):
                reasons.append(f"no such command {self.command[0]!r}")
            elif isinstance(cause, PermissionError):
                reasons.append(f"{self.command[0]!r} is not executable")
            elif isinstance(cause, TimeoutError):
                reasons.append("no answer in time (is it an MCP server speaking stdio?)")
            elif type(cause).__name__ == "MCPError" and "closed" in str(cause).lower():
                reasons.append("the server closed the connection (it exited, or is not an MCP server)")
            else:
                reasons.append(f"{type(cause).__name__}: {cause}")
        message = f"{what}: {'; '.join(dict.fromkeys(reasons))}"
        tail = self._stderr_tail()
        return McpServerError(self.command, f"{message}\n  its stderr ends:\n{tail}" if tail else message)

    def _stderr_tail(self, lines: int = 6) -> str:
        try:
            self._errlog.flush()
            self._errlog.seek(0)
            text = self._errlog.read()
        except (OSError, ValueError):
            return ""
        return "\n".join(f"    {line}" for line in text.strip().splitlines()[-lines:])

    def close(self) -> None:
        """Stop the server (close its stdin, then terminate it) and the background loop; idempotent."""
        self._close_quietly()

    def _close_quietly(self) -> None:
        with contextlib.suppress(BaseException):
            self._stack.close()
        with contextlib.suppress(OSError, ValueError):
            self._errlog.close()

    def __enter__(self) -> McpConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _leaves(error: BaseException) -> list[BaseException]:
    """The innermost exceptions of (nested) exception groups, in order."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def list_server_tools(command: str | Sequence[str], *, cwd: str | Path | None = None) -> tuple[str, list[dict]]:
    """Start an MCP server, read its ``tools/list`` and stop it.

    Returns:
        The server's name (``serverInfo.name``) and its tools in MCP wire JSON (input and output
        schemas, annotations kept).

    Raises:
        ConfigError: the ``mcp`` package is missing; McpServerError: see :class:`McpConnection`.
    """
    with McpConnection(command, cwd=cwd) as connection:
        return connection.server_name, connection.list_tools()
