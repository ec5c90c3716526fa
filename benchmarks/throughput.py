"""Throughput of the ``openai`` backend against the mock OpenAI-compatible server.

The mock (:mod:`toolprism.testing`, in a subprocess so that it does not share the interpreter
lock) answers each request after ``--latency-ms`` (50 ms). Each smart_home episode takes two
requests (a tool call, then an answer), so the ideal is ``concurrency / latency`` requests/s and
half that in episodes/s. For each concurrency this prints episodes/s, requests/s, the share of
the ideal (from the run's start, and between the first and the last request the mock saw, the
window ``benchmarks/bfcl_compare.py`` measures BFCL's harness in), the most requests the server
held at once, and the driver's CPU per episode.

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


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(base_url: str, concurrency: int, episodes: int, run_root: Path, mock_pid: int) -> dict[str, float]:
    from toolprism.evaluation import RunConfig, evaluate

    tasks = -(-episodes // 5)  # five default variants
    config = RunConfig(
        model="openai:mock", base_url=base_url, domains=["smart_home"], tasks=tasks, concurrency=concurrency
    )
    httpx.delete(f"{base_url}/stats")
    marks: dict[str, float] = {}

    def on_start(todo: int, finished: int, directory: Path) -> None:
        marks["t0"], marks["cpu0"], marks["mock0"] = time.perf_counter(), time.process_time(), cpu_s(mock_pid)

    evaluate(config, run_dir=run_root / f"c{concurrency}", on_start=on_start)
    wall = time.perf_counter() - marks["t0"]
    cpu = time.process_time() - marks["cpu0"]
    mock_cpu = cpu_s(mock_pid) - marks["mock0"]
    stats = httpx.get(f"{base_url}/stats").json()
    n = tasks * 5
    steady = (stats["served"] - 1) / (stats["last_at"] - stats["first_at"])
    return {
        "concurrency": concurrency,
        "episodes": n,
        "wall_s": wall,
        "episodes_per_s": n / wall,
        "requests_per_s": stats["served"] / wall,
        "steady_requests_per_s": steady,
        "max_in_flight": stats["max_in_flight"],
        "cpu_ms_per_episode": 1000 * cpu / n,
        "mock_cpu_ms_per_request": 1000 * mock_cpu / max(1, stats["served"]),
    }


def measure_backend(base_url: str, concurrency: int, requests: int) -> dict[str, float]:
    """The backend alone: ``requests`` chat requests (one user message, no tools) through
    ``OpenAIBackend.complete``, ``concurrency`` at a time; no episode harness, no store."""
    import asyncio

    from toolprism.backends._openai import OpenAIBackend

    try:
        backend = OpenAIBackend("mock", base_url=base_url, max_connections=concurrency)
    except TypeError:  # a toolprism from before the pool option
        backend = OpenAIBackend("mock", base_url=base_url)
    messages = [{"role": "user", "content": "Turn on the kitchen light."}]

    async def run() -> float:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                await backend.complete(messages, [], seed=i)

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(requests)))
        wall = time.perf_counter() - t0
        if hasattr(backend, "aclose"):
            await backend.aclose()
        return wall

    httpx.delete(f"{base_url}/stats")
    wall = asyncio.run(run())
    stats = httpx.get(f"{base_url}/stats").json()
    return {"concurrency": concurrency, "requests_per_s": requests / wall, "max_in_flight": stats["max_in_flight"]}


def patch_store() -> None:
    """The ``--store-sync wal-normal`` what-if (benchmark only; the store is not changed)."""
    from toolprism.run import _store

    init = _store.RunStore.__init__

    def wal_init(self, run_dir, header):  # type: ignore[no-untyped-def]
        init(self, run_dir, header)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")

    _store.RunStore.__init__ = wal_init  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", default="1,8,32,64,128")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--episodes-per-slot", type=int, default=4, help="episodes per unit of concurrency")
    parser.add_argument("--min-episodes", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--backend-only", action="store_true", help="measure OpenAIBackend.complete alone (no episodes, no store)"
    )
    parser.add_argument(
        "--store-sync",
        choices=["default", "wal-normal"],
        default="default",
        help="what-if: 'wal-normal' opens the run database in WAL mode with synchronous=NORMAL (no fsync per "
        "episode's commit), to show what the store's synchronous commit costs the event loop",
    )
    args = parser.parse_args()
    if args.store_sync == "wal-normal":
        patch_store()
    proc, base_url = start_mock(args.latency_ms)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for c in (int(x) for x in args.concurrency.split(",")):
                if args.backend_only:
                    row = measure_backend(base_url, c, max(args.min_episodes, 2 * args.episodes_per_slot * c))
                    ideal = c / (args.latency_ms / 1000)
                    rows.append(row)
                    print(
                        f"backend only  c={c:4d}  {row['requests_per_s']:7.1f} req/s  ideal {ideal:7.1f}  "
                        f"{100 * row['requests_per_s'] / ideal:5.1f}%  max in flight {row['max_in_flight']:4d}",
                        flush=True,
                    )
                    continue
                row = measure(base_url, c, max(args.min_episodes, args.episodes_per_slot * c), Path(tmp), proc.pid)
                row["ideal_requests_per_s"] = c / (args.latency_ms / 1000)
                row["share_of_ideal"] = row["requests_per_s"] / row["ideal_requests_per_s"]
                row["steady_share_of_ideal"] = row["steady_requests_per_s"] / row["ideal_requests_per_s"]
                rows.append(row)
                if not args.json:
                    print(
                        f"c={c:4d}  episodes={row['episodes']:4d}  {row['episodes_per_s']:7.1f} ep/s  "
                        f"{row['requests_per_s']:7.1f} req/s  ideal {row['ideal_requests_per_s']:7.1f}  "
                        f"{100 * row['share_of_ideal']:5.1f}% (first to last request: "
                        f"{100 * row['steady_share_of_ideal']:5.1f}%)  max in flight {row['max_in_flight']:4d}  "
                        f"CPU {row['cpu_ms_per_episode']:6.1f} ms/episode, mock {row['mock_cpu_ms_per_request']:4.1f} "
                        "ms/request",
                        flush=True,
                    )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
