"""A throwaway git repository for the MCP tests (``mcp-server-git`` works on it)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """Run ``git -C repo ARGS``; its stdout, stripped. Raises CalledProcessError on failure."""
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def make_repository(path: Path, files: dict[str, str]) -> Path:
    """A new repository at ``path`` (created) on branch ``main``: one commit of ``readme.txt``,
    then ``files`` (name -> text) written but not staged. Returns ``path``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "test@example.org")
    git(path, "config", "user.name", "test")
    (path / "readme.txt").write_text("hello\n")
    git(path, "add", "readme.txt")
    git(path, "commit", "-q", "-m", "init")
    for name, text in files.items():
        (path / name).write_text(text)
    return path
