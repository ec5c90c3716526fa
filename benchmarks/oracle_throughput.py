"""Throughput of the episode loop itself: the oracle over every task of both domains, per variant.

Measures episodes per second and decoded calls per second through the real loop, adapter and
environments (no model time), so regressions in the plumbing show up here, not in timed tests.

    python benchmarks/oracle_throughput.py
"""

from __future__ import annotations

import asyncio
import time

from toolprism.backends import OracleBackend
from toolprism.domains import get_domain
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import VARIANTS, Variant


async def main() -> None:
    backend = OracleBackend()
    print(f"{'domain':<11} {'variant':<18} {'episodes':>8} {'calls':>6} {'episodes/s':>11} {'calls/s':>8}")
    for name in ("smart_home", "retail"):
        domain = get_domain(name)
        tasks = domain.tasks(0)
        for variant_name in VARIANTS.names():
            variant = Variant.build(variant_name, domain.action_space())
            start = time.perf_counter()
            calls = 0
            for task in tasks:
                trace = await run_episode(EpisodeSpec(domain, task, variant, 0), backend)
                calls += sum(len(t.calls) for t in trace.turns)
            wall = time.perf_counter() - start
            print(
                f"{name:<11} {variant_name:<18} {len(tasks):>8} {calls:>6} "
                f"{len(tasks) / wall:>11.1f} {calls / wall:>8.0f}"
            )


if __name__ == "__main__":
    asyncio.run(main())
