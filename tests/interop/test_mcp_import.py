"""toolprism import mcp against mcp-server-time, and bad servers: a clear error, never a traceback."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from toolprism.schema import load_catalog  # noqa: E402

pytestmark = pytest.mark.mcp
SRC = Path(__file__).resolve().parents[2] / "src"


def _toolprism(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    command = [sys.executable, "-m", "toolprism", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_import_mcp_time_writes_a_catalog_every_command_reads(tmp_path: Path) -> None:
    pytest.importorskip("mcp_server_time")
    out = tmp_path / "time.tools.json"
    done = _toolprism(
        "import", "mcp", "-o", str(out), "--json", "--", sys.executable, "-m", "mcp_server_time", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    catalog = json.loads(out.read_text())
    names = sorted(t["name"] for t in catalog["tools"])
    assert names == ["convert_time", "get_current_time"]
    assert summary["tools"] == 2 and summary["with_output_schema"] == sum("outputSchema" in t for t in catalog["tools"])
    assert all("inputSchema" in t for t in catalog["tools"])
    assert catalog["_meta"]["toolprism/server"]["command"][-1] == "mcp_server_time"
    space = load_catalog(out)
    assert sorted(op.name for op in space.operations) == names
    assert {op.name: op.kind for op in space.operations} == {"convert_time": "read", "get_current_time": "read"}
    shown = _toolprism("variants", "show", "discovery", "--catalog", str(out), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "list_methods" in shown.stdout
    checked = _toolprism("validate", "--catalog", str(out), "-v", "discovery,reference", "--json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["checks"] > 0
    task = {
        "query": "What time is it in UTC?",
        "gold": [{"name": "get_current_time", "arguments": {"timezone": "UTC"}}],
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    ran = _toolprism(
        "run", "--model", "oracle", "--catalog", str(out), "--tasks", "tasks.jsonl", "-v", "native,discovery",
        "--run-dir", str(tmp_path / "run"), "--json", "--no-report", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert [v["successes"] for v in json.loads(ran.stdout)["variants"]] == [1, 1]


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (["no-such-mcp-server-xyz"], "no such command 'no-such-mcp-server-xyz'"),
        (["true"], "closed the connection"),  # a server that exits at once
        ([sys.executable, "-c", "print('hello, not MCP')"], "closed the connection"),  # not an MCP server
        ([sys.executable, "-c", "import sys; sys.exit('boom: bad config')"], "boom: bad config"),  # its stderr
    ],
)
def test_import_mcp_bad_server_is_a_clear_error(command: list[str], says: str, tmp_path: Path) -> None:
    done = _toolprism("import", "mcp", "-o", str(tmp_path / "x.json"), "--", *command, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    assert f"MCP server {shlex.join(command)!r}" in " ".join(done.stderr.split())
    assert says in done.stderr
    assert not (tmp_path / "x.json").exists()


def test_serve_mcp_with_a_bad_upstream_is_a_clear_error(tmp_path: Path) -> None:
    upstream = "no-such-mcp-server-xyz --flag"
    done = _toolprism("serve-mcp", "--upstream", upstream, "--variant", "discovery", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "no such command 'no-such-mcp-server-xyz'" in done.stderr
