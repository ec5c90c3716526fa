"""``toolprism run --catalog TOOLS --tasks FILE``, ``import catalog`` and ``export tasks --catalog``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolprism.cli import app

runner = CliRunner()
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "send_message",
            "description": "Send a text message.",
            "parameters": {
                "type": "object",
                "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                "required": ["to", "body"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_contact",
            "description": "Look a contact up.",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        },
    },
]
TASKS = [
    {"query": "Text Ana: late.", "gold": [{"name": "send_message", "arguments": {"to": "Ana", "body": "late"}}]},
    {
        "query": "Find Bo, then text him hi.",
        "gold": [
            {"name": "get_contact", "arguments": {"name": "Bo"}},
            {"name": "send_message", "arguments": {"to": "Bo", "body": "hi"}},
        ],
        "replies": [{"phone": "555"}, {"sent": True}],
    },
]


def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    return str(tmp_path / "tools.json"), str(tmp_path / "tasks.jsonl")


def test_oracle_solves_a_user_catalog_under_every_kind_of_variant(tmp_path: Path) -> None:
    tools, tasks = files(tmp_path)
    run_dir = tmp_path / "run"
    variants = "native,merge,transaction,reference,discovery,split"
    args = ["run", "--model", "oracle", "--catalog", tools, "--tasks", tasks, "-v", variants, "--run-dir", str(run_dir)]
    result = runner.invoke(app, [*args, "--json", "--no-report"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 2 * 6
    assert all(v["success_rate"] == 1.0 for v in summary["variants"])
    header = json.loads((run_dir / "header.json").read_text())
    assert header["config"]["domains"] == [str((run_dir / "packs" / "tools.json").resolve())]
    resumed = runner.invoke(app, ["run", "--resume", str(run_dir), "--json", "--no-report"])
    assert resumed.exit_code == 0 and json.loads(resumed.stdout)["episodes"] == 12
    scored = runner.invoke(app, ["score", str(run_dir), "--json"])
    assert scored.exit_code == 0, scored.output


def test_catalog_and_tasks_go_together(tmp_path: Path) -> None:
    tools, tasks = files(tmp_path)
    alone = runner.invoke(app, ["run", "--model", "oracle", "--catalog", tools, "--run-dir", str(tmp_path / "r")])
    assert alone.exit_code == 2 and "--catalog needs --tasks FILE" in alone.output
    counted = runner.invoke(app, ["run", "--model", "oracle", "--catalog", tools, "--tasks", "3"])
    assert counted.exit_code == 2 and "--catalog needs --tasks FILE" in counted.output
    file_alone = runner.invoke(app, ["run", "--model", "oracle", "-d", "garden", "--tasks", tasks])
    assert file_alone.exit_code == 2 and "goes with --catalog" in file_alone.output
    assert not (tmp_path / "r").exists()


def test_a_bad_task_file_fails_before_the_run(tmp_path: Path) -> None:
    tools, _ = files(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x", "gold": [{"name": "send_message", "arguments": {"to": "A"}}]}\n')
    result = runner.invoke(
        app, ["run", "--model", "oracle", "--catalog", tools, "--tasks", str(bad), "--run-dir", str(tmp_path / "r")]
    )
    assert result.exit_code == 2 and "'body' is a required property" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "r").exists()


def test_import_catalog_then_run_and_export_the_pack(tmp_path: Path) -> None:
    tools, tasks = files(tmp_path)
    out = tmp_path / "packs"
    made = runner.invoke(
        app, ["import", "catalog", "--catalog", tools, "--tasks", tasks, "--out", str(out), "--name", "chat", "--json"]
    )
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["tasks"] == 2
    pack = out / "chat.json"
    run = runner.invoke(
        app,
        [
            "run",
            "--model",
            "oracle",
            "-d",
            str(pack),
            "-v",
            "merge",
            "--run-dir",
            str(tmp_path / "r"),
            "--json",
            "--no-report",
        ],
    )
    assert run.exit_code == 0 and json.loads(run.stdout)["variants"][0]["success_rate"] == 1.0
    direct = tmp_path / "direct.jsonl"
    exported = runner.invoke(
        app, ["export", "tasks", "--catalog", tools, "--tasks", tasks, "-v", "transaction", "--out", str(direct)]
    )
    assert exported.exit_code == 0, exported.output
    rows = [json.loads(line) for line in direct.read_text().splitlines()]
    assert [r["domain"] for r in rows] == ["tools", "tools"]
    assert rows[0]["encodings"]["transaction"]["calls"][0]["name"].startswith("begin")  # a write; reads pass
