"""Repair tiers are a pure function of the scored trace (toolprism.repair.assign_tier): the rule on
constructed stage verdicts and on traces whose perturbations took evidence out of the episode."""

from __future__ import annotations

import asyncio

import pytest

from toolprism.backends import EpisodeContext, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.perturb import parse_perturbations, plan
from toolprism.repair import assign_tier
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.schema import canonical_json
from toolprism.score import EpisodeStages, score_stages
from toolprism.shaping import Variant

RETAIL = get_domain("retail")
TASK = next(t for t in RETAIL.tasks(0) if t.id == "retail/return_items/2")
READS = [(a.op, a.arguments) for a in TASK.gold[:2]]  # who the user is, then the order


class Reader:
    """Makes the given calls, then answers without the write the task asks for (S1 fails)."""

    name = "reader"

    def __init__(self, calls: list[tuple[str, dict]]) -> None:
        self.calls = calls

    def settings(self) -> dict:
        return {"backend": self.name}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        calls, turns = self.calls, ScriptedTurns()

        class Agent:
            made = 0

            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                self.made += 1
                if self.made <= len(calls):
                    return turns.call(*calls[self.made - 1])
                return turns.answer("Done.")

        return Agent()


def episode(condition: str | None = None, *, seed: int = 0, where: str | None = None) -> tuple[EpisodeStages, Trace]:
    """The reader's episode on TASK under ``condition`` (the first plan whose runtime fault hits
    ``where``, when given), scored."""
    space = RETAIL.action_space()
    instances: list = []
    if condition:
        for s in range(seed, seed + 100):
            instances, skips = plan(TASK, space, parse_perturbations(condition), s)
            assert not skips
            if where is None or instances[0].params.get("ops") == [where]:
                break
        else:
            pytest.fail(f"no plan of {condition} hits {where}")
    spec = EpisodeSpec(RETAIL, TASK, Variant.build("native", space), 0, tuple(instances))
    trace = asyncio.run(run_episode(spec, Reader(READS), max_turns=8))
    return score_stages(trace, RETAIL), trace


def test_a_lone_failed_stage_that_is_its_own_source_is_tier_1() -> None:
    stages, trace = episode()
    assert (stages.stages["S1"], stages.source_stage, stages.cascade) == ("fail", "S1", False)
    assigned = assign_tier(stages, trace)
    assert assigned.tier == 1 and assigned.reason == "direct: S1 failed alone and is the source"


def test_a_cascade_or_several_failed_stages_is_tier_2() -> None:
    stages, trace = episode()
    cascade = stages.model_copy(update={"earliest_failed_stage": "S3", "source_stage": "S1", "cascade": True})
    assert assign_tier(cascade, trace).tier == 2
    assert assign_tier(cascade, trace).reason == "cascade: earliest failed stage S3, source S1"
    several = stages.model_copy(update={"stages": {**stages.stages, "S3": "fail"}})
    assert assign_tier(several, trace).tier == 2
    assert "several failed stages (S1, S3)" in assign_tier(several, trace).reason
    s5_only = stages.model_copy(
        update={"stages": {**stages.stages, "S1": "pass"}, "earliest_failed_stage": "S5", "source_stage": "S5"}
    )
    assert assign_tier(s5_only, trace).tier == 1
    # the boundary flag and the primary error's name do not enter the rule
    other = stages.model_copy(update={"boundary_violation": True, "primary_error": "wrong_tool"})
    assert assign_tier(other, trace) == assign_tier(stages, trace)


def test_a_success_has_no_tier() -> None:
    stages, trace = episode()
    success = stages.model_copy(update={"source_stage": None, "earliest_failed_stage": None, "primary_error": None})
    with pytest.raises(ConfigError, match="did not fail"):
        assign_tier(success, trace)


def test_a_runtime_fault_that_withholds_a_needed_value_is_tier_3() -> None:
    # the order's details are the only source of the item ids the return needs
    stages, trace = episode("D1:light", where="get_order_details")
    assigned = assign_tier(stages, trace)
    assert assigned.tier == 3, assigned.reason
    assert "needed by return_delivered_order_items" in assigned.reason
    assert "get_order_details would return it, and it fails every time (D1)" in assigned.reason
    # the user id the lookup returns is needed by no remaining action: the same agent's failure is
    # not tier 3, but a cascade (the unreported outage, S4, explains the missing write, S1)
    stages, trace = episode("D1:light", where=TASK.gold[0].op)
    assert (stages.source_stage, stages.earliest_failed_stage) == ("S4", "S1")
    assert assign_tier(stages, trace).tier == 2


def test_evidence_lost_from_a_return_is_tier_3_only_when_it_cannot_be_re_read() -> None:
    watch = get_domain("smartwatch")
    task = next(t for t in watch.tasks(0) if t.id == "smartwatch/copy_alarm_time/0")  # read an alarm, copy its time
    assert [a.op for a in task.gold] == ["get_alarms", "set_alarm"]
    instances, skips = plan(task, watch.action_space(), parse_perturbations("C2:heavy"), 0)
    assert not skips
    spec = EpisodeSpec(watch, task, Variant.build("native", watch.action_space()), 0, tuple(instances))
    read = [(task.gold[0].op, task.gold[0].arguments)]
    trace = asyncio.run(run_episode(spec, Reader(read), max_turns=4))
    stages = score_stages(trace, watch)
    (instance,) = trace.perturbations
    assert [j.target for j in trace.injections] == ["get_alarms"] and "get_alarms" in instance.rereads
    assert assign_tier(stages, trace).tier == 1  # a re-read gives the evidence back
    unreadable = trace.model_copy(update={"perturbations": [instance.model_copy(update={"rereads": []})]})
    assigned = assign_tier(stages, unreadable)
    assert assigned.tier == 3 and "needed by set_alarm" in assigned.reason, assigned.reason
    assert "dropped from the return of get_alarms (C2), which cannot be re-read" in assigned.reason
    # the same loss, but the request states the value: the episode still holds the evidence
    stated = unreadable.model_copy(
        update={"messages": [{"role": "user", "content": canonical_json(task.reference[0].reply)}]}
    )
    assert assign_tier(stages, stated).tier == 1


def test_a_value_blanked_from_the_request_is_tier_3_only_when_the_expected_gold_still_needs_it() -> None:
    home = get_domain("smart_home")
    task = next(t for t in home.tasks(0) if t.id == "smart_home/brightness/0")
    instances, skips = plan(task, home.action_space(), parse_perturbations("B2:medium"), 1)
    assert not skips and instances[0].params["values"] == [15]  # "Dim the office light to whatever works%"
    spec = EpisodeSpec(home, task, Variant.build("native", home.action_space()), 0, tuple(instances))
    guess = [("set_light_brightness", {"room": "office", "brightness": 40})]  # acts on a guess instead of asking
    trace = asyncio.run(run_episode(spec, Reader(guess), max_turns=4))
    stages = score_stages(trace, home)
    assert stages.source_stage is not None
    (instance,) = trace.perturbations
    assert instance.expected_gold == []  # asking is the correct move: nothing needs the value
    assert assign_tier(stages, trace).tier != 3
    needing = trace.model_copy(
        update={"perturbations": [instance.model_copy(update={"expected_gold": trace.task.gold})]}
    )
    assigned = assign_tier(stages, needing)
    assert assigned.tier == 3 and "blanked from the request (B2)" in assigned.reason
