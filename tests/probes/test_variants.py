"""Action-Space Shaping's variant probes (RQ3) against a fake character-level scorer, the oracle and
scripted agents, and the stored ``saboteur`` run (tests/fixtures/runs) for the success side."""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import shutil
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from toolprism.backends import EpisodeContext, OracleBackend, ScriptedTurns
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.errors import BackendError
from toolprism.probes import ProbeError, TokenLogprobs, _variants
from toolprism.probes._variants import (
    ComplianceRow,
    LoglikRow,
    ProbePlan,
    RunSetup,
    SuccessTable,
    compliance_targets,
    comply,
    curve_sizes,
    gold_loglik,
    plan_variant_probes,
    resummarise_variants,
    run_success,
    run_variant_probes,
    sampling_curve,
    spearman,
    summarise_variants,
    write_variant_result,
)
from toolprism.run import EpisodeSpec, run_episode
from toolprism.schema import ActionRecord, canonical_json
from toolprism.shaping import Variant

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs"
runner = CliRunner()


def char_logprob(before: str, char: str) -> float:
    """The fake model: log p(char | the 4 characters before it), a hash-seeded value in (-4.1, -0.05]."""
    return -(0.05 + (zlib.crc32((before[-4:] + char).encode()) % 1000) / 250)


class CharScorer:
    """A deterministic LogprobScorer: one token per character, a plain tag template."""

    name = "fake:char"

    def __init__(self) -> None:
        self.calls = 0

    def settings(self) -> dict:
        return {"model": "fake:char"}

    def render(self, messages: Sequence[dict], tools: Sequence[dict], *, generation_prompt: bool = True) -> str:
        parts = [f"<tools>{canonical_json(list(tools))}</tools>"]
        for m in messages:
            calls = "".join(
                f"<call>{c['function']['name']} {c['function']['arguments']}</call>" for c in m.get("tool_calls") or []
            )
            parts.append(f"<{m['role']}>{m.get('content') or ''}{calls}</{m['role']}>")
        return "".join(parts) + ("<assistant>" if generation_prompt else "")

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        self.calls += 1
        out = []
        for text in continuations:
            full = context + text
            start = len(context)
            lps = tuple(char_logprob(full[:i], full[i]) for i in range(start, len(full)))
            out.append(TokenLogprobs(tuple(ord(c) for c in text), lps))
        return out


@pytest.fixture
def saboteur(tmp_path: Path) -> Path:
    run_dir = Path(shutil.copytree(FIXTURES / "saboteur", tmp_path / "saboteur"))
    (run_dir / "results.sqlite").write_bytes(gzip.decompress((run_dir / "results.sqlite.gz").read_bytes()))
    return run_dir


def _spec(domain_name: str, variant: str, index: int = 0) -> EpisodeSpec:
    domain = get_domain(domain_name)
    task = domain.tasks(0)[index]
    return EpisodeSpec(domain, task, Variant.build(variant, domain.action_space()), 0)


# --- the success side -------------------------------------------------------------------------


def test_run_success_reads_the_clean_condition_of_the_stored_run(saboteur: Path) -> None:
    table = run_success(saboteur)
    assert table.variants == ["native", "transaction", "merge"]
    assert table.specs["merge"] == "merge(by=full,args=flat)"
    assert len(table.tasks) == 6 and table.dropped == []
    assert {table.domains[t] for t in table.tasks} == {"smart_home", "retail"}
    # the same clean rates as 'toolprism score' stored for this run
    score = json.loads((saboteur / "score.json").read_text())
    clean = {v["variant"]: v["success_rate"] for v in score["variants"] if v["condition"] == ""}
    assert table.rates() == pytest.approx([clean[v] for v in table.variants])


def test_select_keeps_the_named_variants_and_refuses_unknown_ones(saboteur: Path) -> None:
    from toolprism.errors import ConfigError

    table = run_success(saboteur)
    merge, native = table.select(["merge", "native"]).rates()
    assert [merge, native] == [table.rates()[2], table.rates()[0]]
    with pytest.raises(ConfigError, match="no variant 'nope'"):
        table.select(["native", "nope"])


def test_spearman_matches_scipy_and_is_none_where_undefined() -> None:
    x, y = [0.1, 0.4, 0.2, 0.9], [0.3, 0.5, 0.1, 0.8]
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)
    assert spearman([1, 2], [2, 1]) is None  # two points rank anything perfectly
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    assert spearman([1, 2, math.nan], [1, 2, 3]) is None


def _table(rows: list[list[float]]) -> SuccessTable:
    variants = [f"v{j}" for j in range(len(rows[0]))]
    tasks = [f"d/t/{i}" for i in range(len(rows))]
    return SuccessTable(variants=variants, specs={v: v for v in variants}, tasks=tasks,
                        domains=dict.fromkeys(tasks, "d"), success=rows)  # fmt: skip


def _noisy(n_tasks: int, rates: Sequence[float], seed: int = 1) -> SuccessTable:
    import numpy as np

    rng = np.random.default_rng(seed)
    return _table([[float(rng.random() < r) for r in rates] for _ in range(n_tasks)])


def test_curve_sizes_keep_those_below_the_task_count_then_the_count() -> None:
    assert curve_sizes(150) == [10, 36, 100, 150]
    assert curve_sizes(36) == [10, 36]
    assert curve_sizes(6, [2, 4, 10]) == [2, 4, 6]


def test_sampling_curve_is_seeded_and_reaches_one_on_all_tasks() -> None:
    table = _noisy(120, [0.1, 0.3, 0.5, 0.7, 0.9, 0.2])
    curve = sampling_curve(table, bootstrap=200, seed=3)
    assert [p.n for p in curve] == [10, 36, 100, 120]
    assert curve == sampling_curve(table, bootstrap=200, seed=3)
    assert curve != sampling_curve(table, bootstrap=200, seed=4)
    last = curve[-1]
    assert (last.rho_median, last.ci_low, last.ci_high, last.undefined) == (1.0, 1.0, 1.0, 0)
    for p in curve:
        assert -1 <= p.ci_low <= p.rho_median <= p.ci_high <= 1
    # more queries, a closer ranking (the paper's curve: 0.72 at 36, 0.81 at ~100)
    assert curve[0].rho_mean < curve[1].rho_mean < curve[2].rho_mean < 1


def test_sampling_curve_is_exact_when_every_task_ranks_the_variants_alike() -> None:
    table = _table([[0.0, 0.5, 1.0]] * 12)
    assert all(p.rho_median == 1.0 and p.ci_low == 1.0 for p in sampling_curve(table, [2, 5], bootstrap=20))


def test_sampling_curve_counts_draws_where_rho_is_undefined() -> None:
    table = _table([[1.0, 1.0, 1.0]] * 5)  # every variant alike: no ranking at all
    ((point, *_),) = [sampling_curve(table, [3], bootstrap=10)]
    assert (point.undefined, point.rho_median, point.ci_low) == (10, None, None)


# --- the sequence log-likelihood probe ----------------------------------------------------------


@pytest.mark.parametrize("variant", ["native", "transaction", "merge(by=full)"])
def test_gold_loglik_scores_each_call_turn_of_the_oracle_conversation_by_hand(variant: str) -> None:
    spec = _spec("smart_home", variant)
    scorer = CharScorer()
    rows = gold_loglik(scorer, spec)
    trace = asyncio.run(run_episode(spec, OracleBackend()))
    calls = [i for i, m in enumerate(trace.messages) if m["role"] == "assistant" and m.get("tool_calls")]
    assert [r.message for r in rows] == calls and calls
    for row in rows:
        turn = trace.messages[row.message]
        body = "".join(f"<call>{c['function']['name']} {c['function']['arguments']}</call>" for c in turn["tool_calls"])
        text = f"{turn.get('content') or ''}{body}</assistant>"
        context = scorer.render(trace.messages[: row.message], trace.tools)
        full = context + text
        expected = math.fsum(char_logprob(full[:k], full[k]) for k in range(len(context), len(full)))
        assert row.tokens == len(text)
        assert row.logprob == pytest.approx(expected, abs=1e-12)
        assert (row.variant, row.task) == (variant, spec.task.id)


def test_gold_loglik_differs_between_encodings_and_is_deterministic() -> None:
    native = gold_loglik(CharScorer(), _spec("retail", "native"))
    transaction = gold_loglik(CharScorer(), _spec("retail", "transaction"))
    assert len(native) == 3 and len(transaction) == 5  # the write becomes begin, writes, commit
    assert native[:2] != transaction[:2]  # the same reads, after other tools
    assert native == gold_loglik(CharScorer(), _spec("retail", "native"))


# --- the compliance probe -------------------------------------------------------------------------


class NativeNames:
    """An agent that calls the target's native operation by name, then answers: it complies with the
    native schema and with nothing that renames or merges it."""

    name = "native-names"

    def settings(self) -> dict:
        return {"backend": self.name}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        gold = context.task.gold[0]

        class Agent:
            turns = 0

            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                self.turns += 1
                return ScriptedTurns().call(gold.op, gold.arguments) if self.turns == 1 else ScriptedTurns.answer("ok")

        return Agent()


def test_compliance_targets_take_each_operation_once_in_task_order() -> None:
    tasks = get_domain("retail").tasks(0)[:6]
    targets = compliance_targets(tasks)
    ops = [a.op for _, a in targets]
    assert len(ops) == len(set(ops)) == len({a.op for t in tasks for a in t.gold})
    assert targets[0] == (tasks[0], tasks[0].gold[0])


@pytest.mark.parametrize("variant", ["native", "transaction", "merge(by=full)", "rename(style=opaque)"])
def test_the_oracle_complies_under_every_encoding(variant: str) -> None:
    spec = _spec("retail", variant)
    action = spec.task.gold[0]
    row = comply(OracleBackend(), spec, action)
    assert row.compliant and row.actions[0] == ActionRecord.of(action) and row.rejected == 0
    assert action.op in row.instruction and row.instruction.startswith(f"Please call the tool {action.op} (")
    for value in action.arguments.values():
        assert canonical_json(value) in row.instruction


def test_native_names_comply_with_native_only() -> None:
    spec = _spec("retail", "native")
    action = spec.task.gold[0]
    assert comply(NativeNames(), spec, action).compliant
    merged = comply(NativeNames(), _spec("retail", "merge(by=full)"), action)
    assert not merged.compliant and merged.rejected == 1 and merged.actions == []


# --- the whole study, stored and re-summarised ----------------------------------------------------


def test_run_probes_summarise_store_and_resummarise(saboteur: Path, tmp_path: Path) -> None:
    table = run_success(saboteur)
    plan = plan_variant_probes(table, 2)
    assert plan.tasks == table.tasks[:2]
    setup = _variants.run_setup(saboteur)
    notes: list[str] = []
    scorer = CharScorer()
    rows, checks = run_variant_probes(plan, setup, scorer=scorer, backend=NativeNames(), progress=notes.append)
    assert len(notes) == _variants.variant_probe_units(plan, setup, loglik=True, compliance=True)
    assert {r.variant for r in rows} == set(table.variants) == {c.variant for c in checks}
    summary = summarise_variants(str(saboteur), "fake", table, plan, rows, checks, sizes=[2, 4], bootstrap=50)
    by_name = {v.variant: v for v in summary.variants}
    native = [r for r in rows if r.variant == "native"]
    assert by_name["native"].loglik == pytest.approx(sum(r.logprob for r in native) / sum(r.tokens for r in native))
    assert by_name["native"].compliance == 1.0 and by_name["merge"].compliance == 0.0
    loglik = [by_name[v].loglik for v in table.variants]
    assert summary.rho_loglik == pytest.approx(spearmanr(loglik, table.rates()).statistic)
    assert [p.n for p in summary.curve] == [2, 4, 6]
    out = tmp_path / "result"
    settings = {"run_dir": str(saboteur), "model": "fake", "plan": plan.model_dump(), "sizes": [2, 4],
                "bootstrap": 50, "seed": 0}  # fmt: skip
    write_variant_result(out, settings, table, rows, checks, summary)
    assert resummarise_variants(out) == summary
    assert len((out / "loglik.jsonl").read_text().splitlines()) == len(rows)
    assert LoglikRow.model_validate_json((out / "loglik.jsonl").read_text().splitlines()[0]) == rows[0]
    assert ComplianceRow.model_validate_json((out / "compliance.jsonl").read_text().splitlines()[0]) == checks[0]


class Failing(CharScorer):
    """Cannot score any conversation under the transaction variant (as a prompt that does not fit)."""

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        if "begin_" in context:
            raise ProbeError("the prompt does not fit the context window")
        return super().score(context, continuations)


class Broken:
    """A backend whose every request fails (after its retries)."""

    name = "broken"

    def settings(self) -> dict:
        return {"backend": self.name}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        class Agent:
            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                raise BackendError("connection refused")

        return Agent()


def test_failures_are_recorded_and_left_out_never_silent_values(saboteur: Path) -> None:
    table = run_success(saboteur)
    plan = plan_variant_probes(table, 2)
    setup = _variants.run_setup(saboteur)
    rows, checks = run_variant_probes(plan, setup, scorer=Failing(), backend=Broken())
    failed = [r for r in rows if r.error is not None]
    assert {(r.variant, r.message, r.tokens) for r in failed} == {("transaction", -1, 0)}
    assert "does not fit" in failed[0].error
    assert checks and all(c.end == "backend_error" and not c.compliant for c in checks)
    summary = summarise_variants(str(saboteur), "fake", table, plan, rows, checks, sizes=[2], bootstrap=5)
    by_name = {v.variant: v for v in summary.variants}
    assert by_name["transaction"].loglik_failures == len(failed) >= 1
    assert by_name["native"].loglik_failures == 0 and by_name["native"].loglik is not None
    assert all(v.compliance is None and v.compliance_n == 0 and v.compliance_unscored > 0 for v in summary.variants)


def test_summarise_without_probes_leaves_them_empty() -> None:
    table = _noisy(12, [0.2, 0.5, 0.8])
    plan = ProbePlan(variants=table.specs, tasks=[], domains={})
    summary = summarise_variants("run", None, table, plan, [], [], sizes=[5], bootstrap=10)
    assert summary.rho_loglik is None and summary.rho_compliance is None
    assert all(v.loglik is None and v.compliance is None for v in summary.variants)


def test_resummarise_refuses_a_directory_that_is_not_a_result(tmp_path: Path) -> None:
    from toolprism.errors import ConfigError

    with pytest.raises(ConfigError, match="not a stored variant-probe result"):
        resummarise_variants(tmp_path)


def test_run_setup_is_the_runs_seed_control_and_instruction(saboteur: Path) -> None:
    assert _variants.run_setup(saboteur) == RunSetup(seed=0, control="strict", instruction="toolprism")


# --- the command ----------------------------------------------------------------------------------


def test_cli_curve_only_needs_no_model(saboteur: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["probe", "variants", str(saboteur), "--curve-only", "--sizes", "2,4", "-B", "40", "--out", str(out), "--json"],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["model"] is None and [p["n"] for p in summary["curve"]] == [2, 4, 6]
    assert summary["probed_tasks"] == []  # nothing was probed
    assert json.loads((out / "summary.json").read_text()) == summary
    assert resummarise_variants(out).model_dump() == summary
    for args, message in (  # QA: these were accepted and ignored
        (["-n", "5"], "--curve-only runs no probe: --limit cannot be given with it"),
        (["--all"], "--curve-only runs no probe: --all cannot be given with it"),
        (["-m", "embedded"], "--curve-only runs no probe: --model cannot be given with it"),
    ):
        refused = runner.invoke(app, ["probe", "variants", str(saboteur), "--curve-only", *args])
        assert refused.exit_code == 2 and message in " ".join(refused.output.split()), refused.output
    both = runner.invoke(app, ["probe", "variants", str(saboteur), "--all", "-n", "2"])
    assert both.exit_code == 2 and "give --limit or --all, not both" in both.output


def test_cli_needs_a_model_when_the_runs_is_not_local(saboteur: Path) -> None:
    result = runner.invoke(app, ["probe", "variants", str(saboteur)])
    assert result.exit_code == 2
    assert "'saboteur' is not a local model" in result.output and "Traceback" not in result.output


def test_cli_rejects_bad_sizes_and_unknown_variants(saboteur: Path) -> None:
    result = runner.invoke(app, ["probe", "variants", str(saboteur), "--curve-only", "--sizes", "10,x"])
    assert result.exit_code == 2 and "--sizes" in result.output
    result = runner.invoke(app, ["probe", "variants", str(saboteur), "--curve-only", "-v", "native,nope"])
    assert result.exit_code == 2 and "no variant 'nope'" in result.output and "Traceback" not in result.output


def test_cli_runs_both_probes_with_the_model_it_names(
    saboteur: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolprism.backends
    import toolprism.probes

    made: list[str] = []
    monkeypatch.setattr(toolprism.probes, "create_scorer", lambda model, **kw: made.append(model) or CharScorer())
    monkeypatch.setattr(toolprism.backends, "create_backend", lambda model, **kw: made.append(model) or NativeNames())
    out = tmp_path / "out"
    args = [
        "probe",
        "variants",
        str(saboteur),
        "-m",
        "embedded",
        "-n",
        "1",
        "--sizes",
        "3",
        "-B",
        "20",
        "-v",
        "native,transaction,merge",
    ]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert made == ["embedded", "embedded"]
    assert "variant probes" in result.stdout and "query-sampling curve" in result.stdout
    settings = json.loads((out / "settings.json").read_text())
    assert settings["scorer"] == {"model": "fake:char"} and settings["plan"]["tasks"] == [
        run_success(saboteur).tasks[0]
    ]
    summary = json.loads((out / "summary.json").read_text())
    # the first task locks a door: lock_door keeps its native name under transaction (one argument, no
    # transaction to open), and merge(by=full) hides it behind one tool
    assert {v["variant"]: v["compliance"] for v in summary["variants"]} == {
        "native": 1.0, "transaction": 1.0, "merge": 0.0,
    }  # fmt: skip


def test_variants_are_paired_over_the_chosen_variants_only(saboteur: Path) -> None:
    """A task a left-out variant could not score still counts for the chosen ones (QA: -v could not
    rescue a run where one variant overflowed on other tasks than the rest)."""
    import sqlite3

    from toolprism.errors import ConfigError

    task = run_success(saboteur).tasks[0]
    with sqlite3.connect(saboteur / "results.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE task_id = ? AND variant = 'merge' AND condition = ''", (task,))
    assert task in run_success(saboteur).dropped
    chosen = run_success(saboteur, ["transaction", "native"])
    assert chosen.variants == ["transaction", "native"] and len(chosen.tasks) == 6 and chosen.dropped == []
    for bad, message in (([], "names no variant"), (["native", "native"], "'native' more than once"),
                         (["native", "nope"], "no variant 'nope'")):  # fmt: skip
        with pytest.raises(ConfigError, match=message):
            run_success(saboteur, bad)


def test_cli_rejects_an_empty_or_repeated_variant_list_and_a_negative_seed(saboteur: Path) -> None:
    for args, message in (
        (["-v", ","], "names no variant"),
        (["-v", "native,native,merge"], "'native' more than once"),
        (["--seed", "-5"], "--seed"),
    ):
        result = runner.invoke(app, ["probe", "variants", str(saboteur), "--curve-only", *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output


def test_cli_refuses_an_out_holding_other_files(saboteur: Path, tmp_path: Path) -> None:
    """QA: --out at a fault study replaced its summary.json; at the run directory it would write into the run."""
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.json").write_text("{}")
    (study / "summary.json").write_text("fault summary")
    (tmp_path / "file").write_text("keep")
    for out, message in ((study, "holds other files than a variant-probe result (study.json)"),
                         (saboteur, "holds other files"), (tmp_path / "file", "is a file")):  # fmt: skip
        result = runner.invoke(app, ["probe", "variants", str(saboteur), "--curve-only", "--out", str(out)])
        assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert (study / "summary.json").read_text() == "fault summary" and not (saboteur / "summary.json").exists()
    again = tmp_path / "again"  # a result of its own is replaced, as before
    for _ in range(2):
        result = runner.invoke(
            app, ["probe", "variants", str(saboteur), "--curve-only", "-B", "5", "--out", str(again)]
        )
        assert result.exit_code == 0, result.output
