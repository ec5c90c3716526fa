"""Task generation replays each draft's gold actions in place (one fresh world per task, no copy of
the state per action): the reference traces equal a step-by-step replay through
:meth:`Environment.execute`, and an invalid or refused gold action is still reported."""

from __future__ import annotations

import pytest

from toolprism.domains import ReferenceStep, TaskDraft, get_domain
from toolprism.errors import ConfigError


@pytest.mark.parametrize("name", ["smart_home", "retail", "garden", "calendar"])
def test_in_place_replay_equals_step_by_step_execution(name: str) -> None:
    domain = get_domain(name)
    space = domain.action_space()
    drafts = domain.drafts(0)
    assert drafts
    for draft in drafts:
        env = domain.environment(0)
        expected = []
        for op, args in draft.gold:
            action = space.action(op, args)
            expected.append(ReferenceStep(action, env.execute(action)))
        assert domain._replay_in_place(space, draft, 0) == expected, draft.template


def test_replies_do_not_change_when_later_actions_change_the_world() -> None:
    """A reply is detached from the state: the task's reference equals what each action returned."""
    domain = get_domain("retail")
    for task in domain.tasks(0)[:40]:
        env = domain.environment(0)
        assert [env.execute(step.action) for step in task.reference] == [step.reply for step in task.reference]


def test_invalid_and_refused_gold_actions_are_still_reported() -> None:
    garden = get_domain("garden")

    class Broken(type(garden)):  # not registered: a generator with two bugs
        def drafts(self, world_seed: int) -> list[TaskDraft]:
            spray = self.initial_state(world_seed).zones["front_lawn"].spray
            same = ("set_spray", {"zone": "front_lawn", "spray": spray})  # refused: it already sprays so
            return [
                *super().drafts(world_seed)[:2],
                TaskDraft("refused", "Set the front lawn's spray.", [same]),
                TaskDraft("invalid", "Do something.", [("no_such_operation", {})]),
            ]

    with pytest.raises(ConfigError) as info:
        Broken().tasks(0)
    problems = info.value.problems
    assert len(problems) == 2
    assert problems[0].startswith("task garden/refused/0: gold action set_spray(") and "refused: " in problems[0]
    assert problems[1].startswith("task garden/invalid/0: gold action no_such_operation({}) is invalid")
