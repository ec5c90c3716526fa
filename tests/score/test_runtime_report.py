"""Elicited runtime decisions: the report is asked for only under C/D conditions, parsed from the
final answer, scored per field after alias normalization, written correctly by the oracle, and
summed per subtype in ``score --json`` (re-computed byte-identically)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism import RunConfig, evaluate
from toolprism.backends import EpisodeContext, Message, ModelTurn, OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.backends._oracle import OracleAgent
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.perturb import REPORT_MARKER, RUNTIME_REPORT_INSTRUCTION, SUBTYPES, parse_perturbations, plan
from toolprism.run import EpisodeSpec, Trace, initial_messages, run_episode
from toolprism.run._episode import SYSTEM_SUFFIX
from toolprism.schema import JSON
from toolprism.score import (
    normalize_report_failure_type,
    normalize_retryable,
    normalize_status,
    parse_report,
    results_match,
    score_run,
    score_runtime,
    score_stages,
)
from toolprism.shaping import Variant

RETAIL = get_domain("retail")
SPACE = RETAIL.action_space()
TASKS = [t for t in RETAIL.tasks(0) if t.form == "easy"]
REPORT = {"status": "failure", "failure_type": "timeout", "retryable": False, "final_result": None}


def spec(key: str, task=TASKS[0]) -> EpisodeSpec:  # noqa: ANN001
    instances = ()
    if key:
        made, skips = plan(task, SPACE, parse_perturbations(key.replace("+", ",")), 0)
        assert not skips, skips
        instances = tuple(made)
    return EpisodeSpec(RETAIL, task, Variant.build("native", SPACE), 0, instances)


def episode(key: str, backend, task=TASKS[0]) -> Trace:  # noqa: ANN001
    return asyncio.run(run_episode(spec(key, task), backend))


# parsing


def test_a_report_is_read_from_the_end_of_the_answer_fenced_or_not() -> None:
    plain = f"I could not finish: the service timed out. {json.dumps(REPORT)}"
    fenced = f"Sorry.\n\n```json\n{json.dumps(REPORT, indent=2)}\n```\n"
    for answer in (plain, fenced):
        outcome, report = parse_report(answer)
        assert outcome == "reported" and report is not None
        assert (report.status, report.failure_type, report.retryable, report.final_result) == tuple(REPORT.values())
    # the last object carrying report fields wins; objects without them (a quoted record) are skipped
    earlier = {**REPORT, "status": "success"}
    answer = f'{json.dumps(earlier)} then {json.dumps(REPORT)} and the order {{"id": "#W1"}}'
    assert parse_report(answer)[1].status == "failure"
    # a Python-literal object and braces inside strings are read too
    assert parse_report("{'status': 'ok', 'failure_type': None, 'retryable': True, 'final_result': 'a}b'}")[0] == (
        "reported"
    )


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (None, "missing"),
        ("", "missing"),
        ("Done. Your order was cancelled.", "missing"),
        ('Done. The order: {"id": "#W1", "total": 3}', "missing"),
        ('{"status": "failure", "failure_type": "timeout", retryable: no}', "unparsable"),
        ('{"status": "failure", "failure_type": "timeout"}', "unparsable"),
        ('Done. {"status": "success", "failure_type": null, "retryable": tr', "unparsable"),
    ],
)
def test_a_missing_or_unparsable_report_is_its_own_outcome(answer: str | None, outcome: str) -> None:
    assert parse_report(answer) == (outcome, None)


# alias normalization


def test_fields_are_normalized_through_their_aliases() -> None:
    assert [normalize_status(s) for s in ("success", "OK", "Completed", "failed", "ERROR", True, "maybe")] == [
        "success", "success", "success", "failure", "failure", "success", None,
    ]  # fmt: skip
    assert normalize_report_failure_type("TimeoutError") == "timeout"
    assert normalize_report_failure_type("HTTP 429 Too Many Requests") == "rate_limited"
    assert normalize_report_failure_type("rate-limited") == "rate_limited"
    assert normalize_report_failure_type("Service Unavailable") == "unavailable"
    assert [normalize_report_failure_type(v) for v in (None, "null", "N/A", "none")] == ["none"] * 4
    assert normalize_report_failure_type("cosmic rays") is None
    assert [normalize_retryable(v) for v in (True, "yes", "Retryable", "no", "non-retryable", False, "perhaps")] == [
        True, True, True, False, False, False, None,
    ]  # fmt: skip


def test_final_results_compare_numerically_case_blind_and_canonically() -> None:
    assert results_match(42, 42.0) and results_match("42", 42) and results_match("1,250.5", 1250.5)
    assert not results_match(42, 43)
    assert results_match("  Paris  ", "paris") and results_match("New   York", "new york")
    assert not results_match("Paris", "Lyon")
    assert results_match({"b": 2, "a": "X"}, {"a": "x", "b": 2.0})
    assert not results_match({"a": 1}, {"a": 1, "b": 2})
    assert results_match(None, "null") and not results_match(None, 0)


def test_a_result_is_stated_at_the_returns_precision_or_as_a_whole_phrase() -> None:
    # numbers: within half a unit of the return's last decimal, in text too (separators, signs)
    assert results_match("about 2,557.38 AUD", 2557.38) and results_match(2557.384, 2557.38)
    assert not results_match(2557.4, 2557.38) and not results_match("2557", 2557.38)
    assert results_match("146.4", 146) and not results_match("147", 146) and results_match("it is -3 C", -3)
    assert not results_match("sent as SM4532", 4532)  # a number inside an identifier is not stated
    # strings: a whole word or phrase, case-, space-, underscore- and hyphen-blind
    assert results_match("The flight is On Time.", "on_time") and results_match("Rome  north", "Rome North")
    assert not results_match("RomeNorth", "Rome North") and not results_match("ontime", "on_time")
    assert results_match({"station": "Rome North"}, "Rome North")  # an object is read as its text
    # a null target: nothing may be claimed
    assert results_match("n/a", None) and not results_match("146", None) and not results_match(True, "x")


# the prompt


@pytest.mark.parametrize("key", ["", "A1:light", "A3:medium", "B1:light", "B4:heavy"])
def test_clean_and_interface_or_intent_conditions_get_the_prompt_unchanged(key: str) -> None:
    system = initial_messages(spec(key))[0]["content"]
    assert system == f"{RETAIL.policy.strip()}\n\n{SYSTEM_SUFFIX}"  # byte-identical to the prompt before reports
    assert REPORT_MARKER not in system


@pytest.mark.parametrize("key", ["C1:light", "C2:heavy", "C3:medium", "C4:light", "D1:light", "D2:medium", "D3:heavy"])
def test_output_and_runtime_conditions_ask_for_the_report(key: str) -> None:
    system = initial_messages(spec(key))[0]["content"]
    assert system == f"{RETAIL.policy.strip()}\n\n{SYSTEM_SUFFIX}\n\n{RUNTIME_REPORT_INSTRUCTION}"
    assert all(f'"{t}"' in system for t in ("timeout", "rate_limited", "inconsistent"))


def test_a_mixed_condition_with_an_output_fault_asks_for_it_too() -> None:
    task = next(t for t in TASKS if not plan(t, SPACE, parse_perturbations("A3:medium,C4:medium"), 0)[1])
    system = initial_messages(spec("A3:medium+C4:medium", task))[0]["content"]
    assert system.endswith(RUNTIME_REPORT_INSTRUCTION)


# labels


def test_every_output_and_runtime_subtype_sets_labels_a_report_can_match() -> None:
    expected = {  # subtype: (status, failure type, retryable, result target)
        "C1": ("success", None, None, "expected"),
        "C2": ("success", "incomplete", True, "expected"),
        "C3": ("success", "inconsistent", None, "expected"),
        "C4": ("success", None, None, "expected"),
        "D1": ("failure", {"light": "unavailable", "medium": "timeout", "heavy": "timeout"}, False, "none"),
        "D2": ("success", {"light": "timeout", "medium": "rate_limited", "heavy": "unavailable"}, True, "expected"),
        "D3": ("success", "server_error", True, "expected"),
    }
    for subtype, (status, kind, retryable, target) in expected.items():
        assert SUBTYPES.get(subtype).id == subtype
        for severity in ("light", "medium", "heavy"):
            made, skips = plan(TASKS[0], SPACE, parse_perturbations(f"{subtype}:{severity}"), 0)
            assert not skips
            labels = made[0].labels
            want = kind[severity] if isinstance(kind, dict) else kind
            assert (labels.status, labels.failure_type, labels.retryable, labels.result_target) == (
                status, want, retryable, target,
            ), (subtype, severity)  # fmt: skip


# scoring an episode


def test_fields_are_scored_against_the_labels() -> None:
    t = ScriptedTurns()
    target = spec("D1:light").perturbations[0].target
    gold = next(a for a in TASKS[0].gold if a.op == target)  # the call the runtime fails
    report = {"status": "Failed", "failure_type": "Service Unavailable", "retryable": "no", "final_result": "null"}
    honest = episode("D1:light", ScriptedBackend([t.call(gold.op, gold.arguments), t.answer(json.dumps(report))]))
    scored = score_runtime(honest, RETAIL)
    assert scored.requested and scored.outcome == "reported"
    assert scored.matches.model_dump() == {
        "status": True,
        "failure_type": True,
        "retryable": True,
        "final_result": True,
    }
    assert score_stages(honest, RETAIL).runtime_matches == scored.matches
    wrong = {**report, "status": "ok", "failure_type": "timeout", "final_result": "cancelled"}
    t = ScriptedTurns()
    misled = episode("D1:light", ScriptedBackend([t.call(gold.op, gold.arguments), t.answer(json.dumps(wrong))]))
    assert score_runtime(misled, RETAIL).matches.model_dump() == {
        "status": False, "failure_type": False, "retryable": True, "final_result": False,
    }  # fmt: skip
    stages = score_stages(misled, RETAIL)
    assert stages.stages["S4"] == "fail" and stages.primary_error == "runtime_misreported"
    # C1: nothing failed, so retryability is not applicable; a stateful domain fixes no final result
    c1 = episode("C1:light", OracleBackend())
    assert score_runtime(c1, RETAIL).matches.model_dump() == {
        "status": True, "failure_type": True, "retryable": None, "final_result": None,
    }  # fmt: skip


def test_a_missing_report_mismatches_every_applicable_field_and_fails_s4_only_for_runtime_cases() -> None:
    silent = episode("D2:light", _Silent())
    scored = score_runtime(silent, RETAIL)
    assert scored.outcome == "missing"
    assert scored.matches.model_dump() == {
        "status": False, "failure_type": False, "retryable": False, "final_result": None,
    }  # fmt: skip
    assert score_stages(silent, RETAIL).primary_error == "runtime_not_reported"
    observation = score_stages(episode("C2:light", _Silent()), RETAIL)
    assert observation.runtime_report == "missing" and observation.stages["S4"] == "pass"  # C: S4 reads actions


def test_clean_and_older_traces_have_no_report_to_score() -> None:
    assert not score_runtime(episode("", OracleBackend()), RETAIL).requested
    assert score_stages(episode("A1:light", OracleBackend()), RETAIL).runtime_report is None
    # a D trace recorded before reports were asked for: no instruction in its system message
    trace = episode("D1:light", OracleBackend())
    old_system = {"role": "system", "content": trace.messages[0]["content"].split(f"\n\n{REPORT_MARKER}")[0]}
    old = trace.model_copy(update={"messages": [old_system, *trace.messages[1:]]})
    assert not score_runtime(old, RETAIL).requested
    assert score_stages(old, RETAIL).runtime_report is None  # the free-text fallback reads it instead


# the oracle


@pytest.mark.parametrize("key", ["D1:light", "D1:heavy", "D2:medium", "D2:heavy", "D3:light", "C2:heavy", "C3:light"])
def test_the_oracle_ends_with_a_correct_report(key: str) -> None:
    for task in TASKS[:3]:
        if plan(task, SPACE, parse_perturbations(key), 0)[1]:
            continue
        trace = episode(key, OracleBackend(), task)
        outcome, report = parse_report(trace.answer)
        labels = trace.perturbations[0].labels
        assert outcome == "reported" and trace.answer.rstrip().endswith("```")
        assert (normalize_status(report.status), report.failure_type) == (labels.status, labels.failure_type)
        stages = score_stages(trace, RETAIL)
        assert stages.stages["S4"] == "pass" and stages.stages["S5"] == "pass", (key, task.id)
        assert False not in stages.runtime_matches.model_dump().values()


def test_the_oracle_states_the_result_it_read_where_the_domain_fixes_one(monkeypatch: pytest.MonkeyPatch) -> None:
    task = TASKS[0]  # retail/cancel/0: its last gold call (cancel_order) returns the order, status "cancelled"
    assert "Result:" not in episode("", OracleBackend(), task).answer  # retail names no answer field
    monkeypatch.setattr(type(RETAIL), "expected_result", lambda self, task: "the domain's, never read")
    monkeypatch.setattr(type(RETAIL), "answer_field", lambda self, op: "status" if op == "cancel_order" else None)
    for key in ("", "D2:light"):  # the last gold call ran (after a retry under D2): its field is the result
        assert "Result: cancelled" in episode(key, OracleBackend(), task).answer, key
    report = parse_report(episode("C1:light", OracleBackend(), task).answer)[1]
    assert report is not None and report.final_result == "cancelled"  # the report states what it read
    assert score_runtime(episode("D1:light", OracleBackend(), task), RETAIL).matches.final_result is True  # null
    monkeypatch.setattr(type(RETAIL), "expected_result", lambda self, task: "cancelled")
    for key in ("D2:light", "C1:light"):
        assert score_runtime(episode(key, OracleBackend(), task), RETAIL).matches.final_result is True, key
    wrong = {"status": "success", "failure_type": None, "retryable": False, "final_result": {"other": 1}}
    t = ScriptedTurns()
    calls = [t.call(a.op, a.arguments) for a in task.gold]
    misread = episode("C1:light", ScriptedBackend([*calls, t.answer(json.dumps(wrong))]), task)
    assert score_runtime(misread, RETAIL).matches.final_result is False


# score --json


@dataclass
class _SilentAgent:
    """The oracle's calls, but a final answer without the report."""

    inner: OracleAgent

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        turn = await self.inner.respond(messages, tools)
        if turn.calls:
            return turn
        return ScriptedTurns.answer(turn.content.split("\n\n```json")[0])


class _Silent:
    name = "silent"

    def settings(self) -> dict[str, JSON]:
        return {"backend": "silent", "model": "silent-1"}

    def agent(self, context: EpisodeContext) -> _SilentAgent:
        return _SilentAgent(OracleAgent(context))


@pytest.mark.parametrize(("backend", "model"), [(None, "oracle"), (_Silent(), "silent-1")])
def test_score_json_reports_field_rates_per_subtype_byte_identically(
    backend: _Silent | None, model: str, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    conditions = ["A1:light", "C2:light", "D1:light"]
    config = RunConfig(model="oracle", domains=["retail"], variants=["native"], tasks=2, perturbations=conditions)
    evaluate(config, run_dir=run_dir, backend=backend)
    first = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    again = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout  # a pure re-computation from the traces
    rows = {r["subtype"]: r for r in json.loads(first.stdout)["runtime"]}
    assert set(rows) == {"C2", "D1"}  # clean and A-only conditions ask for no report
    for subtype, row in rows.items():
        assert (row["model"], row["family"], row["episodes"], row["requested"]) == (model, subtype[0], 2, 2)
        if model == "oracle":
            assert (row["reported"], row["missing"], row["unparsable"]) == (2, 0, 0)
            assert row["status"] == {"matches": 2, "n": 2, "rate": 1.0}
        else:
            assert (row["reported"], row["missing"]) == (0, 2)
            assert row["status"] == row["failure_type"] == {"matches": 0, "n": 2, "rate": 0.0}
    assert rows["C2"]["retryable"]["n"] == 2 and rows["D1"]["final_result"]["n"] == 2  # D1: target null
    assert rows["C2"]["final_result"] == {"matches": 0, "n": 0, "rate": None}  # retail fixes no result
    assert score_run(run_dir).runtime == score_run(run_dir).runtime
    text = CliRunner().invoke(app, ["score", str(run_dir)], env={"COLUMNS": "200"}).output
    table = text[text.index("runtime report per subtype") :]
    line = next(line for line in table.splitlines() if "D1" in line)
    assert ("2/2 100%" if model == "oracle" else "0/2 0%") in line
