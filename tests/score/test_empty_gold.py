"""A task whose right answer is to do nothing (the expected gold is empty, as B2 on a domain with
no fixed result, or D1, makes it) succeeds only when the agent answered and executed nothing: no
output, unreadable turns to the turn limit, or rejected calls to the turn limit are failures,
wherever success is computed (issue 14, item 10)."""

from __future__ import annotations

import asyncio

import pytest

from toolprism.backends import ModelTurn, OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.evaluation._score import expected_gold, score_episode
from toolprism.perturb import parse_perturbations, plan
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.score import diagnose, score_actions, score_stages
from toolprism.score._report import succeeded
from toolprism.shaping import Variant

DOMAIN = get_domain("smart_home")
SPACE = DOMAIN.action_space()
TASK = next(t for t in DOMAIN.tasks(0) if t.id == "smart_home/lock/0")
MAX_TURNS = 20


def spec_under(condition: str) -> EpisodeSpec:
    instances, skips = plan(TASK, SPACE, parse_perturbations(condition), 0)
    assert not skips, skips
    spec = EpisodeSpec(DOMAIN, TASK, Variant.build("native", SPACE), 0, tuple(instances))
    assert expected_gold(spec) == []  # the right answer is to do nothing
    return spec


def unreadable(_context, _messages) -> ModelTurn:  # noqa: ANN001
    return ModelTurn(raw="<tool_call>{not json", error="no tool call or answer could be read")


def unknown_tool(_context, _messages) -> ModelTurn:  # noqa: ANN001
    return ScriptedTurns().call("no_such_tool", {})


AGENTS = {
    "no output": ScriptedBackend([ModelTurn(raw="", error="the model produced nothing")]),
    "unreadable to the turn limit": ScriptedBackend(unreadable),
    "rejected calls to the turn limit": ScriptedBackend(unknown_tool),
}


def scores(spec: EpisodeSpec, trace: Trace) -> dict[str, bool]:
    diagnosis, stages = diagnose(trace, DOMAIN), score_stages(trace, DOMAIN)
    return {
        "recorded": score_episode(spec, trace).success,
        "diagnosis": diagnosis.success,
        "schema form": diagnosis.schema_form_success,
        "S5": stages.stages["S5"] == "pass",
        "headline": succeeded(diagnosis, stages),
    }


@pytest.mark.parametrize("condition", ["B2:medium", "D1:medium"])
@pytest.mark.parametrize("agent", list(AGENTS))
def test_doing_nothing_without_answering_is_no_success(condition: str, agent: str) -> None:
    spec = spec_under(condition)
    trace = asyncio.run(run_episode(spec, AGENTS[agent], max_turns=MAX_TURNS))
    assert not trace.actions and trace.end != "answered"
    assert scores(spec, trace) == dict.fromkeys(scores(spec, trace), False)
    assert diagnose(trace, DOMAIN).mode is not None


def test_answering_with_no_action_is_success_on_an_empty_gold() -> None:
    spec = spec_under("B2:medium")
    trace = asyncio.run(run_episode(spec, ScriptedBackend([ScriptedTurns.answer("Which lock do you mean?")])))
    assert trace.end == "answered"
    assert scores(spec, trace) == dict.fromkeys(scores(spec, trace), True)


def test_the_oracle_still_succeeds_on_an_empty_gold() -> None:
    # under D1 the oracle tries, sees the outage and answers with nothing done (under B2 it cannot
    # see the ambiguity and acts: a failure before this rule too, see trb's ORACLE_SUCCESS)
    spec = spec_under("D1:medium")
    trace = asyncio.run(run_episode(spec, OracleBackend()))
    assert trace.end == "answered" and not trace.actions
    assert all(scores(spec, trace).values())


def test_score_actions_needs_an_answer_only_for_an_empty_gold() -> None:
    gold = [a for a in TASK.gold]
    assert score_actions([], [], end="answered").success
    assert not score_actions([], [], end="turn_limit").success
    assert not score_actions([], [], end="no_output").success
    assert score_actions(gold, gold, end="turn_limit").success  # the multiset match, as the paper scores it
