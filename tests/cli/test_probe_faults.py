"""``toolprism probe faults``: stores a study, prints its table, re-summarises it without the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _fake_scorer import CharScorer  # tests/_fake_scorer.py (tests/ is on sys.path through its conftest)
from typer.testing import CliRunner

from toolprism.cli import _probe_faults, app


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []

    def create(model: str, **_: object) -> CharScorer:
        asked.append(model)
        return CharScorer()

    monkeypatch.setattr(_probe_faults, "create_scorer", create)
    return asked


def test_a_study_is_stored_summarised_and_resummarised(tmp_path: Path, fake: list[str]) -> None:
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["probe", "faults", "-d", "retail", "-n", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert fake == ["embedded"] and summary["tasks"] == 1 and summary["scorer"] == "fake:char"
    assert {a["arm"] for a in summary["arms"]} == {"F", "Ns", "Nm"} and summary["prefix_identical"] == 1
    assert sorted(p.name for p in out.iterdir()) == ["rows.jsonl", "study.json", "summary.json"]
    study = json.loads((out / "study.json").read_text())
    assert study["scorer_settings"] == {"id": "fake:char", "vocab": 97}
    assert study["config"]["reread"] == ["get_order_details", "get_user_details"]
    rows = (out / "rows.jsonl").read_text().splitlines()
    assert len(rows) == 4 * sum(1 for a in summary["clean"])  # every arm at every k reached
    again = CliRunner().invoke(app, ["probe", "faults", "--from", str(out), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout) | {"directory": ""} == summary | {"directory": ""}
    assert len(fake) == 1  # re-summarising needs no model
    table = CliRunner().invoke(app, ["probe", "faults", "--from", str(out), "--floor", "0"])
    assert (
        table.exit_code == 0 and "fault arms vs clean" in table.output and "clean rows (floor 0.0 nats)" in table.output
    )
    assert f"read from {out}" in " ".join(table.output.split())  # a re-summary is shown, not stored


def test_mistakes_are_clear_errors_not_tracebacks(tmp_path: Path, fake: list[str]) -> None:
    runner = CliRunner()
    cases = [
        (["--reread", "cancel_order"], "not read operations of retail: cancel_order"),
        (["-d", "smart_home"], "'get_order_details' is not a read operation of smart_home"),
        (["--all", "-n", "2"], "give --limit or --all, not both"),
        (["--from", str(tmp_path)], "holds no fault-arm study"),
        (["-n", "0"], "--limit must be at least 1"),
    ]
    for args, message in cases:
        out = [] if args[0] == "--from" else ["--out", str(tmp_path / "x")]
        result = runner.invoke(app, ["probe", "faults", *args, *out])
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()), result.output
    assert fake == []


def test_an_unscoreable_model_is_refused() -> None:
    result = CliRunner().invoke(app, ["probe", "faults", "-m", "oracle", "-n", "1"])
    assert result.exit_code == 2 and "the oracle is scripted and has no log-probabilities" in result.output


def test_a_study_cut_off_mid_write_is_resummarised_without_its_last_task(tmp_path: Path, fake: list[str]) -> None:
    """QA: a rows.jsonl whose last line was cut off made the whole study unreadable."""
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["probe", "faults", "-n", "2", "--max-k", "0", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    rows = (out / "rows.jsonl").read_text().splitlines()
    last = json.loads(rows[-1])["task_id"]
    (out / "rows.jsonl").write_text("\n".join(rows)[: -len(rows[-1]) // 2])  # the last row cut mid-line
    again = CliRunner().invoke(app, ["probe", "faults", "--from", str(out), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["tasks"] == 1 and f"the rows of {last} are left out" in again.output
    table = CliRunner().invoke(app, ["probe", "faults", "--from", str(out)])
    assert "incomplete: 1 of the study's 2 tasks have no rows" in " ".join(table.output.split())
    (out / "rows.jsonl").write_text("\n".join(rows[:1] + ["{broken"] + rows[1:]) + "\n")  # damage, not a cut
    broken = CliRunner().invoke(app, ["probe", "faults", "--from", str(out)])
    assert broken.exit_code == 2 and "rows.jsonl line 2: not a stored row" in " ".join(broken.output.split())


def test_an_interrupted_study_says_what_it_kept(
    tmp_path: Path, fake: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _probe_faults.fault_study

    def interrupted(*args: object, **kwargs: object):  # noqa: ANN202
        for i, item in enumerate(real(*args, **kwargs)):
            if i == 1:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(_probe_faults, "fault_study", interrupted)
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["probe", "faults", "-n", "2", "--max-k", "0", "--out", str(out)])
    assert result.exit_code == 130 and "Traceback" not in result.output
    text = " ".join(result.output.split())
    assert "interrupted: the rows of 1 of 2 tasks are stored in" in text and "--from" in text
    again = CliRunner().invoke(app, ["probe", "faults", "--from", str(out)])
    assert again.exit_code == 0 and "incomplete: 1 of the study's 2 tasks" in " ".join(again.output.split())


def test_a_site_with_no_fault_arm_and_an_empty_reread_are_refused(tmp_path: Path, fake: list[str]) -> None:
    """QA: smart_home's get_room_status sites have only the clean arm: the study ran and printed an
    empty table; an empty --reread blamed the domain."""
    site = ["-d", "smart_home", "--tool", "get_room_status", "--reread", "get_room_status"]
    for args, message in (
        (site, "no fault arm (F, Ns, Nm) applies at the smart_home get_room_status sites"),
        (["--reread", ","], "--reread names no tool"),
    ):
        result = CliRunner().invoke(app, ["probe", "faults", *args, "-n", "1", "--out", str(tmp_path / "x")])
        assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert fake == [] and not (tmp_path / "x").exists()


def test_an_out_that_holds_a_study_or_is_a_file_is_refused_before_the_model_loads(
    tmp_path: Path, fake: list[str]
) -> None:
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / "study.json").write_text("{}")
    (tmp_path / "file").write_text("keep")
    for out, message in ((tmp_path / "study", "already holds a study"), (tmp_path / "file", "is a file")):
        result = CliRunner().invoke(app, ["probe", "faults", "-n", "1", "--out", str(out)])
        assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert fake == [] and (tmp_path / "file").read_text() == "keep"
    assert (tmp_path / "study" / "study.json").read_text() == "{}"


def test_a_resumed_study_scores_only_the_missing_tasks_and_equals_an_uninterrupted_one(
    tmp_path: Path, fake: list[str]
) -> None:
    whole = tmp_path / "whole"
    args = ["probe", "faults", "-n", "3", "--max-k", "0", "--json"]
    result = CliRunner().invoke(app, [*args, "--out", str(whole)])
    assert result.exit_code == 0, result.output
    expected = json.loads(result.stdout)
    rows = (whole / "rows.jsonl").read_text().splitlines()
    tasks = list(dict.fromkeys(json.loads(r)["task_id"] for r in rows))
    assert len(tasks) == 3
    part = tmp_path / "part"  # as a kill leaves it: the first task's rows, the second's cut mid-line
    part.mkdir()
    (part / "study.json").write_text((whole / "study.json").read_text())
    first = [r for r in rows if json.loads(r)["task_id"] == tasks[0]]
    second = next(r for r in rows if json.loads(r)["task_id"] == tasks[1])
    (part / "rows.jsonl").write_text("\n".join(first) + "\n" + second[: len(second) // 2])
    fake.clear()
    resumed = CliRunner().invoke(app, ["probe", "faults", "--resume", str(part), "--json"])
    assert resumed.exit_code == 0, resumed.output
    assert fake == ["fake:char"]  # the study's own model
    assert "resuming" in resumed.output and "1 of 3 tasks done, 2 to score" in " ".join(resumed.output.split())
    assert json.loads(resumed.stdout) | {"directory": ""} == expected | {"directory": ""}
    stored = (part / "rows.jsonl").read_text().splitlines()
    assert sorted(stored) == sorted(rows)  # every task's rows exactly once, the cut line gone
    again = CliRunner().invoke(app, ["probe", "faults", "--resume", str(part), "--json"])
    assert again.exit_code == 0 and "0 to score" in again.output
    assert (part / "rows.jsonl").read_text().splitlines() == stored


def test_resume_refuses_what_it_would_ignore_and_another_model(
    tmp_path: Path, fake: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "study"
    assert CliRunner().invoke(app, ["probe", "faults", "-n", "1", "--max-k", "0", "--out", str(out)]).exit_code == 0
    for extra, message in (
        (["-n", "2"], "--limit cannot be given with it"),
        (["--out", str(tmp_path / "y")], "--out cannot be given with it"),
        (["--max-k", "2"], "--max-k 2 differs from the stored study's 0"),
        (["--seed", "1"], "--seed 1 differs from the stored study's 0"),
    ):
        result = CliRunner().invoke(app, ["probe", "faults", "--resume", str(out), *extra])
        assert result.exit_code == 2 and message in " ".join(result.output.split()), (extra, result.output)

    class Other(CharScorer):
        def settings(self) -> dict:
            return {**super().settings(), "vocab": 5}

    monkeypatch.setattr(_probe_faults, "create_scorer", lambda model, **_: Other())
    result = CliRunner().invoke(app, ["probe", "faults", "--resume", str(out)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "was scored by fake:char with other settings in vocab" in text, result.output
    missing = CliRunner().invoke(app, ["probe", "faults", "--resume", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "does not exist or is not a directory" in missing.output


def test_from_refuses_what_it_would_ignore(tmp_path: Path, fake: list[str]) -> None:
    """QA: --from dropped --resume, --model, --out, --all and -n without a word."""
    out = tmp_path / "study"
    assert CliRunner().invoke(app, ["probe", "faults", "-n", "1", "--max-k", "0", "--out", str(out)]).exit_code == 0
    for extra, name in (
        (["--resume", str(out)], "--resume"),
        (["-m", "embedded"], "--model"),
        (["--out", str(tmp_path / "y")], "--out"),
        (["--all"], "--all"),
        (["-n", "2"], "--limit"),
    ):
        result = CliRunner().invoke(app, ["probe", "faults", "--from", str(out), *extra])
        text = " ".join(result.output.split())
        assert result.exit_code == 2 and f"{name} cannot be given with it" in text, (extra, text)
    assert CliRunner().invoke(app, ["probe", "faults", "--from", str(out), "--floor", "0.5"]).exit_code == 0
