"""Planning a run: the domains, variants, tasks and perturbation conditions of a
:class:`~toolprism.evaluation.RunConfig` validated together and built into episode specs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from toolprism.domains import TASK_KINDS, Domain, Task, domain_names, get_domain, is_pack_path
from toolprism.errors import ConfigError
from toolprism.evaluation._config import RunConfig
from toolprism.perturb import Instance, Perturbation, Skip, SkipRecord, parse_perturbations
from toolprism.perturb import plan as plan_perturbations
from toolprism.run import EpisodeSpec
from toolprism.shaping import CATALOG_DOMAIN, DEFAULT_VARIANTS, Variant, parse_spec, resolve, variant_scope


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
    """Every episode of the run, in a deterministic order (domain, variant, task, condition), each
    under the run's mitigations (:attr:`RunConfig.mitigations`).

    Raises:
        ConfigError: every unknown domain, bad variant spec, bad perturbation and bad number,
            listed together.
    """
    return plan_run(config)[0]


def plan_run(config: RunConfig) -> tuple[list[EpisodeSpec], list[SkipRecord]]:
    """:func:`plan_episodes`, plus one record per (task, variant, condition) a perturbation could
    not apply to (task, variant, condition, subtype, severity, reason). Equal perturbation
    instances (a task's, under most variants) are held once.

    Raises:
        ConfigError: as :func:`plan_episodes`.
    """
    plan = RunPlan.of(config)
    shared: dict[str, tuple[Instance, ...]] = {}
    specs = []
    for spec in plan.specs():
        key = "\n".join(i.model_dump_json() for i in spec.perturbations)
        specs.append(replace(spec, perturbations=shared.setdefault(key, spec.perturbations)))
    return specs, plan.skips


@dataclass(frozen=True)
class RunPlan:
    """A validated run whose episodes are produced on demand, so that a run of any size holds only
    the episodes in flight (ToolRobustBench-scale grids run to 10^5 episodes).

    :meth:`of` walks the plan once for what the run header needs (:attr:`episodes`, the
    :attr:`variants`' specs, the :attr:`posed` tasks, the :attr:`skips`) and keeps none of the
    specs; :meth:`specs` walks it again, lazily, in the same deterministic order (domain, variant,
    task, condition)."""

    config: RunConfig
    episodes: int
    variants: dict[str, str]
    """Variant name -> spec string, for every variant an episode runs under."""
    posed: list[tuple[Domain, Task]]
    """Each (domain, task) an episode poses, once, in plan order."""
    skips: list[SkipRecord]
    _setup: _Setup = field(repr=False)

    @classmethod
    def of(cls, config: RunConfig) -> RunPlan:
        """Validate ``config`` and count its episodes.

        Raises:
            ConfigError: every unknown domain, bad variant spec, bad perturbation and bad number,
                listed together.
        """
        config = config.model_copy(deep=True)  # the walks read it again: a caller's later edit must not change them
        setup = _setup(config)
        episodes, variants, posed, skips = 0, {}, {}, []
        for item in _walk(config, setup):
            if isinstance(item, SkipRecord):
                skips.append(item)
                continue
            episodes += 1
            variants.setdefault(item.variant.name, item.variant.spec)
            posed.setdefault((item.domain.name, item.task.id), (item.domain, item.task))
        return cls(config, episodes, variants, list(posed.values()), skips, setup)

    def specs(self) -> Iterator[EpisodeSpec]:
        """The run's episodes, one at a time, each under the run's mitigations."""
        return (item for item in _walk(self.config, self._setup) if isinstance(item, EpisodeSpec))


@dataclass(frozen=True)
class _Setup:
    """What validation built: per domain, the tasks it poses (and under which conditions) and its
    built variants; the perturbation conditions (the first is the clean one, no terms)."""

    domains: list[tuple[Domain, list[Task], dict[str, set[str]], list[Variant]]]
    conditions: list[list[Perturbation]]


def _setup(config: RunConfig) -> _Setup:
    """Every check of ``config`` and the variants it builds.

    Raises:
        ConfigError: every problem, listed together.
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
    if isinstance(config.tasks, int) and config.tasks < 1:
        problems.append(f"tasks (--tasks) must be at least 1, got {config.tasks}")
    if config.task_kinds is not None:
        unknown = [k for k in config.task_kinds if k not in TASK_KINDS]
        problems += [f"unknown task kind {k!r} (known: {', '.join(TASK_KINDS)})" for k in unknown]
        if not config.task_kinds:
            problems.append(f"at least one task kind is needed (known: {', '.join(TASK_KINDS)})")
        else:
            kinds = set(config.task_kinds)
            problems += [
                f"domain {n!r} has no tasks of kind {', '.join(config.task_kinds)}"
                for n, d in domains.items()
                if not unknown and not any(t.kind in kinds for t in d.tasks(config.seed))
            ]
    if config.seed < 0:
        problems.append(f"seed must be at least 0, got {config.seed}")
    if config.max_turns < 1:
        problems.append(f"max_turns must be at least 1, got {config.max_turns}")
    if not config.domains or config.variants == []:
        problems.append("at least one domain and one variant are needed")
    if config.concurrency < 1:
        problems.append(f"concurrency (--concurrency) must be at least 1, got {config.concurrency}")
    for name, option in (("max_tokens_total", "--max-tokens-total"), ("max_wall_s", "--max-wall")):
        if (limit := getattr(config, name)) is not None and not 0 < limit < float("inf"):  # nan fails too
            problems.append(f"{name} ({option}) must be a positive number, got {limit}")
    if (breaker := config.max_consecutive_backend_errors) < 0:
        problems.append(f"max_consecutive_backend_errors (--max-backend-errors) must be at least 0, got {breaker}")
    for kind, names in (("domain", config.domains), ("variant", config.variants or [])):
        problems += [f"{kind} {n!r} is listed more than once" for n in sorted(set(names)) if names.count(n) > 1]
    defaults = dict.fromkeys(n for d in domains.values() for n in _variants(config, d))
    for variant_name in config.variants if config.variants is not None else defaults:
        try:
            parse_spec(resolve(variant_name))
        except ConfigError as e:
            named = f"{variant_name!r}:"  # the spec parser's problems may name the spec already
            problems += [f"variant {p}" if p.startswith(named) else f"variant {named} {p}" for p in e.problems]
    conditions = [[]]
    for condition in config.perturbations:
        try:
            conditions.append(parse_perturbations(condition.replace("+", ",")))
        except ConfigError as e:
            # a single term's problems already name it; a mixed condition's name the pair as well
            problems += [
                f"perturbation {p}" if "+" not in condition else f"perturbation {condition!r}: {p}" for p in e.problems
            ]
    arms = any(variant_scope(v) == "catalog" for v in config.variants or ())
    built = []
    for name, domain in domains.items():
        variants = []
        for variant_name in _variants(config, domain):
            if not _pairs(name, variant_name, arms):
                continue
            try:
                variants.append(Variant.build(variant_name, domain.action_space()))
            except ConfigError as e:
                if not any(variant_name in p for p in problems):
                    problems += [f"variant {variant_name!r} on {name}: {p}" for p in e.problems]
        if variants:
            built.append((domain, *_posed(domain, config, conditions), variants))
    if problems:
        raise ConfigError(sorted(set(problems), key=problems.index), what="run configuration")
    return _Setup(built, conditions)


def _walk(config: RunConfig, setup: _Setup) -> Iterator[EpisodeSpec | SkipRecord]:
    """The plan in order: an episode spec, or one skip record per perturbation that cannot apply."""
    mitigations = tuple(config.mitigations)  # every episode runs under the run's mitigations
    for domain, tasks, posed, variants in setup.domains:
        space = domain.action_space()
        for variant in variants:
            for task in tasks:
                for terms in setup.conditions:
                    if task.id not in posed["+".join(t.key for t in terms)]:
                        continue  # the domain poses this task under other conditions (trb's cells)
                    instances, skipped = plan_perturbations(task, space, terms, config.seed, variant)
                    if skipped:
                        yield from (_skip_record(task, variant.name, terms, s) for s in skipped)
                        continue
                    yield EpisodeSpec(domain, task, variant, config.seed, tuple(instances), mitigations=mitigations)


def _posed(domain: Domain, config: RunConfig, conditions: list[list]) -> tuple[list[Task], dict[str, set[str]]]:
    """The tasks of ``domain`` the run poses, in :func:`spread` order, and per condition key the ids
    of those it poses under that condition: the first ``tasks`` (or the domain's own number) of
    the tasks the domain assigns to the condition (:meth:`Domain.assigned`: all of them, except
    in trb, whose cells cover 48 anchors each), so a limit gives each condition that many tasks. A
    single-family condition that is a term of a mixed condition in the run also runs on the
    mixture's tasks, so the interaction table (mixed vs weaker constituent) compares like with like."""
    limit = domain.default_tasks if config.tasks == "default" else config.tasks
    kinds = TASK_KINDS if config.task_kinds is None else config.task_kinds
    ordered = spread([t for t in domain.tasks(config.seed) if t.kind in kinds], None)
    keys = ["+".join(t.key for t in terms) for terms in conditions]
    posed = {key: {t.id for t in [t for t in ordered if domain.assigned(t, key)][:limit]} for key in keys}
    for key in keys:  # a constituent also runs where its mixtures run, so they compare on one task set
        for term in key.split("+") if "+" in key else ():
            if term in posed:
                posed[term] |= posed[key]
    return [t for t in ordered if any(t.id in ids for ids in posed.values())], posed


def _variants(config: RunConfig, domain: Domain) -> list[str]:
    """The variants ``domain`` runs under: the configured ones, else the domain's own default
    (:attr:`Domain.default_variants`), else :data:`toolprism.shaping.DEFAULT_VARIANTS`."""
    if config.variants is not None:
        return config.variants
    return list(domain.default_variants or DEFAULT_VARIANTS)


def _pairs(domain: str, variant: str, arms: bool) -> bool:
    """Whether ``variant`` runs on ``domain``: a whole-catalog arm on the whole-catalog domain only; in a
    run with such arms, that domain runs nothing else (see :class:`RunConfig`)."""
    if variant_scope(variant) == "catalog":
        return domain == CATALOG_DOMAIN
    return not (arms and domain == CATALOG_DOMAIN)


def _skip_record(task: Task, variant: str, terms: list, skip: Skip) -> SkipRecord:
    condition = "+".join(t.key for t in terms)
    return SkipRecord(task=task.id, variant=variant, condition=condition, **skip.model_dump())
