"""The perturbation engine: parsing and mixing rules, severity strength, determinism, recorded
injections, applicability, and what the oracle (which cannot see perturbations) achieves."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.backends import OracleBackend
from toolprism.cli import app
from toolprism.domains import Task, get_domain
from toolprism.domains._phrasing import CHATTER
from toolprism.errors import ConfigError
from toolprism.evaluation import expected_gold, score_episode
from toolprism.perturb import SEVERITIES, SUBTYPES, Perturbation, parse_perturbations, plan, suite
from toolprism.run import EpisodeSpec, run_episode
from toolprism.score import normalize_failure_type, score_stages
from toolprism.shaping import Variant

suite()  # registers the subtypes
SITE = {"A": "tools", "B": "query", "C": "reply", "D": "runtime"}
ORACLE_FAILS = {"B2"}
"""The oracle executes the task's gold whatever it is shown. It therefore passes every subtype
except B2, whose expected gold leaves out the action the request no longer specifies (a correct
agent asks instead). It passes D1 because a permanently failing call never executes, so its
executed actions equal the expected gold without the blocked operation, and D2/D3 because it
retries runtime failures (``toolprism.backends._oracle.MAX_RETRIES``)."""


@functools.cache
def tasks(domain: str) -> list[Task]:
    all_easy = [t for t in get_domain(domain).tasks(0) if t.form == "easy"]
    return all_easy[:: max(1, len(all_easy) // 12)]


def episode(domain: str, task: Task, variant: str, terms: list[Perturbation], seed: int = 0):
    d = get_domain(domain)
    v = Variant.build(variant, d.action_space())
    instances, skips = plan(task, d.action_space(), terms, seed, v)
    if skips:
        return None, skips
    spec = EpisodeSpec(d, task, v, seed, tuple(instances))
    return (spec, asyncio.run(run_episode(spec, OracleBackend(), max_turns=40))), []


# --- specs and mixing --------------------------------------------------------------------------


def test_parse_terms_and_default_severity() -> None:
    assert parse_perturbations("C2:medium, d2:LIGHT") == [Perturbation("C2", "medium"), Perturbation("D2", "light")]
    assert parse_perturbations("B4") == [Perturbation("B4", "medium")]


def test_every_problem_in_a_spec_is_listed() -> None:
    with pytest.raises(ConfigError) as e:
        parse_perturbations("Z9:light,C2:extreme")
    assert len(e.value.problems) == 2
    assert "unknown subtype 'Z9'" in e.value.problems[0] and "unknown severity 'extreme'" in e.value.problems[1]


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("C2:medium,C3:light", "combines two families"),
        ("D1:light,C1:light", "returns no evidence"),
        ("A1,B1,C1", "two subtypes"),
        ("C2:medium,C2:light", "C2 is given more than once"),
        (["C2:medium", 5], "5 is not a string"),
    ],
)
def test_degenerate_mixtures_are_refused_with_a_reason(spec: str | list, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason):
        parse_perturbations(spec)


def test_the_suite_has_fourteen_subtypes_in_four_families() -> None:
    terms = suite()
    assert len(terms) == 14 * 3
    ids = sorted({t.subtype for t in terms})
    assert ids == ["A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C2", "C3", "C4", "D1", "D2", "D3"]


def test_importing_the_package_registers_every_subtype() -> None:
    # a fresh interpreter: here the subtypes are already registered by suite() above
    code = "from toolprism.perturb import SUBTYPES; SUBTYPES.get('B3'); print(len(SUBTYPES.names()))"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "14"


@pytest.mark.parametrize("subtype", sorted(SUBTYPES.names()))
def test_strength_increases_with_severity(subtype: str) -> None:
    s = SUBTYPES.get(subtype)
    strengths = [s.strength[v] for v in SEVERITIES]
    assert strengths == sorted(strengths) and len(set(strengths)) == 3
    assert all(s.levels[v] for v in SEVERITIES)


# --- episodes ----------------------------------------------------------------------------------

ALL = [p.key for p in suite()]


@pytest.mark.parametrize("key", ALL)
def test_injections_are_recorded_as_data_and_the_oracle_gets_the_documented_result(key: str) -> None:
    term = parse_perturbations(key)
    outcomes, applied = [], 0
    for task in tasks("smart_home"):
        result, skips = episode("smart_home", task, "native", term)
        if skips:
            assert all(s.reason for s in skips)  # skipped with a reason, never silently
            continue
        spec, trace = result
        applied += 1
        assert trace.condition == key and trace.perturbations[0].subtype == term[0].subtype
        assert trace.injections, "an applied perturbation records what it changed"
        assert {i.site for i in trace.injections} == {SITE[key[0]]}
        assert all(i.subtype == term[0].subtype for i in trace.injections)
        outcomes.append(score_episode(spec, trace).success)
        assert (score_stages(trace).stages["S5"] == "pass") == outcomes[-1], (task.id, score_stages(trace))
    assert applied >= 6
    expected = term[0].subtype not in ORACLE_FAILS
    assert outcomes == [expected] * len(outcomes)


@pytest.mark.parametrize("key", ["A1:heavy", "A3:heavy", "B3:heavy", "C3:heavy", "C4:heavy", "D2:heavy", "D3:heavy"])
@pytest.mark.parametrize("variant", ["transaction", "merge-class", "split"])
def test_oracle_results_hold_under_protocol_variants(key: str, variant: str) -> None:
    term = parse_perturbations(key)
    ran = 0
    for task in tasks("retail")[:6]:
        result, skips = episode("retail", task, variant, term)
        if skips:
            continue
        spec, trace = result
        ran += 1
        assert score_episode(spec, trace).success, (task.id, trace.injections)
    assert ran or key.startswith(("A3", "B3"))


@pytest.mark.parametrize("key", ["B4:heavy", "C2:heavy", "C3:medium", "D3:heavy", "A2:heavy", "B3:medium"])
def test_same_seed_gives_byte_identical_prompts_and_returns(key: str) -> None:
    term = parse_perturbations(key)
    for task in tasks("smart_home")[:4]:
        first, _ = episode("smart_home", task, "native", term, seed=3)
        second, _ = episode("smart_home", task, "native", term, seed=3)
        if first is None:
            continue
        a, b = first[1].deterministic_view(), second[1].deterministic_view()
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_a_different_seed_draws_a_different_perturbation() -> None:
    task = tasks("smart_home")[3]
    space = get_domain("smart_home").action_space()
    drawn = {json.dumps(plan(task, space, parse_perturbations("B4:heavy"), s)[0][0].params) for s in range(6)}
    texts = set()
    for s in range(6):
        (spec, trace), _ = episode("smart_home", task, "native", parse_perturbations("B4:heavy"), seed=s)
        texts.add(trace.messages[1]["content"])
    assert len(drawn) == 1 and len(texts) > 1  # the plan depends on the task; the wording on the seed


def test_runtime_failures_run_nothing_and_are_recorded_as_failed_calls() -> None:
    task = next(t for t in tasks("smart_home") if any(a.op.startswith("set_") for a in t.gold))
    (spec, trace), _ = episode("smart_home", task, "native", parse_perturbations("D2:heavy"))
    clean, _ = episode("smart_home", task, "native", [])
    assert trace.failed_calls == 3  # 503, 429, 504, then it works
    failed = [c for t in trace.turns for c in t.calls if c.outcome == "failed"]
    assert {c.reply["status"] for c in failed} == {503, 429, 504}
    assert trace.final_state_hash == clean[1].final_state_hash
    assert len(trace.actions) == len(task.gold)


def test_an_unavailable_tool_leaves_its_actions_out_of_the_expected_gold() -> None:
    task = next(t for t in tasks("smart_home") if len({a.op for a in t.gold}) >= 2)
    (spec, trace), _ = episode("smart_home", task, "native", parse_perturbations("D1:heavy"))
    blocked = set(spec.perturbations[0].params["ops"])
    assert len(blocked) == 2
    assert expected_gold(spec) == [a for a in task.gold if a.op not in blocked]
    assert spec.perturbations[0].labels.status == "failure" and not spec.perturbations[0].labels.retryable
    assert all(a.op not in blocked for a in trace.actions)


def test_tool_output_changes_payloads_only_never_the_state() -> None:
    for key in ("C1:heavy", "C2:heavy", "C3:heavy", "C4:heavy"):
        for task in tasks("retail")[:5]:
            result, skips = episode("retail", task, "native", parse_perturbations(key))
            if skips:
                continue
            clean, _ = episode("retail", task, "native", [])
            assert result[1].final_state_hash == clean[1].final_state_hash
            changed = [i for i in result[1].injections if i.site == "reply"]
            assert changed and changed[0].original != changed[0].replacement


def test_inconsistent_values_are_legal_values_of_the_same_field() -> None:
    space = get_domain("smart_home").action_space()
    enums = {p.name: p.enum for op in space.operations for p in op.params if p.enum}
    seen = 0
    for task in tasks("smart_home"):
        instances, skips = plan(task, space, parse_perturbations("C3:light"), 0)
        for change in instances[0].params["changes"] if instances else []:
            key = change["path"].split(".")[-1]
            if key in enums:
                assert change["false"] in enums[key] and change["false"] != change["true"]
                seen += 1
    assert seen


def test_ambiguity_removes_the_value_from_the_query_and_the_action_from_the_expected_gold() -> None:
    task = tasks("smart_home")[0]
    space = get_domain("smart_home").action_space()
    (instance,), _ = plan(task, space, parse_perturbations("B2:light"), 0)
    (spec, trace), _ = episode("smart_home", task, "native", parse_perturbations("B2:light"))
    shown = trace.messages[1]["content"]
    assert "the usual" in shown and shown != task.query
    assert len(expected_gold(spec)) == len(task.gold) - 1
    assert "ask the user" in instance.labels.final_result


def test_ambiguity_drops_every_action_the_left_out_value_made_possible() -> None:
    domain = get_domain("retail")
    space, checked = domain.action_space(), 0
    for task in domain.tasks(0):
        made, skips = plan(task, space, parse_perturbations("B2:heavy"), 0)
        if skips:
            continue
        (instance,) = made
        shown, _ = SUBTYPES.get("B2").rewrite(instance, task.query, None)
        left_out = {str(v) for v in instance.params["values"]}
        for action in expected_gold(EpisodeSpec(domain, task, Variant.build("native", space), 0, tuple(made))):
            for value in map(str, action.arguments.values()):
                # a left-out value is kept only where the request still gives it
                assert value not in left_out or value.lower() in shown.lower(), (task.id, shown, action)
        checked += 1
    assert checked > 100
    task = next(t for t in domain.tasks(0) if t.id == "retail/cancel/5")
    made, _ = plan(task, space, parse_perturbations("B2:heavy"), 0)
    assert "#W2599761" in made[0].params["values"]
    assert not [a for a in made[0].expected_gold if "#W2599761" in a.arguments.values()]


def test_ambiguity_never_blanks_a_word_of_the_chatter() -> None:
    checked = 0
    for name in ("climate", "smart_home", "tv"):
        domain = get_domain(name)
        for task in (t for t in domain.tasks(0) if t.form == "hard"):
            made, skips = plan(task, domain.action_space(), parse_perturbations("B2:heavy"), 0)
            chatter = [(task.query.find(c), task.query.find(c) + len(c)) for c in CHATTER if c in task.query]
            for start, end in made[0].params["spans"] if not skips else []:
                assert not any(a <= start < b for a, b in chatter), (task.id, task.query[start:end])
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("key", [p.key for p in suite()])
def test_a_final_result_to_report_names_its_own_failure_type(key: str) -> None:
    task = tasks("smart_home")[3]
    space = get_domain("smart_home").action_space()
    instances, _ = plan(task, space, parse_perturbations(key), 0)
    for labels in (i.labels for i in instances if i.labels and i.labels.status == "failure" and i.labels.failure_type):
        assert normalize_failure_type(labels.final_result) == labels.failure_type, labels


def test_a_subtype_that_cannot_apply_is_skipped_with_its_reason() -> None:
    space = get_domain("smart_home").action_space()
    no_args = next(t for t in get_domain("smart_home").tasks(0) if all(not a.arguments for a in t.gold))
    _, skips = plan(no_args, space, parse_perturbations("A3:light"), 0)
    assert skips and "no gold call has an argument" in skips[0].reason


# --- the command line --------------------------------------------------------------------------


def test_run_reports_results_by_subtype_and_severity(tmp_path) -> None:  # noqa: ANN001
    args = ["run", "--model", "oracle", "-d", "smart_home", "-v", "native,merge", "-n", "3"]
    result = CliRunner().invoke(
        app, [*args, "--perturb", "C2:medium,D2:light,B2:light", "--json", "--run-dir", str(tmp_path / "r")]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    cells = {(p["subtype"], p["severity"]): p for p in summary["perturbations"]}
    assert set(cells) == {("C2", "medium"), ("D2", "light"), ("B2", "light")}
    assert cells[("C2", "medium")]["success_rate"] == 1.0 and cells[("D2", "light")]["success_rate"] == 1.0
    assert cells[("B2", "light")]["success_rate"] == 0.0
    conditions = {(v["variant"], v["condition"]) for v in summary["variants"]}
    assert ("native", "") in conditions and ("merge", "D2:light") in conditions
    assert summary["episodes"] == 2 * 3 * 4
    assert all(p["ci_low"] <= p["success_rate"] <= p["ci_high"] for p in summary["perturbations"])
    rescored = CliRunner().invoke(app, ["score", str(tmp_path / "r"), "--json"])
    assert rescored.exit_code == 0, rescored.output
    assert json.loads(rescored.stdout)["perturbations"] == summary["perturbations"]  # from the traces alone


def test_run_with_a_mixed_pair_and_the_whole_suite(tmp_path) -> None:  # noqa: ANN001
    base = ["run", "--model", "oracle", "-d", "retail", "-v", "native", "-n", "2", "--json"]
    mixed = CliRunner().invoke(app, [*base, "--perturb", "A3:medium+C4:medium", "--run-dir", str(tmp_path / "m")])
    assert mixed.exit_code == 0, mixed.output
    rows = json.loads(mixed.stdout)["perturbations"]
    assert [(r["subtype"], r["severity"]) for r in rows] == [("A3+C4", "medium")]  # a pair is its own row
    full = CliRunner().invoke(app, [*base, "--perturb-suite", "all", "--run-dir", str(tmp_path / "a")])
    assert full.exit_code == 0, full.output
    rows = json.loads(full.stdout)["perturbations"]
    assert len(rows) == 42
    assert all(r["episodes"] + r["skipped"] == 2 for r in rows)
    assert all(r["reasons"] for r in rows if r["skipped"])


def test_conditions_written_loosely_are_one_condition_and_counted_in_the_summary(tmp_path) -> None:  # noqa: ANN001
    args = ["run", "--model", "oracle", "-d", "smart_home", "-v", "native", "-n", "1", "--json"]
    loose = [
        "--perturb",
        "c2",
        "--perturb",
        "C2:Medium",
        "--perturb",
        "C4:light+A3:light",
        "--perturb",
        "A3:light+C4:light+",
    ]
    result = CliRunner().invoke(app, [*args, *loose, "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [v["condition"] for v in summary["variants"]] == ["", "C2:medium", "A3:light+C4:light"]
    assert summary["episodes"] == 3 == sum(p["episodes"] for p in summary["perturbations"]) + 1
    header = tmp_path / "r" / "header.json"  # a run stored before conditions were canonical
    old = json.loads(header.read_text())
    old["config"]["perturbations"] = ["c2", "C4:light+A3:light"]
    header.write_text(json.dumps(old))
    resumed = CliRunner().invoke(app, ["run", "--resume", str(tmp_path / "r"), "--json"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["variants"] == summary["variants"]


def test_bad_perturbations_fail_before_the_run_with_every_problem(tmp_path) -> None:  # noqa: ANN001
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "oracle",
            "--perturb",
            "Q1:light,C2:huge,C2:light+C3:light",
            "--run-dir",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 2
    for needle in ("Q1", "huge", "two families"):
        assert needle in result.output
    assert not (tmp_path / "x").exists()


def test_perturbations_command_lists_the_subtypes() -> None:
    result = CliRunner().invoke(app, ["perturbations", "--json"])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert [r["id"] for r in document["subtypes"]][:3] == ["A1", "A2", "A3"] and len(document["subtypes"]) == 14
    assert ["A3", "C4"] in document["mixed_pairs"]


def test_re_reading_state_after_a_changed_return_is_not_penalised() -> None:
    from toolprism.perturb import rereads
    from toolprism.score import score_actions

    task = next(t for t in tasks("retail") if any(a.op == "get_order_details" for a in t.gold))
    space = get_domain("retail").action_space()
    (instance,), _ = plan(task, space, parse_perturbations("C2:heavy"), 0)
    tolerate = rereads([instance])
    assert "get_order_details" in tolerate and all(space.get(op).kind == "read" for op in tolerate)
    read = next(a for a in task.gold if a.op == "get_order_details")
    write = next(a for a in task.gold if space.get(a.op).kind == "write")
    assert score_actions(task.gold, [*task.gold, read], tolerate=tolerate).success
    assert not score_actions(task.gold, [*task.gold, write], tolerate=tolerate).success
    assert not score_actions(task.gold, [*task.gold, read]).success  # clean runs stay exact
