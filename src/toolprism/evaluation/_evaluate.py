"""``evaluate(config)``: validate the whole configuration first (every problem listed), build the
variants and tasks, run the episodes through the backend, score each one on the multiset of
decoded native actions, and record it in the run directory as it finishes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolprism.backends import Backend, create_backend
from toolprism.errors import ConfigError
from toolprism.evaluation._config import SESSION_FIELDS, RunConfig
from toolprism.evaluation._plan import RunPlan
from toolprism.evaluation._score import score_episode
from toolprism.evaluation._summary import RunSummary, summarize
from toolprism.run import (
    EpisodeResult,
    RayRunner,
    RunHeader,
    RunLimits,
    Runner,
    RunProgress,
    RunStopped,
    RunStore,
    constrain_mode,
    run_episodes,
    run_pins,
    verify_run_tasks,
)
from toolprism.shaping import upgrade_spec


def _verify_variant_specs(store: RunStore, now: dict[str, str]) -> None:
    """Refuse to resume a run whose variant names the code now builds differently (e.g. ``transaction``,
    which was toolprism's shared-setter transaction before it became the paper's). A header from
    before adapter controls (it records none) predates the paper's names: its specs are read through
    :func:`toolprism.shaping.upgrade_spec`.

    Raises:
        ConfigError: one line per changed variant; the store is closed.
    """
    old = "control" not in store.header.config.model_fields_set
    was = {n: upgrade_spec(s) if old else s for n, s in store.header.variant_specs.items()}
    changed = [
        f"variant {n!r}: this run built it as {was[n]!r}, the code now builds {now[n]!r}"
        for n in was
        if n in now and now[n] != was[n]
    ]
    if changed:
        store.close()
        raise ConfigError(
            [*changed, "one run cannot mix two constructions under one name: start a new run"],
            what=f"resuming {store.run_dir}",
        )


def backend_options(config: RunConfig) -> dict[str, Any]:
    """The :func:`~toolprism.backends.create_backend` keyword arguments of ``config`` (all but the
    model name): endpoint, tool format, concurrency, cache, and ``constrain`` (``"first"`` or
    ``"all"``, from the ``constrain-*`` mitigation; :func:`toolprism.run.constrain_mode`), which is
    passed only when it is not ``"none"``, so a backend without the option runs unmitigated runs
    as before."""
    options: dict[str, Any] = {
        "base_url": config.base_url,
        "tool_format": config.tool_format,
        "concurrency": config.concurrency,
        "cache": config.cache,
        "cache_dir": config.cache_dir,
    }
    if (constrain := constrain_mode(config.mitigations)) != "none":
        options["constrain"] = constrain
    return options


def _check_constrained(backend: Backend, constrain: str, store: RunStore | None) -> None:
    """Refuse a constrained-decoding run on a backend whose settings do not record that decoding
    (a ready backend handed to :func:`evaluate`, e.g. a scripted agent): the run would record a
    mitigation it did not apply.

    Raises:
        ConfigError: the backend's ``settings()["constrain"]`` is not ``constrain``; ``store``
            (if any) is closed.
    """
    if constrain == "none" or backend.settings().get("constrain") == constrain:
        return
    if store is not None:
        store.close()
    raise ConfigError(
        f"the constrain-{constrain} mitigation needs a backend that decodes with constrain={constrain!r}; "
        f"the backend {backend.name!r} records constrain={backend.settings().get('constrain', 'none')!r}",
        what="mitigations",
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
    on_progress: Callable[[RunProgress], None] | None = None,
    runner: Runner | None = None,
) -> RunSummary:
    """Run (or resume) an evaluation and return its summary.

    Args:
        config: what to run; ignored when resuming (the header's config is used), except that a
            ``control`` and ``mitigations`` it sets explicitly must be the header's, and that this session's fields
            (:data:`~toolprism.evaluation._config.SESSION_FIELDS`: limits, executor) and the
            response cache are taken from it, and its ``concurrency`` and ``base_url`` when it sets them (the
            header keeps the address the run started with).
        run_dir: where to write; default :func:`default_run_dir`.
        resume: an existing run directory to continue; finished episodes are skipped.
        backend: a ready backend (a custom or scripted agent); default built from
            ``config.model``. When ``config.model`` would build another kind of backend, the run
            records ``backend.name`` as its model, so that its rows are not pooled with another
            model's and ``diagnose_run`` asks for the backend instead of rebuilding a wrong one.
        on_start: called with (episodes to run now, episodes already finished, run directory).
        on_result: called after each episode is recorded.
        on_progress: called with the scheduler's counters (see :func:`toolprism.run.run_episodes`).
        runner: runs one episode (default: :class:`~toolprism.run.RayRunner` under
            ``executor="ray"``, else locally with ``backend``; see :data:`toolprism.run.Runner`).

    Raises:
        ConfigError: a malformed configuration (before anything runs) or run directory; resuming
            with an explicitly set ``control`` or ``mitigations`` other than the run's; a
            ``constrain-*`` mitigation with a given ``backend`` whose settings do not record that
            ``constrain``; Ray missing or unreachable.
        RunStopped: a budget was spent or the circuit breaker opened; finished episodes stay
            recorded and ``RunStopped.summary`` summarises them.
    """
    started = time.perf_counter()
    if resume is not None:
        store = RunStore.open(resume)
        try:
            store.claim()  # one writer: a run still being written is not resumed by a second process
            plan = _resumed(store, resume, config)
            config = plan.config
        except BaseException:
            store.close()
            raise
    else:
        config = config or RunConfig()
        plan = RunPlan.of(config)
        if backend is not None and not _builds(config, backend):
            config = config.model_copy(update={"model": backend.name})  # record the agent that really runs
        store = None
    if backend is not None:  # a backend built here gets the constrain option itself
        _check_constrained(backend, constrain_mode(config.mitigations), store)
    ray = None if runner is not None else _runner(config, backend, store)  # before a new run directory exists
    backend = backend or create_backend(config.model, **backend_options(config))
    if store is None:
        store = RunStore.create(
            run_dir or default_run_dir(config.model),
            RunHeader(
                config=config.model_dump(exclude=set(SESSION_FIELDS)),
                backend=backend.settings(),
                variant_specs=plan.variants,
                episodes=plan.episodes,
                tasks=run_pins(plan.posed, config.seed),
                skipped=plan.skips,
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            ),
            unique=run_dir is None,
        )
        store.claim()
    try:
        finished = store.finished()
        todo = plan.episodes - len(finished)  # a resumed run's finished episodes are planned ones (pins checked)
        if on_start is not None:
            on_start(todo, len(finished), store.run_dir)
        del finished
        limits = RunLimits(config.max_tokens_total, config.max_wall_s, config.max_consecutive_backend_errors)
        concurrency = config.concurrency if ray is None or config.concurrency > 1 else ray.slots
        try:
            asyncio.run(
                run_episodes(
                    (replace(s, control=config.control, instruction=config.instruction) for s in plan.specs()),
                    backend,
                    store,
                    score_episode,
                    max_turns=config.max_turns,
                    concurrency=concurrency,
                    on_result=on_result,
                    runner=runner or ray,
                    limits=limits,
                    total=todo,
                    on_progress=on_progress,
                )
            )
        except RunStopped as stop:
            stop.summary = summarize(store, time.perf_counter() - started)
            raise
        return summarize(store, time.perf_counter() - started)
    finally:
        if ray is not None:
            ray.close()
        store.close()


def _resumed(store: RunStore, resume: Path, config: RunConfig | None) -> RunPlan:
    """The stored run's plan under its configuration with this session's limits, after
    checking that the code still makes the same tasks and variants.

    Raises:
        ConfigError: a control or mitigations other than the run's were asked for; a task or
            variant changed.
    """
    stored = RunConfig.model_validate(store.header.config.model_dump(exclude_unset=True))
    if config is not None and "control" in config.model_fields_set and config.control != stored.control:
        raise ConfigError(
            f"{resume} was run under control {stored.control!r}; it cannot be resumed under {config.control!r} "
            "(one run, one control: start a new run for another)",
            what="options",
        )
    if config is not None and "mitigations" in config.model_fields_set and config.mitigations != stored.mitigations:
        was = ", ".join(stored.mitigations) or "none"
        raise ConfigError(
            f"{resume} was run with mitigations {was}; it cannot be resumed with "
            f"{', '.join(config.mitigations) or 'none'} (one run, one set of mitigations: start a new run for another)",
            what="options",
        )
    given = config or RunConfig()
    session = {f: getattr(given, f) for f in (*SESSION_FIELDS, "cache", "cache_dir")}
    if "concurrency" in given.model_fields_set:  # e.g. fewer in flight after the endpoint rate-limited
        session["concurrency"] = given.concurrency
    if given.base_url and "base_url" in given.model_fields_set:  # the same model served from another address
        session["base_url"] = given.base_url
    config = stored.model_copy(update=session)  # limits, executor and cache: this session's choice
    plan = RunPlan.of(config)
    verify_run_tasks(store, "resuming", plan.posed)
    _verify_variant_specs(store, plan.variants)
    return plan


def _runner(config: RunConfig, backend: Backend | None, store: RunStore | None) -> RayRunner | None:
    """The Ray runner under ``executor="ray"`` (``backend``: a given one, shipped to the workers),
    else None (episodes run here).

    Raises:
        ConfigError: Ray is missing or unreachable; ``store`` (if any) is closed.
    """
    if config.executor != "ray":
        return None
    try:
        return RayRunner(config, address=config.ray_address, max_turns=config.max_turns, backend=backend)
    except ConfigError:
        if store is not None:
            store.close()
        raise
