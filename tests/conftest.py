"""Shared fixtures. Real network calls are blocked in every test."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

SHARED_EXTERNAL = Path(__file__).resolve().parents[1].parent / "shared" / "external"


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse outbound connections except to loopback."""
    real = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else str(address)
        if (
            isinstance(host, str)
            and not (host.startswith("127.") or host in ("localhost", "::1"))
            and self.family != socket.AF_UNIX
        ):
            raise OSError(f"network access blocked in tests: {address}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture
def external() -> Path:
    """``../shared/external``; skips the test when it is absent (a user's clone has none)."""
    if not SHARED_EXTERNAL.is_dir():
        pytest.skip("../shared/external is not present")
    return SHARED_EXTERNAL
