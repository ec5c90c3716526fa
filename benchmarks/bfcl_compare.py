"""BFCL's own harness (``bfcl generate``) against the same mock OpenAI-compatible server that
``benchmarks/throughput.py`` drives toolprism against, for a side-by-side throughput table.

BFCL (bfcl-eval) is not a toolprism dependency and pins versions that clash with ours: install it
in a venv of its own and pass its ``bfcl`` executable. Its ``OpenAICompletionsHandler`` models read
``OPENAI_BASE_URL``; ``openbmb/MiniCPM-SALA-FC`` is one (chosen only for that handler: the mock
answers every model alike). Each BFCL entry of the single-turn categories is one request.

For each concurrency (``--num-threads``) this reports, between the first and the last request
the mock saw (so startup is left out): requests/s, the share of the ideal ``concurrency /
latency``, the most requests in flight, and bfcl's CPU per entry (its ``/proc`` CPU, polled with
the mock's ``/v1/stats`` every 20 ms).

    python -m venv /tmp/venv-bfcl && /tmp/venv-bfcl/bin/pip install bfcl-eval soundfile
    PYTHONPATH=src python benchmarks/bfcl_compare.py --bfcl /tmp/venv-bfcl/bin/bfcl [--concurrency 1,8,32,64,128]

Indicative figures only: the mock, bfcl and the poller share the machine.
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

sys.path.insert(0, str(Path(__file__).parent))
from throughput import cpu_s, start_mock  # noqa: E402

CATEGORIES = "simple_python,simple_java,simple_javascript,multiple,parallel,parallel_multiple"


def measure(bfcl: str, base_url: str, concurrency: int, categories: str, latency_ms: float) -> dict[str, float]:
    httpx.delete(f"{base_url}/stats")
    env = {**os.environ, "OPENAI_API_KEY": "mock", "OPENAI_BASE_URL": base_url}
    with tempfile.TemporaryDirectory() as tmp:
        command = [bfcl, "generate", "--model", "openbmb/MiniCPM-SALA-FC", "--test-category", categories,
                   "--num-threads", str(concurrency), "--result-dir", tmp]  # fmt: skip
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first = last = None  # (time, served, cpu)
        while proc.poll() is None:
            served = httpx.get(f"{base_url}/stats").json()["served"]
            sample = (time.perf_counter(), served, cpu_s(proc.pid))
            if served and first is None:
                first = sample
            if first is not None and served > (last or first)[1]:
                last = sample
            time.sleep(0.02)
        if proc.returncode != 0 or first is None or last is None or last[1] == first[1]:
            raise SystemExit(f"bfcl generate failed (exit {proc.returncode}): {' '.join(command)}")
    stats = httpx.get(f"{base_url}/stats").json()
    rate = (stats["served"] - 1) / (stats["last_at"] - stats["first_at"])
    ideal = concurrency / (latency_ms / 1000)
    return {
        "concurrency": concurrency,
        "entries": stats["served"],
        "requests_per_s": round(rate, 1),
        "share_of_ideal": round(rate / ideal, 3),
        "max_in_flight": stats["max_in_flight"],
        "cpu_ms_per_entry": round(1000 * (last[2] - first[2]) / (last[1] - first[1]), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bfcl", required=True, help="the bfcl executable (bfcl-eval's, in its own venv)")
    parser.add_argument("--concurrency", default="1,8,32,64,128")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--categories", default=CATEGORIES)
    args = parser.parse_args()
    proc, base_url = start_mock(args.latency_ms)
    try:
        for c in (int(x) for x in args.concurrency.split(",")):
            print(json.dumps(measure(args.bfcl, base_url, c, args.categories, args.latency_ms)), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
