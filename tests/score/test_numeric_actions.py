"""``12`` and ``12.0`` are one JSON number: under a ``number`` schema (or an unconstrained one) a
call that spells the gold's integer as a float is the same action, scores as a hit and leaves the
same state; ``12`` and ``"12"`` stay different (issue 14, item 10)."""

from __future__ import annotations

import asyncio

import pytest

from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.domains import CatalogDomain
from toolprism.domains._catalog import PackTask
from toolprism.evaluation._score import score_episode
from toolprism.run import EpisodeSpec, run_episode
from toolprism.schema import Action, ActionRecord, ActionSpace
from toolprism.score import diagnose, score_actions, score_stages
from toolprism.shaping import Variant

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_temperature",
            "description": "Set the target temperature.",
            "parameters": {
                "type": "object",
                "properties": {
                    "celsius": {"type": "number"},
                    "zone": {"type": ["string", "number"]},
                    "note": {},
                    "levels": {"type": "array", "items": {"type": "number"}},
                },
                "required": ["celsius"],
            },
        },
    }
]
SPACE = ActionSpace.from_openai_tools(TOOLS, name="thermo")


def test_an_integral_float_under_number_is_the_integer_action() -> None:
    assert SPACE.action("set_temperature", {"celsius": 12.0}) == SPACE.action("set_temperature", {"celsius": 12})
    assert SPACE.action("set_temperature", {"celsius": 12, "zone": 3.0, "levels": [1.0, 2]}) == SPACE.action(
        "set_temperature", {"celsius": 12.0, "zone": 3, "levels": [1, 2.0]}
    )
    assert SPACE.action("set_temperature", {"celsius": 12.5}) != SPACE.action("set_temperature", {"celsius": 12})


def test_a_number_is_never_its_string() -> None:
    as_number = SPACE.action("set_temperature", {"celsius": 1, "note": 12.0})
    as_string = SPACE.action("set_temperature", {"celsius": 1, "note": "12"})
    assert as_number != as_string
    assert as_number == SPACE.action("set_temperature", {"celsius": 1, "note": 12})
    assert SPACE.action("set_temperature", {"celsius": 1, "zone": "3"}) != SPACE.action(
        "set_temperature", {"celsius": 1, "zone": 3}
    )


def test_stored_actions_rescore_as_the_same_number() -> None:
    # a trace recorded before the fix stores 12.0; scoring re-reads it as 12
    gold = [SPACE.action("set_temperature", {"celsius": 12})]
    stored = ActionRecord(op="set_temperature", args={"celsius": 12.0}).to_action()
    assert stored == gold[0]
    assert score_actions(gold, [stored]).success
    assert Action.from_json({"op": "x", "args": {"v": {"a": [2.0]}}}) == Action.from_json(
        {"op": "x", "args": {"v": {"a": [2]}}}
    )


@pytest.mark.parametrize("spelled", ["21.0", "21", "2.1e1", "21.000"])
def test_an_episode_with_the_float_spelling_succeeds_with_the_gold_state(spelled: str) -> None:
    task = PackTask(
        id="set/0",
        kind="single",
        easy="Set it to 21 degrees.",
        gold=[{"name": "set_temperature", "arguments": {"celsius": 21}}],
    )
    domain = CatalogDomain(SPACE, "You control a thermostat.", [task])
    spec = EpisodeSpec(domain, domain.tasks(0)[0], Variant.build("native", SPACE), 0)
    turns = ScriptedTurns()
    backend = ScriptedBackend(
        [turns.call("set_temperature", f'{{"celsius": {spelled}}}'), ScriptedTurns.answer("Done.")]
    )
    trace = asyncio.run(run_episode(spec, backend))
    result = score_episode(spec, trace)
    assert result.success and result.final_state_match
    assert diagnose(trace, domain).success
    assert score_stages(trace, domain).stages["S5"] == "pass"
