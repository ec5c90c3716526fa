"""Throughput of the ``openai`` backend against the mock OpenAI-compatible server.

The mock (:mod:`toolprism.testing`, in a subprocess so that it does not share the interpreter
lock) answers each request after ``--latency-ms`` (50 ms). Each smart_home episode takes two
requests (a tool call, then an answer), so the ideal is ``concurrency / latency`` requests/s and
half that in episodes/s. For each concurrency this prints episodes/s, requests/s, the share of
the ideal, the most requests the server held at once, and the driver's CPU per episode.

Indicative figures only: the machine is shared and the mock's own CPU counts against the wall.

    PYTHONPATH=src python benchmarks/throughput.py [--concurrency 1,8,32,64,128] [--latency-ms 50]

To measure another toolprism (e.g. the code before a change), put its ``src`` first on
PYTHONPATH; the mock still comes from this checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parents[1] / "src"


def start_mock(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolprism.testing", "--latency-ms", str(latency_ms)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def measure(base_url: str, concurrency: int, episodes: int, run_root: Path) -> dict[str, float]:
    from toolprism.evaluation import RunConfig, evaluate

    tasks = -(-episodes // 5)  # five default variants
    config = RunConfig(
        model="openai:mock", base_url=base_url, domains=["smart_home"], tasks=tasks, concurrency=concurrency
    )
    httpx.delete(f"{base_url}/stats")
    marks: dict[str, float] = {}

    def on_start(todo: int, finished: int, directory: Path) -> None:
        marks["t0"], marks["cpu0"] = time.perf_counter(), time.process_time()

    evaluate(config, run_dir=run_root / f"c{concurrency}", on_start=on_start)
    wall = time.perf_counter() - marks["t0"]
    cpu = time.process_time() - marks["cpu0"]
    stats = httpx.get(f"{base_url}/stats").json()
    n = tasks * 5
    return {
        "concurrency": concurrency,
        "episodes": n,
        "wall_s": wall,
        "episodes_per_s": n / wall,
        "requests_per_s": stats["served"] / wall,
        "max_in_flight": stats["max_in_flight"],
        "cpu_ms_per_episode": 1000 * cpu / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", default="1,8,32,64,128")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--episodes-per-slot", type=int, default=4, help="episodes per unit of concurrency")
    parser.add_argument("--min-episodes", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    proc, base_url = start_mock(args.latency_ms)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for c in (int(x) for x in args.concurrency.split(",")):
                row = measure(base_url, c, max(args.min_episodes, args.episodes_per_slot * c), Path(tmp))
                row["ideal_requests_per_s"] = c / (args.latency_ms / 1000)
                row["share_of_ideal"] = row["requests_per_s"] / row["ideal_requests_per_s"]
                rows.append(row)
                if not args.json:
                    print(
                        f"c={c:4d}  episodes={row['episodes']:4d}  {row['episodes_per_s']:7.1f} ep/s  "
                        f"{row['requests_per_s']:7.1f} req/s  ideal {row['ideal_requests_per_s']:7.1f}  "
                        f"{100 * row['share_of_ideal']:5.1f}%  max in flight {row['max_in_flight']:4d}  "
                        f"CPU {row['cpu_ms_per_episode']:6.1f} ms/episode",
                        flush=True,
                    )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
