"""The trace viewer: every stored episode, browsable and filterable in the report page.

What the page holds (issue 16, "Security and size"):

- an **index** (the section's ``data``, embedded gzip-compressed by the page): one small row per
  episode, columnar, with the filter values (run, model, domain, variant, condition, outcome,
  failure mode, primary error) as indexes into lists of distinct values, so that 50,000 episodes
  cost about a byte or two per field once compressed;
- the **episode bodies**, :data:`CHUNK_EPISODES` to a chunk, each chunk gzip-compressed and
  base64-encoded in a ``<script type="application/octet-stream">`` element that the viewer decodes
  only when one of its episodes is opened (``DecompressionStream``); the tool lists shown, which
  repeat across the episodes of a variant, are stored once in a chunk of their own;
- the viewer (:data:`toolprism.report._trace_viewer.VIEWER_SCRIPT`): filters, a list of
  :data:`PAGE_ROWS` rows a page, and the selected episode. It builds the DOM with
  ``createElement``/``textContent`` only; its state is in the URL hash
  (``#traces?variant=native&outcome=failure&episode=...``), so a filtered view is a link.

Embedded text can never close its script element: base64 has no ``<``. Lone surrogates (text
decoded from invalid bytes) are replaced by U+FFFD (:func:`well_formed`).
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from markupsafe import Markup

from toolprism.report._section import LoadedRun, Section
from toolprism.report._trace_viewer import VIEWER_CSS, VIEWER_SCRIPT
from toolprism.run import UNSCORED_ENDS, RunStore, Trace

CHUNK_EPISODES = 64
"""Episode bodies per compressed chunk: opening an episode decodes one chunk (about 64 traces)."""
PAGE_ROWS = 50
"""Rows of the episode list per page."""
FILTERS = ("run", "model", "domain", "variant", "condition", "outcome", "mode", "error")
"""The index's categorical columns, in the order the viewer shows their filters (``error``: the
primary error of the attribution)."""
OUTCOMES = ("success", "failure", "not scored")
"""An episode's outcome: scored and successful, scored and failed, or not scored (its end is one of
:data:`toolprism.run.UNSCORED_ENDS`)."""
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point in a Python string is always lone (a valid pair decodes to one character)."""
SCORE_COLUMNS = (
    "success", "schema_form_success", "mode", "protocol", "S1", "S2", "S3", "S4", "S5", "earliest_failed_stage",
    "source_stage", "cascade", "boundary_violation", "primary_error", "trb_observed_error", "trb_primary_error",
)  # fmt: skip
"""Columns of :func:`toolprism.score.episode_frame` a body carries as its score and attribution."""


def trace_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The trace viewer over every stored episode of ``runs`` (None when they hold no episode).

    Each chunk is compressed as soon as it is full, so building the section holds one chunk of
    decoded traces at a time (a run of 50,000 episodes would not fit in memory as Python objects).

    Returns:
        A :class:`Section` with id ``traces``: ``data`` is the index (see :func:`trace_payload`),
        ``html`` the viewer's skeleton with the compressed chunks, ``script`` the viewer.

    Raises:
        ConfigError: a run directory cannot be reopened, or a trace is missing or damaged
            (:meth:`toolprism.run.RunStore.trace`).
    """
    chunks: list[str] = []
    index, tools = _walk(runs, lambda chunk: chunks.append(packed(chunk)))
    if not index["rows"]["task"]:
        return None
    return Section(
        id="traces",
        title="Trace viewer",
        html=_skeleton(index, chunks, tools),
        markdown=_markdown(index),
        script=VIEWER_SCRIPT,
        data=index,
    )


def trace_payload(runs: Sequence[LoadedRun]) -> tuple[dict[str, Any], list[list[dict[str, Any]]], list[Any]]:
    """The viewer's data, decoded: the index, the episode bodies in chunks, and the distinct tool lists.

    Returns:
        ``(index, chunks, tools)``. ``index`` is ``{"page_rows", "chunk_episodes", "filters",
        "values": {column: [distinct values]}, "rows": {column: [int per episode]}}``; the columns
        are :data:`FILTERS` (indexes into ``values``) plus ``task`` (index into ``values["task"]``),
        ``seed`` and ``turns`` (plain integers). Episode ``k`` (in run order, then recording order)
        is ``chunks[k // chunk_episodes][k % chunk_episodes]``: a JSON object with its id, task,
        variant, condition, messages, turns and calls (the adapter's decoding, or its rejection),
        native actions, perturbations and injections, ``score`` (:data:`SCORE_COLUMNS`) and
        ``tools``, an index into ``tools``.
    """
    chunks: list[list[dict[str, Any]]] = []
    index, tools = _walk(runs, chunks.append)
    return index, chunks, tools


def _walk(
    runs: Sequence[LoadedRun], on_chunk: Callable[[list[dict[str, Any]]], None]
) -> tuple[dict[str, Any], list[Any]]:
    """Read every stored episode of ``runs``: the index and the tool lists are returned, each full
    chunk of bodies (and the last one) is handed to ``on_chunk`` (see :func:`trace_payload`)."""
    values: dict[str, _Values] = {name: _Values() for name in (*FILTERS, "task")}
    values["outcome"].extend(OUTCOMES)
    rows: dict[str, list[int]] = {name: [] for name in (*FILTERS, "task", "seed", "turns")}
    tools = _Values()
    chunk_episodes = CHUNK_EPISODES
    pending: list[dict[str, Any]] = []
    for run in runs:
        scores = _scores_by_episode(run)
        store = RunStore.open(run.path)
        try:
            model = store.header.config.model or "?"
            for result in store.results():
                trace = store.trace(result.episode_id)
                score = scores.get((result.task_id, result.variant, result.condition or "", result.seed), {})
                outcome = _outcome(trace, score)
                cells = {
                    "run": run.label,
                    "model": model,
                    "domain": trace.task.domain,
                    "variant": trace.variant,
                    "condition": trace.condition,
                    "outcome": outcome,
                    "mode": score.get("mode") or "",
                    "error": score.get("primary_error") or "",
                    "task": trace.task.id,
                }
                for name, value in cells.items():
                    rows[name].append(values[name].add(value))
                rows["seed"].append(trace.seed)
                rows["turns"].append(len(trace.turns))
                pending.append(_body(trace, run.label, model, outcome, score, tools.add(trace.tools)))
                if len(pending) == chunk_episodes:
                    on_chunk(pending)
                    pending = []
        finally:
            store.close()
    if pending:
        on_chunk(pending)
    index = {
        "page_rows": PAGE_ROWS,
        "chunk_episodes": chunk_episodes,
        "filters": list(FILTERS),
        "values": well_formed({name: v.items for name, v in values.items()}),  # the page encodes it as UTF-8
        "rows": rows,
    }
    return index, tools.items


def packed(payload: Any) -> str:
    """``payload`` as the page embeds data: compact JSON (UTF-8, lone surrogates replaced, see
    :func:`well_formed`), gzip-compressed (fixed mtime: the same payload gives the same text), base64."""
    return base64.b64encode(gzip.compress(_json(payload).encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")


def well_formed(payload: Any) -> Any:
    """``payload`` (JSON) with every lone surrogate in its strings replaced by U+FFFD.

    A lone surrogate (what Python makes of invalid UTF-8 bytes with ``surrogateescape``, or a
    ``\\ud800`` escape in stored JSON) is no character: it cannot be encoded as UTF-8, and a
    browser's DOM serialisation (Chromium's ``--dump-dom``) crashes on one. The viewer shows it as
    the replacement character, as a browser shows an invalid byte."""
    return json.loads(_json(payload))


def _json(payload: Any) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return LONE_SURROGATE.sub("\ufffd", text)


def embedded(element_id: str, payload: Any) -> Markup:
    """A ``<script type="application/octet-stream">`` element holding :func:`packed` ``payload``:
    never executed, and its body (base64) cannot close the element."""
    return _block(element_id, packed(payload))


def _block(element_id: str, text: str) -> Markup:
    """The element of :func:`embedded` around text already packed."""
    return Markup('<script type="application/octet-stream" id="{}">{}</script>\n').format(element_id, Markup(text))


class _Values:
    """Distinct values in first-seen order, each with its index (values compared as JSON)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, value: Any) -> int:
        key = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(value)
        return self._index[key]

    def extend(self, items: Iterable[Any]) -> None:
        for item in items:
            self.add(item)


def _scores_by_episode(run: LoadedRun) -> dict[tuple[str, str, str, int], dict[str, Any]]:
    """The frame's score columns per episode, keyed by ``(task_id, variant, condition, seed)``
    (what an episode id is made of)."""
    frame = run.frame
    columns = [c for c in SCORE_COLUMNS if c in frame.columns]
    keyed = {}
    for row in frame.to_dict("records"):
        key = (str(row["task_id"]), str(row["variant"]), str(row["condition"] or ""), int(row["seed"]))
        keyed[key] = {c: _plain(row[c]) for c in columns}
    return keyed


def _plain(value: Any) -> Any:
    """A frame cell as JSON: numpy scalars as Python values, NaN and None as None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _outcome(trace: Trace, score: dict[str, Any]) -> str:
    if trace.end in UNSCORED_ENDS or score.get("success") is None:
        return "not scored"
    return "success" if score["success"] else "failure"


def _body(trace: Trace, run: str, model: str, outcome: str, score: dict[str, Any], tools: int) -> dict[str, Any]:
    """One episode as the viewer shows it (JSON; see :func:`trace_payload`)."""
    return {
        "id": trace.episode_id,
        "run": run,
        "model": model,
        "settings": trace.model,
        "task": trace.task.model_dump(mode="json", include={"id", "domain", "query", "kind", "form", "gold"}),
        "variant": trace.variant,
        "spec": trace.spec,
        "condition": trace.condition,
        "control": trace.control,
        "seed": trace.seed,
        "end": trace.end,
        "error": trace.error,
        "max_turns": trace.max_turns,
        "duration_ms": round(trace.duration_ms, 1),
        "outcome": outcome,
        "score": score,
        "perturbations": [
            {"subtype": p.subtype, "severity": p.severity, "target": p.target, "stage": p.primary_stage}
            for p in trace.perturbations
        ],
        "injections": [i.model_dump(mode="json") for i in trace.injections],
        "tools": tools,
        "messages": trace.messages,
        "turns": [_turn(t) for t in trace.turns],
        "actions": [a.model_dump(mode="json") for a in trace.actions],
    }


def _turn(turn: Any) -> dict[str, Any]:
    calls = []
    for call in turn.calls:
        record = {
            "id": call.id,
            "name": call.name,
            "raw": call.raw_arguments,
            "outcome": call.outcome,
            "path": [p.model_dump(mode="json") for p in call.path],
            "layer": call.layer,
        }
        if call.action is not None:
            record["action"] = call.action.model_dump(mode="json")
        if call.rejection is not None:  # the message the model was shown is the reply
            record["rejection"] = str(call.rejection.value)
            record["reply"] = call.reply
        calls.append(record)
    return {
        "prompt": turn.prompt_messages,
        "raw": turn.raw,
        "content": turn.content,
        "error": turn.error,
        "latency_ms": round(turn.latency_ms, 1),
        "tokens": [turn.prompt_tokens, turn.completion_tokens],
        "calls": calls,
    }


def _skeleton(index: dict[str, Any], chunks: Sequence[str], tools: list[Any]) -> Markup:
    """The section's HTML: a note, the viewer's mount point, the tool lists and the chunks (already
    :func:`packed`); all our markup, counts escaped."""
    rows = index["rows"]
    total = len(rows["task"])
    counts = {name: rows["outcome"].count(i) for i, name in enumerate(OUTCOMES)}
    parts = [
        Markup("<style>{}</style>\n").format(Markup(VIEWER_CSS)),
        Markup(
            '<p class="tv-note">{} episodes ({} succeeded, {} failed, {} not scored) from {} run(s). '
            "Filter them and open one to see what the model saw and did. The filters are kept in the page "
            "address (<code>#traces?outcome=failure</code>): a filtered view is a link you can share.</p>\n"
        ).format(total, counts["success"], counts["failure"], counts["not scored"], len(index["values"]["run"])),
        Markup(
            '<div id="trace-viewer" data-episodes="{}" data-chunks="{}"><noscript>The trace viewer needs '
            "JavaScript.</noscript></div>\n"
        ).format(total, len(chunks)),
        embedded("traces-tools", tools),
    ]
    parts += [_block(f"traces-chunk-{i}", chunk) for i, chunk in enumerate(chunks)]
    return Markup("").join(parts)


def _markdown(index: dict[str, Any]) -> str:
    rows = index["rows"]
    counts = {name: rows["outcome"].count(i) for i, name in enumerate(OUTCOMES)}
    modes: dict[str, int] = {}
    for i in rows["mode"]:
        if mode := index["values"]["mode"][i]:
            modes[mode] = modes.get(mode, 0) + 1
    lines = [
        f"{len(rows['task'])} episodes: {counts['success']} succeeded, {counts['failure']} failed, "
        f"{counts['not scored']} not scored. Open the HTML report's trace viewer to read them.",
    ]
    if modes:
        lines += ["", "| failure mode | episodes |", "|---|---:|"]
        lines += [f"| {mode} | {n} |" for mode, n in sorted(modes.items(), key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join(lines)
