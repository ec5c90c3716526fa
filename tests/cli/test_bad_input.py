"""What a user can get wrong on the command line fails early with a clear message and exit code 2,
and runs over domain packs can be re-scored, diagnosed and resumed like built-in ones."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.domains._catalog import PACK_FORMAT

runner = CliRunner()


def pack(path: Path, name: str = "lamps", tasks: bool = True) -> Path:
    document = {
        "format": PACK_FORMAT,
        "name": name,
        "source": {"dataset": "hand-written for the tests"},
        "licence": "CC0-1.0",
        "policy": "You control the lamps of one room.",
        "tools": [
            {
                "name": "set_lamp",
                "description": "Set a lamp's level.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "lamp": {"type": "string", "enum": ["desk", "floor"]},
                        "level": {"type": "integer", "minimum": 0, "maximum": 10},
                    },
                    "required": ["lamp", "level"],
                },
            }
        ],
        "tasks": [
            {
                "id": "set/0",
                "kind": "single",
                "easy": "Set the desk lamp to 7.",
                "gold": [{"name": "set_lamp", "arguments": {"lamp": "desk", "level": 7}}],
            }
        ]
        if tasks
        else [],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_run_over_a_pack_can_be_scored_diagnosed_and_resumed_from_elsewhere(tmp_path: Path) -> None:
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        pack(tmp_path / "lamps.json")
        result = runner.invoke(app, ["run", "-m", "oracle", "-d", "lamps.json", "-v", "native,merge", "--run-dir", "r"])
        assert result.exit_code == 0, result.output
    finally:
        os.chdir(here)
    run_dir = tmp_path / "r"
    config = json.loads((run_dir / "header.json").read_text())["config"]
    assert config["domains"] == [str(tmp_path / "lamps.json")] and config["model"] == "oracle"  # -m is --model
    scored = runner.invoke(app, ["score", str(run_dir), "--json"])
    assert scored.exit_code == 0, scored.output
    assert all(v["success_rate"] == 1.0 for v in json.loads(scored.stdout)["variants"])
    assert runner.invoke(app, ["diagnose", str(run_dir), "--json"]).exit_code == 0
    assert runner.invoke(app, ["run", "--resume", str(run_dir)]).exit_code == 0


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda d: [str(pack(d / "a.json")), str(pack(d / "b.json"))], "episodes would collide"),
        (lambda d: [str(pack(d / "a.json", name="retail"))], "episodes would collide"),
        (lambda d: [str(pack(d / "a.json", tasks=False))], "no tasks"),
    ],
)
def test_pack_name_clashes_and_empty_packs_are_refused(tmp_path: Path, make, words: str) -> None:  # noqa: ANN001
    domains = ",".join(make(tmp_path))
    result = runner.invoke(app, ["run", "--model", "oracle", "-d", domains, "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 2 and words in result.output
    assert not (tmp_path / "r").exists()


def test_unknown_perturbation_suite_names_the_known_ones(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", "--model", "oracle", "--perturb-suite", "nope", "--run-dir", str(tmp_path / "r")]
    )
    assert result.exit_code == 2 and "known: all, mixed" in result.output


def test_an_empty_option_value_is_refused_not_replaced_by_the_defaults(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", "--model", "oracle", "-v", "", "-d", " , ", "--perturb", "", "--run-dir", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    for option in ("--variants", "--domains", "--perturb"):
        assert f"{option} was given an empty value" in result.output
    assert not (tmp_path / "r").exists()


def test_paths_that_cannot_be_written_are_clear_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("")
    export = runner.invoke(
        app, ["export", "tasks", "--out", str(blocker / "x.jsonl"), "-d", "smart_home", "--limit", "1"]
    )
    assert export.exit_code == 2 and "error:" in export.output and "Traceback" not in export.output
    run = runner.invoke(app, ["run", "--model", "oracle", "--run-dir", str(blocker / "sub" / "r")])
    assert run.exit_code == 2 and f"{blocker} is a file, not a directory" in " ".join(run.output.split())


def test_corrupt_run_directories_are_clear_errors(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    (run_dir / "header.json").write_text(json.dumps({"config": {}}))
    missing = runner.invoke(app, ["score", str(run_dir)])
    assert missing.exit_code == 2 and "no results.sqlite" in missing.output
    assert not (run_dir / "results.sqlite").exists()  # score only reads
    (run_dir / "results.sqlite").write_bytes(b"this is not a database" * 100)
    garbage = runner.invoke(app, ["score", str(run_dir)])
    assert garbage.exit_code == 2 and "not a readable run database" in garbage.output
    (run_dir / "results.sqlite").unlink()
    sqlite3.connect(run_dir / "results.sqlite").close()
    (run_dir / "header.json").write_text(json.dumps({"version": 1}))
    no_config = runner.invoke(app, ["run", "--resume", str(run_dir)])
    assert no_config.exit_code == 2 and "no run configuration" in no_config.output


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--model", "oracle", "--seed", "-5"],
        ["domains", "--seed", "-1"],
        ["fault-arms", "--seed", "-1"],
        ["export", "tasks", "--seed", "-1", "--out", "x.jsonl"],
        ["validate", "--seeds", "-1"],
    ],
)
def test_negative_seeds_are_refused_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "seed" in result.output.lower(), result.output
    assert not list(tmp_path.iterdir())  # nothing was written
