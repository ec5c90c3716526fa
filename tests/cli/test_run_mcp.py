"""toolprism run --mcp CMD --tasks FILE: the oracle through a live mcp-server-git, from the command line."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("mcp_server_git")

pytestmark = pytest.mark.mcp
SRC = Path(__file__).resolve().parents[2] / "src"


def _toolprism(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "toolprism", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_run_mcp_oracle_succeeds_and_keeps_its_pack(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@example.org"], ["config", "user.name", "t"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    (repo / "a.txt").write_text("a\n")
    task = {
        "query": f"Stage a.txt in {repo}.",
        "gold": [{"name": "git_add", "arguments": {"repo_path": str(repo), "files": ["a.txt"]}}],
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    server = shlex.join([sys.executable, "-m", "mcp_server_git", "--repository", str(repo)])
    run_dir = tmp_path / "out"
    done = _toolprism(
        "run", "--model", "oracle", "--mcp", server, "--tasks", "tasks.jsonl", "-v", "native,reference",
        "--run-dir", str(run_dir), "--json", "--no-report", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["episodes"] == 2 and summary["backend_error"] == 0
    assert [v["successes"] for v in summary["variants"]] == [1, 1]
    pack = json.loads((run_dir / "packs" / "mcp_git.json").read_text())
    assert pack["server"]["command"] == shlex.split(server)
    assert (run_dir / "packs" / "mcp_git.tools.json").exists()
    staged = subprocess.run(["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, text=True)
    assert staged.stdout.split() == ["a.txt"]  # the live server did stage it


def test_run_mcp_scope_run_serves_every_episode_from_one_server(tmp_path: Path) -> None:
    pytest.importorskip("mcp_server_time")
    log = tmp_path / "starts.log"  # the command appends a line each time a server process starts
    server = shlex.join([sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"])
    command = f"sh -c {shlex.quote(f'echo start >> {shlex.quote(str(log))}; exec {server}')}"
    task = {"query": "Time in UTC?", "gold": [{"name": "get_current_time", "arguments": {"timezone": "UTC"}}]}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    for scope, starts in (("run", 1 + 1), ("episode", 1 + 3)):  # the import's start, then the episodes'
        log.unlink(missing_ok=True)
        done = _toolprism(
            "run", "--model", "oracle", "--mcp", command, "--mcp-scope", scope, "--tasks", "tasks.jsonl",
            "-v", "native,discovery,reference", "--run-dir", str(tmp_path / scope), "--json", "--no-report",
            cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert [v["successes"] for v in json.loads(done.stdout)["variants"]] == [1, 1, 1]
        assert log.read_text().count("start") == starts, scope


def test_run_mcp_bad_options_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}))
    both = _toolprism("run", "--mcp", "x", "--catalog", "tools.json", "--tasks", "t.jsonl", cwd=tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr
    no_tasks = _toolprism("run", "--mcp", "mcp-server-time", cwd=tmp_path)
    assert no_tasks.returncode == 2 and "--mcp needs --tasks FILE" in no_tasks.stderr
    (tmp_path / "t.jsonl").write_text(json.dumps({"query": "q", "gold": [{"name": "t"}]}) + "\n")
    gone = _toolprism("run", "--model", "oracle", "--mcp", "no-such-mcp-server-xyz", "--tasks", "t.jsonl", cwd=tmp_path)
    assert gone.returncode == 2 and "no such command 'no-such-mcp-server-xyz'" in gone.stderr
    assert "Traceback" not in both.stderr + no_tasks.stderr + gone.stderr
