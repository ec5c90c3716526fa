"""The ``trb`` domain: ToolRobustBench's environment (40 tools, 12 groups, 16 sampled with seed
20260511, 12 single-step anchors each, 48 anchors per subtype and severity)."""

from __future__ import annotations

import asyncio
import functools
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.backends import OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.backends._oracle import read_field
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.domains.trb import (
    ANSWERS,
    CATALOG,
    GROUPS,
    NEIGHBOURS,
    ORACLE_SUCCESS,
    SAMPLED,
    SUBTYPE_IDS,
    TOOLS,
    Trb,
    sample_tools,
)
from toolprism.domains.trb._anchors import anchor_arguments
from toolprism.domains.trb._catalog import REPLY_VALUES
from toolprism.evaluation import RunConfig, evaluate, expand_conditions, score_episode
from toolprism.evaluation._plan import plan_run
from toolprism.perturb import SEVERITIES, SUBTYPES, parse_perturbations, plan, suite
from toolprism.run import EpisodeSpec, RunStore, Trace, run_episode
from toolprism.schema import Action
from toolprism.score import result_match, result_target, score_stages
from toolprism.shaping import DEFAULT_VARIANTS, Variant


@functools.cache
def _tasks(seed: int = 0) -> tuple:
    return tuple(get_domain("trb").tasks(seed))


def _replies(tool: str) -> list[dict]:
    env = Trb().environment()
    space = Trb().action_space() if tool in SAMPLED else None
    out = []
    for args in anchor_arguments(tool):
        action = space.action(tool, args) if space else Action.from_json({"op": tool, "args": args})
        out.append(CATALOG[tool](env.state.model_copy(deep=True), **action.arguments))
    return out


# --- the catalogue -----------------------------------------------------------------------------


def test_forty_tools_in_twelve_functional_groups() -> None:
    assert len(TOOLS) == len(set(TOOLS)) == 40
    assert len(GROUPS) == 12
    assert sorted(t for members in GROUPS.values() for t in members) == sorted(TOOLS)
    assert all(3 <= len(members) <= 4 for members in GROUPS.values())
    assert set(NEIGHBOURS) == set(ANSWERS) == set(TOOLS)
    assert all(n in TOOLS and n != t for t, near in NEIGHBOURS.items() for n in near)
    assert NEIGHBOURS["compute_route"][0] == "estimate_travel_time"  # the paper's example pair
    assert NEIGHBOURS["convert_currency"][0] == "get_exchange_rate"


@pytest.mark.parametrize("tool", TOOLS)
def test_every_return_carries_an_id_an_enumerated_status_and_a_whole_number(tool: str) -> None:
    for reply in _replies(tool):
        assert any(k.endswith("_id") and isinstance(v, str) and any(c.isdigit() for c in v) for k, v in reply.items())
        assert any(k in REPLY_VALUES and v in REPLY_VALUES[k] for k, v in reply.items()), reply
        assert any(isinstance(v, int) and not isinstance(v, bool) for v in reply.values()), reply
        assert ANSWERS[tool] in reply


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tool_is_deterministic_and_has_twelve_distinct_anchors(tool: str) -> None:
    assert _replies(tool) == _replies(tool)
    anchors = anchor_arguments(tool)
    assert len(anchors) == 12 and len({str(sorted(a.items())) for a in anchors}) == 12


def test_the_sample_is_seed_20260511_over_the_catalogue() -> None:
    assert SAMPLED == sample_tools(20260511)
    assert set(SAMPLED) == set(random.Random(20260511).sample(TOOLS, 16))
    assert list(SAMPLED) == [t for t in TOOLS if t in SAMPLED]  # listed in catalogue order
    assert sample_tools(1) != SAMPLED
    assert [op.name for op in Trb.action_space().operations] == list(SAMPLED)
    assert {op.kind for op in Trb.action_space().operations} == {"read", "write"}


# --- the tasks ---------------------------------------------------------------------------------


def test_192_single_step_anchors_twelve_per_sampled_tool() -> None:
    tasks = _tasks()
    assert len(tasks) == 192
    assert Counter(t.gold[0].op for t in tasks) == {tool: 12 for tool in SAMPLED}
    assert all(t.kind == "single" and len(t.gold) == 1 and t.form == "easy" for t in tasks)
    assert [t.id for t in tasks[:2]] == [f"trb/{SAMPLED[0]}/0", f"trb/{SAMPLED[0]}/1"]
    assert len({t.query for t in tasks}) == 192


def test_anchors_are_fixed_whatever_the_seed_and_deterministic() -> None:
    again = Trb().tasks(0)
    assert [t.to_json() for t in again] == [t.to_json() for t in _tasks()]
    other = _tasks(1)
    assert [(t.query, t.gold) for t in other] == [(t.query, t.gold) for t in _tasks()]
    assert [t.content_hash for t in other] != [t.content_hash for t in _tasks()]  # the world seed is recorded


def test_expected_results_are_the_stored_arguments_executed() -> None:
    domain = Trb()
    for task in _tasks():
        (action,) = task.gold
        fresh = CATALOG[action.op](domain.initial_state(0), **action.arguments)
        expected = domain.expected_result(task)
        assert expected == fresh[ANSWERS[action.op]] == task.reference[0].reply[ANSWERS[action.op]]
        assert expected is not None
    # another argument gives another result: the value comes from the execution, not the query
    task = next(t for t in _tasks() if t.gold[0].op == "convert_currency")
    args = dict(task.gold[0].arguments, amount=task.gold[0].arguments["amount"] + 1)
    other = type(task)(**{**task.__dict__, "gold": (Action.from_json({"op": "convert_currency", "args": args}),)})
    assert domain.expected_result(other) != domain.expected_result(task)


def test_other_domains_fix_no_expected_result() -> None:
    tv = get_domain("tv")
    assert tv.expected_result(tv.tasks(0)[0]) is None


# --- perturbations -----------------------------------------------------------------------------


def test_the_fourteen_subtypes_are_the_registered_ones() -> None:
    assert list(SUBTYPE_IDS) == sorted(SUBTYPES.names())


def test_every_subtype_applies_at_every_severity_to_every_anchor() -> None:
    space = Trb.action_space()
    variant = Variant.build("native", space)
    skipped = []
    for task in _tasks():
        for term in suite():
            instances, skips = plan(task, space, [term], 0, variant)
            skipped += [(task.id, term.key, s.reason) for s in skips]
            assert len(instances) + len(skips) == 1
    assert not skipped, skipped[:5]


def test_levels_that_need_two_actions_adapt_to_one_call() -> None:
    space = Trb.action_space()
    for task in _tasks()[::7]:
        (b2,), _ = plan(task, space, parse_perturbations("B2:heavy"), 0)
        assert len(b2.params["values"]) == 2 and b2.expected_gold == []  # two values of the one call
        (d1,), _ = plan(task, space, parse_perturbations("D1:heavy"), 0)
        op = task.gold[0].op
        assert d1.params["ops"] == [op, Trb.neighbours[op][0]]  # the call and its nearest neighbour
        assert d1.expected_gold == [] and d1.labels.status == "failure"
        assert op in d1.labels.final_result and Trb.neighbours[op][0] not in d1.labels.final_result
        (c3,), _ = plan(task, space, parse_perturbations("C3:heavy"), 0)
        assert len(c3.params["changes"]) == 3  # a status, an identifier and a number
        for key, light in (("B2", 1), ("D1", 1)):
            (inst,), _ = plan(task, space, parse_perturbations(f"{key}:medium"), 0)
            assert len(inst.params.get("values", inst.params.get("ops"))) == light


def test_multi_step_domains_keep_their_levels() -> None:
    # a one-call task of a stateful domain: D1 heavy still blocks the one gold operation only
    tv = get_domain("tv")
    space = tv.action_space()
    task = next(t for t in tv.tasks(0) if len(t.gold) == 1)
    (d1,), _ = plan(task, space, parse_perturbations("D1:heavy"), 0)
    assert d1.params["ops"] == [task.gold[0].op]
    (b2,), _ = plan(task, space, parse_perturbations("B2:heavy"), 0)
    assert len(b2.params["values"]) == 1


def test_each_cell_covers_48_anchors_three_per_tool() -> None:
    domain = Trb()
    tasks = _tasks()
    for subtype in SUBTYPE_IDS:
        cells = []
        for severity in SEVERITIES:
            covered = [t for t in tasks if domain.assigned(t, f"{subtype}:{severity}")]
            assert len(covered) == 48
            assert Counter(t.gold[0].op for t in covered) == {tool: 3 for tool in SAMPLED}
            cells.append({t.id for t in covered})
        assert not (cells[0] & cells[1] or cells[0] & cells[2] or cells[1] & cells[2])  # disjoint severities
    assert all(domain.assigned(t, "") for t in tasks)
    uses = Counter(t.id for t in tasks for term in suite() if domain.assigned(t, term.key))
    assert set(uses.values()) == {10, 11}
    assert [t.id for t in tasks if domain.assigned(t, "A3:medium+C4:medium")] == [
        t.id for t in tasks if domain.assigned(t, "A3:medium")
    ]


def test_the_full_suite_plans_192_clean_and_2016_perturbed_episodes() -> None:
    config = RunConfig(model="oracle", domains=["trb"], perturbations=expand_conditions([], "all"))
    specs, skips = plan_run(config)
    assert not skips
    assert sum(not s.perturbations for s in specs) == 192
    assert sum(bool(s.perturbations) for s in specs) == 2016 == 14 * 3 * 48
    assert Counter(s.condition for s in specs if s.perturbations) == {p.key: 48 for p in suite()}
    assert {s.variant.name for s in specs} == {"native"}
    assert [s.episode_id for s in plan_run(config)[0]] == [s.episode_id for s in specs]  # deterministic


def test_a_constituent_runs_on_every_task_of_its_mixtures() -> None:
    # cells are per subtype, so A2:medium+D2:medium (A2's cell) and D2:medium alone cover different
    # anchors; the interaction table needs the constituents on the mixture's tasks too
    config = RunConfig(model="oracle", domains=["trb"], perturbations=expand_conditions([], "mixed"))
    specs, _ = plan_run(config)
    tasks: dict[str, set[str]] = {}
    for s in specs:
        tasks.setdefault(s.condition, set()).add(s.task.id)
    mixed = [c for c in tasks if "+" in c]
    assert len(mixed) == 10
    for condition in mixed:
        assert len(tasks[condition]) == 48
        for term in condition.split("+"):
            assert tasks[condition] <= tasks[term], (condition, term)
    assert len(tasks["D2:medium"]) == 96  # its own cell and A2's (A2+D2), which do not overlap
    assert len(tasks["A2:medium"]) == 48  # A2+B3 and A2+D2 run on A2's own cell


def test_task_and_variant_defaults_are_per_domain() -> None:
    specs, _ = plan_run(RunConfig(model="oracle", domains=["tv", "trb"]))
    by_domain = Counter(s.domain.name for s in specs)
    assert by_domain == {"tv": 2 * len(DEFAULT_VARIANTS), "trb": 192}
    specs, _ = plan_run(RunConfig(model="oracle", domains=["trb"], tasks=3, variants=["native", "merge"]))
    assert len(specs) == 6
    specs, _ = plan_run(RunConfig(model="oracle", domains=["trb"], tasks=2, perturbations=["C2:medium"]))
    perturbed = [s.task for s in specs if s.perturbations]
    assert len(perturbed) == 2 and all(Trb().assigned(t, "C2:medium") for t in perturbed)
    assert sum(not s.perturbations for s in specs) == 2
    help_text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "all 192 for trb" in help_text


def test_the_oracle_on_a_few_anchors(tmp_path) -> None:  # noqa: ANN001
    config = RunConfig(
        model="oracle", domains=["trb"], tasks=16, perturbations=["C1:heavy", "D1:heavy", "B2:light", "A1:heavy"]
    )
    summary = evaluate(config, run_dir=tmp_path / "r")
    rates = {v.condition: (v.episodes, v.success_rate) for v in summary.variants}
    assert rates[""] == (16, 1.0)
    for condition in ("C1:heavy", "D1:heavy", "A1:heavy"):
        assert rates[condition] == (16, 1.0)  # a task limit gives each condition that many of its cell
    assert rates["B2:light"][1] == 0.0  # it acts on a value the request no longer gives


# --- success needs the stated result -----------------------------------------------------------


def _episode(task, turns, perturb: str | None = None) -> tuple[EpisodeSpec, Trace]:  # noqa: ANN001
    space = Trb.action_space()
    instances = ()
    if perturb:
        made, skips = plan(task, space, parse_perturbations(perturb), 0)
        assert not skips, skips
        instances = tuple(made)
    spec = EpisodeSpec(Trb(), task, Variant.build("native", space), 0, instances)
    backend = turns if not isinstance(turns, list) else ScriptedBackend(turns)
    trace = asyncio.run(run_episode(spec, backend))
    return spec, trace


def _said(tool: str, answer: str, perturb: str | None = None, index: int = 0) -> tuple:
    """score_episode and score_stages of the gold call of ``tool``'s anchor ``index`` answered with ``answer``."""
    task = next(t for t in _tasks() if t.id == f"trb/{tool}/{index}")
    t = ScriptedTurns()
    spec, trace = _episode(task, [t.call(task.gold[0].op, dict(task.gold[0].arguments)), t.answer(answer)], perturb)
    return score_episode(spec, trace), score_stages(trace, Trb())


def test_success_needs_the_final_answer_to_state_the_expected_result() -> None:
    assert Trb().expected_result(next(t for t in _tasks() if t.id == "trb/find_nearest_station/0")) == "Rome North"
    result, stages = _said("find_nearest_station", "The nearest station is rome  NORTH.")
    assert result.success and result.result_match is True and stages.stages["S5"] == "pass"
    for answer in ("Done.", "The nearest station is Rome South.", "Rome", "RomeNorth"):  # none, other, part, glued
        result, stages = _said("find_nearest_station", answer)
        assert not result.success and result.result_match is False and result.precision == 1.0, answer
        assert stages.stages["S1"] == stages.stages["S3"] == "pass" and stages.stages["S5"] == "fail"
        assert (stages.primary_error, stages.source_stage, stages.trb_primary_error) == (
            "wrong_result",
            "S5",
            "wrong_final_result",
        )
        assert stages.stages["S4"] == "n/a" and not stages.cascade
    # numbers: numerically, within half a unit of the return's last decimal (2557.38: ±0.005)
    assert Trb().expected_result(next(t for t in _tasks() if t.id == "trb/convert_currency/0")) == 2557.38
    for answer, ok in [("That is 2,557.38 AUD.", True), ("2557.380", True), ("2557.4", False), ("2557", False)]:
        assert _said("convert_currency", answer)[0].success is ok, answer
    # an identifier is a word, not a number inside it
    assert _said("send_sms", "Sent as SM4532.")[0].success
    assert not _said("send_sms", "Sent as SM4533, 4532 segments.")[0].success


def test_a_wrong_result_from_a_perturbed_return_is_an_s4_failure_where_it_was_read() -> None:
    # C3 light swaps flight_status, the answer of get_flight_status: a reader that trusts it is wrong
    task = next(t for t in _tasks() if t.id == "trb/get_flight_status/0")
    expected = Trb().expected_result(task)
    t = ScriptedTurns()
    for stated, ok in [(expected, True), ("cancelled" if expected != "cancelled" else "delayed", False)]:
        turns = [t.call(task.gold[0].op, dict(task.gold[0].arguments)), t.answer(f"The flight is {stated}.")]
        spec, trace = _episode(task, turns, "C3:light")
        result, stages = score_episode(spec, trace), score_stages(trace, Trb())
        assert result.success is ok and stages.result_match is ok
        if not ok:
            assert stages.stages["S4"] == "fail" and stages.primary_error == "wrong_result"
            assert stages.source_stage == stages.earliest_failed_stage == "S4" and not stages.cascade
            assert stages.events["S4"].call == 0  # the perturbed read it trusted
            assert stages.trb_primary_error == stages.trb_observed_error == "wrong_final_result"


def test_what_is_judged_after_a_permanent_failure_and_under_ambiguity() -> None:
    task = next(t for t in _tasks() if t.id == "trb/get_air_quality/0")
    b2 = _episode(task, OracleBackend(), "B2:light")[1]
    assert result_target(b2, Trb()) == (False, None)  # the correct move is to ask: no result to state
    t = ScriptedTurns()
    call = t.call(task.gold[0].op, dict(task.gold[0].arguments))
    for claimed, ok in [(None, True), (146, False)]:  # D1: the target is null, the answer claims nothing
        report = {"status": "failure", "failure_type": "unavailable", "retryable": False, "final_result": claimed}
        spec, trace = _episode(task, [call, t.answer(f"The service is down. {json.dumps(report)}")], "D1:light")
        assert result_target(trace, Trb()) == (True, None)
        assert result_match(trace, Trb()) is ok and score_episode(spec, trace).success is ok
    spec, trace = _episode(task, [call, t.answer("The service is down.")], "D1:light")
    assert result_match(trace, Trb()) is None  # no report: free text is not judged against a null target
    tv = get_domain("tv")  # a stateful domain: no result judged, success is the actions
    trace = asyncio.run(run_episode(EpisodeSpec(tv, tv.tasks(0)[0], Variant.build("native", tv.action_space()), 0),
                                    OracleBackend()))  # fmt: skip
    assert result_target(trace, tv) == (False, None) and result_match(trace, tv) is None


def test_the_oracle_reads_the_answer_field_through_reshaped_payloads() -> None:
    assert read_field({"a_id": "X1", "distance_km": 12}, "distance_km") == 12
    assert read_field({"data": {"aId": "X1", "distanceKm": 12}, "meta": {"traceId": "f"}}, "distance_km") == 12
    assert read_field({"result": 'a_id="X1"; distance_km=12; name="a; b"', "format": "kv"}, "distance_km") == 12
    assert read_field({"result": 'name="Rome North"; walk_min=3'}, "name") == "Rome North"
    current = {"distance_km": 12, "as_of": "2026-01-10"}
    stale = [{"distance_km": 13, "as_of": "2026-01-06"}, {"distance_km": 11, "as_of": "2026-01-08"}]
    assert read_field({**current, "cached_copy": stale[0]}, "distance_km") == 12
    assert read_field({"result": current, "candidates": stale}, "distance_km") == 12
    assert read_field({"matches": [stale[0], current, stale[1]]}, "distance_km") == 12
    assert read_field({"a_id": "X1"}, "distance_km") is None and read_field("Service down", "x") is None


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle over ``--perturb-suite all``: 192 clean and 2,016 perturbed episodes."""
    run_dir = tmp_path_factory.mktemp("trb-oracle") / "run"
    evaluate(RunConfig(model="oracle", domains=["trb"], perturbations=expand_conditions([], "all")), run_dir=run_dir)
    return run_dir


def test_the_oracle_gets_the_documented_success_in_every_cell(oracle_run: Path) -> None:
    store = RunStore.open(oracle_run)
    results = store.results()
    cells: dict[str, list[bool]] = {}
    for r in results:
        cells.setdefault(r.condition, []).append(r.success)
    assert cells.pop("") == [True] * 192
    got = {s: tuple(sum(cells[f"{s}:{v}"]) for v in SEVERITIES) for s in SUBTYPE_IDS}
    assert {c: len(w) for c, w in cells.items()} == {f"{s}:{v}": 48 for s in SUBTYPE_IDS for v in SEVERITIES}
    assert got == ORACLE_SUCCESS
    space = Trb.action_space()
    for r in results:  # and each failure fails for the documented reason
        if r.condition.startswith("B2"):
            assert r.result_match is False and not r.success  # it called instead of asking
            continue
        trace = store.trace(r.episode_id)
        tool = trace.task.gold[0].op
        field = Trb().answer_field(tool)
        if r.condition.startswith("C3"):  # fails exactly where the answer field was falsified
            falsified = any(c["path"] == field for c in trace.perturbations[0].params["changes"])
            assert r.success is not falsified, r.episode_id
        elif r.condition.startswith("C2"):  # fails exactly where a write's answer field is gone
            gone = read_field(trace.injections[0].replacement, field) is None
            assert r.success is not (gone and space.get(tool).kind == "write"), r.episode_id
        else:
            assert r.success and r.result_match is True, r.episode_id
        if not r.success:
            stages = score_stages(trace, Trb())
            assert (stages.primary_error, stages.source_stage) == ("wrong_result", "S4"), r.episode_id
    store.close()


def test_the_readme_states_the_oracle_table() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert "48 of 48 everywhere" in readme
    for subtype, counts in ORACLE_SUCCESS.items():
        stated = f"{subtype} {'/'.join(map(str, counts))}" in readme
        assert stated is (counts != (48, 48, 48)), subtype


def _anchor_in(condition: str):  # noqa: ANN202
    return next(t for t in _tasks() if Trb().assigned(t, condition))


@pytest.mark.parametrize("condition", ["D1:light", "D1:medium", "D1:heavy", "B2:light", "B2:medium", "B2:heavy"])
def test_an_agent_that_does_nothing_does_not_succeed(condition: str) -> None:
    # D1 and B2 expect no executed call; doing nothing is still not the right outcome: a runtime
    # case must report the right decisions, and an underspecified request must be asked about
    task = _anchor_in(condition)
    spec, trace = _episode(task, [ScriptedTurns().answer("I could not do that.")], condition)
    stages = score_stages(trace, Trb())
    assert score_episode(spec, trace).success is False
    assert stages.stages["S5"] == "fail"
    if condition.startswith("D1"):
        assert stages.runtime_decided is False and stages.stages["S4"] == "fail"
        assert stages.primary_error == "runtime_not_reported"


def test_asking_is_the_success_under_an_underspecified_request() -> None:
    task = _anchor_in("B2:medium")
    spec, trace = _episode(task, [ScriptedTurns().answer("Which one do you mean?")], "B2:medium")
    assert score_episode(spec, trace).success is True
    assert score_stages(trace, Trb()).result_match is True


def test_a_runtime_case_succeeds_with_the_right_report() -> None:
    task = _anchor_in("D1:light")
    call = ScriptedTurns().call(task.gold[0].op, dict(task.gold[0].arguments))
    report = '{"status": "failure", "failure_type": "unavailable", "retryable": false, "final_result": null}'
    spec, trace = _episode(task, [call, ScriptedTurns().answer(f"The service is down.\n{report}")], "D1:light")
    stages = score_stages(trace, Trb())
    assert stages.runtime_decided is True and stages.stages["S4"] == "pass"
    assert score_episode(spec, trace).success is True
