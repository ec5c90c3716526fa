"""``--executor ray`` against a local run: what Ray costs on an oracle run.

Runs the same oracle configuration four ways and prints one table:

- ``local``: this process, ``--concurrency 1`` (the oracle is CPU-bound: more does not help);
- Ray startup: ``ray.init`` of a local instance with ``--cpus`` CPUs (no dashboard), and the first
  episode (workers start and import toolprism);
- ``ray c=1``: one episode in flight (the driver scores and records an episode while the worker
  runs the next, so this can beat ``local``);
- ``ray c=<cpus>``: one episode per CPU in flight;
- Ray's added time per episode: the driver's wait for a trace minus the episode's own time on the
  worker (submit, pickle the spec, schedule, return and unpickle the trace), 50 episodes serially.

The oracle needs no model, so this measures the harness and Ray, not a model: with a slow model
per worker the overhead is the same absolute figure on a much longer episode. Figures are
indicative (a shared machine; no timing is asserted anywhere).

    PYTHONPATH=src python benchmarks/ray_executor.py [--tasks 10] [--cpus 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import ray

from toolprism.evaluation import RunConfig, evaluate, plan_run
from toolprism.run import RayRunner


def _timed_run(config: RunConfig, run_dir: Path) -> tuple[float, int]:
    started = time.perf_counter()
    summary = evaluate(config, run_dir=run_dir)
    return time.perf_counter() - started, summary.episodes


async def _round_trips(config: RunConfig, count: int) -> list[float]:
    """Per episode, serially: the driver's wait for the trace minus the episode's own duration
    on the worker (ms): what Ray adds to one episode."""
    specs = [replace(s, control=config.control, instruction=config.instruction) for s in plan_run(config)[0]]
    runner = RayRunner(config, max_turns=config.max_turns)
    out = []
    try:
        for spec in specs[:count]:
            started = time.perf_counter()
            trace = await runner(spec)
            out.append(1000 * (time.perf_counter() - started) - trace.duration_ms)
    finally:
        runner.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10, help="tasks per domain (200 episodes at 10)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args()
    base = {
        "model": "oracle",
        "domains": ["smart_home", "retail"],
        "tasks": args.tasks,
        "perturbations": ["C2:medium"],
    }
    root = Path(tempfile.mkdtemp(prefix="toolprism-ray-bench-"))
    rows: list[tuple[str, float, int]] = []

    _timed_run(RunConfig(**base), root / "warm-up")  # task generation and imports, cached for all that follow
    started = time.perf_counter()
    plan_run(RunConfig(**base))
    plan_s = time.perf_counter() - started
    wall, episodes = _timed_run(RunConfig(**base), root / "local")
    rows.append(("local (c=1)", wall, episodes))

    started = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level="WARNING")
    startup_s = time.perf_counter() - started
    started = time.perf_counter()
    _timed_run(RunConfig(**{**base, "tasks": 1, "domains": ["smart_home"]}, executor="ray"), root / "first")
    first_s = time.perf_counter() - started
    try:
        for concurrency in (1, args.cpus):
            config = RunConfig(**base, executor="ray", concurrency=concurrency)
            wall, episodes = _timed_run(config, root / f"ray-{concurrency}")
            rows.append((f"ray (c={concurrency})", wall, episodes))
        overheads = asyncio.run(_round_trips(RunConfig(**base), 50))
    finally:
        ray.shutdown()
    wall, episodes = _timed_run(RunConfig(**base), root / "local-again")
    rows.append(("local again", wall, episodes))

    print(f"planning (in every wall time below): {plan_s:.1f} s")
    print(f"Ray startup (ray.init, local, {args.cpus} CPUs): {startup_s:.1f} s")
    print(f"first small run on fresh workers (planning + worker start + import): {first_s:.1f} s")
    print(f"{'executor':<14} {'episodes':>8} {'wall s':>8} {'episodes/s':>11} {'ms/episode':>11}")
    for name, wall, episodes in rows:
        print(f"{name:<14} {episodes:>8} {wall:>8.1f} {episodes / wall:>11.1f} {1000 * wall / episodes:>11.1f}")
    print(
        f"Ray's added time per episode (wait for the trace − the episode's time on the worker), "
        f"{len(overheads)} episodes one at a time: median {statistics.median(overheads):.1f} ms, "
        f"max {max(overheads):.1f} ms"
    )


if __name__ == "__main__":
    main()
