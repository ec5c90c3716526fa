"""Run many episodes asynchronously, recording each one the moment it finishes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from toolprism.backends import Backend
from toolprism.run._episode import MAX_TURNS, EpisodeSpec, run_episode
from toolprism.run._store import EpisodeResult, RunStore
from toolprism.run._trace import Trace

Scorer = Callable[[EpisodeSpec, Trace], EpisodeResult]
"""Turns a finished episode into its stored result row."""


async def run_episodes(
    specs: Sequence[EpisodeSpec],
    backend: Backend,
    store: RunStore,
    scorer: Scorer,
    *,
    max_turns: int = MAX_TURNS,
    concurrency: int = 1,
    on_result: Callable[[EpisodeResult], None] | None = None,
    runner: Callable[[EpisodeSpec], Awaitable[Trace]] | None = None,
) -> list[EpisodeResult]:
    """Run the episodes of ``specs`` not yet in ``store``; record each as it finishes.

    At most ``concurrency`` episodes run at once. A backend failure stops the run; the episodes
    already recorded stay, and a resumed run skips them.

    ``runner`` runs one episode (e.g. :class:`toolprism.run._ray.RayRunner`); default
    :func:`run_episode` with ``backend`` here.

    Returns:
        The results of the episodes run now (not those found finished).
    """
    done = store.finished()
    pending = [s for s in specs if s.episode_id not in done]
    gate = asyncio.Semaphore(max(1, concurrency))
    results: list[EpisodeResult] = []

    async def one(spec: EpisodeSpec) -> None:
        async with gate:
            trace = await (runner(spec) if runner else run_episode(spec, backend, max_turns=max_turns))
        result = scorer(spec, trace)
        store.record(result, trace)
        results.append(result)
        if on_result is not None:
            on_result(result)

    tasks = [asyncio.create_task(one(s)) for s in pending]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    return results
