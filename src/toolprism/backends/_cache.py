"""An opt-in on-disk cache of model responses, so that a re-run (after a crash, or to re-score)
does not pay for the same temperature-0 request twice.

One file per response, ``<dir>/<key[:2]>/<key>.json``, written atomically (temporary file and
rename), so concurrent episodes and an interrupted run never leave a half-written entry; an
unreadable entry counts as a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

from toolprism.errors import ConfigError


def default_cache_dir() -> Path:
    """``platformdirs.user_cache_dir("toolprism")/responses``."""
    return Path(platformdirs.user_cache_dir("toolprism")) / "responses"


class ResponseCache:
    """Responses keyed by request.

    Args:
        directory: where entries live; default :func:`default_cache_dir`. Created here.

    Attributes:
        hits / misses: lookups answered / not answered since creation.

    Raises:
        ConfigError: the directory cannot be created or written (checked before the run, so a
            cache asked for is never silently a cache of nothing).
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.hits = 0
        self.misses = 0
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=self.directory):
                pass
        except OSError as e:
            raise ConfigError(
                f"response cache directory {str(self.directory)!r} cannot be written: {e.strerror or e}",
                what="cache",
            ) from None

    @staticmethod
    def key(endpoint: str, body: Any) -> str:
        """SHA-256 (hex, 64 characters) of the endpoint and the canonical JSON of the request body
        (sorted keys, no whitespace), so that key order does not matter."""
        canonical = json.dumps({"endpoint": endpoint, "body": body}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The stored response body for ``key``, or None (absent or unreadable)."""
        try:
            body = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return body

    def put(self, key: str, body: Any) -> None:
        """Store ``body`` (JSON-serialisable) under ``key``, atomically; an entry already there
        is replaced. A cache that cannot be written is not an error of the run: nothing is kept."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(body, f, sort_keys=True, separators=(",", ":"))
            os.replace(tmp, path)
        except (OSError, TypeError, ValueError):
            Path(tmp).unlink(missing_ok=True)


__all__ = ["ResponseCache", "default_cache_dir"]
