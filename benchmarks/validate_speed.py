"""Speed of the equivalence validator: checks and checks/second over the built-in suite.

Every comparison is one check (action sequence, multiset, rejection-free, final state hash, and per
step: plan, reply, state; each negative call; each variant build). ``--seeds 0-3`` validates the
tasks of four world seeds (about 120,000 checks); ``--profile`` prints where the time goes.

    python benchmarks/validate_speed.py [--seeds 0-3] [--jobs 2] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

from toolprism.validate import validate


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0", help="world seeds N or N-M (default 0)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the run (single process)")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    report = validate(seeds=seeds(args.seeds), jobs=1 if profiler else args.jobs)
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    print(f"suites {', '.join(report.suites)}; {len(report.variants)} variants; seeds {args.seeds}; jobs {args.jobs}")
    for kind, n in report.checks_by_kind.items():
        print(f"  {kind:<16} {n:>8}")
    print(
        f"checks {report.checks}, failures {len(report.failures)}, "
        f"wall {wall:.1f}s, {report.checks / wall:.0f} checks/s"
    )
    by_suite: dict[str, float] = {}
    for s in report.summaries:
        by_suite[s.suite] = by_suite.get(s.suite, 0.0) + s.seconds
    print("time per suite: " + ", ".join(f"{k} {v:.1f}s" for k, v in by_suite.items()))
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())


if __name__ == "__main__":
    main()
