"""Mitigations as a run condition: RunConfig validation, the plan, the backend's ``constrain``
option, the run header, and resuming."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolprism import RunConfig, evaluate
from toolprism.backends import OracleBackend, ScriptedBackend
from toolprism.backends._scripted import native_names
from toolprism.errors import ConfigError
from toolprism.evaluation import plan_episodes
from toolprism.run import RunStore

SMALL = {"model": "oracle", "domains": ["garden"], "variants": ["native", "merge"], "tasks": 1}


def test_mitigations_are_stored_canonical() -> None:
    assert RunConfig().mitigations == []
    config = RunConfig(mitigations=["instruction", "constrain-first", "instruction"])
    assert config.mitigations == ["constrain-first", "instruction"]
    assert RunConfig(mitigations=("constrain-all",)).mitigations == ["constrain-all"]


def test_bad_mitigations_are_one_config_error_listing_every_problem() -> None:
    with pytest.raises(ConfigError) as info:
        RunConfig(mitigations=["prayer", "constrain-first", "constrain-all", "Instruction"])
    problems = info.value.problems
    assert len(problems) == 3
    assert "unknown mitigation 'prayer' (known: instruction, constrain-first, constrain-all)" in problems
    assert any("'Instruction'" in p for p in problems)
    assert any("constrain-first and constrain-all cannot be combined" in p for p in problems)


def test_every_planned_episode_carries_the_runs_mitigations() -> None:
    specs = plan_episodes(RunConfig(**SMALL, mitigations=["instruction"]))
    assert len(specs) == 2 and {s.mitigations for s in specs} == {("instruction",)}
    assert {s.mitigations for s in plan_episodes(RunConfig(**SMALL))} == {()}


class _Made:
    """A stand-in for create_backend that records the keyword arguments it was called with."""

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def __call__(self, model: str, **options: object) -> OracleBackend:
        self.calls.append(options)
        return OracleBackend()


@pytest.mark.parametrize(
    ("mitigations", "constrain"),
    [([], None), (["instruction"], None), (["constrain-first"], "first"), (["constrain-all", "instruction"], "all")],
)
def test_the_backend_is_built_with_constrain_only_when_decoding_is_constrained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mitigations: list[str], constrain: str | None
) -> None:
    made = _Made()
    monkeypatch.setattr("toolprism.evaluation._evaluate.create_backend", made)
    summary = evaluate(RunConfig(**SMALL, mitigations=mitigations), run_dir=tmp_path / "run")
    assert len(made.calls) == 1
    assert made.calls[0].get("constrain") == constrain and ("constrain" in made.calls[0]) == (constrain is not None)
    assert summary.mitigations == sorted(mitigations)
    store = RunStore.open(tmp_path / "run")
    try:
        assert store.header.config.mitigations == sorted(mitigations)
        assert {tuple(store.trace(r.episode_id).mitigations) for r in store.results()} == {tuple(sorted(mitigations))}
    finally:
        store.close()


def test_a_given_backend_that_does_not_constrain_is_refused_for_constrain(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="constrain-first mitigation needs a backend that decodes with constrain="):
        evaluate(RunConfig(**SMALL, mitigations=["constrain-first"]), run_dir=tmp_path / "run", backend=OracleBackend())
    assert not (tmp_path / "run").exists()  # refused before anything was written
    # a backend whose settings record the decoding runs (the header keeps its settings)
    decoding = ScriptedBackend(native_names, name="decoding", label={"constrain": "first"})
    summary = evaluate(RunConfig(**SMALL, mitigations=["constrain-first"]), run_dir=tmp_path / "ok", backend=decoding)
    assert summary.mitigations == ["constrain-first"] and summary.episodes == 2
    store = RunStore.open(tmp_path / "ok")
    try:
        assert store.header.backend["constrain"] == "first"
    finally:
        store.close()


def test_resuming_with_other_mitigations_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evaluate(RunConfig(**SMALL, mitigations=["instruction"]), run_dir=run_dir)
    with pytest.raises(ConfigError, match="was run with mitigations instruction; it cannot be resumed with none"):
        evaluate(RunConfig(mitigations=[]), resume=run_dir)
    # the same mitigations, or none asked for, resume it
    assert evaluate(RunConfig(mitigations=["instruction"]), resume=run_dir).mitigations == ["instruction"]
    assert evaluate(resume=run_dir).mitigations == ["instruction"]
