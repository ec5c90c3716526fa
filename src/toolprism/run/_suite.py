"""Run many episodes asynchronously through a bounded window, recording each one the moment it finishes.

Pending work is produced lazily: the scheduler pulls the next :class:`EpisodeSpec` from an iterable
only when a slot of the window frees up, so a run of any length holds at most ``concurrency``
episodes (and their tasks) in memory, never one asyncio task per pending episode.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from toolprism.backends import Backend
from toolprism.errors import ToolprismError
from toolprism.run._episode import MAX_TURNS, EpisodeSpec, run_episode
from toolprism.run._store import EpisodeResult, RunStore
from toolprism.run._trace import Trace

Scorer = Callable[[EpisodeSpec, Trace], EpisodeResult]
"""Turns a finished episode into its stored result row."""

Runner = Callable[[EpisodeSpec], Awaitable[Trace]]
"""Runs one episode to its trace: by default ``run_episode(spec, backend, max_turns=...)`` in this
process; ``toolprism.run.RayRunner`` runs it on a Ray worker. The scheduler stays the single writer
of the store."""

TICK_S = 1.0
"""How often (seconds) the scheduler reports progress and checks the wall budget while no episode ends."""

StopReason = Literal["max_tokens_total", "max_wall", "backend_errors"]


@dataclass(frozen=True)
class RunLimits:
    """When a run stops before its end (this invocation's spending; a resumed run starts afresh).

    Attributes:
        max_tokens_total: stop once the episodes finished in this invocation used this many tokens
            (prompt + completion, as the backend reports them; None: no limit).
        max_wall_s: stop this many seconds after the scheduler started (None: no limit).
        max_consecutive_backend_errors: the circuit breaker: stop after this many episodes in a row
            (in finishing order) ended ``backend_error`` (0 or None: never).
    """

    max_tokens_total: int | None = None
    max_wall_s: float | None = None
    max_consecutive_backend_errors: int | None = 10


@dataclass
class RunProgress:
    """The scheduler's counters, reported to ``on_progress`` at every start, finish and tick.

    Attributes:
        total: episodes this invocation has to run (None: not known).
        done: episodes recorded in this invocation; ``running``: in flight now.
        failed: recorded episodes that did not succeed (backend errors excluded).
        backend_errors: recorded episodes that ended ``backend_error``; ``consecutive_backend_errors``
            the current streak (the breaker's count).
        tokens: prompt + completion tokens of the recorded episodes (where the backend reports them).
        last_backend_error: the cause recorded for the latest backend-error episode (None: none yet).
        elapsed_s: seconds since the scheduler started.
        stopped: why the run stopped early, once it has.
    """

    total: int | None = None
    done: int = 0
    running: int = 0
    failed: int = 0
    backend_errors: int = 0
    consecutive_backend_errors: int = 0
    tokens: int = 0
    last_backend_error: str | None = None
    elapsed_s: float = 0.0
    stopped: StopReason | None = None

    @property
    def episodes_per_s(self) -> float:
        """Episodes recorded per second of this invocation."""
        return self.done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def tokens_per_s(self) -> float:
        """Tokens of recorded episodes per second of this invocation."""
        return self.tokens / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the current rate (None while unknown)."""
        if self.total is None or self.done == 0 or self.elapsed_s <= 0:
            return None
        return max(0, self.total - self.done) / self.episodes_per_s


class RunStopped(ToolprismError):
    """The run stopped before its end because a budget was spent or the circuit breaker opened.

    Every episode finished before the stop is recorded; the episodes in flight were cancelled (not
    recorded); ``toolprism run --resume`` continues.

    Attributes:
        reason: ``max_tokens_total``, ``max_wall`` or ``backend_errors`` (the breaker).
        progress: the counters at the stop.
        summary: set by ``toolprism.evaluate``: the summary of the episodes recorded so far.
    """

    def __init__(self, reason: StopReason, message: str, progress: RunProgress) -> None:
        super().__init__(message)
        self.reason = reason
        self.progress = progress
        self.summary: object | None = None


def trace_tokens(trace: Trace) -> int:
    """Prompt + completion tokens of every turn of ``trace`` (turns without counts add 0)."""
    return sum((t.prompt_tokens or 0) + (t.completion_tokens or 0) for t in trace.turns)


async def run_episodes(
    specs: Iterable[EpisodeSpec],
    backend: Backend,
    store: RunStore,
    scorer: Scorer,
    *,
    max_turns: int = MAX_TURNS,
    concurrency: int = 1,
    on_result: Callable[[EpisodeResult], None] | None = None,
    runner: Runner | None = None,
    limits: RunLimits | None = None,
    total: int | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
) -> RunProgress:
    """Run the episodes of ``specs`` not yet finished in ``store``; record each as it finishes.

    ``specs`` is consumed lazily (a generator is fine): at most ``concurrency`` episodes are in
    flight, and the next spec is pulled only when one ends. Backend errors are recorded episodes
    (end ``backend_error``) like any other; ``limits`` stop the run early. At the end (normal,
    stopped, cancelled or failed) the episodes in flight are cancelled, nothing partial is
    recorded, and ``backend.aclose()`` is awaited when the backend has one.

    Args:
        runner: runs one episode (default: :func:`run_episode` locally with ``backend``).
        limits: budgets and the circuit breaker (default :class:`RunLimits`: breaker at 10).
        total: episodes still to run, for progress (``on_progress`` gets None otherwise).
        on_result: called after each episode is recorded.
        on_progress: called with the counters at each start, finish and every :data:`TICK_S`.

    Returns:
        The counters at the end.

    Raises:
        RunStopped: a budget was spent or the breaker opened (finished episodes stay recorded).
        asyncio.CancelledError: the run was cancelled (Ctrl-C, SIGTERM); finished episodes stay.
        Exception: whatever ``runner`` or ``scorer`` raised (the run stops; finished episodes stay).
    """
    limits = limits or RunLimits()
    run = runner or _local_runner(backend, max_turns)
    finished = store.finished()
    pending: Iterator[EpisodeSpec] = (s for s in specs if s.episode_id not in finished)
    started = time.monotonic()
    progress = RunProgress(total=total)
    in_flight: dict[asyncio.Task[Trace], EpisodeSpec] = {}
    window = max(1, concurrency)

    def report() -> None:
        progress.elapsed_s = time.monotonic() - started
        progress.running = len(in_flight)
        if on_progress is not None:
            on_progress(progress)

    try:
        upcoming = next(pending, None)  # one spec of lookahead: whether work remains
        while True:
            while upcoming is not None and len(in_flight) < window:
                in_flight[asyncio.ensure_future(run(upcoming))] = upcoming
                upcoming = next(pending, None)
            report()
            if not in_flight:
                break
            timeout = TICK_S
            if limits.max_wall_s is not None:
                timeout = max(0.0, min(timeout, started + limits.max_wall_s - time.monotonic()))
            ended, _ = await asyncio.wait(in_flight, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(ended, key=lambda t: in_flight[t].episode_id):  # one order for one set
                spec = in_flight.pop(task)
                trace = task.result()
                result = scorer(spec, trace)
                store.record(result, trace)
                _count(progress, result, trace)
                if on_result is not None:
                    on_result(result)
            remains = bool(in_flight) or upcoming is not None
            if remains and (reason := _spent(limits, progress, time.monotonic() - started)) is not None:
                progress.stopped = reason
                report()
                raise RunStopped(reason, _stop_message(reason, limits, progress), progress)
        return progress
    finally:
        for task in in_flight:
            task.cancel()
        if in_flight:
            await asyncio.gather(*in_flight, return_exceptions=True)
        in_flight.clear()
        aclose = getattr(backend, "aclose", None)
        if aclose is not None:
            await aclose()


def _local_runner(backend: Backend, max_turns: int) -> Runner:
    def run(spec: EpisodeSpec) -> Awaitable[Trace]:
        return run_episode(spec, backend, max_turns=max_turns)

    return run


def _count(progress: RunProgress, result: EpisodeResult, trace: Trace) -> None:
    progress.done += 1
    progress.tokens += trace_tokens(trace)
    if result.end == "backend_error":
        progress.backend_errors += 1
        progress.consecutive_backend_errors += 1
        progress.last_backend_error = result.error
    else:
        progress.consecutive_backend_errors = 0
        progress.failed += not result.success


def _spent(limits: RunLimits, progress: RunProgress, elapsed_s: float) -> StopReason | None:
    """Which limit, if any, the run has reached (the breaker first: it says the most)."""
    breaker = limits.max_consecutive_backend_errors
    if breaker and progress.consecutive_backend_errors >= breaker:
        return "backend_errors"
    if limits.max_tokens_total is not None and progress.tokens >= limits.max_tokens_total:
        return "max_tokens_total"
    if limits.max_wall_s is not None and elapsed_s >= limits.max_wall_s:
        return "max_wall"
    return None


def _stop_message(reason: StopReason, limits: RunLimits, progress: RunProgress) -> str:
    if reason == "backend_errors":
        return (
            f"the last {progress.consecutive_backend_errors} episodes in a row failed with a backend error "
            f"(--max-backend-errors {limits.max_consecutive_backend_errors}); the last one: "
            f"{progress.last_backend_error or 'no cause recorded'}. Check the endpoint (address, model name, "
            "API key), then resume (backend-error episodes are run again)"
        )
    if reason == "max_tokens_total":
        return f"token budget spent: {progress.tokens:,} tokens used (--max-tokens-total {limits.max_tokens_total:,})"
    return f"wall-time budget spent: {progress.elapsed_s:.0f} s (--max-wall {limits.max_wall_s:g})"
