"""Cost of ``toolprism probe variants``: the query-sampling curve (no model) and, with a model, the
two probes per variant on one task.

    python benchmarks/probe_variants.py                    # the curve only: 800 tasks x 32 variants
    python benchmarks/probe_variants.py embedded [DOMAIN]  # + one task's probes per variant (default smart_home)

The curve is timed on a synthetic success table (800 tasks, 32 variants, B = 1000 draws per point).
With a model: for native, transaction and merge(by=full) on the domain's first task, the time to
score the oracle's gold conversation (the log-likelihood probe) and to run one compliance episode.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from toolprism.probes import SuccessTable, comply, create_scorer, gold_loglik, sampling_curve


def curve() -> None:
    rng = np.random.default_rng(0)
    rates = rng.random(32)
    rows = (rng.random((800, 32)) < rates).astype(float).tolist()
    names = [f"v{j}" for j in range(32)]
    tasks = [f"d/t/{i}" for i in range(800)]
    table = SuccessTable(variants=names, specs={v: v for v in names}, tasks=tasks,
                         domains=dict.fromkeys(tasks, "d"), success=rows)  # fmt: skip
    t0 = time.perf_counter()
    points = sampling_curve(table, bootstrap=1000, seed=0)
    elapsed = time.perf_counter() - t0
    print(f"curve: 800 tasks x 32 variants, {len(points)} points x 1000 draws: {elapsed:.2f} s")
    for p in points:
        print(f"  n={p.n}: median rho {p.rho_median:.3f} ({p.ci_low:.3f} to {p.ci_high:.3f})")


def probes(model: str, domain_name: str) -> None:
    from toolprism.backends import create_backend
    from toolprism.domains import get_domain
    from toolprism.run import EpisodeSpec
    from toolprism.shaping import Variant

    domain = get_domain(domain_name)
    task = domain.tasks(0)[0]
    scorer = create_scorer(model)
    backend = getattr(scorer, "backend", None) or create_backend(model)
    for name in ("native", "transaction", "merge(by=full)"):
        spec = EpisodeSpec(domain, task, Variant.build(name, domain.action_space()), 0)
        t0 = time.perf_counter()
        rows = gold_loglik(scorer, spec)
        t1 = time.perf_counter()
        check = comply(backend, spec, task.gold[0])
        t2 = time.perf_counter()
        tokens = sum(r.tokens for r in rows)
        print(f"{name}: log-likelihood {len(rows)} call turns, {tokens} tokens, {t1 - t0:.1f} s; "
              f"compliance {'yes' if check.compliant else 'no'} ({check.end}), {t2 - t1:.1f} s")  # fmt: skip


if __name__ == "__main__":
    curve()
    if len(sys.argv) > 1:
        probes(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "smart_home")
