"""Action-Space Shaping's query-free probes and query-sampling curve (RQ3: "can a designer rank
candidate schemas cheaply?").

Per variant of a stored run, two probes that need no task run:

- **sequence log-likelihood**: the mean per-token log-likelihood (nats/token) of the gold call
  sequences rendered in the variant's encoding. The oracle drives each sampled task through
  :func:`toolprism.run.run_episode` under the variant (the variant's encoder, the run's system
  prompt and control), and every assistant turn that calls tools is scored teacher-forced after
  the conversation before it (:func:`toolprism.probes.assistant_text`: the turn as the model
  would write it, end-of-turn marker included). Pooled over tokens: sum of log-probabilities over
  sum of tokens, over every call turn of every sampled task.
- **compliance**: short schema-derived instructions ("Please call the tool <operation> (<its
  description>) with <argument> = <value>, ... Do only that."), one per
  distinct native operation among the sampled tasks' gold actions (its first occurrence gives the
  argument values), each run as an isolated one-instruction episode under the variant with the
  model generating; compliant when the adapter decodes the first executed call to exactly the
  target native action. The instruction is the same text under every variant (derived from the
  native schema), so only the encoding differs.

Then, against full-episode success read from the run (clean condition, through
:func:`toolprism.score.episode_outcomes`): Spearman's rho between each probe and success across
variants, and the query-sampling curve: rho between success on ``n`` sampled queries and success
on all queries, for ``n = 10, 36, 100, ...`` up to the number of tasks, with percentile bootstrap
95% intervals over ``B`` seeded draws of ``n`` tasks without replacement (the paper: 36 queries
reach rho 0.72, ~100 reach 0.81, 800 reach 0.92; the probes 0.52 and 0.57).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from toolprism.backends import Backend, OracleBackend
from toolprism.domains import Domain, Task, get_domain
from toolprism.errors import ConfigError
from toolprism.probes._scorer import LogprobScorer, ProbeError, assistant_text
from toolprism.run import UNSCORED_ENDS, EpisodeSpec, RunStore, run_episode
from toolprism.schema import Action, ActionRecord, canonical_json
from toolprism.score import episode_outcomes
from toolprism.shaping import Variant

SAMPLE_SIZES = (10, 36, 100, 316, 1000, 3162, 10000)
"""Query counts of the sampling curve (the paper's 36 and ~100, on a half-decade grid); sizes at
or above the number of tasks are dropped and the number of tasks itself is the last point."""

COMPLIANCE_TURNS = 6
"""Model turns of one compliance episode: a transaction of a two-argument write made one call per
turn needs 4 (begin, two writes, commit), then the answer. Each turn is a generation, the probe's
main cost on a small machine."""


class SuccessTable(BaseModel):
    """Full-episode success of a stored run, clean condition, per task and variant.

    Attributes:
        variants: variant names in run order; ``specs``: name → canonical spec.
        tasks: task ids (paired: each has a scored clean episode under every variant), run order.
        domains: task id → its domain.
        success: ``success[i][j]``: success of task ``i`` under variant ``j`` (mean over seeds),
            shape (len(tasks), len(variants)).
        dropped: tasks left out because some variant has no scored clean episode of them.
    """

    model_config = ConfigDict(extra="forbid")

    variants: list[str]
    specs: dict[str, str]
    tasks: list[str]
    domains: dict[str, str]
    success: list[list[float]]
    dropped: list[str] = Field(default_factory=list)

    def select(self, names: Sequence[str]) -> SuccessTable:
        """The table restricted to the variants ``names`` (in that order).

        Raises:
            ConfigError: a name the run does not hold (every one listed, with the run's variants).
        """
        unknown = [n for n in names if n not in self.variants]
        if unknown:
            known = ", ".join(self.variants)
            raise ConfigError([f"the run has no variant {n!r} (it has {known})" for n in unknown], what="variants")
        columns = [self.variants.index(n) for n in names]
        return self.model_copy(
            update={
                "variants": list(names),
                "specs": {n: self.specs[n] for n in names},
                "success": [[row[j] for j in columns] for row in self.success],
            }
        )

    def rates(self) -> list[float]:
        """Success rate per variant over all tasks (order of :attr:`variants`)."""
        matrix = np.asarray(self.success, dtype=float).reshape(len(self.tasks), len(self.variants))
        return [float(r) for r in matrix.mean(axis=0)] if self.tasks else [math.nan] * len(self.variants)


def run_success(run_dir: Path, variants: Sequence[str] | None = None) -> SuccessTable:
    """The clean-condition success of every task and variant of a stored run; with ``variants``,
    of those variants only (in that order), the tasks paired over them alone (a task scored
    under every chosen variant counts even where a variant left out could not score it).

    Raises:
        ConfigError: not a run directory, changed tasks (see :func:`toolprism.score.score_run`),
            an empty, repeated or unknown name in ``variants``, or no task with a scored clean
            episode under every (chosen) variant.
    """
    if variants is not None:
        if not variants:
            raise ConfigError("--variants names no variant", what="variants")
        repeated = sorted({v for v in variants if list(variants).count(v) > 1})
        if repeated:
            raise ConfigError(f"--variants names {', '.join(map(repr, repeated))} more than once", what="variants")
    store = RunStore.open(run_dir)
    try:
        specs = dict(store.header.variant_specs)
    finally:
        store.close()
    cells: dict[tuple[str, str], list[bool]] = {}
    domains: dict[str, str] = {}
    seen: dict[str, None] = {}
    for o in episode_outcomes(run_dir):
        if o.condition:
            continue
        cells.setdefault((o.task_id, o.variant), []).append(o.success)
        domains.setdefault(o.task_id, o.domain)
        seen.setdefault(o.variant, None)
    names = list(seen)
    if variants is not None:
        unknown = [v for v in variants if v not in seen]
        if unknown:
            known = ", ".join(names)
            raise ConfigError([f"the run has no variant {v!r} (it has {known})" for v in unknown], what="variants")
        names = list(variants)
    tasks = [t for t in domains if all((t, v) in cells for v in names)]
    if not tasks:
        hint = "" if variants is not None or len(names) < 2 else " (keep some variants with -v)"
        raise ConfigError(
            f"{run_dir} has no task with a scored clean episode under every "
            f"{'chosen ' if variants is not None else ''}variant{hint}",
            what="run",
        )
    success = [[sum(cells[t, v]) / len(cells[t, v]) for v in names] for t in tasks]
    return SuccessTable(
        variants=names,
        specs={v: specs.get(v, v) for v in names},
        tasks=tasks,
        domains={t: domains[t] for t in tasks},
        success=success,
        dropped=[t for t in domains if t not in tasks],
    )


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho of two paired sequences (scipy, average ranks for ties); None when it is
    undefined: fewer than 3 pairs, a constant side, or a NaN value."""
    from scipy.stats import spearmanr

    if len(x) != len(y):
        raise ValueError("spearman needs paired sequences of equal length")
    if len(x) < 3 or any(math.isnan(v) for v in (*x, *y)) or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    rho = float(spearmanr(x, y).statistic)
    return None if math.isnan(rho) else rho


class CurvePoint(BaseModel):
    """One point of the query-sampling curve.

    Attributes:
        n: tasks sampled (without replacement) per draw.
        rho_median / rho_mean: over the draws where rho is defined (None when none is).
        ci_low / ci_high: 2.5th and 97.5th percentiles of rho over those draws.
        draws: draws made (``B``); ``undefined``: draws where rho is undefined (the sampled
            success was the same for every variant).
    """

    model_config = ConfigDict(extra="forbid")

    n: int
    rho_median: float | None
    rho_mean: float | None
    ci_low: float | None
    ci_high: float | None
    draws: int
    undefined: int


def curve_sizes(n_tasks: int, sizes: Sequence[int] = SAMPLE_SIZES) -> list[int]:
    """The sample sizes below ``n_tasks`` (at least 1), then ``n_tasks`` itself."""
    return sorted({s for s in sizes if 1 <= s < n_tasks}) + [n_tasks]


def sampling_curve(
    table: SuccessTable, sizes: Sequence[int] = SAMPLE_SIZES, *, bootstrap: int = 1000, seed: int = 0
) -> list[CurvePoint]:
    """Rho between per-variant success on ``n`` sampled tasks and on all tasks, per ``n`` in
    :func:`curve_sizes` (Action-Space Shaping RQ3). Deterministic in ``seed`` (numpy PCG64);
    needs no model.

    Raises:
        ValueError: ``bootstrap`` < 1.
    """
    if bootstrap < 1:
        raise ValueError("bootstrap needs at least one draw")
    matrix = np.asarray(table.success, dtype=float).reshape(len(table.tasks), len(table.variants))
    full = table.rates()
    rng = np.random.default_rng(seed)
    points = []
    for n in curve_sizes(len(table.tasks), sizes):
        rhos = []
        for _ in range(bootstrap):
            rows = rng.choice(len(table.tasks), size=n, replace=False)
            rho = spearman([float(r) for r in matrix[rows].mean(axis=0)], full)
            if rho is not None:
                rhos.append(rho)
        stats = (
            (float(np.median(rhos)), float(np.mean(rhos)), *(float(q) for q in np.percentile(rhos, [2.5, 97.5])))
            if rhos
            else (None, None, None, None)
        )
        points.append(CurvePoint(n=n, **dict(zip(("rho_median", "rho_mean", "ci_low", "ci_high"), stats, strict=True)),
                                 draws=bootstrap, undefined=bootstrap - len(rhos)))  # fmt: skip
    return points


# --- the probes -------------------------------------------------------------------------------


class RunSetup(BaseModel):
    """What the probe episodes take from the run: its seed (task generation), adapter control
    and calling instruction, so a gold conversation has the run's system prompt."""

    model_config = ConfigDict(extra="forbid")

    seed: int = 0
    control: str = "strict"
    instruction: str = "toolprism"


def run_setup(run_dir: Path) -> RunSetup:
    """The :class:`RunSetup` of a stored run (its header)."""
    store = RunStore.open(run_dir)
    try:
        config = store.header.config
        return RunSetup(seed=config.seed, control=config.control, instruction=config.instruction)
    finally:
        store.close()


class LoglikRow(BaseModel):
    """One scored assistant call turn of a gold conversation.

    Attributes:
        variant / task: the cell; ``message``: the turn's index in the conversation.
        tokens: scored tokens; ``logprob``: their summed log-probability (nats).
        error: why the task's conversation could not be scored (a :class:`ProbeError`: the prompt
            does not fit, the template rewrites the turn); such a row (``message`` -1, no tokens)
            stands for the whole task and is left out of the mean.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    task: str
    message: int
    tokens: int
    logprob: float
    error: str | None = None


class ComplianceRow(BaseModel):
    """One compliance episode.

    Attributes:
        variant / task: the cell (``task``: the task whose gold gave the target).
        target: the native action asked for; ``instruction``: the user turn.
        compliant: the first executed native action is ``target``.
        actions: native actions executed; ``rejected``: calls the adapter rejected; ``end``: how
            the episode ended.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    task: str
    target: ActionRecord
    instruction: str
    compliant: bool
    actions: list[ActionRecord]
    rejected: int
    end: str


def _spec(domain: Domain, task: Task, variant: Variant, setup: RunSetup) -> EpisodeSpec:
    return EpisodeSpec(domain, task, variant, setup.seed, (), setup.control, setup.instruction)  # type: ignore[arg-type]


def gold_loglik(scorer: LogprobScorer, spec: EpisodeSpec) -> list[LoglikRow]:
    """Score the oracle's conversation of ``spec`` (its call turns) under ``scorer``.

    Raises:
        ProbeError: the oracle did not succeed under the variant (no gold conversation), or a
            turn cannot be located in the rendering (:func:`toolprism.probes.assistant_text`).
    """
    trace = asyncio.run(run_episode(spec, OracleBackend()))
    done = sorted((a.to_action() for a in trace.actions), key=repr)
    if trace.end != "answered" or done != sorted(spec.task.gold, key=repr):
        raise ProbeError(f"the oracle does not complete {spec.task.id} under {spec.variant.name} ({trace.end})")
    rows = []
    for index, message in enumerate(trace.messages):
        if message.get("role") == "assistant" and message.get("tool_calls"):
            context, continuation = assistant_text(scorer, trace.messages[: index + 1], trace.tools)
            (scored,) = scorer.score(context, [continuation])
            rows.append(
                LoglikRow(variant=spec.variant.name, task=spec.task.id, message=index,
                          tokens=len(scored.logprobs), logprob=scored.total)
            )  # fmt: skip
    return rows


def compliance_targets(tasks: Sequence[Task]) -> list[tuple[Task, Action]]:
    """The first gold action of each distinct native operation among ``tasks``, in task order."""
    seen: dict[str, tuple[Task, Action]] = {}
    for task in tasks:
        for action in task.gold:
            seen.setdefault(action.op, (task, action))
    return list(seen.values())


def compliance_instruction(domain: Domain, action: Action) -> str:
    """The schema-derived instruction for ``action``: the native operation's description, its
    name, and the argument values (the same text under every variant)."""
    operation = next(o for o in domain.action_space().operations if o.name == action.op)
    what = operation.description.strip().rstrip(".") or operation.name
    values = ", ".join(f"{k} = {canonical_json(v)}" for k, v in action.arguments.items())
    return f"Please call the tool {operation.name} ({what}) with {values or 'no arguments'}. Do only that."


def comply(backend: Backend, spec: EpisodeSpec, action: Action, *, max_turns: int = COMPLIANCE_TURNS) -> ComplianceRow:
    """Run the compliance episode of ``action`` under ``spec``'s variant: the task's world, the
    instruction as the only request, ``action`` as the gold."""
    text = compliance_instruction(spec.domain, action)
    task = dataclasses.replace(
        spec.task, id=f"{spec.task.id}#comply:{action.op}", query=text, gold=(action,), reference=(), spans=()
    )
    trace = asyncio.run(run_episode(dataclasses.replace(spec, task=task), backend, max_turns=max_turns))
    executed = [a.to_action() for a in trace.actions]
    return ComplianceRow(
        variant=spec.variant.name,
        task=spec.task.id,
        target=ActionRecord.of(action),
        instruction=text,
        compliant=bool(executed) and executed[0] == action,
        actions=list(trace.actions),
        rejected=sum(c.outcome == "rejected" for t in trace.turns for c in t.calls),
        end=trace.end,
    )


class ProbePlan(BaseModel):
    """The probe work of one invocation: the variants (name → spec) and the sampled task ids."""

    model_config = ConfigDict(extra="forbid")

    variants: dict[str, str]
    tasks: list[str]
    domains: dict[str, str]


def plan_variant_probes(table: SuccessTable, limit: int | None) -> ProbePlan:
    """The first ``limit`` paired tasks of the run (all with None) under every variant."""
    tasks = table.tasks if limit is None else table.tasks[:limit]
    return ProbePlan(variants=table.specs, tasks=tasks, domains={t: table.domains[t] for t in tasks})


def run_variant_probes(
    plan: ProbePlan,
    setup: RunSetup,
    *,
    scorer: LogprobScorer | None,
    backend: Backend | None,
    compliance_turns: int = COMPLIANCE_TURNS,
    progress: Callable[[str], None] = lambda note: None,
) -> tuple[list[LoglikRow], list[ComplianceRow]]:
    """Both probes over ``plan`` (a probe whose model is None is skipped). Work is ordered by
    variant, so conversations sharing a prefix (system prompt and tools) are scored consecutively.
    ``compliance_turns``: model turns per compliance episode.
    ``progress`` is called once per finished unit (a task's gold conversation or a compliance
    episode) with a note.

    Raises:
        ConfigError: a task of the plan is no longer generated at the run's seed.

    A task whose gold conversation cannot be scored under a variant gets one row with its
    ``error`` (:class:`LoglikRow`); a compliance episode the backend failed keeps its ``end``
    (``backend_error``, ``context_overflow``) and is left out of the rate.
    """
    domains = {name: get_domain(name) for name in dict.fromkeys(plan.domains.values())}
    generated = {t.id: t for d in domains.values() for t in d.tasks(setup.seed)}
    missing = [t for t in plan.tasks if t not in generated]
    if missing:
        raise ConfigError([f"task {t} is not generated at seed {setup.seed}" for t in missing], what="run")
    tasks = [generated[t] for t in plan.tasks]
    loglik: list[LoglikRow] = []
    compliance: list[ComplianceRow] = []
    for name, spec_text in plan.variants.items():
        built = {
            d: dataclasses.replace(Variant.build(spec_text, domains[d].action_space()), name=name) for d in domains
        }
        for task in tasks if scorer is not None else ():
            try:
                loglik += gold_loglik(scorer, _spec(domains[task.domain], task, built[task.domain], setup))
            except ProbeError as e:  # recorded, never a silent value
                loglik.append(LoglikRow(variant=name, task=task.id, message=-1, tokens=0, logprob=0.0, error=str(e)))
            progress(f"{name}: log-likelihood {task.id}")
        for task, action in compliance_targets(tasks) if backend is not None else ():
            spec = _spec(domains[task.domain], task, built[task.domain], setup)
            compliance.append(comply(backend, spec, action, max_turns=compliance_turns))
            progress(f"{name}: compliance {action.op}")
    return loglik, compliance


def variant_probe_units(plan: ProbePlan, setup: RunSetup, *, loglik: bool, compliance: bool) -> int:
    """How many progress units :func:`run_variant_probes` reports for ``plan``."""
    per_variant = 0
    if loglik:
        per_variant += len(plan.tasks)
    if compliance:
        by_domain: dict[str, Domain] = {d: get_domain(d) for d in dict.fromkeys(plan.domains.values())}
        generated = {t.id: t for d in by_domain.values() for t in d.tasks(setup.seed)}
        per_variant += len(compliance_targets([generated[t] for t in plan.tasks if t in generated]))
    return per_variant * len(plan.variants)


# --- the summary ------------------------------------------------------------------------------


class VariantProbe(BaseModel):
    """One variant's probes next to its success.

    Attributes:
        success_rate: clean full-episode success over all paired tasks of the run.
        loglik: mean per-token log-likelihood of the gold call turns (nats/token; None when not
            probed); ``loglik_tokens``: tokens it pools.
        loglik_failures: tasks whose conversation could not be scored (left out of ``loglik``).
        compliance: share of compliant instructions (None when not probed); ``compliance_n``:
            instructions counted; ``compliance_unscored``: episodes the backend failed (context
            overflow, backend error), left out as :func:`toolprism.score.score_run` leaves them out.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    spec: str
    success_rate: float
    loglik: float | None = None
    loglik_tokens: int = 0
    loglik_failures: int = 0
    compliance: float | None = None
    compliance_n: int = 0
    compliance_unscored: int = 0


class VariantProbeSummary(BaseModel):
    """``toolprism probe variants``: per-variant probes, their rho with success, the curve.

    Attributes:
        tasks: paired tasks of the run (the success side and the curve); ``probed_tasks``: those the
            probes used.
        rho_loglik / rho_compliance: Spearman's rho with success across variants (None: undefined
            or not probed).
        curve: the query-sampling curve; ``bootstrap`` and ``seed``: its draws and seed.
    """

    model_config = ConfigDict(extra="forbid")

    run_dir: str
    model: str | None
    tasks: int
    probed_tasks: list[str]
    variants: list[VariantProbe]
    rho_loglik: float | None
    rho_compliance: float | None
    curve: list[CurvePoint]
    bootstrap: int
    seed: int


def summarise_variants(
    run_dir: str,
    model: str | None,
    table: SuccessTable,
    plan: ProbePlan,
    loglik: Sequence[LoglikRow],
    compliance: Sequence[ComplianceRow],
    *,
    sizes: Sequence[int] = SAMPLE_SIZES,
    bootstrap: int = 1000,
    seed: int = 0,
) -> VariantProbeSummary:
    """The summary from stored rows (no model): per variant, the pooled log-likelihood and the
    compliance rate; rho of each against success over the variants that have the probe; the curve."""
    rows = []
    for name, rate in zip(table.variants, table.rates(), strict=True):
        mine = [r for r in loglik if r.variant == name and r.error is None]
        tokens = sum(r.tokens for r in mine)
        episodes = [r for r in compliance if r.variant == name]
        checks = [r.compliant for r in episodes if r.end not in UNSCORED_ENDS]
        rows.append(
            VariantProbe(
                variant=name,
                spec=table.specs[name],
                success_rate=rate,
                loglik=math.fsum(r.logprob for r in mine) / tokens if tokens else None,
                loglik_tokens=tokens,
                loglik_failures=len({r.task for r in loglik if r.variant == name and r.error is not None}),
                compliance=sum(checks) / len(checks) if checks else None,
                compliance_n=len(checks),
                compliance_unscored=len(episodes) - len(checks),
            )
        )

    def rho(key: str) -> float | None:
        have = [r for r in rows if getattr(r, key) is not None]
        return spearman([getattr(r, key) for r in have], [r.success_rate for r in have])

    return VariantProbeSummary(
        run_dir=run_dir,
        model=model,
        tasks=len(table.tasks),
        probed_tasks=plan.tasks,
        variants=rows,
        rho_loglik=rho("loglik"),
        rho_compliance=rho("compliance"),
        curve=sampling_curve(table, sizes, bootstrap=bootstrap, seed=seed),
        bootstrap=bootstrap,
        seed=seed,
    )


# --- the stored result ------------------------------------------------------------------------

SETTINGS = "settings.json"
SUCCESS = "success.json"
LOGLIK = "loglik.jsonl"
COMPLIANCE = "compliance.jsonl"
SUMMARY = "summary.json"


def check_variant_out(out: Path) -> None:
    """Refuse an ``out`` that exists and holds anything but a variant-probe result's files (a run
    directory, a fault study, a file): writing there would replace files of another kind.

    Raises:
        ConfigError: ``out`` is a file, or a directory holding other files.
    """
    if not out.exists():
        return
    if not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a directory", what="out")
    others = sorted(p.name for p in out.iterdir() if p.name not in (SETTINGS, SUCCESS, LOGLIK, COMPLIANCE, SUMMARY))
    if others:
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise ConfigError(
            f"{out} holds other files than a variant-probe result ({shown}); give another --out", what="out"
        )


def write_variant_result(
    out: Path,
    settings: dict,
    table: SuccessTable,
    loglik: Sequence[LoglikRow],
    compliance: Sequence[ComplianceRow],
    summary: VariantProbeSummary,
) -> None:
    """Write the stored result into ``out`` (created; files replaced): ``settings.json`` (run,
    model, scorer settings, options), ``success.json`` (:class:`SuccessTable`), ``loglik.jsonl``
    and ``compliance.jsonl`` (one row each) and ``summary.json``.

    Raises:
        ConfigError: ``out`` holds something else (:func:`check_variant_out`).
    """
    check_variant_out(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / SETTINGS).write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")
    (out / SUCCESS).write_text(table.model_dump_json(indent=1) + "\n")
    (out / LOGLIK).write_text("".join(r.model_dump_json() + "\n" for r in loglik))
    (out / COMPLIANCE).write_text("".join(r.model_dump_json() + "\n" for r in compliance))
    (out / SUMMARY).write_text(summary.model_dump_json(indent=1) + "\n")


def resummarise_variants(out: Path, *, bootstrap: int | None = None, seed: int | None = None) -> VariantProbeSummary:
    """Recompute the summary of a stored result without a model (optionally with other curve draws).

    Raises:
        ConfigError: ``out`` is not a stored variant-probe result.
    """
    try:
        settings = json.loads((out / SETTINGS).read_text())
        table = SuccessTable.model_validate_json((out / SUCCESS).read_text())
        loglik = [LoglikRow.model_validate_json(line) for line in (out / LOGLIK).read_text().splitlines() if line]
        lines = (out / COMPLIANCE).read_text().splitlines()
        compliance = [ComplianceRow.model_validate_json(line) for line in lines if line]
        plan = ProbePlan.model_validate(settings["plan"])
    except (OSError, ValueError, KeyError) as e:
        raise ConfigError(f"{out} is not a stored variant-probe result: {e}", what="result") from None
    return summarise_variants(
        settings["run_dir"], settings.get("model"), table, plan, loglik, compliance,
        sizes=settings.get("sizes", SAMPLE_SIZES),
        bootstrap=bootstrap if bootstrap is not None else settings.get("bootstrap", 1000),
        seed=seed if seed is not None else settings.get("seed", 0),
    )  # fmt: skip
