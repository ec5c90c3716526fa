"""The report in a real browser (issue 16, "Done when"): a report rendered from a stored run of the
scripted backend, opened in headless Chromium (Debian's ``chromium``), shows the grid and at least
three charts, its trace viewer filters from the URL hash, hostile trace text creates no element,
and a screenshot is saved under the test's tmp dir (its path printed; ``pytest -s`` shows it).

The DOM is read with ``--dump-dom`` after ``--virtual-time-budget`` (the page's scripts, the
decompression included, have run); no Python browser driver is needed. Skipped when
``/usr/bin/chromium`` is absent (``apt-get install -y chromium``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
from _report_traces import HOSTILE, Page, assert_inert, hostile_run

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend
from toolprism.report import _traces as traces
from toolprism.report._page import write_report
from toolprism.score import episode_frame

CHROMIUM = Path("/usr/bin/chromium")
PAGE_ROWS = 5

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install -y chromium)"),
]


def chromium(url: str, tmp: Path, *args: str) -> str:
    """Run headless Chromium on ``url`` with a fresh profile; its stdout."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        f"--user-data-dir={profile}", "--virtual-time-budget=15000", "--hide-scrollbars", *args, url,
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dom(report: Path, tmp: Path, fragment: str = "") -> Page:
    """The rendered DOM of ``report`` opened at ``#fragment``, after its scripts ran."""
    return Page.of(chromium(report.as_uri() + (f"#{fragment}" if fragment else ""), tmp, "--dump-dom"))


def rows(page: Page) -> list[dict[str, str | None]]:
    """The trace viewer's list rows (their ``data-*`` attributes say what each row is)."""
    return [attrs for tag, attrs in page.tags if tag == "tr" and "data-row" in attrs]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of two runs of the same tasks: ``scripted``, whose agent calls the native tools by
    name (it succeeds under ``native`` and is rejected under variants that rename them: a grid with
    contrast), and ``oracle`` (it always succeeds); two runs also give the comparison's charts."""
    base = tmp_path_factory.mktemp("report")
    config = RunConfig(model="scripted", domains=["smart_home"], variants=["native", "merge", "split"], tasks=4)
    evaluate(config, run_dir=base / "scripted", backend=ScriptedBackend.native_names())
    evaluate(config.model_copy(update={"model": "oracle"}), run_dir=base / "oracle")
    with pytest.MonkeyPatch.context() as patch:  # small pages and chunks: 24 episodes make 5 of each
        patch.setattr(traces, "PAGE_ROWS", PAGE_ROWS)
        patch.setattr(traces, "CHUNK_EPISODES", PAGE_ROWS)
        return write_report([base / "scripted", base / "oracle"], base / "report.html")


def test_the_report_renders_the_grid_charts_and_a_filtered_trace_viewer(report: Path, tmp_path: Path) -> None:
    frame = episode_frame([report.parent / "scripted", report.parent / "oracle"])
    page = dom(report, tmp_path)
    ids = {attrs.get("id") for _, attrs in page.tags}
    assert {"grid", "traces", "trace-viewer"} <= ids
    cells = [attrs for tag, attrs in page.tags if tag == "td" and "cell" in (attrs.get("class") or "").split()]
    assert len(cells) == 6  # the grid: 2 models x 3 variants
    charts = [attrs["id"] for tag, attrs in page.tags if tag == "figure" and "chart" in (attrs.get("class") or "")]
    svgs = sum(tag == "svg" for tag, _ in page.tags)
    assert len(charts) >= 3 and svgs >= len(charts), charts
    viewer = next(attrs for tag, attrs in page.tags if attrs.get("id") == "trace-viewer")
    assert viewer.get("data-ready") == "1"  # the index was decoded and the list drawn
    assert [r["data-row"] for r in rows(page)] == ["0", "1", "2", "3", "4"]  # the first page

    failed = frame[(frame["variant"] == "merge") & ~frame["success"].astype(bool)]
    assert 0 < len(failed) < len(frame)  # the filter has something to keep and something to drop
    filtered = dom(report, tmp_path, "traces?variant=merge&outcome=failure")
    kept = rows(filtered)
    assert len(kept) == len(failed)
    assert {(r["data-variant"], r["data-outcome"]) for r in kept} == {("merge", "failure")}
    assert f"of {len(failed)} matching" in "".join(filtered.text)
    opened = next(attrs for _, attrs in filtered.tags if "data-episode" in attrs)
    assert "@merge#" in opened["data-episode"]  # the first matching episode is opened

    # a search in the traces' text: the agent's answer after its calls were rejected
    failures = int((~frame["success"].astype(bool)).sum())
    searched = dom(report, tmp_path, "traces?q=" + quote("I could not run") + "&text=1")
    assert f"of {failures} matching" in "".join(searched.text)
    assert {r["data-outcome"] for r in rows(searched)} == {"failure"}
    second = dom(report, tmp_path, "traces?q=" + quote("I could not run") + "&text=1&page=2")
    assert len(rows(second)) == failures - PAGE_ROWS and f"Episodes 6–{failures} of" in "".join(second.text)
    # the third page, and an episode of the last chunk opened from a link (both runs hold its id)
    assert [r["data-row"] for r in rows(dom(report, tmp_path, "traces?page=3"))] == ["10", "11", "12", "13", "14"]
    last = frame.iloc[-1]
    episode = f"{last['task_id']}@{last['variant']}#{last['seed']}"
    for of, row in (("oracle", str(len(frame) - 1)), ("", str(len(frame) // 2 - 1))):
        linked = dom(report, tmp_path, f"traces?episode={quote(episode)}&of={of}")
        assert next(attrs for _, attrs in linked.tags if "data-episode" in attrs)["data-episode"] == episode
        assert next(r for r in rows(linked) if "tv-selected" in (r.get("class") or ""))["data-row"] == row

    shot = tmp_path / "report.png"
    chromium(report.as_uri() + "#traces?variant=merge&outcome=failure", tmp_path, f"--screenshot={shot}",
             "--window-size=1400,5200")  # fmt: skip
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")


def test_hostile_trace_text_creates_no_element_in_the_rendered_page(tmp_path: Path) -> None:
    run = hostile_run(tmp_path / "run")
    report = write_report([run], tmp_path / "report.html")
    html = report.read_text(encoding="utf-8")
    own = {text for attrs, text in Page.of(html).scripts if not attrs}
    assert_inert(html, own)
    page = dom(report, tmp_path, "traces?q=lock")
    assert_inert_dom(page, own)
    shown = "".join(page.text)
    assert next(attrs for _, attrs in page.tags if "data-episode" in attrs)  # an episode was rendered
    for text in HOSTILE[:5]:  # shown as text, in the messages the model saw and in its output
        assert text in shown
    shot = tmp_path / "hostile.png"
    chromium(report.as_uri() + "#traces?q=lock", tmp_path, f"--screenshot={shot}", "--window-size=1400,5200")
    print(f"screenshot: {shot}")


def assert_inert_dom(page: Page, own_scripts: set[str]) -> None:
    """The DOM after the scripts ran: no element the hostile text tried to create, no handler
    attribute, no ``data-pwned`` (set by a hostile handler or script had one run)."""
    for tag, attrs in page.tags:
        assert tag not in ("img", "textarea", "iframe", "object"), f"an injected <{tag}> element in the DOM"
        assert "data-pwned" not in attrs
        assert not any(name.startswith("on") for name in attrs)
    for attrs, text in page.scripts:
        assert attrs.get("type") == "application/octet-stream" or text in own_scripts
