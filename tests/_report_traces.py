"""Shared by the trace-viewer tests (``tests/report/``): hostile text, the stored runs that carry it,
and an HTML reader. Import as ``from _report_traces import ...`` (pytest puts ``tests/`` on the path
through ``tests/conftest.py``'s directory, as for ``_tiny_hf``)."""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend, ScriptedTurns

HOSTILE = [
    "<script>alert('s')</script>",
    "</textarea><b>t</b>",
    "</script><script>alert('x')</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(2)">click</a>',
    "javascript:alert(3)",
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned', 'img')\">",
    "<script>document.documentElement.setAttribute('data-pwned', 'script')</script>",
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


class Page(HTMLParser):
    """Every element of a page, its attributes and each script element's type, id and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []
        self.text: list[str] = []

    @classmethod
    def of(cls, html: str) -> Page:
        page = cls()
        page.feed(html)
        page.close()
        return page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        self.text.append(data)
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
    page = Page.of(html)
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
