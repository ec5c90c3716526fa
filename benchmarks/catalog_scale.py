"""Catalog scale: load a generated 1,500-tool catalog, and validate merged variants of a 100-tool one.

The catalogs are generated (seeded) in the shape of ToolBench/RapidAPI catalogs in the OpenAI tools
format: 25 tool groups, 2 to 8 parameters per tool (strings, integers with bounds, numbers, booleans,
enums, arrays of strings, small objects with their own described properties), a described
parameter each, some defaults, about half of them required. Every schema is valid and satisfiable,
so the same catalogs load on older toolprism versions (run this file with their ``src`` on
``PYTHONPATH`` for the "before" figures). Figures are CPU seconds of this process (steadier than
wall-clock on a shared machine) and wall-clock seconds: indicative only.

    python benchmarks/catalog_scale.py [--tools 1500] [--merged-tools 100] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from toolprism.schema import load_catalog
from toolprism.validate import validate

MERGED = ["fully-merged", "class-dispatch", "merge-domain-union", "merge-domain-nested", "merge-domain-0.29x"]
"""The merged variants validated on the 100-tool catalog (one dispatcher or a few over every tool)."""


def _param(rng: random.Random, i: int, j: int) -> dict[str, Any]:
    kind = rng.choice(["string", "integer", "number", "boolean", "enum", "array", "object"])
    text = f"parameter {j} of tool {i}: what it means, in a sentence or two of free text"
    if kind == "integer":
        schema: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": rng.randint(10, 1000)}
    elif kind == "enum":
        schema = {"type": "string", "enum": [f"v{k}" for k in range(rng.randint(2, 5))]}
    elif kind == "array":
        schema = {"type": "array", "items": {"type": "string"}, "maxItems": 10}
    elif kind == "object":
        inner = {f"f{k}": {"type": rng.choice(["string", "integer"]), "description": f"field {k} of {i}.{j}"}
                 for k in range(rng.randint(1, 3))}  # fmt: skip
        schema = {"type": "object", "properties": inner, "required": list(inner)[:1]}
    else:
        schema = {"type": kind}
    if kind in ("string", "boolean") and rng.random() < 0.3:
        schema["default"] = "x" if kind == "string" else False
    return {**schema, "description": text}


def catalog(tools: int, seed: int = 0) -> list[dict[str, Any]]:
    """A seeded ToolBench-shaped catalog of ``tools`` tools (OpenAI tools format)."""
    rng = random.Random(seed)
    out = []
    for i in range(tools):
        props = {f"p{j}": _param(rng, i, j) for j in range(rng.randint(2, 8))}
        required = [p for p in props if rng.random() < 0.5]
        parameters = {"type": "object", "properties": props, "required": required}
        function = {"name": f"api{i % 25}_endpoint{i}", "description": f"endpoint {i} of API {i % 25}"}
        out.append({"type": "function", "function": {**function, "parameters": parameters}})
    return out


def _took(start: float, cpu: float) -> str:
    return f"{time.process_time() - cpu:.2f}s CPU ({time.perf_counter() - start:.2f}s wall)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1500, help="tools in the catalog to load (default 1500)")
    parser.add_argument("--merged-tools", type=int, default=100, help="tools in the catalog to validate merged")
    parser.add_argument("--variants", default=",".join(MERGED), help="comma list of variants to validate")
    parser.add_argument("--profile", action="store_true", help="cProfile both steps (top 15 by cumulative time)")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    with tempfile.TemporaryDirectory() as tmp:
        big, small = Path(tmp) / "big.json", Path(tmp) / "small.json"
        big.write_text(json.dumps(catalog(args.tools)))
        small.write_text(json.dumps(catalog(args.merged_tools, seed=1)))
        if profiler:
            profiler.enable()
        start, cpu = time.perf_counter(), time.process_time()
        space = load_catalog(big)
        params = sum(len(op.params) for op in space.operations)
        print(f"load {len(space.operations)} tools ({params} parameters): {_took(start, cpu)}")
        for name in args.variants.split(","):
            start, cpu = time.perf_counter(), time.process_time()
            report = validate(variants=[name], catalog=small, jobs=1)
            verdict = "passed" if not report.failures else f"{len(report.failures)} failures"
            skipped = f", skipped: {report.skipped[0].reason[:60]}" if report.skipped else ""
            print(f"validate {name} on {args.merged_tools} tools: {_took(start, cpu)}, {report.checks} checks, "
                  f"{verdict}{skipped}")  # fmt: skip
        if profiler:
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(15)
            print(out.getvalue())


if __name__ == "__main__":
    main()
