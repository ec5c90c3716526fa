"""Perturbation instance counts per family, subtype and severity on the built-in domains.

For every task (both forms) of every built-in domain at one seed, under one variant, plans each
subtype at each severity and counts instances and skips (with their reasons). Prints a table, or
JSON with ``--json``.

    python benchmarks/perturbation_counts.py [--seed 0] [--variant native] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from toolprism.domains import domain_names, get_domain
from toolprism.perturb import SEVERITIES, plan, suite
from toolprism.shaping import Variant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="native")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    instances: Counter = Counter()
    skipped: Counter = Counter()
    reasons: dict[str, Counter] = {}
    for name in domain_names():
        domain = get_domain(name)
        space = domain.action_space()
        variant = Variant.build(args.variant, space)
        for task in domain.tasks(args.seed):
            for term in suite():
                made, skips = plan(task, space, [term], args.seed, variant)
                instances[term.key] += len(made)
                skipped[term.key] += len(skips)
                for s in skips:
                    reasons.setdefault(term.subtype, Counter())[s.reason.split(" (")[0]] += 1
    rows = [
        {"subtype": t.subtype, "severity": t.severity, "instances": instances[t.key], "skipped": skipped[t.key]}
        for t in suite()
    ]
    if args.json:
        print(json.dumps({"rows": rows, "reasons": {k: dict(v) for k, v in reasons.items()}}, indent=2))
        return
    print(f"{'subtype':8}" + "".join(f"{s:>16}" for s in SEVERITIES))
    for subtype in sorted({r["subtype"] for r in rows}):
        cells = [r for r in rows if r["subtype"] == subtype]
        print(f"{subtype:8}" + "".join(f"{c['instances']:>9} ({c['skipped']:>4})" for c in cells))
    for family in "ABCD":
        total = sum(r["instances"] for r in rows if r["subtype"].startswith(family))
        print(f"family {family}: {total} instances")
    print(f"total: {sum(instances.values())} instances, {sum(skipped.values())} skipped; ", end="")
    print(f"{time.perf_counter() - started:.1f} s")
    for subtype, counter in sorted(reasons.items()):
        for reason, n in counter.most_common(3):
            print(f"  {subtype} skipped {n}x: {reason}")


if __name__ == "__main__":
    main()
