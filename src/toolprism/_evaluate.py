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
from toolprism.domains import Domain, Task, domain_names, get_domain
from toolprism.domains._catalog import is_pack_path
from toolprism.errors import ConfigError
from toolprism.perturb import MIXED_PAIRS, Skip, SkipRecord, parse_perturbations, rereads, suite
from toolprism.perturb import expected_gold as perturbed_gold
from toolprism.perturb import plan as plan_perturbations
from toolprism.run import MAX_TURNS, EpisodeResult, EpisodeSpec, RunHeader, RunStore, Trace, run_episodes
from toolprism.schema import Action
from toolprism.score import PerturbationSummary, by_condition, score_actions
from toolprism.shaping import DEFAULT_VARIANTS, VARIANTS, Variant, parse_spec, resolve

DEFAULT_DOMAINS = ("smart_home", "retail")
DEFAULT_TASKS = 2


def expand_conditions(perturb: list[str], perturb_suite: str | None = None) -> list[str]:
    """Perturbation conditions from ``--perturb`` terms and a ``--perturb-suite``.

    Each comma-separated term of ``perturb`` is its own condition (``C2:medium``); ``+`` joins a
    mixed-family pair into one condition (``A3:medium+C4:medium``). ``perturb_suite``: ``all``
    (every subtype at every severity) or ``mixed`` (the representative pairs at medium and heavy).

    Raises:
        ConfigError: an unknown suite.
    """
    out = [t.strip() for item in perturb for t in item.split(",") if t.strip()]
    if perturb_suite == "mixed":
        out += [f"{a}:{s}+{b}:{s}" for a, b in MIXED_PAIRS for s in ("medium", "heavy")]
    elif perturb_suite == "all":
        out += [p.key for p in suite()]
    elif perturb_suite is not None:
        raise ConfigError(f"unknown perturbation suite {perturb_suite!r} (known: all, mixed)", what="options")
    return list(dict.fromkeys(out))


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
        perturbations: perturbation conditions (see :func:`expand_conditions`); when any are
            given, every task also runs clean, as the baseline.
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
    perturbations: list[str] = Field(default_factory=list)

    @field_validator("variants")
    @classmethod
    def _expand_all(cls, names: list[str]) -> list[str]:
        return expand_variants(names)

    @field_validator("perturbations")
    @classmethod
    def _canonical_conditions(cls, conditions: list[str]) -> list[str]:
        # ``c2``, ``C2:Medium`` and ``C2:medium`` are one condition, and so are ``C4:light+A3:light``
        # and ``A3:light+C4:light``: keys are stored as the episodes record them. A term that does
        # not parse is kept as written, for plan_run to report.
        out = []
        for condition in conditions:
            try:
                terms = parse_perturbations(condition.replace("+", ","))
            except ConfigError:
                out.append(condition)
                continue
            out.append("+".join(p.key for p in sorted(terms, key=lambda p: p.subtype)))
        return list(dict.fromkeys(out))

    @field_validator("domains")
    @classmethod
    def _absolute_packs(cls, names: list[str]) -> list[str]:
        # a pack path is stored absolute so that --resume works from any directory
        return [str(Path(n).resolve()) if is_pack_path(n) and Path(n).exists() else n for n in names]


class VariantSummary(BaseModel):
    """Success of one variant (under one perturbation condition) over the run's episodes."""

    variant: str
    spec: str
    condition: str = ""
    """``""`` clean, else the perturbations (``C2:medium``)."""
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
    perturbations: list[PerturbationSummary] = Field(default_factory=list)


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
    """Every episode of the run, in a deterministic order (domain, variant, task, condition).

    Raises:
        ConfigError: every unknown domain, bad variant spec, bad perturbation and bad number,
            listed together.
    """
    return plan_run(config)[0]


def plan_run(config: RunConfig) -> tuple[list[EpisodeSpec], list[SkipRecord]]:
    """:func:`plan_episodes`, plus one record per (task, variant, condition) a perturbation could
    not apply to (task, variant, condition, subtype, severity, reason).

    Raises:
        ConfigError: as :func:`plan_episodes`.
    """
    problems: list[str] = []
    known = domain_names()
    domains: dict[str, Domain] = {}
    for name in dict.fromkeys(config.domains):  # a repeated name is reported below
        if name not in known and not is_pack_path(name):
            problems.append(f"unknown domain {name!r} (known: {', '.join(known)}; or a domain pack file)")
            continue
        try:
            domain = get_domain(name)
        except ConfigError as e:
            problems += [f"domain {name!r}: {p}" for p in e.problems]
            continue
        clash = next((n for n, d in domains.items() if d.name == domain.name), None)
        if clash is not None or (name not in known and domain.name in known):
            problems.append(
                f"domain {name!r} is named {domain.name!r}, like {clash or 'a built-in domain'}: episodes would collide"
            )
            continue
        domains[name] = domain
    if config.tasks is not None and config.tasks < 1:
        problems.append(f"tasks must be at least 1, got {config.tasks}")
    if config.seed < 0:
        problems.append(f"seed must be at least 0, got {config.seed}")
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
    conditions = [[]]
    for condition in config.perturbations:
        try:
            conditions.append(parse_perturbations(condition.replace("+", ",")))
        except ConfigError as e:
            # a single term's problems already name it; a mixed condition's name the pair as well
            problems += [
                f"perturbation {p}" if "+" not in condition else f"perturbation {condition!r}: {p}" for p in e.problems
            ]
    specs: list[EpisodeSpec] = []
    skips: list[SkipRecord] = []
    for name, domain in domains.items():
        space = domain.action_space()
        tasks = spread(domain.tasks(config.seed), config.tasks)
        for variant_name in config.variants:
            try:
                variant = Variant.build(variant_name, space)
            except ConfigError as e:
                if not any(variant_name in p for p in problems):
                    problems += [f"variant {variant_name!r} on {name}: {p}" for p in e.problems]
                continue
            for task in tasks:
                for terms in conditions:
                    instances, skipped = plan_perturbations(task, space, terms, config.seed, variant)
                    if skipped:
                        skips += [_skip_record(task, variant_name, terms, s) for s in skipped]
                        continue
                    specs.append(EpisodeSpec(domain, task, variant, config.seed, tuple(instances)))
    if problems:
        raise ConfigError(sorted(set(problems), key=problems.index), what="run configuration")
    return specs, skips


def _skip_record(task: Task, variant: str, terms: list, skip: Skip) -> SkipRecord:
    condition = "+".join(t.key for t in terms)
    return SkipRecord(task=task.id, variant=variant, condition=condition, **skip.model_dump())


def expected_gold(spec: EpisodeSpec) -> list[Action]:
    """The actions a correct agent executes in this episode (see :func:`toolprism.perturb.expected_gold`)."""
    return perturbed_gold(spec.task.gold, spec.perturbations)


def score_episode(spec: EpisodeSpec, trace: Trace) -> EpisodeResult:
    """Score a trace on the multiset of its decoded actions against :func:`expected_gold`; a
    scorer crash is recorded, not 0."""
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
    try:
        decoded = [a.to_action() for a in trace.actions]
        score = score_actions(expected_gold(spec), decoded, tolerate=rereads(spec.perturbations))
        state_match = trace.final_state_hash == gold_state_hash(spec)
    except Exception as e:  # noqa: BLE001 - a crashing scorer must be recorded, never silent
        return EpisodeResult(**common, success=False, precision=0.0, recall=0.0, scoring_error=repr(e))
    return EpisodeResult(
        **common,
        success=score.success,
        precision=score.precision,
        recall=score.recall,
        final_state_match=state_match,
    )


def gold_state_hash(spec: EpisodeSpec) -> str:
    """State hash after the expected gold runs in order on a fresh world of the task."""
    env = spec.domain.environment(spec.task.world_seed)
    for action in expected_gold(spec):
        env.execute(action)
    return env.state_hash()


def summarize(store: RunStore, wall_s: float) -> RunSummary:
    """Per-variant (and per-condition) success over everything recorded in ``store``, and the
    breakdown by perturbation subtype and severity."""
    rows: dict[tuple[str, str], list[EpisodeResult]] = {}
    results = store.results()
    for r in results:
        rows.setdefault((r.variant, r.condition or ""), []).append(r)
    config = store.header.config
    order = config.variants or [v for v, _ in rows]
    # the header's conditions in canonical form (a run made before they were stored so still reads
    # right), then any condition only the rows know
    stored = RunConfig.model_validate(config.model_dump(exclude_unset=True)).perturbations
    conditions = list(dict.fromkeys(["", *stored, *(c for _, c in rows)]))
    variants = [
        VariantSummary(
            variant=name,
            spec=rs[0].spec,
            condition=condition,
            episodes=len(rs),
            successes=sum(r.success for r in rs),
            success_rate=sum(r.success for r in rs) / len(rs),
            rejected_calls=sum(r.rejected_calls for r in rs),
            turn_limit=sum(r.end == "turn_limit" for r in rs),
        )
        for name in order
        for condition in conditions
        if (rs := rows.get((name, condition)))
    ]
    return RunSummary(
        run_dir=str(store.run_dir),
        model=config.model or "?",
        episodes=sum(v.episodes for v in variants),
        wall_s=round(wall_s, 2),
        variants=variants,
        perturbations=by_condition([(r.condition, r.success) for r in results], store.header.skipped),
    )


def _builds(config: RunConfig, backend: Backend) -> bool:
    """Whether ``config.model`` names the kind of backend ``backend`` is."""
    kind = config.model.partition(":")[0]
    return backend.name == kind or (backend.name == "openai" and config.base_url is not None)


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
        backend: a ready backend (a custom or scripted agent); default built from
            ``config.model``. When ``config.model`` would build another kind of backend, the run
            records ``backend.name`` as its model, so that its rows are not pooled with another
            model's and ``diagnose_run`` asks for the backend instead of rebuilding a wrong one.
        on_start: called with (episodes to run now, episodes already finished, run directory).
        on_result: called after each episode is recorded.

    Raises:
        ConfigError: a malformed configuration (before anything runs) or run directory.
        BackendError: the model failed; finished episodes stay recorded.
    """
    started = time.perf_counter()
    if resume is not None:
        store = RunStore.open(resume)
        config = RunConfig.model_validate(store.header.config.model_dump(exclude_unset=True))
        specs, skips = plan_run(config)
    else:
        config = config or RunConfig()
        specs, skips = plan_run(config)
        if backend is not None and not _builds(config, backend):
            config = config.model_copy(update={"model": backend.name})  # record the agent that really runs
        store = None
    backend = backend or create_backend(config.model, base_url=config.base_url)
    if store is None:
        variants = {s.variant.name: s.variant.spec for s in specs}
        store = RunStore.create(
            run_dir or default_run_dir(config.model),
            RunHeader(
                config=config.model_dump(),
                backend=backend.settings(),
                variant_specs=variants,
                episodes=len(specs),
                skipped=skips,
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            ),
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
