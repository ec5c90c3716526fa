"""The variant suites: the paper's 32 variants under its names beside toolprism's own, and how a run
pairs the whole-catalog arms with the whole-catalog domain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolprism.evaluation import DEVICE_DOMAINS, PRESETS, RunConfig, apply_preset, expand_variants, plan_episodes
from toolprism.shaping import CATALOG_DOMAIN, PAPER, PAPER_VARIANTS, SUITES, VARIANTS, variant_scope


def test_the_paper_suite_has_the_papers_32_variants() -> None:
    assert len(SUITES["paper"]) == 32
    figures = [v.figure for v in PAPER_VARIANTS]
    assert figures.count("Figure 2") == 13 and figures.count("Appendix Figure 4") == 19
    assert SUITES["all"] == tuple(VARIANTS.names())
    assert set(SUITES["paper"]) | set(SUITES["extended"]) == set(SUITES["all"])


def test_paper_names_follow_the_papers_registry(external: Path) -> None:
    registry = json.loads((external / "toolschemaspace" / "registry.json").read_text())["variants"][:32]
    assert [v.title for v in PAPER_VARIANTS] == [r["name"] for r in registry]
    assert [v.figure for v in PAPER_VARIANTS] == [r["figure"] for r in registry]
    for variant, row in zip(PAPER_VARIANTS, registry, strict=True):
        made = f"ladder k={row['arg']}" if row["kind"] == "ladder" else f"{row['kind']} {row['arg']}"
        assert variant.paper == made, variant.name
        whole = row["kind"] == "hierarchy" or str(row["arg"]).startswith(("class_", "random_neutral", "anti_class"))
        assert variant.scope == ("catalog" if whole else "domain"), variant.name


def test_shared_names_mean_one_construction() -> None:
    for name in set(SUITES["paper"]) & set(SUITES["extended"]):
        assert VARIANTS.get(name) == PAPER[name].spec


def test_suite_names_expand_in_order_without_repeats() -> None:
    assert expand_variants(["paper"]) == list(SUITES["paper"])
    assert expand_variants(["native", "paper"])[:2] == ["native", "fully-merged"]
    assert len(expand_variants(["paper", "extended"])) == len(SUITES["all"])


def test_whole_catalog_arms_bring_the_catalog_domain_and_run_only_there() -> None:
    config = RunConfig(domains=["tv"], variants=["native", "class-dispatch"], tasks=1, model="oracle")
    assert config.domains == ["tv", CATALOG_DOMAIN]
    pairs = {(s.domain.name, s.variant.name) for s in plan_episodes(config)}
    assert pairs == {("tv", "native"), (CATALOG_DOMAIN, "class-dispatch")}
    assert variant_scope("class-dispatch") == "catalog" and variant_scope("merge(by=class)") == "domain"


def test_without_arms_the_catalog_domain_runs_every_variant() -> None:
    config = RunConfig(domains=[CATALOG_DOMAIN], variants=["native", "fully-merged"], tasks=1, model="oracle")
    assert {s.variant.name for s in plan_episodes(config)} == {"native", "fully-merged"}


def test_the_paper_preset_fills_what_the_user_left_unset() -> None:
    settings = apply_preset("action-space-shaping", {"domains": ["tv"], "tasks": 1})
    config = RunConfig(**settings)
    assert config.domains == ["tv", CATALOG_DOMAIN]
    assert config.variants == list(SUITES["paper"])
    assert (config.max_turns, config.instruction, config.preset) == (16, "paper", "action-space-shaping")
    assert apply_preset("action-space-shaping", {})["domains"] == list(DEVICE_DOMAINS)
    assert "action-space-shaping" in PRESETS


def test_an_unknown_preset_is_a_clear_error() -> None:
    from toolprism.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown preset 'nope'.*action-space-shaping"):
        apply_preset("nope", {})


def test_several_calls_in_one_turn_run_in_order_as_the_papers_runner_allows() -> None:
    import asyncio

    from toolprism.backends import ModelTurn, RawCall, ScriptedBackend
    from toolprism.domains import get_domain
    from toolprism.run import EpisodeSpec, run_episode
    from toolprism.shaping import PAPER_INSTRUCTION, Variant

    domain = get_domain("smart_home")
    task = next(t for t in domain.tasks(0) if len(t.gold) == 2 and t.form == "easy")
    calls = tuple(RawCall(f"c{i}", a.op, json.dumps(dict(a.arguments))) for i, a in enumerate(task.gold))
    backend = ScriptedBackend([ModelTurn(raw="", calls=calls)])
    spec = EpisodeSpec(
        domain, task, Variant.build("native", domain.action_space()), 0, control="paper", instruction="paper"
    )
    trace = asyncio.run(run_episode(spec, backend))
    assert [c.outcome for c in trace.turns[0].calls] == ["executed", "executed"]
    assert [a.to_action() for a in trace.actions] == list(task.gold)
    assert trace.messages[0]["content"].endswith(PAPER_INSTRUCTION)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("compose(args=bogus)", "args='bogus' is not one of flat, nested, union, shared, prose, prefixed"),
        ("reference(style=paper,min_values=0)", "min_values must be at least 1"),
        ("compose(min_values=-1)", "min_values must be at least 1"),
        ("reorder(style=bogus)", "style='bogus' is not one of toolprism, paper"),
    ],
)
def test_bad_paper_parameters_are_config_errors(spec: str, problem: str) -> None:
    from toolprism.domains import get_domain
    from toolprism.errors import ConfigError
    from toolprism.shaping import Variant

    with pytest.raises(ConfigError) as info:
        Variant.build(spec, get_domain("tv").action_space())
    assert any(problem in p for p in info.value.problems), info.value.problems


def test_a_negative_catalog_merge_seed_is_a_config_error() -> None:
    from toolprism.domains import get_domain
    from toolprism.errors import ConfigError
    from toolprism.shaping import Variant

    with pytest.raises(ConfigError, match="seed must be at least 0"):
        Variant.build("merge(by=class_random,seed=-1)", get_domain(CATALOG_DOMAIN).action_space())


def test_a_name_a_suite_brings_is_not_a_repeat() -> None:
    assert expand_variants(["paper", "native"]) == list(SUITES["paper"])
    assert expand_variants(["native", "native"]) == ["native", "native"]  # the plan reports this one
