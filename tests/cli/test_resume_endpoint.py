"""Resuming a run against an endpoint that moved: ``--base-url`` (or ``TOOLPRISM_BASE_URL``) may
differ on ``--resume``; the episodes the old address failed are run again at the new one."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.run import RunStore
from toolprism.testing import MockOpenAIServer

runner = CliRunner()


def _finished(run_dir: Path) -> set[str]:
    store = RunStore.open(run_dir)
    try:
        return store.finished()
    finally:
        store.close()


def test_resume_at_a_new_address_runs_the_rest_there(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    with MockOpenAIServer() as old:
        first = runner.invoke(
            app,
            ["run", "--model", "openai:mock", "--base-url", old.base_url, "-d", "smart_home", "-v", "native",
             "-n", "3", "--run-dir", str(run_dir), "--max-tokens-total", "1"],
            env={"TOOLPRISM_BASE_URL": None},
        )  # fmt: skip
        assert "--resume" in first.output and len(_finished(run_dir)) == 1  # the budget stopped it after one
    with MockOpenAIServer() as new:  # the old address is gone: the same model now answers elsewhere
        moved = runner.invoke(app, ["run", "--resume", str(run_dir), "--base-url", new.base_url, "--json"])
        assert moved.exit_code == 0, moved.output
        assert len(new.served) == 4  # the other two episodes, two requests each, all at the new address
        again = runner.invoke(
            app, ["run", "--resume", str(run_dir), "--json"], env={"TOOLPRISM_BASE_URL": new.base_url}
        )
        assert again.exit_code == 0, again.output  # the variable set in the shell is no longer refused
        assert len(new.served) == 4 and "nothing left to run" in again.output
    assert len(_finished(run_dir)) == 3
    store = RunStore.open(run_dir)
    assert store.header.config.base_url == old.base_url  # the header keeps the address the run started with
    store.close()
