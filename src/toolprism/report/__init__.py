"""``toolprism report``: one self-contained HTML file (and figures, and a markdown summary) built
from stored run directories only; it never calls a model (DESIGN.md: ``report`` reads stored
results).

Build a report with :func:`write_report` (paths in, HTML file out), or step by step:
:func:`load_runs`, :func:`build_sections`, then :func:`render_page` / :func:`write_html`,
:func:`write_figures` (PNG and SVG per chart) and :func:`render_markdown`.
"""

from toolprism.report._page import (
    build_sections,
    chart_svg,
    decode_data,
    render_markdown,
    render_page,
    report_title,
    write_figures,
    write_html,
    write_report,
)
from toolprism.report._section import Chart, LoadedRun, Section, load_runs

__all__ = [
    "Chart",
    "LoadedRun",
    "Section",
    "build_sections",
    "chart_svg",
    "decode_data",
    "load_runs",
    "render_markdown",
    "render_page",
    "report_title",
    "write_figures",
    "write_html",
    "write_report",
]
