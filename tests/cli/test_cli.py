"""The command line, as a user types it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolprism.cli import app

runner = CliRunner()


def test_run_oracle_json_summary(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "--model",
            "oracle",
            "--tasks",
            "2",
            "--json",
            "--run-dir",
            str(tmp_path / "r"),
            "--variants",
            "native,merge(by=full,args=flat)|rename(style=opaque)",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [v["variant"] for v in summary["variants"]] == ["native", "merge(by=full,args=flat)|rename(style=opaque)"]
    assert all(v["episodes"] == 4 and v["success_rate"] == 1.0 for v in summary["variants"])
    assert summary["run_dir"] == str(tmp_path / "r")
    assert (tmp_path / "r" / "header.json").exists()


def test_run_table_and_resume(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", "--model", "oracle", "-n", "1", "-d", "retail", "--run-dir", str(tmp_path / "r")]
    )
    assert result.exit_code == 0, result.output
    assert "success per variant" in result.stdout and "transaction" in result.stdout and "100%" in result.stdout
    again = runner.invoke(app, ["run", "--resume", str(tmp_path / "r"), "--json"])
    assert again.exit_code == 0
    assert json.loads(again.stdout)["episodes"] == 5


def test_run_all_runs_the_whole_suite(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", "--model", "oracle", "-n", "1", "-v", "all", "--json", "--run-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    listing = json.loads(runner.invoke(app, ["variants", "list", "--json"]).stdout)
    summary = json.loads(result.stdout)
    assert [v["variant"] for v in summary["variants"]] == [row["name"] for row in listing]
    assert all(v["success_rate"] == 1.0 for v in summary["variants"])


def test_bad_options_give_a_clear_error() -> None:
    result = runner.invoke(app, ["run", "--model", "oracle", "--variants", "merge(by=nope)", "-d", "mars"])
    assert result.exit_code == 2
    assert "unknown domain 'mars'" in result.output and "by='nope'" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["run", "--model", "gpt-nothing"])
    assert result.exit_code == 2 and "unknown model" in result.output


def test_variants_show_prints_the_tools_a_model_sees() -> None:
    result = runner.invoke(app, ["variants", "show", "transaction-shared", "--domain", "retail"])
    assert result.exit_code == 0, result.output
    tools = json.loads(result.stdout)
    names = [t["function"]["name"] for t in tools]
    ops = ["find_user_id_by_email", "get_user_details", "get_order_details", "get_product_details"]
    assert names[:4] == [f"begin_{op}" for op in ops] and len(names) == 16 + 18 + 16
    assert {"set_email", "set_order_id", "set_item_ids", "commit_cancel_order"} <= set(names)
    assert names[-1] == "commit_exchange_delivered_order_items"
    listing = runner.invoke(app, ["variants", "list", "--json", "--domain", "retail"])
    rows = {row["name"]: row for row in json.loads(listing.stdout)}
    assert rows["merge"]["spec"] == "merge(by=full,args=shared)"
    assert rows["merge"]["tool_count_ratio"] == round(1 / 16, 3) and rows["native"]["tool_count_ratio"] == 1.0


def test_resume_refuses_options_it_would_ignore(tmp_path: Path) -> None:
    runner.invoke(app, ["run", "--model", "oracle", "-n", "1", "-v", "native", "--run-dir", str(tmp_path / "r")])
    result = runner.invoke(app, ["run", "--resume", str(tmp_path / "r"), "-n", "3", "--seed", "2"])
    assert result.exit_code == 2 and "drop --tasks, --seed" in result.output


def test_resume_may_change_the_concurrency_and_keeps_the_runs_otherwise(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    from toolprism.evaluation import RunConfig, evaluate

    run_dir = tmp_path / "r"
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=4, concurrency=3)
    evaluate(config, run_dir=run_dir)
    seen: list[int] = []
    import toolprism.evaluation._evaluate as evaluate_module

    real = evaluate_module.run_episodes

    async def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        seen.append(kwargs["concurrency"])
        return await real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "run_episodes", spy)
    assert runner.invoke(app, ["run", "--resume", str(run_dir), "--concurrency", "1", "--json"]).exit_code == 0
    assert runner.invoke(app, ["run", "--resume", str(run_dir), "--json"]).exit_code == 0
    assert seen == [1, 3]  # told: 1; not told: the run's own 3


def test_error_text_is_shown_verbatim() -> None:
    result = runner.invoke(app, ["run", "--model", "oracle", "-d", "[bold]x"])
    assert result.exit_code == 2 and "unknown domain '[bold]x'" in result.output


def test_turn_limit_is_reported_per_variant(tmp_path: Path) -> None:
    args = ["run", "--model", "oracle", "-n", "1", "-d", "retail", "--json", "--max-turns", "4"]
    result = runner.invoke(app, [*args, "-v", "native,transaction", "--run-dir", str(tmp_path)])
    rows = {v["variant"]: v for v in json.loads(result.stdout)["variants"]}
    assert rows["native"]["turn_limit"] == 0 and rows["transaction"]["turn_limit"] == 1


def test_help_paragraphs_are_wrapped_by_the_terminal_not_by_the_source() -> None:
    wide = CliRunner().invoke(app, ["fault-arms", "--help"], env={"COLUMNS": "200"})
    assert wide.exit_code == 0
    assert "the arms are the clean (C), failed (F), inconsistent-status (Ns) and inconsistent-identifier" in wide.output
    commands = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "Xu et al.'s fault arms" in commands.output and "Seed 00" not in commands.output


def test_score_says_when_a_run_is_unfinished(tmp_path: Path) -> None:
    import sqlite3

    out = tmp_path / "r"
    assert runner.invoke(app, ["run", "--model", "oracle", "-d", "tv", "-n", "3", "--run-dir", str(out)]).exit_code == 0
    db = sqlite3.connect(out / "results.sqlite")
    with db:
        db.execute("DELETE FROM episodes WHERE rowid > 5")
    db.close()
    result = runner.invoke(app, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["planned"] == 15 and json.loads(result.stdout)["episodes"] == 5
    assert "only 5 of the 15 episodes this run planned are recorded" in " ".join(result.output.split())


def test_the_paper_preset_runs_the_paper_suite_on_chosen_domains(tmp_path: Path) -> None:
    """``--preset action-space-shaping`` with a chosen domain: the paper's per-domain variants on it, its
    whole-catalog arms on the whole catalog, under the paper's control, turn limit and instruction; the
    oracle succeeds everywhere."""
    result = runner.invoke(
        app,
        ["run", "--preset", "action-space-shaping", "--model", "oracle", "-d", "tv", "-n", "1", "--json"]
        + ["--run-dir", str(tmp_path / "r")],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert len({v["variant"] for v in summary["variants"]}) == 32
    assert all(v["success_rate"] == 1.0 for v in summary["variants"]), [
        v["variant"] for v in summary["variants"] if v["success_rate"] < 1
    ]
    config = json.loads((tmp_path / "r" / "header.json").read_text())["config"]
    assert config["domains"] == ["tv", "whole_catalog"]
    assert (config["control"], config["max_turns"], config["instruction"], config["preset"]) == (
        "paper",
        16,
        "paper",
        "action-space-shaping",
    )
    trace = next((tmp_path / "r").rglob("*.json*"))
    assert trace.exists()


def test_options_given_with_the_preset_override_it_perturbations_included(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["run", "--preset", "action-space-shaping", "--model", "oracle", "-d", "tv", "-n", "1", "--json"]
        + ["-v", "fully-merged", "--perturb", "C2", "--control", "strict", "--run-dir", str(tmp_path / "r")],
    )
    assert result.exit_code == 0, result.output
    config = json.loads((tmp_path / "r" / "header.json").read_text())["config"]
    assert config["perturbations"] == ["C2:medium"] and config["variants"] == ["fully-merged"]
    assert (config["control"], config["max_turns"], config["domains"]) == ("strict", 16, ["tv"])


def test_validate_takes_suite_names() -> None:
    result = runner.invoke(app, ["validate", "-d", "tv", "-v", "paper", "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert "PASSED" in result.output
