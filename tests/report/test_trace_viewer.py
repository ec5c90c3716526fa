"""The report's trace viewer: every episode in a compact index and compressed chunks, hostile text
inert (issue 16, "Security and size"), and in headless Chromium the rendered page."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import re

import pytest
from _report_traces import HOSTILE, HOSTILE_TEXT, Page, assert_inert, edit_traces, hostile_run, oracle_run, unpack

from toolprism.report import load_runs
from toolprism.report._trace_viewer import VIEWER_SCRIPT
from toolprism.report._traces import CHUNK_EPISODES, OUTCOMES, trace_payload, trace_section, well_formed


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
    found = Page.of(str(section.html)).octet
    assert set(found) == {"traces-tools"} | {f"traces-chunk-{i}" for i in range(len(chunks))}
    assert unpack(found["traces-chunk-0"]) == json.loads(json.dumps(chunks[0]))
    assert "18 episodes (18 succeeded, 0 failed, 0 not scored)" in section.html
    assert "18 succeeded" in section.markdown


def test_episodes_of_several_runs_are_told_apart_by_run(oracle) -> None:
    twice = [oracle[0], dataclasses.replace(oracle[0], label="again")]
    index, chunks, _ = trace_payload(twice)
    runs = [index["values"]["run"][i] for i in index["rows"]["run"]]
    assert runs == ["run"] * 18 + ["again"] * 18
    assert [b["run"] for chunk in chunks for b in chunk] == runs


def test_no_runs_no_section() -> None:
    assert trace_section([]) is None


def test_the_viewer_script_never_parses_data_as_html() -> None:
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".href"):
        assert sink not in VIEWER_SCRIPT
    assert "</script" not in VIEWER_SCRIPT.lower()


def test_hostile_text_in_traces_is_carried_as_data_and_never_as_markup(hostile) -> None:
    section = trace_section(hostile)
    html = minimal_page(section)
    assert_inert(html, {section.script})
    # the hostile text did reach the page, inside the compressed chunks (the test is not vacuous)
    blocks = Page.of(html).octet
    bodies = [b for i in range(section.html.count("traces-chunk-")) for b in unpack(blocks[f"traces-chunk-{i}"])]
    seen = json.dumps(bodies)
    for text in HOSTILE[:-1]:
        assert json.dumps(text)[1:-1] in seen
    # broken UTF-8: each lone surrogate is shown as U+FFFD (it has no UTF-8 form; a DOM holding one
    # crashes Chromium's serialisation)
    assert json.dumps(HOSTILE[-1].replace("\ud800", "\ufffd").replace("\udcff", "\ufffd"))[1:-1] in seen
    assert not re.search("[\ud800-\udfff]", json.dumps(bodies, ensure_ascii=False))
    assert all(b["task"]["query"] == well_formed(HOSTILE_TEXT) for b in bodies)
    # the model's own output (the runner stores lone surrogates in it as U+FFFD)
    assert any(all(text in t["raw"] for text in HOSTILE[:-1]) for b in bodies for t in b["turns"])
    assert any(c["name"] == "<img src=x onerror=alert(1)>" for b in bodies for t in b["turns"] for c in t["calls"])
