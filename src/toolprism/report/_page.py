"""The page: every section in one self-contained HTML document, the figures for papers, and the
markdown summary.

The document opens offline: styles and scripts are inlined, charts are inline SVG (text kept as
text), each section's data is embedded gzip-compressed and base64-encoded, and nothing refers to
an external URL (no CDN, no web font). Everything is rendered by jinja2 with autoescaping.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import warnings
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from markupsafe import Markup

from toolprism._version import __version__
from toolprism.errors import ConfigError
from toolprism.report._comparison import comparison_section
from toolprism.report._failures import failure_section
from toolprism.report._grid import grid_section
from toolprism.report._html import render
from toolprism.report._ladder import ladder_section
from toolprism.report._mitigations import mitigation_section
from toolprism.report._overview import overview_section
from toolprism.report._perturbations import perturbation_section
from toolprism.report._probes import probe_section
from toolprism.report._section import Chart, LoadedRun, Section, load_runs
from toolprism.report._traces import trace_section

FIGURE_FORMATS = ("png", "svg")
"""What ``--figures DIR`` writes per chart."""

PNG_DPI = 200
"""Resolution of the PNG figures (dots per inch)."""

_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
_NAMESPACES = re.compile(r'\s+xmlns(?::xlink)?="http://www\.w3\.org/[^"]*"')

_CSS = """
:root{--ink:#1d2330;--muted:#5b6475;--line:#dfe3ea;--bg:#f6f7f9;--card:#fff;--accent:#2166ac}
*{box-sizing:border-box}
html{scroll-behavior:smooth;scroll-padding-top:3.5rem}
body{margin:0;background:var(--bg);color:var(--ink);
 font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header.page{background:#1d2330;color:#fff;padding:1.4rem 2rem 1.1rem}
header.page h1{margin:0;font-size:1.5rem;font-weight:600}
header.page p{margin:.3rem 0 0;color:#c5ccd8;font-size:.9rem}
nav.sections{position:sticky;top:0;z-index:10;background:#fff;border-bottom:1px solid var(--line);
 padding:.45rem 2rem;display:flex;flex-wrap:wrap;gap:.25rem 1.1rem}
nav.sections a{color:var(--ink);text-decoration:none;font-size:.9rem;padding:.15rem 0;
 border-bottom:2px solid transparent}
nav.sections a:hover{border-bottom-color:var(--accent);color:var(--accent)}
main{max-width:1320px;margin:0 auto;padding:1.2rem 2rem 3rem}
section.report{background:var(--card);border:1px solid var(--line);border-radius:8px;
 padding:1rem 1.4rem 1.3rem;margin:0 0 1.3rem}
section.report>h2{margin:.1rem 0 .7rem;font-size:1.2rem;font-weight:600}
h3{font-size:1rem;margin:1.1rem 0 .4rem}
p.note,.muted{color:var(--muted)}
p.note{font-size:.88rem;margin:.3rem 0 .6rem}
p.warning{background:#fff4e5;border-left:4px solid #e8a33d;padding:.5rem .8rem;font-size:.9rem}
table{border-collapse:collapse;font-size:.85rem;margin:.3rem 0 .8rem}
th,td{padding:.28rem .6rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;background:#f0f2f5}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}
table.kv th{background:none;color:var(--muted);font-weight:500;white-space:nowrap}
table.grid td.cell{text-align:center;min-width:3.9rem;border:2px solid #fff;padding:.3rem .25rem;
 font-variant-numeric:tabular-nums;line-height:1.2;white-space:nowrap}
table.grid td.cell b{display:block;font-size:1rem;font-weight:600}
table.grid td.cell small{display:block;font-size:.68rem;opacity:.85}
table.grid th.corner{vertical-align:bottom;background:#fff}
table.grid td.gap{min-width:8.5rem;max-width:11rem;font-size:.8rem;border-right:2px solid var(--line)}
table.grid td.gap b{font-size:1rem;font-variant-numeric:tabular-nums}
table.grid td.gap small{display:block;color:var(--muted);line-height:1.25}
table.grid td.row,table.grid th.corner:first-child{position:sticky;left:0;background:#fff;z-index:1}
table.grid th.family{text-align:center;font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;
 color:var(--muted);background:#f7f8fa;border-left:2px solid #fff;white-space:pre-line;vertical-align:bottom}
table.grid th.variant{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;
 font-weight:500;font-size:.8rem;padding:.5rem .2rem;text-align:left;vertical-align:bottom;
 background:#fff}
table.grid td.row{white-space:nowrap;font-weight:500}
table.grid td.row small{display:block;color:var(--muted);font-weight:400}
.legend{display:flex;align-items:center;gap:.4rem;font-size:.78rem;color:var(--muted);margin:.2rem 0 .6rem}
.legend .ramp{width:180px;height:10px;border-radius:2px}
.pos{color:#1a7f37}.neg{color:#b42318}.sig{font-weight:600}
figure.chart{margin:1rem 0 .4rem;padding:0}
figure.chart svg{max-width:100%;height:auto;display:block}
figure.chart svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif!important}
figure.chart figcaption{font-size:.85rem;color:var(--muted);margin-top:.3rem;max-width:70rem}
details>summary{cursor:pointer;color:var(--accent);font-size:.88rem;margin:.2rem 0 .4rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em;
 background:#f0f2f5;padding:.05rem .25rem;border-radius:3px}
footer.page{color:var(--muted);font-size:.8rem;text-align:center;padding:0 0 2rem}
@media print{nav.sections{display:none}section.report{break-inside:avoid;border:none}}
"""

_BASE_SCRIPT = """
// toolprism.data(sectionId): the section's embedded data (gzip + base64 JSON), decoded; a Promise.
window.toolprism = window.toolprism || {};
window.toolprism.data = async function (id) {
  const el = document.getElementById("data-" + id);
  if (!el) return null;
  const bytes = Uint8Array.from(atob(el.textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
};
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="toolprism {{ version }}">
<title>{{ title }}</title>
<style>{{ css }}</style>
</head>
<body>
<header class="page">
<h1>{{ title }}</h1>
{% if subtitle %}<p>{{ subtitle }}</p>{% endif %}
</header>
<nav class="sections" aria-label="sections">
{% for s in sections %}<a href="#{{ s.id }}">{{ s.title }}</a>
{% endfor %}
</nav>
<main>
{% for s in sections %}
<section class="report" id="{{ s.id }}">
<h2>{{ s.title }}</h2>
{{ s.html }}
{% for c in charts[loop.index0] %}
<figure class="chart" id="chart-{{ c.name }}">
{{ c.svg }}
{% if c.caption %}<figcaption>{{ c.caption }}</figcaption>{% endif %}
</figure>
{% endfor %}
</section>
{% endfor %}
</main>
<footer class="page">made by toolprism {{ version }} from stored results only (no model was called)</footer>
{% for id, payload in data %}
<script type="application/octet-stream" id="data-{{ id }}">{{ payload }}</script>
{% endfor %}
<script>{{ base_script }}</script>
{% for script in scripts %}
<script>{{ script }}</script>
{% endfor %}
</body>
</html>
"""


def chart_svg(chart: Chart) -> Markup:
    """``chart``'s figure as an inline ``<svg>`` element: text kept as text (``svg.fonttype``
    ``none``), no XML prolog, doctype, RDF metadata or namespace declarations (an inline SVG in
    HTML needs none, and the page then names no URL at all), ids salted with the chart's name (unique across the page,
    deterministic)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"toolprism-{chart.name}"}):
        _save(chart, buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = _METADATA.sub("", text[text.index("<svg") :], count=1)
    return Markup(_NAMESPACES.sub("", text, count=2))


def _inline_script(script: str) -> Markup:
    """Our own script, made safe to inline: a ``</`` could end the ``<script>`` element early."""
    return Markup(re.sub(r"</", r"<\\/", script))


def _encode_data(data: Any) -> str:
    """JSON, gzip-compressed (mtime 0: deterministic) and base64-encoded. Non-ASCII is escaped, so
    text with a lone surrogate (broken UTF-8 in a model's output) encodes instead of failing."""
    raw = json.dumps(data, ensure_ascii=True, separators=(",", ":"), default=str).encode("ascii")
    return base64.b64encode(gzip.compress(raw, mtime=0)).decode("ascii")


def decode_data(payload: str) -> Any:
    """The inverse of the page's data encoding (base64, gzip, JSON): for tests and tools."""
    return json.loads(gzip.decompress(base64.b64decode(payload)).decode("utf-8"))


def render_page(title: str, sections: Sequence[Section], *, subtitle: str = "") -> str:
    """One self-contained HTML document of ``sections``, in order.

    Layout: a header (``title``, ``subtitle``), a nav of the sections, then per section its
    ``html``, its charts as ``<figure class="chart" id="chart-<name>">`` (inline SVG and the
    caption), each section's ``data`` in ``<script type="application/octet-stream"
    id="data-<section id>">`` (gzip + base64 JSON; the page's ``toolprism.data(id)`` decodes it),
    and each distinct ``script`` once at the end. Titles, captions and ids are escaped; ``html``
    is inserted as the safe markup it is.

    Raises:
        ConfigError: two sections share an id, or two charts share a name.
    """
    _check_unique(sections)
    charts = [
        [{"name": c.name, "caption": c.caption, "svg": chart_svg(c)} for c in s.charts if c.page] for s in sections
    ]
    data = [(s.id, _encode_data(s.data)) for s in sections if s.data is not None]
    scripts = list(dict.fromkeys(s.script for s in sections if s.script.strip()))
    return render(
        _TEMPLATE,
        title=title,
        subtitle=subtitle,
        sections=sections,
        charts=charts,
        data=data,
        css=Markup(_CSS),
        base_script=_inline_script(_BASE_SCRIPT),
        scripts=[_inline_script(s) for s in scripts],
        version=__version__,
    )


def _check_unique(sections: Sequence[Section]) -> None:
    problems = []
    ids = [s.id for s in sections]
    names = [c.name for s in sections for c in s.charts]
    problems += [f"section id {i!r} is used twice" for i in sorted({i for i in ids if ids.count(i) > 1})]
    problems += [f"chart name {n!r} is used twice" for n in sorted({n for n in names if names.count(n) > 1})]
    if problems:
        raise ConfigError(problems, what="report sections")


def build_sections(
    runs: Sequence[LoadedRun], probe_dirs: Sequence[Path] = (), *, trained: Collection[str] | None = None
) -> list[Section]:
    """Every section the runs have something for, in the page's order: overview, grid,
    comparison, mitigations (``trained``: the trained variants it marks), granularity ladder,
    failure modes, perturbations, probes, traces."""
    builders = (
        overview_section,
        grid_section,
        comparison_section,
        lambda r: mitigation_section(r, trained),
        ladder_section,
        failure_section,
        perturbation_section,
        lambda r: probe_section(r, probe_dirs),
        trace_section,
    )
    return [s for s in (build(runs) for build in builders) if s is not None]


def report_title(runs: Sequence[LoadedRun]) -> tuple[str, str]:
    """(title, subtitle) of a report on ``runs``."""
    labels = [r.label for r in runs]
    title = f"toolprism report: {labels[0]}" if len(labels) == 1 else f"toolprism report: {len(labels)} runs"
    models = list(dict.fromkeys(_model(r) for r in runs))
    episodes = sum(r.score.recorded for r in runs)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [", ".join(labels) if len(labels) > 1 else "", "model " + ", ".join(models), f"{episodes} episodes"]
    return title, " · ".join(p for p in parts if p) + f" · made {when}"


def _model(run: LoadedRun) -> str:
    return run.score.outcomes[0].model if run.score.outcomes else "?"


def write_report(
    paths: Sequence[Path | str],
    out: Path | str,
    *,
    probe_dirs: Sequence[Path | str] = (),
    trained: Collection[str] | None = None,
) -> Path:
    """Score the run directories ``paths`` and write the HTML report to ``out`` (replaced if it
    exists). Built from stored results only; no model is called. ``trained``: the trained variants
    the mitigation section marks (None: unmarked).

    Returns:
        ``out`` as a Path.

    Raises:
        ConfigError: a path is not a run directory (every bad path listed).
        OSError: ``out`` cannot be written.
    """
    runs = load_runs([Path(p) for p in paths])
    sections = build_sections(runs, [Path(p) for p in probe_dirs], trained=trained)
    return write_html(runs, sections, out)


def write_html(runs: Sequence[LoadedRun], sections: Sequence[Section], out: Path | str) -> Path:
    """Render ``sections`` of ``runs`` as the page and write it to ``out`` (UTF-8)."""
    title, subtitle = report_title(runs)
    out = Path(out)
    out.write_text(render_page(title, sections, subtitle=subtitle), encoding="utf-8")
    return out


def write_figures(runs_or_sections: Iterable[LoadedRun] | Iterable[Section], directory: Path | str) -> list[Path]:
    """Write every chart as ``<name>.png`` (:data:`PNG_DPI`) and ``<name>.svg`` (text as text) into
    ``directory`` (made if missing; files of the same name replaced).

    Args:
        runs_or_sections: loaded runs (their sections are built) or sections already built.

    Returns:
        The paths written, two per chart, in section order.

    Raises:
        OSError: the directory cannot be made or written.
    """
    import matplotlib

    items = list(runs_or_sections)
    sections = build_sections(items) if items and isinstance(items[0], LoadedRun) else items
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for chart in (c for s in sections for c in s.charts):
        for fmt in FIGURE_FORMATS:
            path = directory / f"{chart.name}.{fmt}"
            with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"toolprism-{chart.name}"}):
                metadata = {"Date": None} if fmt == "svg" else {"Software": f"toolprism {__version__}"}
                _save(chart, path, format=fmt, dpi=PNG_DPI, metadata=metadata)
            written.append(path)
    return written


def _save(chart: Chart, target: Any, **options: Any) -> None:
    """Save ``chart``'s figure with every label inside it (``bbox_inches="tight"``: long run or
    model names are not cut off); matplotlib's warning that a crowded layout could not be applied
    is not the user's business."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*constrained_layout not applied.*", category=UserWarning)
        chart.figure.savefig(target, bbox_inches="tight", pad_inches=0.05, **options)


def render_markdown(sections: Sequence[Section], *, title: str = "toolprism report") -> str:
    """The sections' markdown summaries (GitHub-flavoured), each under its title; sections without
    markdown are listed by title only."""
    parts = [f"# {title}"]
    for s in sections:
        body = s.markdown.strip() or "_(see the HTML report)_"
        parts.append(f"## {s.title}\n\n{body}")
    return "\n\n".join(parts) + "\n"
