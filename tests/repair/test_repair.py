"""Counterfactual repair: failures get their tier from the scored trace, are re-run once with their
attributed error corrected, and recovery is reported per tier (toolprism diagnose)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.backends import EpisodeContext, OracleBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.perturb import parse_perturbations, plan
from toolprism.repair import diagnose_run
from toolprism.repair._repair import encoded_calls, intervention
from toolprism.run import EpisodeSpec
from toolprism.score import episode_frame
from toolprism.shaping import Variant

TURNS = ScriptedTurns()


class HintFollower:
    """Acts like the oracle when the user message contains ``trigger``; otherwise reads a scene
    list and stops (a wrong tool, so the failure is attributed to S1)."""

    name = "hint-follower"

    def __init__(self, trigger: str | None) -> None:
        self.trigger = trigger

    def settings(self) -> dict:
        return {"backend": self.name, "trigger": self.trigger}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        oracle = OracleBackend().agent(context)
        trigger = self.trigger

        class Agent:
            turns = 0

            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                if trigger is not None and trigger in messages[1]["content"]:
                    return await oracle.respond(messages, tools)
                self.turns += 1
                return TURNS.call("list_scenes", {}) if self.turns == 1 else TURNS.answer("Done.")

        return Agent()


class SilentOracle:
    """The oracle, except that its final answer never mentions what failed."""

    name = "silent-oracle"

    def settings(self) -> dict:
        return {"backend": self.name}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        oracle = OracleBackend().agent(context)

        class Agent:
            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                turn = await oracle.respond(messages, tools)
                return turn if turn.calls else TURNS.answer("All set.")

        return Agent()


def run(tmp_path: Path) -> Path:
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=3)
    evaluate(config, run_dir=tmp_path / "run", backend=HintFollower(None))
    return tmp_path / "run"


def test_the_tier_of_a_failure_does_not_depend_on_whether_the_repair_recovers_it(tmp_path: Path) -> None:
    run_dir = run(tmp_path)
    seen = []
    recovers = diagnose_run(run_dir, backend=HintFollower("Tools to use"), progress=lambda *a: seen.append(a))
    assert [(done, total) for done, total, _ in seen] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert [episode_id for *_, episode_id in seen[1:]] == [r.episode_id for r in recovers.repairs]
    fails = diagnose_run(run_dir, backend=HintFollower(None))  # the same repair, a re-run that fails again
    assert recovers.failures == fails.failures == 3
    assert [r.recovered for r in recovers.repairs] == [True] * 3
    assert [r.recovered for r in fails.repairs] == [False] * 3
    tiers = lambda report: [(r.episode_id, r.tier, r.tier_reason) for r in report.repairs]  # noqa: E731
    assert (
        tiers(recovers)
        == tiers(fails)
        == [(r.episode_id, 1, "direct: S1 failed alone and is the source") for r in fails.repairs]
    )
    assert {(r.source_stage, r.intervention) for r in fails.repairs} == {("S1", "right tools named")}
    # recovery is counted per tier, with the Wilson interval
    one = recovers.tiers[0]
    assert (one.tier, one.failures, one.recovered, one.rate) == (1, 3, 3, 1.0)
    assert 0.43 < one.low < 0.44 and one.high == 1.0  # 3 of 3: 43.9%-100%
    assert (fails.tiers[0].recovered, fails.tiers[0].rate, fails.tiers[0].high) == (0, 0.0, pytest.approx(1 - one.low))
    assert [(t.tier, t.failures, t.rate) for t in fails.tiers[1:]] == [(2, 0, None), (3, 0, None)]
    assert (recovers.overall.tier, recovers.overall.failures, recovers.overall.recovered) == (None, 3, 3)


def test_a_mishandled_runtime_failure_is_repaired_by_restoring_the_clean_return(tmp_path: Path) -> None:
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=2, perturbations=["D1:light"])
    evaluate(config, run_dir=tmp_path / "run", backend=SilentOracle())
    report = diagnose_run(tmp_path / "run", backend=SilentOracle())
    assert report.failures == 2  # only the perturbed episodes: the outage went unreported
    assert all("+D1:light" in r.episode_id for r in report.repairs)
    assert all((r.source_stage, r.primary_error) == ("S4", "runtime_not_reported") for r in report.repairs)
    assert all(r.tier == 1 and r.intervention == "clean return restored" and r.recovered for r in report.repairs)


def test_diagnose_command_writes_its_report(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evaluate(RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=2), run_dir=run_dir)
    result = CliRunner().invoke(app, ["diagnose", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["failures"] == 0
    assert json.loads((run_dir / "diagnose.json").read_text())["failures"] == 0
    missing = CliRunner().invoke(app, ["diagnose", str(tmp_path / "nope")])
    assert missing.exit_code == 2
    report = (run_dir / "diagnose.json").read_text()
    for limit in ("0", "-1"):
        refused = CliRunner().invoke(app, ["diagnose", str(run_dir), "--limit", limit])
        assert refused.exit_code == 2 and "limit must be at least 1" in refused.output
    assert (run_dir / "diagnose.json").read_text() == report  # a refused call leaves the last report


def test_diagnose_prints_tiers_assigned_before_repair_and_recovery_per_tier(tmp_path: Path) -> None:
    # the oracle acts on a guess when a value is left out of the request (B2): a failure per task
    run_dir = tmp_path / "run"
    config = RunConfig(
        model="oracle", domains=["smart_home"], variants=["native"], tasks=2, perturbations=["B2:medium"]
    )
    evaluate(config, run_dir=run_dir)
    printed = CliRunner().invoke(app, ["diagnose", str(run_dir)], env={"COLUMNS": "200"})
    assert printed.exit_code == 0, printed.output
    assert "tiers assigned before repair" in printed.stdout
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in printed.stdout.splitlines()
        if line.count("│") == 7
    }
    assert rows["1"] == ["direct", "2", "2", "100.0%", "34.2%-100.0%"]
    assert rows["2"] == ["cascade", "0", "0", "-", "-"] and rows["3"] == ["evidence lost", "0", "0", "-", "-"]
    assert rows["all"] == ["overall", "2", "2", "100.0%", "34.2%-100.0%"]
    assert "tier 3: evidence lost:" in printed.stdout
    result = CliRunner().invoke(app, ["diagnose", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report == json.loads((run_dir / "diagnose.json").read_text())
    assert report["failures"] == 2 and [t["tier"] for t in report["tiers"]] == [1, 2, 3]
    assert report["overall"] == {**report["tiers"][0], "tier": None, "rule": "all failures"}
    assert {(r["tier"], r["source_stage"], r["intervention"], r["recovered"]) for r in report["repairs"]} == {
        (1, "S1", "right tools named", True)
    }


def test_a_run_records_the_backend_it_ran_and_diagnose_asks_for_it(tmp_path: Path) -> None:
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=2)
    summary = evaluate(
        config,
        run_dir=tmp_path / "run",
        backend=SilentOracle(),
    )
    assert summary.model == "silent-oracle"
    assert set(episode_frame([tmp_path / "run"])["model"]) == {"silent-oracle"}
    oracle = evaluate(config, run_dir=tmp_path / "oracle", backend=OracleBackend())
    assert oracle.model == "oracle"  # the backend the name builds keeps the configured name
    run(tmp_path / "failing")  # every episode fails: there is something to repair
    with pytest.raises(ConfigError, match=r"pass the same backend: diagnose_run\(run_dir, backend=\.\.\.\)"):
        diagnose_run(tmp_path / "failing" / "run")


def test_repairs_name_the_tools_and_calls_the_variant_shows() -> None:
    domain = get_domain("smart_home")
    space = domain.action_space()
    task = next(t for t in domain.tasks(0) if len({a.op for a in t.gold}) >= 2)
    native = encoded_calls(EpisodeSpec(domain, task, Variant.build("native", space), 0))
    assert [(name, args) for name, args in native] == [(a.op, a.arguments) for a in task.gold]
    opaque = encoded_calls(EpisodeSpec(domain, task, Variant.build("rename-opaque", space), 0))
    assert len(opaque) == len(task.gold) and not {name for name, _ in opaque} & {a.op for a in task.gold}
    transaction = encoded_calls(EpisodeSpec(domain, task, Variant.build("transaction-shared", space), 0))
    assert transaction[0][0] == f"begin_{task.gold[0].op}" and transaction[-1][0].startswith("commit_")
    blocked, _ = plan(task, space, parse_perturbations("D1:light"), 0)
    outage = encoded_calls(EpisodeSpec(domain, task, Variant.build("native", space), 0, tuple(blocked)))
    assert {name for name, _ in outage} == {a.op for a in task.gold} - set(blocked[0].params["ops"])
    first_blocked = next(
        made
        for seed in range(50)
        if (made := plan(task, space, parse_perturbations("D1:light"), seed)[0])
        and made[0].params["ops"] == [task.gold[0].op]
    )
    spec = EpisodeSpec(domain, task, Variant.build("transaction-shared", space), 0, tuple(first_blocked))
    ids = [args["txn_id"] for name, args in encoded_calls(spec) if "txn_id" in args]
    assert ids and ids[0] == "txn_1"  # counted from the first call the repaired agent makes


def test_the_repair_of_an_underspecified_request_restores_it_and_hints_at_its_whole_gold() -> None:
    domain = get_domain("smart_home")
    space = domain.action_space()
    task = next(t for t in domain.tasks(0) if len({a.op for a in t.gold}) >= 3)
    made, skips = plan(task, space, parse_perturbations("B2:heavy"), 0)
    assert not skips
    spec = EpisodeSpec(domain, task, Variant.build("native", space), 0, tuple(made))
    description, apply = intervention(spec, "S1")
    repaired, _ = apply(spec, 20)
    assert description == "right tools named"
    assert repaired.perturbations == () and repaired.task.query.startswith(task.query)
    assert all(a.op in repaired.task.query[len(task.query) :] for a in task.gold)


class FlakyEndpoint:
    """The hint follower behind an endpoint that fails the re-runs of the episodes named in ``down``."""

    name = "flaky-endpoint"

    def __init__(self, down: set[int]) -> None:
        self.down, self.follower = down, HintFollower("Tools to use")

    def settings(self) -> dict:
        return {"backend": self.name}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        from toolprism.errors import BackendError

        agent, down = self.follower.agent(context), context.task.id in self.down

        class Agent:
            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                if down:
                    raise BackendError("HTTP 503: overloaded")
                return await agent.respond(messages, tools)

        return Agent()


def test_a_repair_the_backend_cannot_serve_is_recorded_apart_and_the_others_go_on(tmp_path: Path) -> None:
    run_dir = run(tmp_path)
    first = diagnose_run(run_dir, backend=HintFollower(None)).repairs[0].episode_id.split("@")[0]
    report = diagnose_run(run_dir, backend=FlakyEndpoint({first}))
    assert [m["episode_id"].split("@")[0] for m in report.not_repaired] == [first]
    assert report.not_repaired[0]["end"] == "backend_error" and "503" in report.not_repaired[0]["error"]
    assert report.failures == len(report.repairs) == 2 and all(r.recovered for r in report.repairs)
    assert report.overall.failures == 2  # the unserved repair is in no rate


def test_diagnose_stops_when_the_endpoint_is_plainly_down(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import toolprism.repair._repair as repair_module
    from toolprism.errors import BackendError

    monkeypatch.setattr(repair_module, "MAX_CONSECUTIVE_BACKEND_ERRORS", 2)
    run_dir = run(tmp_path)
    ids = {r.episode_id.split("@")[0] for r in diagnose_run(run_dir, backend=HintFollower(None)).repairs}
    with pytest.raises(BackendError, match="2 repairs in a row failed with a backend error"):
        diagnose_run(run_dir, backend=FlakyEndpoint(ids))
