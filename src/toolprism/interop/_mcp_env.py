"""The live environment of a pack whose calls an MCP server executes (``toolprism run --mcp``).

One server process per episode by default (:class:`~toolprism.domains.PackServer`
``scope="episode"``), started at the episode's first native call and stopped when the episode
ends, so a server's in-process state never leaks from one episode into the next; with
``scope="run"`` one process serves every episode of the run in this process (started at the first
call, stopped at exit), for servers without state. State the server keeps outside its
process (files, a database) is the user's to reset: give a command that sets it up, e.g.
``sh -c 'cp seed.db /tmp/run.db && exec mcp-server-sqlite --db-path /tmp/run.db'``.

- The state is the log of the writes the server carried out (a write whose result has ``isError``
  changed nothing, as a domain's refused call), so the state hash is that of the action-log
  environment after the same successful writes, and the scorer's gold state (replayed offline)
  matches it exactly when every gold write succeeded on the server.
- A result with ``isError`` is a reply: ``{"error": <its content>}``, shown to the model and recorded
  in the trace as the call's reply (outcome ``executed``).
- A protocol or transport failure (the server cannot start, exits, a JSON-RPC error, a timeout)
  raises :class:`~toolprism.interop.McpServerError`, a ``BackendError``: the episode loop ends the
  episode ``backend_error``, recorded apart and never scored (not the model's failure).
- Determinism is the server's: a server whose replies change from run to run (the time) gives
  different prompts from run to run; the calls a model makes are still scored the same way.
"""

from __future__ import annotations

import atexit
import threading
import weakref

from toolprism.domains import ActionLog, CatalogDomain, Environment, LoggedAction, PackServer
from toolprism.errors import RejectedCall, RejectionKind
from toolprism.interop._mcp_client import McpConnection
from toolprism.schema import JSON, Action


class McpEnvironment(Environment):
    """One episode's environment over a live MCP server (see the module doc).

    Attributes:
        server: what to start.
        calls: native calls sent to the server so far.
    """

    def __init__(self, domain: CatalogDomain, server: PackServer) -> None:
        super().__init__(domain, ActionLog())
        self.server = server
        self.calls = 0
        self._connection: McpConnection | None = None

    def _connected(self) -> McpConnection:
        if self._connection is None and self.server.scope == "run":
            self._connection = _shared(self.server)
        if self._connection is None:
            self._connection = McpConnection(self.server.command, cwd=self.server.cwd)
            weakref.finalize(self, self._connection.close)  # an episode cancelled mid-way still stops it
        return self._connection

    def execute(self, action: Action) -> JSON:
        """Validate ``action`` against the native schema, then have the server run it.

        Raises:
            RejectedCall: UNKNOWN_TOOL or INVALID_ARGUMENTS, before anything is sent.
            McpServerError: a protocol or transport failure.
        """
        definition = self.domain.definitions().get(action.op)
        if definition is None:
            raise RejectedCall(RejectionKind.UNKNOWN_TOOL, f"unknown operation '{action.op}' in {self.domain.name}")
        definition.spec.tool().validate(action.arguments)
        self.log.append(action)
        self.calls += 1
        result = self._connected().call_tool(action.op, action.arguments)
        if definition.spec.kind == "write" and not result.is_error:
            self.state.actions.append(LoggedAction(tool=action.op, arguments=action.arguments))
        return result.reply

    def close(self) -> None:
        """Stop the server process, if this episode started one (a run-scoped server stays up)."""
        if self._connection is not None and self.server.scope == "episode":
            self._connection.close()


_SHARED: dict[tuple[tuple[str, ...], str | None], McpConnection] = {}
_SHARED_LOCK = threading.Lock()


def _shared(server: PackServer) -> McpConnection:
    """The run-scoped connection of ``server`` in this process, started on first use (a failed start
    is not kept: the next episode tries again)."""
    key = (tuple(server.command), server.cwd)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = McpConnection(server.command, cwd=server.cwd)
        return _SHARED[key]


@atexit.register
def _close_shared() -> None:
    for connection in _SHARED.values():
        connection.close()
    _SHARED.clear()


def live_environment(domain: CatalogDomain, server: PackServer, world_seed: int = 0) -> McpEnvironment:
    """The environment :data:`toolprism.domains.LIVE_SERVERS` names for ``mcp`` packs (``world_seed``
    is recorded by the task only: the server's world is what its command makes)."""
    return McpEnvironment(domain, server)
