"""What a run evaluates: :class:`RunConfig` and the expansion of ``all`` variants and perturbation
suites into the names and conditions it stores."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolprism.backends import DEFAULT_MODEL, ToolFormat
from toolprism.domains import is_pack_path
from toolprism.errors import ConfigError
from toolprism.perturb import MIXED_PAIRS, parse_perturbations, suite
from toolprism.run import MAX_TURNS, MITIGATIONS, Mitigation
from toolprism.shaping import CATALOG_DOMAIN, SUITES, Control, variant_scope

DEFAULT_DOMAINS = ("smart_home", "retail")
DEFAULT_TASKS = 2
"""Tasks per domain when a run is not told how many, for every domain that does not set its own
(:attr:`toolprism.domains.Domain.default_tasks`; ``trb`` runs all 192)."""
MAIN_JOB: dict[str, object] = {
    "model": "embedded:qwen2.5-coder-0.5b",
    "domains": ["garden"],
    "task_kinds": ["single"],
    "variants": ["native", "rename-opaque", "merge"],
    "tasks": 6,
    "max_turns": 3,
}
"""The main job: what ``toolprism run`` evaluates when it is not told otherwise (each option given
replaces its field; with ``--domains`` or ``--variants`` none of it applies). Sized for 2 CPU cores
(see the README): Qwen2.5-Coder-0.5B, the smallest device domain (8 tools), one-call requests, and
three variants whose prompts fit the embedded models' context: native, opaque names and one merged
tool, which Qwen2.5-Coder-0.5B solves at clearly different rates (SmolLM2-135M, the default
``embedded`` model, at none)."""
MIXED_SEVERITIES = ("medium", "heavy")
"""The severities of ``--perturb-suite mixed`` (ToolRobustBench, section 6: medium and heavy)."""


def expand_conditions(perturb: list[str], perturb_suite: str | None = None) -> list[str]:
    """Perturbation conditions from ``--perturb`` terms and a ``--perturb-suite``.

    Each comma-separated term of ``perturb`` is its own condition (``C2:medium``); ``+`` joins a
    mixed-family pair into one condition (``A3:medium+C4:medium``). ``perturb_suite``: ``all``
    (every subtype at every severity) or ``mixed``: each of :data:`~toolprism.perturb.MIXED_PAIRS`
    at medium and heavy severity (ToolRobustBench, section 6), each followed by its two
    single-family constituents at the same severity, so that mixed success can be compared with
    the weaker constituent (:func:`toolprism.score.interactions`).

    Raises:
        ConfigError: an unknown suite.
    """
    out = [t.strip() for item in perturb for t in item.split(",") if t.strip()]
    if perturb_suite == "mixed":
        for a, b in MIXED_PAIRS:
            out += [c for s in MIXED_SEVERITIES for c in (f"{a}:{s}+{b}:{s}", f"{a}:{s}", f"{b}:{s}")]
    elif perturb_suite == "all":
        out += [p.key for p in suite()]
    elif perturb_suite is not None:
        raise ConfigError(f"unknown perturbation suite {perturb_suite!r} (known: all, mixed)", what="options")
    return list(dict.fromkeys(out))


def expand_variants(names: list[str]) -> list[str]:
    """A suite name (``paper``, ``extended``, ``all``) stands for its variants, in suite order,
    without those already listed; a name a suite already brought is not listed again, but a name
    given twice stays twice (the plan reports it)."""
    out: list[str] = []
    explicit: set[str] = set()
    for name in names:
        if name in SUITES:
            out += [v for v in SUITES[name] if v not in out]
        elif name in explicit or name not in out:  # a name a suite brought is not listed again
            out.append(name)
            explicit.add(name)
    return out


def check_mitigations(names: list[str] | tuple[str, ...]) -> list[str]:
    """``names`` when they are a valid set of mitigations (:data:`toolprism.run.MITIGATIONS`).

    Raises:
        ConfigError: every unknown name (with the known ones), and ``constrain-first`` with
            ``constrain-all`` (one decoding per run: the first call is constrained under both).
    """
    problems = [f"unknown mitigation {n!r} (known: {', '.join(MITIGATIONS)})" for n in names if n not in MITIGATIONS]
    if {"constrain-first", "constrain-all"} <= set(names):
        problems.append(
            "constrain-first and constrain-all cannot be combined (constrain-all already constrains the first "
            "call): choose one"
        )
    if problems:
        raise ConfigError(problems, what="mitigations")
    return list(names)


LIMIT_FIELDS = frozenset({"max_tokens_total", "max_wall_s", "max_consecutive_backend_errors"})
"""The :class:`RunConfig` fields that limit one invocation."""
SESSION_FIELDS = LIMIT_FIELDS | {"executor", "ray_address"}
"""The :class:`RunConfig` fields that say how one invocation runs (its limits, where its episodes
run), not what the run is: the run header does not store them, and a resumed run takes them from
the caller."""


class RunConfig(BaseModel):
    """What a run evaluates. Stored in the run header, so a run can be resumed from it alone.

    Attributes:
        model: backend name (see :func:`toolprism.backends.create_backend`).
        base_url: OpenAI-compatible endpoint, for remote models.
        domains: domain names.
        variants: variant names, suite names (``paper``, ``extended``, ``all``) or spec strings;
            None (the default): each domain's own (:attr:`toolprism.domains.Domain.default_variants`:
            ``native`` for ``trb``), else :data:`toolprism.shaping.DEFAULT_VARIANTS`. The
            paper's whole-catalog arms (``class-dispatch``, ...) run on the whole-catalog domain
            ``whole_catalog``, which is added to ``domains`` when missing; in a run with such arms,
            ``whole_catalog`` runs those arms only, every other variant runs on the other domains.
        task_kinds: the task kinds a run poses (``single``, ``compound``, ``compositional``; see
            :data:`toolprism.domains.TASK_KINDS`), before ``tasks`` is applied; None: every kind.
        tasks: tasks per domain (spread over the domain's templates), None for all, ``"default"``
            (the default) for each domain's own number (:attr:`toolprism.domains.Domain.default_tasks`:
            :data:`DEFAULT_TASKS`, all 192 for ``trb``).
        seed: the run seed (task generation and episode seeds derive from it).
        max_turns: model turns per episode.
        concurrency: episodes in flight at once.
        perturbations: perturbation conditions (see :func:`expand_conditions`); when any are
            given, every task also runs clean, as the baseline.
        instruction: the calling instruction after the domain's policy in the system prompt:
            ``toolprism`` (one call at a time, answer when done) or ``paper`` (Action-Space Shaping's
            runner: use only the provided tools, exactly as defined).
        mitigations: the training-free mitigations the run applies (:data:`toolprism.run.Mitigation`;
            "Training repairs what it sees"): ``instruction`` adds each variant's calling-convention
            sentences to the system prompt; ``constrain-first`` / ``constrain-all`` build the backend
            with ``constrain="first"`` / ``"all"`` (:func:`toolprism.run.constrain_mode`). Stored
            canonical: each once, sorted by name (``["constrain-first", "instruction"]``). Default
            ``[]``: none.
        preset: the preset the run was set up from (see :data:`toolprism.evaluation.PRESETS`), if any.
        control: how the adapter treats invalid calls: ``strict`` (toolprism's: reject with a
            helpful message), ``paper`` (the Action-Space Shaping paper's hard control) or
            ``loose`` (the paper's loose control); see :data:`toolprism.shaping.Control`.
        tool_format: how an ``openai`` endpoint is shown the tools: ``native`` (``tools`` in the
            request) or a prompt-based format (``hermes``, ``json``, ``llama``, ``mistral``) for
            servers or models without native tool calling (:mod:`toolprism.backends._formats`).
        cache: answer temperature-0 endpoint requests seen before from a local response cache
            (:class:`toolprism.backends._cache.ResponseCache`); off by default.
        cache_dir: the cache's directory; None: ``platformdirs.user_cache_dir("toolprism")/responses``.
        executor: where episodes run: ``local`` (this process) or ``ray`` (a Ray cluster, see
            :class:`toolprism.run._ray.RayRunner`; with ``concurrency`` 1, as many episodes in
            flight as the cluster has CPUs). How, not what: not stored in the run header.
        ray_address: the Ray cluster to connect to (None: ``$RAY_ADDRESS``, a cluster started on
            this machine, else a local Ray instance).
        max_tokens_total / max_wall_s / max_consecutive_backend_errors: this invocation's limits
            (see :class:`toolprism.run.RunLimits`): stop once the episodes finished now used this many
            tokens, after this many seconds, or after this many backend-error episodes in a row (the
            circuit breaker; 0: never). Not stored in the run header: a resumed run takes the
            limits it is given (:data:`SESSION_FIELDS`).
    """

    model_config = ConfigDict(extra="forbid")

    model: str = DEFAULT_MODEL
    base_url: str | None = None
    domains: list[str] = Field(default_factory=lambda: list(DEFAULT_DOMAINS))
    variants: list[str] | None = None
    tasks: int | Literal["default"] | None = "default"
    task_kinds: list[str] | None = None
    seed: int = 0
    max_turns: int = MAX_TURNS
    concurrency: int = 1
    perturbations: list[str] = Field(default_factory=list)
    control: Control = "strict"
    instruction: Literal["toolprism", "paper"] = "toolprism"
    mitigations: list[Mitigation] = Field(default_factory=list)
    preset: str | None = None
    tool_format: ToolFormat = "native"
    cache: bool = False
    cache_dir: str | None = None
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    max_tokens_total: int | None = None
    max_wall_s: float | None = None
    max_consecutive_backend_errors: int = 10

    @field_validator("variants")
    @classmethod
    def _expand_suites(cls, names: list[str] | None) -> list[str] | None:
        return None if names is None else expand_variants(names)

    @model_validator(mode="after")
    def _catalog_for_arms(self) -> RunConfig:
        # the whole-catalog arms run on the whole-catalog domain (and only they do, in such a run)
        if any(variant_scope(v) == "catalog" for v in self.variants or ()) and CATALOG_DOMAIN not in self.domains:
            self.domains = [*self.domains, CATALOG_DOMAIN]
        return self

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

    @field_validator("mitigations", mode="before")
    @classmethod
    def _canonical_mitigations(cls, names: object) -> object:
        # each once, sorted; unknown names and the two constrain modes together are refused here,
        # as a ConfigError listing every problem (pydantic passes it through)
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            return names  # pydantic reports the wrong type
        return sorted(set(check_mitigations(names)))

    @field_validator("domains")
    @classmethod
    def _absolute_packs(cls, names: list[str]) -> list[str]:
        # a pack path is stored absolute so that --resume works from any directory
        return [str(Path(n).resolve()) if is_pack_path(n) and Path(n).exists() else n for n in names]
