"""The report's trace viewer: every episode in a compact index and compressed chunks, hostile text
inert (issue 16, "Security and size"), and in headless Chromium the rendered page."""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.report import load_runs
from toolprism.report._trace_viewer import VIEWER_SCRIPT
from toolprism.report._traces import CHUNK_EPISODES, OUTCOMES, trace_payload, trace_section

HOSTILE = [
    "<script>alert('s')</script>",
    "</textarea><b>t</b>",
    "</script><script>alert('x')</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(2)">click</a>',
    "javascript:alert(3)",
    "lone \ud800 surrogate, escaped byte \udcff, replacement \ufffd, nul \x00, separators \u2028\u2029",
]
"""Untrusted text put into stored traces: markup that would run if it reached the page as HTML,
and broken UTF-8 (lone surrogates, what Python makes of invalid bytes)."""
HOSTILE_TEXT = " | ".join(HOSTILE)


def unpack(text: str) -> object:
    """What the viewer does in the browser: base64, gunzip, JSON."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def oracle_run(path: Path) -> Path:
    """Two variants, clean and two perturbed conditions (payload and runtime injections)."""
    config = RunConfig(
        model="oracle", domains=["smart_home"], variants=["native", "merge"], tasks=3,
        perturbations=["C2:medium", "D1:heavy"],
    )  # fmt: skip
    evaluate(config, run_dir=path)
    return path


def hostile_run(path: Path) -> Path:
    """A scripted model that emits hostile text (its raw output, a call's arguments, its answer),
    then stored traces edited so that the tool returns and the request as posed (the first user
    message) carry it too (see :func:`edit_traces`)."""
    turns = ScriptedTurns()
    script = [turns.call("<img src=x onerror=alert(1)>", {"room": HOSTILE_TEXT}), turns.answer(HOSTILE_TEXT)]
    evaluate(
        RunConfig(model="scripted", domains=["smart_home"], variants=["native"], tasks=2),
        run_dir=path,
        backend=ScriptedBackend(script),
    )
    edit_traces(path, task=False)
    return path


def edit_traces(path: Path, *, task: bool) -> None:
    """Put :data:`HOSTILE_TEXT` in every stored trace's tool returns and user messages, and with
    ``task`` in its task's query (a run whose stored task differs from its pins is refused by the
    scorer, so that edit is made after the run was loaded)."""
    db = sqlite3.connect(path / "results.sqlite")
    with db:
        for episode_id, text in db.execute("SELECT episode_id, trace FROM traces").fetchall():
            trace = json.loads(text)
            if task:
                trace["task"]["query"] = HOSTILE_TEXT
            for message in trace["messages"]:
                if message["role"] in ("tool", "user"):
                    message["content"] = HOSTILE_TEXT
            # ensure_ascii: lone surrogates stored as \ud800 escapes, as json writes them
            db.execute("UPDATE traces SET trace = ? WHERE episode_id = ?", (json.dumps(trace), episode_id))
    db.close()


def minimal_page(section) -> str:
    """The section in a bare page, embedded the way the report page embeds a section's data."""
    data = base64.b64encode(gzip.compress(json.dumps(section.data).encode())).decode()
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>t</title></head><body>"
        f"<section id='{section.id}'><h2>{section.title}</h2>{section.html}</section>"
        f"<script type='application/octet-stream' id='data-{section.id}'>{data}</script>"
        f"<script>{section.script}</script></body></html>"
    )


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory):
    return load_runs([oracle_run(tmp_path_factory.mktemp("oracle") / "run")])


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory):
    runs = load_runs([hostile_run(tmp_path_factory.mktemp("hostile") / "run")])
    edit_traces(runs[0].path, task=True)
    return runs


def test_every_episode_is_indexed_and_its_body_is_in_its_chunk(oracle) -> None:
    index, chunks, tools = trace_payload(oracle)
    frame = oracle[0].frame
    rows, values = index["rows"], index["values"]
    assert len(rows["task"]) == len(frame) == 18  # 3 tasks x 2 variants x 3 conditions
    assert values["outcome"] == list(OUTCOMES)
    bodies = [b for chunk in chunks for b in chunk]
    assert [len(c) for c in chunks[:-1]] == [CHUNK_EPISODES] * (len(chunks) - 1)
    for k, body in enumerate(bodies):
        assert body["variant"] == values["variant"][rows["variant"][k]]
        assert body["condition"] == values["condition"][rows["condition"][k]]
        assert body["outcome"] == values["outcome"][rows["outcome"][k]]
        assert body["id"].startswith(values["task"][rows["task"][k]] + "@")
        assert isinstance(tools[body["tools"]], list) and tools[body["tools"]]
    expected = ["success" if s else "failure" for s in frame["success"]]
    assert [values["outcome"][i] for i in rows["outcome"]] == expected
    # the tool lists are stored once per distinct list, not once per episode
    assert len(tools) < len(bodies)
    # perturbed episodes carry their injections; the runtime ones point at a native call
    perturbed = [b for b in bodies if b["condition"]]
    assert perturbed and all(b["injections"] for b in perturbed)
    runtime = [i for b in bodies for i in b["injections"] if i["site"] == "runtime"]
    assert runtime and all(isinstance(i["call"], int) for i in runtime)
    executed = [c for b in bodies for t in b["turns"] for c in t["calls"] if c["outcome"] == "executed"]
    assert executed and all(c["action"]["op"] for c in executed)


def test_a_section_embeds_the_chunks_it_was_built_from(oracle) -> None:
    section = trace_section(oracle)
    assert section is not None and section.id == "traces" and section.script == VIEWER_SCRIPT
    _, chunks, _ = trace_payload(oracle)
    found = _Page.of(str(section.html)).octet
    assert set(found) == {"traces-tools"} | {f"traces-chunk-{i}" for i in range(len(chunks))}
    assert unpack(found["traces-chunk-0"]) == json.loads(json.dumps(chunks[0]))
    assert "18 episodes (18 succeeded, 0 failed, 0 not scored)" in section.html
    assert "18 succeeded" in section.markdown


def test_no_runs_no_section() -> None:
    assert trace_section([]) is None


def test_the_viewer_script_never_parses_data_as_html() -> None:
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".href"):
        assert sink not in VIEWER_SCRIPT
    assert "</script" not in VIEWER_SCRIPT.lower()


class _Page(HTMLParser):
    """Every element of a page, its attributes and each script element's type, id and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []

    @classmethod
    def of(cls, html: str) -> _Page:
        page = cls()
        page.feed(html)
        page.close()
        return page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None

    @property
    def octet(self) -> dict[str, str]:
        return {a["id"]: text for a, text in self.scripts if a.get("type") == "application/octet-stream"}


def assert_inert(html: str, own_scripts: set[str]) -> None:
    """No executable injection: only our own script elements (data blocks, whose base64 body
    cannot hold markup, and our code), no event-handler attribute, no javascript: URL, and none of
    the elements the hostile text tries to create."""
    page = _Page.of(html)
    for attrs, text in page.scripts:
        if attrs.get("type") == "application/octet-stream":
            assert set(attrs) == {"type", "id"} and text.strip().isascii()
            base64.b64decode(text, validate=True)
        else:
            assert not attrs and text in own_scripts, f"a script element we did not write: {text[:80]!r}"
    for tag, attrs in page.tags:
        assert tag not in ("img", "textarea", "iframe", "object"), f"an injected <{tag}> element"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"an event handler attribute {name}"
            assert "javascript:" not in (value or "").replace(" ", "").lower()


def test_hostile_text_in_traces_is_carried_as_data_and_never_as_markup(hostile) -> None:
    section = trace_section(hostile)
    html = minimal_page(section)
    assert_inert(html, {section.script})
    # the hostile text did reach the page, inside the compressed chunks (the test is not vacuous)
    blocks = _Page.of(html).octet
    bodies = [b for i in range(section.html.count("traces-chunk-")) for b in unpack(blocks[f"traces-chunk-{i}"])]
    seen = json.dumps(bodies)
    for text in HOSTILE:
        assert json.dumps(text)[1:-1] in seen
    assert all(b["task"]["query"] == HOSTILE_TEXT for b in bodies)
    # the model's own output (the runner stores lone surrogates in it as U+FFFD)
    assert any(all(text in t["raw"] for text in HOSTILE[:-1]) for b in bodies for t in b["turns"])
    assert any(c["name"] == "<img src=x onerror=alert(1)>" for b in bodies for t in b["turns"] for c in t["calls"])
