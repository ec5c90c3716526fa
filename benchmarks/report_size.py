"""Size and opening time of the HTML report for 1,000 and 50,000 episodes (issue 16, "Security and
size").

A template run is made with the scripted backend (an agent that calls the native tools by name:
it succeeds under ``native``, is rejected under renamed variants, and meets payload and runtime
injections under perturbations); a synthetic store of N episodes is then written directly
(``RunStore.record``), each episode a copy of a template episode under another episode seed, so the
traces are real traces of the right shape. The report is built with ``write_report`` (scoring
included: ``load_runs`` scores every stored episode) and opened in headless Chromium driven over the
DevTools protocol (``--remote-debugging-pipe``; no Python dependency), three times each, with a
fresh profile:

- first contentful paint: the browser's ``first-contentful-paint`` paint-timing entry (ms after
  navigation start; the file is read from disk as part of the navigation);
- viewer ready: ``performance.now()`` when the trace viewer has decoded its index and drawn its
  first page of rows (``data-ready-ms`` on ``#trace-viewer``);
- load event: ``loadEventEnd`` of the navigation timing;
- open episode: the time from a click on the last row of the list to its episode being drawn
  (decoding its chunk).

    python benchmarks/report_size.py            # 1,000 and 50,000 episodes
    python benchmarks/report_size.py 2000       # other sizes

Measured 2026-12-02 on 2 shared cores (load average about 5), Chromium 156 (Debian 12), medians of 3:

    episodes  build s  file MB  traces MB  FCP ms  ready ms  load ms  open ms
        1000       46     0.52       0.43     384       582      409      154
       50000      737    21.53      21.39     488      1079      870      128

The build time is mostly scoring (``load_runs``: ``score_run`` and ``episode_frame`` read and
diagnose every trace; about 17 of 21 s at 1,000 episodes on a quieter machine); the trace section
takes about 3.5 ms an episode (reading the trace, compressing). The synthetic store repeats the
template's 90 episodes, so its index compresses unusually well (1 kB at 1,000 episodes); an index
of 50,000 rows with values drawn at random (2,000 tasks, 12 variants, 20 conditions) packs to
0.46 MB, which would add about that much to the file.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend
from toolprism.report._page import write_report
from toolprism.run import RunStore

CHROMIUM = Path("/usr/bin/chromium")
REPEATS = 3


def template_run(directory: Path) -> Path:
    """A small real run: 2 domains x 3 variants x 3 conditions x 5 tasks."""
    config = RunConfig(
        model="scripted", domains=["smart_home", "retail"], variants=["native", "merge", "split"], tasks=5,
        perturbations=["C2:medium", "D1:heavy"],
    )  # fmt: skip
    evaluate(config, run_dir=directory / "template", backend=ScriptedBackend.native_names())
    return directory / "template"


def synthetic_run(template: Path, directory: Path, episodes: int) -> Path:
    """A store of ``episodes`` episodes: the template's, repeated under episode seeds 0, 1, 2..."""
    source = RunStore.open(template)
    out = directory / f"run-{episodes}"
    header = source.header.model_copy(update={"episodes": episodes})
    store = RunStore.create(out, header)
    try:
        pairs = [(r, source.trace(r.episode_id)) for r in source.results()]
        for k in range(episodes):
            result, trace = pairs[k % len(pairs)]
            seed = k // len(pairs)
            episode_id = trace.episode_id.rsplit("#", 1)[0] + f"#{seed}"
            store.record(
                result.model_copy(update={"episode_id": episode_id, "seed": seed}),
                trace.model_copy(update={"episode_id": episode_id, "seed": seed}),
            )
    finally:
        store.close()
        source.close()
    return out


class DevTools:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (fd 3: commands, fd 4: replies,
    each a JSON message ended by NUL)."""

    def __init__(self, profile: Path) -> None:
        to_chrome, self._commands = os.pipe()
        self._replies, from_chrome = os.pipe()

        def child_fds() -> None:  # through copies above 10: either pipe end may already be fd 3 or 4
            commands, replies = fcntl.fcntl(to_chrome, fcntl.F_DUPFD, 10), fcntl.fcntl(from_chrome, fcntl.F_DUPFD, 10)
            os.dup2(commands, 3)
            os.dup2(replies, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            [
                str(CHROMIUM),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "--window-size=1400,1000",
                "about:blank",
            ],  # fmt: skip
            preexec_fn=child_fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome)
        os.close(from_chrome)
        self._buffer = b""
        self._id = 0
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._replies, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression: str) -> object:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            self.session,
        )
        return result["result"].get("value")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        os.close(self._commands)
        os.close(self._replies)


TIMINGS = """JSON.stringify({
  ready: (document.getElementById("trace-viewer") || {dataset: {}}).dataset.readyMs || null,
  fcp: (performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime || null,
  load: performance.getEntriesByType("navigation")[0].loadEventEnd || null,
})"""
OPEN_LAST_ROW = """(async () => {
  const rows = document.querySelectorAll("#trace-viewer tr[data-row]");
  const row = rows[rows.length - 1], detail = document.querySelector("#trace-viewer .tv-detail");
  const start = performance.now();
  row.click();
  while (!detail.dataset.episode || detail.dataset.episode !== row.title) await new Promise(r => setTimeout(r, 2));
  return performance.now() - start;
})()"""


def open_times(report: Path) -> dict[str, float]:
    """One opening of ``report`` in a fresh browser: the timings of the module docstring (ms)."""
    profile = Path(tempfile.mkdtemp(prefix="toolprism-chromium-"))
    browser = DevTools(profile)
    try:
        browser.send("Page.enable", session=browser.session)
        browser.send("Page.navigate", {"url": report.as_uri()}, browser.session)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            found = json.loads(browser.evaluate(TIMINGS) or "{}")
            if found.get("ready") and found.get("load") and found.get("fcp"):
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"the viewer was not ready within 120 s: {found}")
        found["open"] = browser.evaluate(OPEN_LAST_ROW)
        return {k: float(v) for k, v in found.items()}
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


def traces_bytes(html: str) -> int:
    """Bytes of the trace viewer's embedded data: its index and every chunk (base64 text)."""
    blocks = re.finditer(
        r'<script type="application/octet-stream" id="(data-traces|traces-[^"]*)">([^<]*)</script>', html
    )
    return sum(len(m.group(2)) for m in blocks)


def main(sizes: list[int]) -> None:
    work = Path(tempfile.mkdtemp(prefix="toolprism-report-size-"))
    try:
        template = template_run(work)
        print(f"template run: {len(RunStore.open(template).results())} episodes")
        header = f"{'episodes':>8} {'build s':>8} {'file MB':>8} {'traces MB':>9} {'FCP ms':>7} {'ready ms':>9}"
        rows = []
        for n in sizes:
            start = time.perf_counter()
            run = synthetic_run(template, work, n)
            store_s = time.perf_counter() - start
            start = time.perf_counter()
            report = write_report([run], work / f"report-{n}.html")
            build_s = time.perf_counter() - start
            html = report.read_text(encoding="utf-8")
            timings = [open_times(report) for _ in range(REPEATS)] if CHROMIUM.exists() else []
            median = (
                {k: statistics.median(t[k] for t in timings) for k in ("fcp", "ready", "load", "open")}
                if timings
                else {}
            )
            rows.append((n, store_s, build_s, len(html.encode()), traces_bytes(html), median, timings))
            print(f"{n} episodes: store {store_s:.1f} s, report {build_s:.1f} s, {len(html.encode()) / 1e6:.2f} MB; "
                  f"browser (median of {len(timings)}): {median}", flush=True)  # fmt: skip
        print()
        print(header + f" {'load ms':>8} {'open ms':>8}")
        for n, _, build_s, size, traces, median, _ in rows:
            ms = [median.get(k, float("nan")) for k in ("fcp", "ready", "load", "open")]
            print(
                f"{n:>8} {build_s:>8.1f} {size / 1e6:>8.2f} {traces / 1e6:>9.2f} {ms[0]:>7.0f} {ms[1]:>9.0f} "
                f"{ms[2]:>8.0f} {ms[3]:>8.0f}"
            )
        if not CHROMIUM.exists():
            print("no /usr/bin/chromium: opening times not measured (apt-get install -y chromium)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 50000])
