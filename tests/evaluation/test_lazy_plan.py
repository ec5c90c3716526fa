"""A run's episodes are produced lazily: the plan keeps counts, pins and skips, not specs, and
``evaluate`` pulls specs only as the window of episodes in flight has room."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolprism import RunConfig, evaluate
from toolprism.backends import OracleBackend
from toolprism.evaluation import RunPlan, plan_run
from toolprism.evaluation import _plan as planning
from toolprism.run import RunStore

GRID = {
    "model": "oracle",
    "domains": ["smart_home", "tv"],
    "variants": ["native", "merge"],
    "tasks": 4,
    "perturbations": ["C2:medium", "A1:light", "B2:heavy"],
}


def test_the_lazy_plan_walks_the_same_episodes_and_skips_as_the_list() -> None:
    config = RunConfig(**GRID)
    plan = RunPlan.of(config)
    specs, skips = plan_run(config)
    lazy = list(plan.specs())
    assert plan.episodes == len(specs) == len(lazy) > 0
    assert [s.episode_id for s in lazy] == [s.episode_id for s in specs]
    assert [s.perturbations for s in lazy] == [s.perturbations for s in specs]
    assert plan.skips == skips
    assert plan.variants == {s.variant.name: s.variant.spec for s in specs}
    assert [(d.name, t.id) for d, t in plan.posed] == list(dict.fromkeys((s.domain.name, s.task.id) for s in specs))


def test_the_list_holds_equal_perturbation_instances_once() -> None:
    specs, _ = plan_run(RunConfig(**GRID))
    by_task: dict[tuple[str, str], set[int]] = {}
    for s in specs:
        if s.condition == "C2:medium":  # a runtime fault: the same instance under every variant
            by_task.setdefault((s.task.id, s.condition), set()).add(id(s.perturbations))
    assert by_task and all(len(ids) == 1 for ids in by_task.values())


def test_a_bad_configuration_fails_before_any_episode_is_planned() -> None:
    with pytest.raises(Exception) as info:
        RunPlan.of(RunConfig(model="oracle", domains=["smart_home", "nowhere"], variants=["native", "merge:zz"]))
    text = "\n".join(info.value.problems)  # type: ignore[attr-defined]
    assert "unknown domain 'nowhere'" in text and "merge:zz" in text


def test_evaluate_pulls_specs_only_as_the_window_has_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = {"n": 0}
    walk = planning._walk

    def counting(config, setup):  # type: ignore[no-untyped-def]
        for item in walk(config, setup):
            if not isinstance(item, planning.SkipRecord):
                made["n"] += 1
            yield item

    monkeypatch.setattr(planning, "_walk", counting)
    config = RunConfig(**{**GRID, "concurrency": 3})
    ahead: list[int] = []
    done = {"n": 0}
    planned = {"n": 0}

    def on_start(todo: int, finished: int, directory: Path) -> None:
        planned["n"] = made["n"]  # the counting walk of RunPlan.of

    def on_result(result: object) -> None:
        done["n"] += 1
        ahead.append(made["n"] - planned["n"] - done["n"])

    summary = evaluate(config, run_dir=tmp_path / "r", backend=OracleBackend(), on_start=on_start, on_result=on_result)
    assert done["n"] == RunPlan.of(RunConfig(**GRID)).episodes == RunStore.open(tmp_path / "r").header.episodes
    assert summary.episodes == done["n"]
    assert max(ahead) <= config.concurrency  # never more specs made than the window plus the next one
