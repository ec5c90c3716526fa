"""The oracle on ToolRobustBench's environment: ``toolprism run -d trb --model oracle --perturb-suite all``.

Runs the scripted oracle over the paper's per-model shape (192 clean anchors and 2,016 perturbed
episodes, 14 subtypes x 3 severities x 48 anchors), prints success per subtype and severity next
to what the oracle should get, and the wall time. Exits 1 when a cell differs from the expectation
or the counts are not the paper's.

What the oracle should get, and why: it walks the gold calls through the variant's encoder, cannot
see perturbations, resends a call the runtime failed (up to three times) and re-reads a read whose
return came back empty or as an error. So

- clean: 1.00 (the end-to-end self-check);
- A1-A3: 1.00 (it encodes through the interface that is really accepted: shifted names, the real
  tool next to the distractors, the drifted parameter);
- B1, B3, B4: 1.00 (the gold is the same; it never reads the request);
- B2: 0.00 (the request no longer gives a value the call needs, so a correct agent asks and calls
  nothing; the oracle calls the gold anyway);
- C1-C4: 1.00 under action scoring (the call is right whatever the payload says; the final answer's
  reading of the payload is what the runtime-report and attribution scores add);
- D1: 1.00 (every call of the blocked tool fails, nothing is executed, which is what the expected
  gold, empty, asks; its answer says what failed);
- D2, D3: 1.00 (transient failures: a resend succeeds).

    python benchmarks/trb_oracle.py [--run-dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from toolprism.evaluation import RunConfig, evaluate, expand_conditions
from toolprism.perturb import SEVERITIES, SUBTYPES

EXPECTED: dict[str, float] = {s: 1.0 for s in SUBTYPES.names()} | {"B2": 0.0}
"""Subtype → the oracle's expected success at every severity (see the module docstring)."""


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
            "success": round(p.success_rate, 3),
            "expected": EXPECTED[p.subtype],
        }
        for p in summary.perturbations
    ]
    perturbed = sum(r["episodes"] for r in rows)
    ok = (clean.episodes, perturbed) == (192, 2016) and clean.success_rate == 1.0
    ok = ok and all(r["success"] == r["expected"] and r["episodes"] == 48 for r in rows)
    if args.json:
        print(json.dumps({"clean": clean.success_rate, "rows": rows, "wall_s": round(wall_s, 1), "ok": ok}))
        return 0 if ok else 1
    print(f"clean: {clean.episodes} episodes, success {clean.success_rate:.2f} (expected 1.00)")
    print(f"{'subtype':8}" + "".join(f"{s:>10}" for s in SEVERITIES) + f"{'expected':>10}")
    for subtype in sorted({r["subtype"] for r in rows}):
        cells = {r["severity"]: r for r in rows if r["subtype"] == subtype}
        line = "".join(f"{cells[s]['success']:>10.2f}" if s in cells else f"{'-':>10}" for s in SEVERITIES)
        print(f"{subtype:8}{line}{EXPECTED[subtype]:>10.2f}")
    print(f"{clean.episodes} clean + {perturbed} perturbed episodes in {wall_s:.1f} s; run directory {run_dir}")
    print("as expected" if ok else "DIFFERS from the expectation")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
