"""The oracle on ToolRobustBench's environment: ``toolprism run -d trb --model oracle --perturb-suite all``.

Runs the scripted oracle over the paper's per-model shape (192 clean anchors and 2,016 perturbed
episodes, 14 subtypes x 3 severities x 48 anchors), prints success per subtype and severity next
to what the oracle should get, and the wall time. Exits 1 when a cell differs from the expectation
or the counts are not the paper's.

What the oracle should get, and why: :data:`toolprism.domains.trb.ORACLE_SUCCESS` (successes of
48 per subtype and severity; its module docstring gives the reasons). Success needs the gold call
and a final answer stating the expected result, so the cells below 48 are C2 (a write whose answer
field was dropped cannot be re-read), C3 (a falsified answer field is reported as read: the oracle
cannot know) and B2 (0: it calls instead of asking).

    python benchmarks/trb_oracle.py [--run-dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from toolprism.domains.trb import ORACLE_SUCCESS
from toolprism.evaluation import RunConfig, evaluate, expand_conditions
from toolprism.perturb import SEVERITIES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="trb-oracle-")) / "run"
    config = RunConfig(model="oracle", domains=["trb"], perturbations=expand_conditions([], "all"))
    started = time.perf_counter()
    summary = evaluate(config, run_dir=run_dir)
    wall_s = time.perf_counter() - started
    clean = next(v for v in summary.variants if not v.condition)
    rows = [
        {
            "subtype": p.subtype,
            "severity": p.severity,
            "episodes": p.episodes,
            "successes": p.successes,
            "success": round(p.success_rate, 3),
            "expected": ORACLE_SUCCESS[p.subtype][SEVERITIES.index(p.severity)],
        }
        for p in summary.perturbations
    ]
    perturbed = sum(r["episodes"] for r in rows)
    ok = (clean.episodes, perturbed) == (192, 2016) and clean.success_rate == 1.0
    ok = ok and all(r["successes"] == r["expected"] and r["episodes"] == 48 for r in rows)
    if args.json:
        print(json.dumps({"clean": clean.success_rate, "rows": rows, "wall_s": round(wall_s, 1), "ok": ok}))
        return 0 if ok else 1
    print(f"clean: {clean.episodes} episodes, success {clean.success_rate:.2f} (expected 1.00)")
    print(f"{'subtype':8}" + "".join(f"{s:>10}" for s in SEVERITIES) + f"{'expected (of 48)':>20}")
    for subtype in sorted({r["subtype"] for r in rows}):
        cells = {r["severity"]: r for r in rows if r["subtype"] == subtype}
        line = "".join(f"{cells[s]['successes']:>10}" if s in cells else f"{'-':>10}" for s in SEVERITIES)
        print(f"{subtype:8}{line}{' / '.join(map(str, ORACLE_SUCCESS[subtype])):>20}")
    print(f"{clean.episodes} clean + {perturbed} perturbed episodes in {wall_s:.1f} s; run directory {run_dir}")
    print("as expected" if ok else "DIFFERS from the expectation")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
