"""The public entry point of a run: configuration, orchestration, summary.

``evaluate(config)`` validates the whole configuration first (every problem listed), builds the
variants and tasks, runs the episodes through the backend, scores each one on the multiset of
decoded native actions, and records it in the run directory as it finishes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from toolprism.backends import DEFAULT_MODEL, Backend, create_backend
from toolprism.domains import Task, domain_names, get_domain
from toolprism.errors import ConfigError
from toolprism.run import MAX_TURNS, EpisodeResult, EpisodeSpec, RunStore, Trace, run_episodes
from toolprism.schema import Action
from toolprism.score import score_actions
from toolprism.shaping import DEFAULT_VARIANTS, VARIANTS, Variant, parse_spec, resolve

DEFAULT_DOMAINS = ("smart_home", "retail")
DEFAULT_TASKS = 2


def expand_variants(names: list[str]) -> list[str]:
    """``all`` stands for the whole named suite, in registry order."""
    out: list[str] = []
    for name in names:
        out += [v for v in VARIANTS.names() if v not in out] if name == "all" else [name]
    return out


class RunConfig(BaseModel):
    """What a run evaluates. Stored in the run header, so a run can be resumed from it alone.

    Attributes:
        model: backend name (see :func:`toolprism.backends.create_backend`).
        base_url: OpenAI-compatible endpoint, for remote models.
        domains: domain names.
        variants: variant names from the suite, or spec strings.
        tasks: tasks per domain (spread over the domain's templates), None for all.
        seed: the run seed (task generation and episode seeds derive from it).
        max_turns: model turns per episode.
        concurrency: episodes in flight at once.
    """

    model_config = ConfigDict(extra="forbid")

    model: str = DEFAULT_MODEL
    base_url: str | None = None
    domains: list[str] = Field(default_factory=lambda: list(DEFAULT_DOMAINS))
    variants: list[str] = Field(default_factory=lambda: list(DEFAULT_VARIANTS))
    tasks: int | None = DEFAULT_TASKS
    seed: int = 0
    max_turns: int = MAX_TURNS
    concurrency: int = 1

    @field_validator("variants")
    @classmethod
    def _expand_all(cls, names: list[str]) -> list[str]:
        return expand_variants(names)


class VariantSummary(BaseModel):
    """Success of one variant over the run's episodes."""

    variant: str
    spec: str
    episodes: int
    successes: int
    success_rate: float
    rejected_calls: int
    turn_limit: int
    """Episodes cut off at the turn limit (raise ``max_turns`` for stacked protocols)."""


class RunSummary(BaseModel):
    """The outcome of a run, as printed by ``toolprism run --json``."""

    run_dir: str
    model: str
    episodes: int
    wall_s: float
    variants: list[VariantSummary]


def spread(tasks: list[Task], limit: int | None) -> list[Task]:
    """The first ``limit`` tasks taken round-robin across templates (all when None)."""
    by_template: dict[str, list[Task]] = {}
    for task in tasks:
        by_template.setdefault(task.id.rsplit("/", 1)[0], []).append(task)
    ordered = [t for row in _zip_longest(list(by_template.values())) for t in row]
    return ordered if limit is None else ordered[:limit]


def _zip_longest(columns: list[list[Task]]) -> list[list[Task]]:
    depth = max((len(c) for c in columns), default=0)
    return [[c[i] for c in columns if i < len(c)] for i in range(depth)]


def plan_episodes(config: RunConfig) -> list[EpisodeSpec]:
    """Every episode of the run, in a deterministic order (domain, variant, task).

    Raises:
        ConfigError: every unknown domain, bad variant spec and bad number, listed together.
    """
    problems: list[str] = []
    known = domain_names()
    problems += [f"unknown domain {d!r} (known: {', '.join(known)})" for d in config.domains if d not in known]
    if config.tasks is not None and config.tasks < 1:
        problems.append(f"tasks must be at least 1, got {config.tasks}")
    if config.max_turns < 1:
        problems.append(f"max_turns must be at least 1, got {config.max_turns}")
    if not config.domains or not config.variants:
        problems.append("at least one domain and one variant are needed")
    if config.concurrency < 1:
        problems.append(f"concurrency must be at least 1, got {config.concurrency}")
    for kind, names in (("domain", config.domains), ("variant", config.variants)):
        problems += [f"{kind} {n!r} is listed more than once" for n in sorted(set(names)) if names.count(n) > 1]
    for variant_name in config.variants:
        try:
            parse_spec(resolve(variant_name))
        except ConfigError as e:
            problems += [f"variant {variant_name!r}: {p}" for p in e.problems]
    specs: list[EpisodeSpec] = []
    for name in [d for d in config.domains if d in known]:
        domain = get_domain(name)
        space = domain.action_space()
        tasks = spread(domain.tasks(config.seed), config.tasks)
        for variant_name in config.variants:
            try:
                variant = Variant.build(variant_name, space)
            except ConfigError as e:
                if not any(variant_name in p for p in problems):
                    problems += [f"variant {variant_name!r} on {name}: {p}" for p in e.problems]
                continue
            specs += [EpisodeSpec(domain, task, variant, config.seed) for task in tasks]
    if problems:
        raise ConfigError(sorted(set(problems), key=problems.index), what="run configuration")
    return specs


def score_episode(spec: EpisodeSpec, trace: Trace) -> EpisodeResult:
    """Score a trace on the multiset of its decoded actions; a scorer crash is recorded, not 0."""
    common = dict(
        episode_id=trace.episode_id,
        task_id=spec.task.id,
        domain=spec.domain.name,
        variant=spec.variant.name,
        spec=spec.variant.spec,
        seed=spec.seed,
        rejected_calls=trace.rejected_calls,
        turns=len(trace.turns),
        actions=len(trace.actions),
        end=trace.end,
        duration_ms=trace.duration_ms,
    )
    try:
        score = score_actions(spec.task.gold, [Action.from_json(a) for a in trace.actions])
    except Exception as e:  # noqa: BLE001 - a crashing scorer must be recorded, never silent
        return EpisodeResult(**common, success=False, precision=0.0, recall=0.0, scoring_error=repr(e))
    return EpisodeResult(**common, success=score.success, precision=score.precision, recall=score.recall)


def summarize(store: RunStore, wall_s: float) -> RunSummary:
    """Per-variant success over everything recorded in ``store``."""
    rows: dict[str, list[EpisodeResult]] = {}
    for r in store.results():
        rows.setdefault(r.variant, []).append(r)
    order = store.header.get("config", {}).get("variants", list(rows))
    variants = [
        VariantSummary(
            variant=name,
            spec=rs[0].spec,
            episodes=len(rs),
            successes=sum(r.success for r in rs),
            success_rate=sum(r.success for r in rs) / len(rs),
            rejected_calls=sum(r.rejected_calls for r in rs),
            turn_limit=sum(r.end == "turn_limit" for r in rs),
        )
        for name in order
        if (rs := rows.get(name))
    ]
    return RunSummary(
        run_dir=str(store.run_dir),
        model=store.header.get("config", {}).get("model", "?"),
        episodes=sum(v.episodes for v in variants),
        wall_s=round(wall_s, 2),
        variants=variants,
    )


def default_run_dir(model: str) -> Path:
    """``toolprism-runs/<UTC timestamp>-<model>`` under the current directory."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Path("toolprism-runs") / f"{stamp}-{model.replace(':', '-').replace('/', '-')}"


def evaluate(
    config: RunConfig | None = None,
    *,
    run_dir: Path | None = None,
    resume: Path | None = None,
    backend: Backend | None = None,
    on_start: Callable[[int, int, Path], None] | None = None,
    on_result: Callable[[EpisodeResult], None] | None = None,
) -> RunSummary:
    """Run (or resume) an evaluation and return its summary.

    Args:
        config: what to run; ignored when resuming (the header's config is used).
        run_dir: where to write; default :func:`default_run_dir`.
        resume: an existing run directory to continue; finished episodes are skipped.
        backend: a ready backend (tests); default built from ``config.model``.
        on_start: called with (episodes to run now, episodes already finished, run directory).
        on_result: called after each episode is recorded.

    Raises:
        ConfigError: a malformed configuration (before anything runs) or run directory.
        BackendError: the model failed; finished episodes stay recorded.
    """
    started = time.perf_counter()
    if resume is not None:
        store = RunStore.open(resume)
        config = RunConfig.model_validate(store.header["config"])
        specs = plan_episodes(config)
    else:
        config = config or RunConfig()
        specs = plan_episodes(config)
        backend = backend or create_backend(config.model, base_url=config.base_url)
        store = None
    backend = backend or create_backend(config.model, base_url=config.base_url)
    if store is None:
        variants = {s.variant.name: s.variant.spec for s in specs}
        store = RunStore.create(
            run_dir or default_run_dir(config.model),
            {
                "config": config.model_dump(),
                "backend": backend.settings(),
                "variant_specs": variants,
                "episodes": len(specs),
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            },
            unique=run_dir is None,
        )
    try:
        finished = store.finished()
        if on_start is not None:
            on_start(sum(s.episode_id not in finished for s in specs), len(finished), store.run_dir)
        asyncio.run(
            run_episodes(
                specs,
                backend,
                store,
                score_episode,
                max_turns=config.max_turns,
                concurrency=config.concurrency,
                on_result=on_result,
            )
        )
        return summarize(store, time.perf_counter() - started)
    finally:
        store.close()
