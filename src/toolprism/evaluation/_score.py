"""Scoring one episode as it finishes: the multiset of its decoded native actions against the
gold its perturbations expect, the final answer's result where the domain fixes one, and the final
state against the gold's."""

from __future__ import annotations

import functools

from toolprism.domains import Domain
from toolprism.perturb import expected_gold as perturbed_gold
from toolprism.perturb import rereads
from toolprism.run import EpisodeResult, EpisodeSpec, Trace
from toolprism.schema import Action
from toolprism.score import result_match, runtime_decided, score_actions, score_runtime


def expected_gold(spec: EpisodeSpec) -> list[Action]:
    """The actions a correct agent executes in this episode (see :func:`toolprism.perturb.expected_gold`)."""
    return perturbed_gold(spec.task.gold, spec.perturbations)


def score_episode(spec: EpisodeSpec, trace: Trace) -> EpisodeResult:
    """Score a trace on the multiset of its decoded actions against :func:`expected_gold` and,
    where the domain fixes an expected result, on the result its final answer states
    (:func:`toolprism.score.result_match`; ToolRobustBench, section 3: success "requires agreement
    with gold tool, arguments, applicable execution output, and final result"; "runtime cases
    additionally check predicted runtime fields": :func:`toolprism.score.runtime_decided`); a scorer
    crash is recorded, not 0. An unscored episode (a context overflow or backend error, see
    :data:`toolprism.run.UNSCORED_ENDS`) is recorded with its cause and no score."""
    common = dict(
        episode_id=trace.episode_id,
        task_id=spec.task.id,
        domain=spec.domain.name,
        variant=spec.variant.name,
        spec=spec.variant.spec,
        condition=spec.condition,
        seed=spec.seed,
        rejected_calls=trace.rejected_calls,
        turns=len(trace.turns),
        actions=len(trace.actions),
        end=trace.end,
        duration_ms=trace.duration_ms,
    )
    if not trace.scored:  # a context overflow or backend error: counted apart, never a success
        return EpisodeResult(**common, success=False, precision=0.0, recall=0.0, error=trace.error)
    try:
        decoded = [a.to_action() for a in trace.actions]
        score = score_actions(expected_gold(spec), decoded, tolerate=rereads(spec.perturbations), end=trace.end)
        state_match = trace.final_state_hash == gold_state_hash(spec)
        runtime = score_runtime(trace, spec.domain)
        stated = result_match(trace, spec.domain, runtime)
        decided = runtime_decided(trace, runtime)
    except Exception as e:  # noqa: BLE001 - a crashing scorer must be recorded, never silent
        return EpisodeResult(**common, success=False, precision=0.0, recall=0.0, scoring_error=repr(e))
    return EpisodeResult(
        **common,
        success=score.success and stated is not False and decided is not False,
        precision=score.precision,
        recall=score.recall,
        final_state_match=state_match,
        result_match=stated,
    )


def gold_state_hash(spec: EpisodeSpec) -> str:
    """State hash after the expected gold runs in order on a fresh world of the task (computed once
    per domain, world and gold in a process: every episode of a task under every variant shares it)."""
    return _gold_state_hash(spec.domain, spec.task.world_seed, tuple(expected_gold(spec)))


@functools.lru_cache(maxsize=4096)
def _gold_state_hash(domain: Domain, world_seed: int, gold: tuple[Action, ...]) -> str:
    env = domain.offline_environment(world_seed)  # never a live tool server: scoring has no side effects
    for action in gold:
        env.execute(action)
    return env.state_hash()
