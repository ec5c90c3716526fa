"""Harness overheads with scripted backends (no model time): CPU per model turn, startup to the
first model request, and peak memory of long runs through the scheduler.

    python benchmarks/harness.py cpu [--episodes 400]
    python benchmarks/harness.py startup [--repeat 3] [--model scripted|embedded]
    python benchmarks/harness.py imports [--model scripted|embedded]   # -X importtime, heaviest first
    python benchmarks/harness.py memory [--episodes 1000,10000,100000]
    python benchmarks/harness.py plan [--tasks 4] # what a planned spec list costs

Each measurement of ``memory`` runs in its own process (peak RSS is per process). Figures are
indicative: they depend on the machine and its load; targets (issue #14): well under 1 ms of CPU
per turn, under 1 s to the first request, a flat peak under 500 MB for 100,000 episodes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _specs(n: int, domain_name: str = "smart_home", variant_name: str = "native") -> Iterator:
    """``n`` episodes produced lazily: the domain's tasks round-robin, one seed each."""
    from toolprism.domains import get_domain
    from toolprism.run import EpisodeSpec
    from toolprism.shaping import Variant

    domain = get_domain(domain_name)
    variant = Variant.build(variant_name, domain.action_space())
    tasks = domain.tasks(0)
    for i in range(n):
        yield EpisodeSpec(domain, tasks[i % len(tasks)], variant, seed=i)


def _store(path: Path):  # noqa: ANN202
    from toolprism.run import RunHeader, RunStore

    return RunStore.create(path, RunHeader(config={"model": "scripted"}))


def cpu(episodes: int) -> dict:
    """CPU seconds per model turn: the episode loop alone (``run_episode``), and the whole scheduler
    path (loop + scoring + SQLite record) with the ``native_names`` scripted agent, which calls the
    gold actions one per turn and answers (so each turn is a real adapter + environment step)."""
    from toolprism.backends import ScriptedBackend
    from toolprism.evaluation import score_episode
    from toolprism.run import run_episode, run_episodes

    backend = ScriptedBackend.native_names()
    specs = list(_specs(episodes))

    async def loop_only() -> int:
        return sum([len((await run_episode(s, backend)).turns) for s in specs])

    asyncio.run(loop_only())  # warm up (imports, caches)
    c0, w0 = time.process_time(), time.perf_counter()
    turns = asyncio.run(loop_only())
    loop_cpu, loop_wall = time.process_time() - c0, time.perf_counter() - w0
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(Path(tmp) / "r")
        c0 = time.process_time()
        asyncio.run(run_episodes(specs, backend, store, score_episode, concurrency=8))
        full_cpu = time.process_time() - c0
        store.close()
    return {
        "episodes": episodes,
        "turns": turns,
        "loop_cpu_ms_per_turn": round(1000 * loop_cpu / turns, 3),
        "loop_wall_ms_per_turn": round(1000 * loop_wall / turns, 3),
        "scheduler_cpu_ms_per_turn": round(1000 * full_cpu / turns, 3),
        "scheduler_cpu_ms_per_episode": round(1000 * full_cpu / episodes, 3),
    }


STARTUP = textwrap.dedent("""
    import os, sys, time
    wall0, cpu0 = time.time(), time.process_time()

    def first():
        print(f"FIRST {time.time()!r} {time.process_time() - cpu0!r}", flush=True)
        os._exit(0)

    if sys.argv[2] == "embedded":  # the real default backend: stop at its first generation
        from toolprism.backends._embedded import EmbeddedAgent

        async def respond(self, messages, tools):
            first()

        EmbeddedAgent.respond = respond
        sys.argv = ["toolprism", "run", "--run-dir", sys.argv[1]]
    else:  # the default suite with a scripted backend in place of the oracle (no model at all)
        import toolprism.evaluation._evaluate as evaluation
        from toolprism.backends import ScriptedBackend

        evaluation.create_backend = lambda *a, **k: ScriptedBackend(lambda context, messages: first())
        sys.argv = ["toolprism", "run", "--model", "oracle", "--run-dir", sys.argv[1]]
    from toolprism.cli import main

    main()
""")


def startup(repeat: int, model: str = "scripted") -> dict:
    """Seconds from launching ``toolprism run`` (default suite, a new Python process) to its first
    model request, best and median of ``repeat``, and the CPU seconds the process used until then.

    ``model="scripted"``: a scripted backend replaces the oracle (toolprism's own startup: imports,
    configuration, planning, the store). ``model="embedded"``: the default ``toolprism run`` with its
    embedded model, up to the first generation (adds llama-cpp-python's import and the model file's
    check; the model itself loads inside the first generation).
    """
    times, cpus = [], []
    for run in range(repeat + 1):  # run 0 warms up: it writes the bytecode caches a real install has
        with tempfile.TemporaryDirectory() as tmp:
            start = time.time()
            out = subprocess.run(
                [sys.executable, "-c", STARTUP, str(Path(tmp) / "r"), model],
                capture_output=True, text=True, env=_env(), check=True,
            )  # fmt: skip
            if run == 0:
                continue
            line = next(line for line in out.stdout.splitlines() if line.startswith("FIRST"))
            first, cpu = (float(x) for x in line.split()[1:])
            times.append(first - start)
            cpus.append(cpu)
    times.sort()
    cpus.sort()
    return {
        "model": model,
        "runs": repeat,
        "best_s": round(times[0], 3),
        "median_s": round(times[len(times) // 2], 3),
        "median_cpu_s": round(cpus[len(cpus) // 2], 3),  # CPU of the process from its first line of the script
    }


def _env() -> dict[str, str]:
    """The child's environment: toolprism from this checkout, bytecode caches written and read
    (``PYTHONDONTWRITEBYTECODE`` dropped: without ``.pyc`` files every start recompiles toolprism)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": SRC}


def imports(model: str = "scripted", top: int = 12) -> dict:
    """``python -X importtime`` of one startup: the total, the ``top`` third-party packages by
    cumulative time (ms) with the toolprism module that first imported each (where the cost is paid),
    and the ``top`` toolprism modules by their own time (module bodies: pydantic models, tables)."""
    for _ in range(2):  # the first run writes the bytecode caches
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", STARTUP, str(Path(tmp) / "r"), model],
                capture_output=True, text=True, env=_env(), check=True,
            )  # fmt: skip
    rows = []
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, cum_us, name = line.split(":", 1)[1].split("|")
            rows.append(((len(name) - len(name.lstrip())) // 2, int(self_us), int(cum_us), name.strip()))
    # importtime prints a module after the modules it imported: walking backwards, a module's
    # importer is the last row seen one level up
    importer: dict[int, str] = {}
    packages: dict[str, dict] = {}
    own: list[dict] = []
    for depth, self_us, cum_us, name in reversed(rows):
        importer[depth] = name
        chain = [importer[d] for d in range(depth - 1, -1, -1) if d in importer]
        if name.startswith("toolprism"):
            own.append({"module": name, "self_ms": round(self_us / 1000, 1)})
        elif not any(m.split(".")[0] == name.split(".")[0] for m in chain):  # the package's outermost import
            root = name.split(".")[0]
            entry = packages.setdefault(root, {"package": root, "cum_ms": 0.0, "imported_by": ""})
            entry["cum_ms"] = round(entry["cum_ms"] + cum_us / 1000, 1)
            entry["imported_by"] = entry["imported_by"] or next((m for m in chain if m.startswith("toolprism")), "")
    return {
        "total_ms": round(sum(r[1] for r in rows) / 1000, 1),
        "toolprism_self_ms": round(sum(r[1] for r in rows if r[3].startswith("toolprism")) / 1000, 1),
        "packages": sorted(packages.values(), key=lambda r: -r["cum_ms"])[:top],
        "toolprism_modules": sorted(own, key=lambda r: -r["self_ms"])[:top],
    }


MEMORY = textwrap.dedent("""
    import asyncio, json, resource, sys, tempfile, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[3])
    from harness import _specs, _store
    from toolprism.backends import ModelTurn, ScriptedBackend
    from toolprism.evaluation import score_episode
    from toolprism.run import run_episodes

    n = int(sys.argv[1])
    turn = ModelTurn(raw="Done.", content="Done.", prompt_tokens=50, completion_tokens=2)
    answer = ScriptedBackend(lambda c, m: turn)
    with tempfile.TemporaryDirectory(dir=sys.argv[2]) as tmp:
        store = _store(Path(tmp) / "r")
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        progress = asyncio.run(run_episodes(_specs(n), answer, store, score_episode, concurrency=64))
        wall = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        size = (Path(tmp) / "r" / "results.sqlite").stat().st_size
    print(json.dumps({"episodes": progress.done, "rss_before_mb": round(base / 1024, 1),
                      "peak_rss_mb": round(peak / 1024, 1), "wall_s": round(wall, 1),
                      "ms_per_episode": round(1000 * wall / n, 2), "store_mb": round(size / 2**20, 1)}))
""")


def memory(sizes: Sequence[int]) -> list[dict]:
    """Peak RSS of a scripted run of each size through :func:`toolprism.run.run_episodes` (specs from
    a generator, a window of 64, every episode scored and recorded), one process each."""
    rows = []
    for n in sizes:
        out = subprocess.run(
            [sys.executable, "-c", MEMORY, str(n), tempfile.gettempdir(), str(Path(__file__).parent)],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, check=True,
        )  # fmt: skip
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def plan(tasks: int | None) -> dict:
    """What planning a large configuration costs (both built-in stateful domains, ``tasks`` tasks
    each (None: all), the whole suite, every perturbation condition): the lazy plan ``evaluate``
    uses (:class:`RunPlan`: one counting walk, then every spec walked once more, one at a time)
    against ``plan_run``'s list of specs. Seconds, and the peak of Python allocations above what
    was held before (``tracemalloc``; after a warm-up walk, so the domains' own caches are not counted)."""
    import tracemalloc

    from toolprism.evaluation import RunConfig, RunPlan, expand_conditions, plan_run

    config = RunConfig(
        model="oracle", domains=["smart_home", "retail"], variants=["all"], tasks=tasks,
        perturbations=expand_conditions([], "all"),
    )  # fmt: skip
    for _ in RunPlan.of(config).specs():  # warm-up: task and variant caches
        pass
    row: dict = {}
    for name, make in (
        ("lazy", lambda: sum(1 for _ in RunPlan.of(config).specs())),
        ("list", lambda: len(plan_run(config)[0])),
    ):
        tracemalloc.start()
        start = time.perf_counter()
        specs = make()
        wall = time.perf_counter() - start
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        row[name] = {"specs": specs, "plan_s": round(wall, 1), "peak_mb": round(peak / 2**20, 1)}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["cpu", "startup", "imports", "memory", "plan"])
    parser.add_argument("--model", choices=["scripted", "embedded"], default="scripted", help="startup, imports")
    parser.add_argument("--episodes", default=None, help="cpu: episodes (400); memory: sizes (1000,10000,100000)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=None, help="plan: tasks per domain (default: all)")
    args = parser.parse_args()
    if args.what == "cpu":
        print(json.dumps(cpu(int(args.episodes or 400))))
    elif args.what == "startup":
        print(json.dumps(startup(args.repeat, args.model)))
    elif args.what == "imports":
        print(json.dumps(imports(args.model), indent=1))
    elif args.what == "memory":
        memory([int(n) for n in (args.episodes or "1000,10000,100000").split(",")])
    else:
        print(json.dumps(plan(args.tasks)))


if __name__ == "__main__":
    sys.path.insert(0, SRC)
    main()
