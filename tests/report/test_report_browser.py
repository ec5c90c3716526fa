"""The page in a real browser (Debian's ``chromium``, headless; skipped when it is absent): the grid
and the charts lay out with a size, the embedded data decodes (gzip + base64 through
``toolprism.data``), no script fails, and a screenshot is written.

Set ``TOOLPRISM_SCREENSHOTS=DIR`` to keep the screenshot in DIR (else it goes to the test's
temporary directory).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from _report_runs import native_names_run, oracle_run

from toolprism.report import Section, build_sections, load_runs, render_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--hide-scrollbars"]

pytestmark = [pytest.mark.chromium, pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")]

CHECK = """
(async () => {
  const size = (el) => { const r = el.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; };
  const out = {
    charts: [...document.querySelectorAll("figure.chart svg")].map(size),
    gridCells: document.querySelectorAll("#grid table.grid td.cell").length,
    gridSize: size(document.querySelector("#grid table.grid")),
    nav: [...document.querySelectorAll("nav.sections a")].map((a) => a.getAttribute("href")),
  };
  try { out.data = await toolprism.data("browser-check"); } catch (e) { out.error = String(e); }
  const pre = document.createElement("pre");
  pre.id = "browser-check-result";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CHROMIUM, *FLAGS, *args], capture_output=True, text=True, timeout=120, check=True)


def test_the_page_renders_in_headless_chromium(tmp_path: Path) -> None:
    runs = load_runs([native_names_run(tmp_path / "names"), oracle_run(tmp_path / "oracle")])
    payload = {"text": "<script>alert(1)</script> ünïcode", "numbers": list(range(100))}
    check = Section(id="browser-check", title="Browser check", script=CHECK, data=payload)
    page = tmp_path / "report.html"
    page.write_text(render_page("browser check", [*build_sections(runs), check]), encoding="utf-8")
    dom = _chromium("--virtual-time-budget=10000", "--dump-dom", page.as_uri()).stdout
    found = re.search(r'<pre id="browser-check-result">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    result = json.loads(found.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    assert "error" not in result and result["data"] == payload
    assert len(result["charts"]) >= 3 and all(w > 200 and h > 100 for w, h in result["charts"])
    assert result["gridCells"] == 8 and result["gridSize"][0] > 300  # 2 runs x 4 variants, clean
    assert {"#overview", "#grid", "#comparison", "#ladder", "#failures"} <= set(result["nav"])
    shots = Path(os.environ.get("TOOLPRISM_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "report.png"
    _chromium(f"--screenshot={shot}", "--window-size=1400,3000", page.as_uri())
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 50_000
