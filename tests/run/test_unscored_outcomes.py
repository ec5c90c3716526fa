"""Context overflows and backend errors (issue 14, items 3 and 4): recorded as outcomes of their
own (trace ends ``context_overflow`` / ``backend_error`` with the cause), left out of every score,
counted per model, variant and condition; backend-error episodes run again on resume, and the
store holds each episode once."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from toolprism.backends import EpisodeContext, OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.errors import BackendError, ContextOverflow
from toolprism.evaluation import RunConfig, evaluate
from toolprism.repair import diagnose_run
from toolprism.run import UNSCORED_ENDS, EpisodeSpec, RunStore, run_episode
from toolprism.score import aggregate, episode_frame, score_run, write_parquet
from toolprism.shaping import Variant

T = ScriptedTurns()
DOMAIN = get_domain("smart_home")
TASK = next(t for t in DOMAIN.tasks(0) if len(t.gold) >= 2)
SPEC = EpisodeSpec(DOMAIN, TASK, Variant.build("native", DOMAIN.action_space()), 0)
CONFIG = RunConfig(
    model="oracle", domains=["smart_home"], variants=["native", "transaction", "merge"], tasks=4,
    perturbations=["C2:medium"],
)  # fmt: skip
DOWN = 2
"""Tasks (the first ones of the run) whose ``merge`` episodes the flaky backend fails."""


@dataclass
class _Agent:
    """The oracle's agent, failing with ``error`` on request number ``fail_at`` (0-based)."""

    inner: object
    fail_at: int | None = None
    error: BackendError = field(default_factory=lambda: BackendError("HTTP 503 after 4 attempts"))
    requests: int = 0

    async def respond(self, messages, tools):  # noqa: ANN001, ANN201
        if self.requests == self.fail_at:
            raise self.error
        self.requests += 1
        return await self.inner.respond(messages, tools)


class Flaky(OracleBackend):
    """The oracle, except that every ``transaction`` episode overflows the context on its second
    request (the variant shows more tools), and the ``merge`` episodes of the first :data:`DOWN`
    tasks meet a backend error (on their first request; when the agent is made for the very first)."""

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        inner = super().agent(context)
        first = [t.id for t in DOMAIN.tasks(CONFIG.seed)][:DOWN]
        if context.variant.name == "transaction":
            return _Agent(inner, 1, ContextOverflow("prompt of 9000 tokens exceeds n_ctx 8192"))
        if context.variant.name == "merge" and context.task.id == first[0]:
            raise BackendError("connection refused")
        if context.variant.name == "merge" and context.task.id in first:
            return _Agent(inner, 0)
        return inner


# --- the episode loop ---------------------------------------------------------------------------


def test_a_context_overflow_ends_the_episode_as_its_own_outcome_keeping_earlier_turns() -> None:
    def script(context: EpisodeContext, messages: list) -> object:
        if len(messages) > 2:
            raise ContextOverflow("prompt of 9000 tokens exceeds n_ctx 8192")
        return T.call("no_such_tool", {})

    trace = asyncio.run(run_episode(SPEC, ScriptedBackend(script)))
    assert trace.end == "context_overflow" and not trace.scored
    assert trace.error == "prompt of 9000 tokens exceeds n_ctx 8192"
    assert len(trace.turns) == 1 and trace.rejected_calls == 1  # the turn before it is kept
    assert trace.messages[-1]["role"] == "tool"  # the failed request is no turn


@pytest.mark.parametrize("where", ["respond", "agent"])
def test_any_other_backend_error_ends_the_episode_as_backend_error_with_its_cause(where: str) -> None:
    class Down(OracleBackend):
        def agent(self, context: EpisodeContext):  # noqa: ANN201
            if where == "agent":
                raise BackendError("http://x/v1/chat/completions: failed after 4 attempts: 503")
            return _Agent(super().agent(context), 1, BackendError("http://x: failed after 4 attempts: 503"))

    trace = asyncio.run(run_episode(SPEC, Down()))
    assert trace.end == "backend_error" and not trace.scored and "failed after 4 attempts" in trace.error
    assert len(trace.turns) == (0 if where == "agent" else 1)
    assert trace.final_state_hash  # the world as the episode left it


def test_other_exceptions_still_raise() -> None:
    def script(context: EpisodeContext, messages: list) -> object:
        raise RuntimeError("a bug, not a backend failure")

    with pytest.raises(RuntimeError, match="a bug"):
        asyncio.run(run_episode(SPEC, ScriptedBackend(script)))


def test_finished_episodes_have_no_error() -> None:
    trace = asyncio.run(run_episode(SPEC, OracleBackend()))
    assert trace.end == "answered" and trace.error is None and trace.scored
    assert UNSCORED_ENDS == {"context_overflow", "backend_error"}


# --- a whole run --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def flaky_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    run_dir = tmp_path_factory.mktemp("flaky") / "run"
    return run_dir, evaluate(CONFIG, run_dir=run_dir, backend=Flaky())


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(run_dir, tmp_path / "run"))


def test_the_summary_counts_them_apart_and_keeps_them_out_of_the_rates(flaky_run) -> None:  # noqa: ANN001
    _, summary = flaky_run
    cells = {(v.variant, v.condition): v for v in summary.variants}
    assert set(cells) == {(v, c) for v in ("native", "transaction", "merge") for c in ("", "C2:medium")}
    for (variant, _), cell in cells.items():
        assert cell.context_overflow == (4 if variant == "transaction" else 0)
        assert cell.backend_error == (DOWN if variant == "merge" else 0)
        assert cell.episodes == 4 - cell.context_overflow - cell.backend_error  # the denominator: scored only
        assert cell.success_rate == (None if variant == "transaction" else 1.0)  # the oracle never fails
    assert (summary.context_overflow, summary.backend_error) == (8, 2 * DOWN)
    assert summary.episodes == 24 - 8 - 2 * DOWN
    assert {p.subtype: p.episodes for p in summary.perturbations} == {"C2": 4 + 4 - DOWN}
    assert all(p.success_rate == 1.0 for p in summary.perturbations)


def test_rows_and_traces_record_the_end_and_cause(flaky_run) -> None:  # noqa: ANN001
    run_dir, _ = flaky_run
    store = RunStore.open(run_dir)
    try:
        results = store.results()
        ends = {r.end for r in results if r.variant == "transaction"}
        assert ends == {"context_overflow"}
        for r in results:
            trace = store.trace(r.episode_id)
            assert (r.end, r.error) == (trace.end, trace.error)
            if r.end in UNSCORED_ENDS:
                assert r.error and not r.success
            else:
                assert r.error is None
        assert {r.error for r in results if r.end == "backend_error"} == {
            "connection refused", "HTTP 503 after 4 attempts"
        }  # fmt: skip
        assert len(store.finished()) == 24 - 2 * DOWN  # overflows are finished; backend errors are not
    finally:
        store.close()


def test_score_leaves_them_out_of_every_score_and_counts_them(flaky_run) -> None:  # noqa: ANN001
    run_dir, _ = flaky_run
    scored = score_run(run_dir)
    assert scored.episodes == 24 - 8 - 2 * DOWN and scored.recorded == 24
    assert {v.variant for v in scored.variants} == {"native", "merge"}  # transaction: nothing scored
    for v in scored.variants:
        assert v.success_rate == 1.0 and v.modes == {} and v.sources == {}, v.variant
        assert v.episodes == (4 - DOWN if v.variant == "merge" else 4)
        assert all(rate in (1.0, None) for rate in v.stage_pass_rates.values())
    assert {(a.family, a.subtype): (a.episodes, a.failures) for a in scored.attribution} == {
        ("", None): (4 + 4 - DOWN, 0), ("C", None): (4 + 4 - DOWN, 0), ("C", "C2"): (4 + 4 - DOWN, 0)
    }  # fmt: skip
    assert [(p.subtype, p.episodes, p.successes) for p in scored.perturbations] == [("C2", 8 - DOWN, 8 - DOWN)]
    counts = {(o.variant, o.condition): o for o in scored.outcomes}
    assert set(counts) == {(v, c) for v in ("native", "transaction", "merge") for c in ("", "C2:medium")}
    for (variant, _), o in counts.items():
        assert o.model == "oracle" and o.recorded == 4
        assert (o.context_overflow, o.backend_error) == (
            4 if variant == "transaction" else 0, DOWN if variant == "merge" else 0
        )  # fmt: skip
        assert o.scored == o.recorded - o.context_overflow - o.backend_error


def test_the_episode_frame_has_each_episode_once_and_aggregates_skip_the_unscored(flaky_run, tmp_path) -> None:  # noqa: ANN001
    run_dir, _ = flaky_run
    frame = episode_frame(run_dir)
    assert len(frame) == 24 and not frame.duplicated(["task_id", "variant", "condition", "seed"]).any()
    unscored = frame[frame["end"].isin(UNSCORED_ENDS)]
    assert len(unscored) == 8 + 2 * DOWN and unscored["error"].notna().all()
    assert unscored["success"].isna().all() and unscored["mode"].isna().all() and unscored["S5"].isna().all()
    cells = aggregate(frame, "variant").set_index("variant")
    assert list(cells.index) == ["merge", "native"]
    assert cells.loc["merge", "episodes"] == 8 - 2 * DOWN and (cells["success_rate"] == 1.0).all()
    written = pd.read_parquet(write_parquet(frame, tmp_path / "episodes.parquet"))
    assert len(written) == 24 and list(written["end"]) == list(frame["end"])


def test_resume_runs_backend_errors_again_and_replaces_their_row_and_trace(flaky_run, tmp_path) -> None:  # noqa: ANN001
    run_dir = _copy(flaky_run[0], tmp_path)
    summary = evaluate(resume=run_dir, backend=OracleBackend())
    with sqlite3.connect(run_dir / "results.sqlite") as db:
        rows = [r[0] for r in db.execute("SELECT episode_id FROM episodes")]
        traces = [r[0] for r in db.execute("SELECT episode_id FROM traces")]
    assert len(rows) == len(set(rows)) == 24 and sorted(traces) == sorted(rows)
    assert summary.backend_error == 0 and summary.context_overflow == 8  # overflows are not run again
    store = RunStore.open(run_dir)
    try:
        merge = [r for r in store.results() if r.variant == "merge"]
        assert all(r.end == "answered" and r.success and r.error is None for r in merge)
        assert all(store.trace(r.episode_id).end == "answered" for r in merge)
    finally:
        store.close()
    frame = episode_frame(run_dir)
    assert len(frame) == 24 and (frame["end"] == "backend_error").sum() == 0


def test_repair_leaves_them_out(flaky_run, tmp_path) -> None:  # noqa: ANN001
    report = diagnose_run(_copy(flaky_run[0], tmp_path), backend=OracleBackend())
    assert report.failures == 0 and report.repairs == []


def test_the_score_command_reports_the_counts(flaky_run) -> None:  # noqa: ANN001
    run_dir, _ = flaky_run
    printed = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert printed.exit_code == 0, printed.output
    outcomes = json.loads(printed.stdout)["outcomes"]
    assert sum(o["context_overflow"] for o in outcomes) == 8 and sum(o["backend_error"] for o in outcomes) == 4
    text = CliRunner().invoke(app, ["score", str(run_dir)])
    assert text.exit_code == 0, text.output
    assert "not scored: context overflows and backend errors" in text.stdout
    assert "4 episode(s) ended in a backend error" in text.stderr and "--resume" in text.stderr
    lines = [line for line in text.stdout.splitlines() if "transaction" in line and "oracle" in line]
    assert "clean: no gap, every variant 100% (not scored, left out: transaction)" in text.stdout
    cells = [[c.strip() for c in line.split("│")][-5:-1] for line in lines]
    assert cells == [["4", "0", "4", "0"]] * 2, lines  # recorded, scored, context overflow, backend error


def test_the_run_command_prints_the_counts(monkeypatch, tmp_path) -> None:  # noqa: ANN001
    monkeypatch.setattr("toolprism.evaluation._evaluate.create_backend", lambda *a, **k: Flaky())
    args = ["run", "--model", "oracle", "-d", "smart_home", "-v", "native,transaction,merge", "-n", "4"]
    out = CliRunner().invoke(app, [*args, "--run-dir", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    assert "context overflow" in out.stdout and "backend error" in out.stdout
    assert "6 episodes scored (4 context overflow, 2 backend error" in " ".join(out.stdout.split())
    assert "toolprism run --resume" in out.stdout
    transaction = next(line for line in out.stdout.splitlines() if "│ transaction" in line)
    assert [c.strip() for c in transaction.split("│")][-3:-1] == ["4", "0"]  # context overflow, backend error
    as_json = CliRunner().invoke(app, [*args, "--run-dir", str(tmp_path / "j"), "--json"])
    document = json.loads(as_json.stdout)
    assert (document["context_overflow"], document["backend_error"], document["episodes"]) == (4, 2, 6)
