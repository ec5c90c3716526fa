"""Counterfactual repair: re-run failed episodes with the attributed primary error corrected, and
sort the failures into tiers by whether the correction recovers success (ToolRobustBench, section 5:
"Correcting the attributed primary error recovers 100% of Tier-1, 82.1% of Tier-2, and 0% of
Tier-3 failures").

Each failed episode gets up to two interventions aimed at its source stage, the second giving
more help than the first:

- S4 (a perturbed return or runtime failure mishandled): 1. the clean return restored (the
  tool-output and runtime perturbations removed); 2. also the gold calls spelled out.
- S1 (tool selection): 1. the right tools named in the request (the variant's own tool names,
  those the encoded gold calls); 2. the gold calls spelled out (as the variant encodes them:
  every call, protocol steps included, with its arguments).
- S2 (schema grounding): 1. the variant's calling convention added to the request; 2. the gold
  calls spelled out.
- S3 (argument binding): 1. the right values named in the request; 2. the gold calls spelled out.
- otherwise (S5), and for any episode cut off at the turn limit: 1. twice the turns; 2. the gold
  calls spelled out.

A user-intent perturbation (family B) on the episode is removed at level 1 as well: the clean
request restored. Tier 1: level 1 recovers success; Tier 2: only level 2 does; Tier 3: neither.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolprism.backends import Backend, OracleBackend, create_backend
from toolprism.domains import Domain, Task, get_domain
from toolprism.errors import ConfigError
from toolprism.perturb import Stage, expected_gold
from toolprism.run import EpisodeSpec, RunStore, Trace, run_episode, verify_run_tasks
from toolprism.schema import canonical_json
from toolprism.score import PrimaryError, run_domains, score_stages
from toolprism.shaping import Variant


class Repair(BaseModel):
    """The counterfactual repair of one failed episode.

    Attributes:
        episode_id: the stored episode.
        source_stage / primary_error: the attribution the repair acts on.
        interventions: what each level changed, in order (level 1 first).
        recovered: per level, whether the repaired episode succeeded.
        tier: 1 (level 1 recovers), 2 (only level 2 recovers) or 3 (neither).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    episode_id: str
    source_stage: Stage
    primary_error: PrimaryError
    interventions: list[str]
    recovered: list[bool]
    tier: Literal[1, 2, 3]


class RepairReport(BaseModel):
    """``toolprism diagnose``: every failed episode's repair, and the tier counts."""

    model_config = ConfigDict(extra="forbid")

    run_dir: str
    failures: int
    tiers: dict[str, int]
    repairs: list[Repair]


ORACLE_TURNS = 256
"""Turn limit for the oracle that encodes the gold (stacked protocols need many turns)."""

Intervention = tuple[str, Callable[[EpisodeSpec, int], tuple[EpisodeSpec, int]]]
"""A description and a function (spec, max_turns) → (repaired spec, max_turns)."""


def _with_hint(spec: EpisodeSpec, hint: str) -> EpisodeSpec:
    task = dataclasses.replace(spec.task, query=f"{spec.task.query}\n\n({hint})")
    return dataclasses.replace(spec, task=task)


def _without(spec: EpisodeSpec, families: str) -> EpisodeSpec:
    kept = tuple(i for i in spec.perturbations if i.family not in families)
    return dataclasses.replace(spec, perturbations=kept)


def encoded_calls(spec: EpisodeSpec) -> list[tuple[str, dict]]:
    """The calls that make the episode's expected gold under its variant, as the model must write
    them: ``[(tool name, arguments)]`` in order, protocol steps included (the oracle's calls on the
    expected gold alone, with no perturbation, so transaction and handle ids count from the
    first call the agent makes)."""
    task = dataclasses.replace(spec.task, gold=tuple(expected_gold(spec.task.gold, spec.perturbations)))
    clean = dataclasses.replace(spec, task=task, perturbations=())
    trace = asyncio.run(run_episode(clean, OracleBackend(), max_turns=ORACLE_TURNS))
    return [(c.name, c.arguments) for t in trace.turns for c in t.calls]


def _calls_text(calls: list[tuple[str, dict]]) -> str:
    return "; ".join(f"{name}({canonical_json(arguments)})" for name, arguments in calls) or "no call at all"


def interventions(spec: EpisodeSpec, source_stage: str, *, turn_limit: bool = False) -> list[Intervention]:
    """The two interventions for a failure attributed to ``source_stage`` (module docstring); an
    episode cut off at the turn limit gets more turns first, whatever its source stage.

    Both levels re-run the repaired episode: the clean request (no user-intent perturbation) and,
    for S4, the clean returns; every hint is about that episode's expected gold."""
    base = _without(spec, "BCD" if source_stage == "S4" and not turn_limit else "B")
    gold = expected_gold(base.task.gold, base.perturbations)
    calls = encoded_calls(base)
    if turn_limit or source_stage not in ("S1", "S2", "S3", "S4"):
        first: Intervention = ("twice the turns", lambda s, t: (base, 2 * t))
    elif source_stage == "S4":
        first = ("clean return restored", lambda s, t: (base, t))
    elif source_stage == "S1":
        # the variant's tool names, and the operations (a dispatcher or discovery tool alone says little)
        tools = ", ".join(dict.fromkeys(name for name, _ in calls)) or "none"
        ops = ", ".join(dict.fromkeys(a.op for a in gold)) or "none"
        first = ("right tools named", lambda s, t: (_with_hint(base, f"Tools to use: {tools} (operations: {ops})."), t))
    elif source_stage == "S2":
        convention = spec.variant.convention() or "Call the tools exactly as their schemas say."
        first = ("calling convention given", lambda s, t: (_with_hint(base, convention), t))
    else:
        values = "; ".join(f"{a.op}: {canonical_json(a.arguments)}" for a in gold) or "none"
        first = ("right values named", lambda s, t: (_with_hint(base, f"Use these values: {values}."), t))
    spelled_out = f"Make exactly these calls, in order: {_calls_text(calls)}."
    second: Intervention = ("gold calls spelled out", lambda s, t: (_with_hint(first[1](s, t)[0], spelled_out), 2 * t))
    return [first, second]


def spec_of(trace: Trace, domain: Domain | None = None) -> EpisodeSpec:
    """Rebuild the episode's spec from its stored trace (deterministic task regeneration), under
    the adapter control it ran under."""
    domain = domain or get_domain(trace.task.domain)
    seed = trace.task.world_seed
    task: Task = next(t for t in domain.tasks(seed) if t.id == trace.task.id)
    variant = Variant.build(trace.spec, domain.action_space())
    variant = dataclasses.replace(variant, name=trace.variant)
    instances = tuple(trace.perturbations)
    return EpisodeSpec(domain, task, variant, trace.seed, instances, trace.control)


def diagnose_run(
    run_dir: Path,
    *,
    backend: Backend | None = None,
    limit: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> RepairReport:
    """Repair every failed episode (S5 failed) of ``run_dir``, at most ``limit``, with the run's
    own model; an episode counts as recovered when its repaired re-run passes S5.

    ``progress`` is called after each repaired episode with (episodes done, episodes to repair,
    episode id).

    Raises:
        ConfigError: ``run_dir`` is not a run directory, ``limit`` is below 1, or the code no longer
            generates a task the run posed as it was (pinned task hashes).
        BackendError: the model failed.
    """
    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be at least 1, got {limit}", what="options")
    store = RunStore.open(run_dir)
    try:
        verify_run_tasks(store, "repairing")
        config = store.header.config
        domains = run_domains(store)
        max_turns = config.max_turns
        traces = [store.trace(r.episode_id) for r in store.results()]
    finally:
        store.close()
    failed = [t for t in traces if score_stages(t, domains.get(t.task.domain)).stages["S5"] == "fail"][:limit]
    if backend is None and failed:
        model = config.model or "oracle"
        try:
            backend = create_backend(model, base_url=config.base_url)
        except ConfigError:
            raise ConfigError(
                f"the run's model {model!r} cannot be rebuilt by name (it was a backend object given to evaluate()); "
                "pass the same backend: diagnose_run(run_dir, backend=...)",
                what="model",
            ) from None
    repairs = []
    if progress is not None:
        progress(0, len(failed), "")
    for trace in failed:
        domain = domains.get(trace.task.domain)
        stages = score_stages(trace, domain)
        source = stages.source_stage or "S5"
        spec = spec_of(trace, domain)
        done, recovered = [], []
        for description, apply in interventions(spec, source, turn_limit=trace.end == "turn_limit"):
            repaired, turns = apply(spec, max_turns)
            outcome = asyncio.run(run_episode(repaired, backend, max_turns=turns))
            done.append(description)
            recovered.append(score_stages(outcome, domain).stages["S5"] == "pass")
            if recovered[-1]:
                break
        tier = 1 if recovered[0] else 2 if len(recovered) > 1 and recovered[1] else 3
        repairs.append(
            Repair(
                episode_id=trace.episode_id,
                source_stage=source,
                primary_error=stages.primary_error or "incomplete",
                interventions=done,
                recovered=recovered,
                tier=tier,
            )
        )
        if progress is not None:
            progress(len(repairs), len(failed), trace.episode_id)
    tiers = {str(t): sum(r.tier == t for r in repairs) for t in (1, 2, 3)}
    return RepairReport(run_dir=str(run_dir), failures=len(repairs), tiers=tiers, repairs=repairs)
