"""The report's "Perturbations" section: ToolRobustBench's views of a perturbed run, from stored
results only.

- success against severity per family and per subtype (section 5, "Perturbation families and
  subtypes"; its clean 0.979, light 0.869, medium 0.724, heavy 0.491), each with its 95% interval
  and the clean success as a reference line;
- mixed pairs against their weaker constituent (section 6, Figure 4: mixed 0.448 vs weaker 0.621
  at medium), the delta with Newcombe's interval (:func:`toolprism.score.interactions`);
- primary-error shares per family and subtype, with cascade and boundary-violation rates
  (section 5, "Failure attribution"; :attr:`toolprism.score.RunScore.attribution`);
- runtime-report field match rates per subtype (section 5, "Runtime feedback": retryability
  0.949, failure type 0.917, status 0.783, final result 0.738; :attr:`RunScore.runtime`).

Every number comes from :attr:`LoadedRun.score` (:func:`toolprism.score.score_run`) except the
family pooling and the clean interval, computed from :attr:`LoadedRun.frame`
(:func:`toolprism.score.episode_frame`) over the same scored episodes. The small table and chart
helpers here (palette, figure, escaped tables in HTML and markdown) are shared with the probe
section.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from markupsafe import Markup

from toolprism.perturb import FAMILIES, SEVERITIES, SUBTYPES
from toolprism.report._html import interval, new_figure, pct, render, style_axes
from toolprism.report._ladder import PALETTE
from toolprism.report._section import Chart, LoadedRun, Section
from toolprism.run import UNSCORED_ENDS
from toolprism.score import TRB_ERROR_NAMES

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from toolprism.score import AttributionSummary, InteractionRow, RunScore

RUN_COLORS: tuple[str, ...] = PALETTE
"""The report's run colours (the ladder's :data:`toolprism.report._ladder.PALETTE`); run ``i`` of the
report is drawn in ``RUN_COLORS[i % 6]`` in every chart of the perturbation and probe sections."""
ERROR_COLORS: dict[str, str] = {
    "tool_misselection": "#0072B2",
    "schema_violation": "#E69F00",
    "incorrect_arguments": "#D55E00",
    "runtime_failure": "#CC79A7",
    "wrong_final_result": "#009E73",
}
"""ToolRobustBench error → its colour in the attribution chart (Okabe-Ito)."""
MIXED_COLOR, WEAKER_COLOR, NEUTRAL = PALETTE[1], PALETTE[0], "#444444"


# --- shared table and chart helpers ---------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table of plain-text cells, rendered escaped in HTML and markdown.

    Attributes:
        title: heading; ``note``: a sentence under it (both plain text).
        header: column names; ``rows``: cell strings; ``text_columns``: how many leading columns
            are text (left-aligned; the rest are numbers, right-aligned).
    """

    title: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    text_columns: int = 1
    note: str = ""


_TABLES = """\
{% if intro %}<p>{{ intro }}</p>{% endif %}
{% if points %}<ul class="findings">{% for p in points %}<li>{{ p }}</li>{% endfor %}</ul>{% endif %}
{% for t in tables %}
<details class="table"{% if open_tables %} open{% endif %}>
<summary>{{ t.title }}</summary>
{% if t.note %}<p class="note">{{ t.note }}</p>{% endif %}
<div class="scroll"><table class="data">
<thead><tr>{% for h in t.header %}<th{% if loop.index0 >= t.text_columns %} class="num"{% endif %}>{{ h }}</th>\
{% endfor %}</tr></thead>
<tbody>
{% for row in t.rows %}<tr>{% for c in row %}<td{% if loop.index0 >= t.text_columns %} class="num"{% endif %}>{{ c }}\
</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table></div>
</details>
{% endfor %}"""


def section_html(intro: str, points: Sequence[str], tables: Sequence[Table], *, open_tables: bool = False) -> Markup:
    """The section body: an intro sentence, a list of findings, then each table in a collapsible
    ``<details>`` (:func:`toolprism.report._html.render`: jinja2 with autoescaping, every cell
    escaped)."""
    return render(_TABLES, intro=intro, points=list(points), tables=list(tables), open_tables=open_tables)


def _md_cell(text: str) -> str:
    text = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")
    return text.replace("\r", " ").replace("\n", " ")


def section_markdown(intro: str, points: Sequence[str], tables: Sequence[Table]) -> str:
    """A section's body as GitHub-flavoured markdown (the page adds its ``##`` title): the intro,
    the findings as a list, then each table under a ``###`` heading (``|``, backslashes and
    newlines in cells escaped, ``<`` written as ``&lt;`` so no cell is read as HTML)."""
    lines: list[str] = []
    if intro:
        lines += [_md_cell(intro), ""]
    if points:
        lines += [*(f"- {_md_cell(p)}" for p in points), ""]
    for t in tables:
        lines += [f"### {_md_cell(t.title)}", ""]
        if t.note:
            lines += [_md_cell(t.note), ""]
        lines.append("| " + " | ".join(map(_md_cell, t.header)) + " |")
        lines.append("|" + "|".join(":---" if i < t.text_columns else "---:" for i in range(len(t.header))) + "|")
        lines += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in t.rows]
        lines.append("")
    return "\n".join(lines)


def grid_on(ax: Axes, axis: str) -> None:
    """The report's axis style (:func:`toolprism.report._html.style_axes`) with grid lines along
    ``axis`` only (``x``, ``y``, or ``both``)."""
    style_axes(ax)
    if axis != "both":
        ax.grid(False, axis="y" if axis == "x" else "x")


def percent_axis(axis: object) -> None:
    """Format an axis of rates in [0, 1] as percentages."""
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(1.0, decimals=0))  # type: ignore[attr-defined]


def run_color(index: int) -> str:
    """The colour of the ``index``-th run (:data:`RUN_COLORS`)."""
    return RUN_COLORS[index % len(RUN_COLORS)]


def points(value: float | None, low: float | None = None, high: float | None = None) -> str:
    """A difference of rates in percentage points: ``-0.1667`` → ``-16.7 pp``; with ``low`` and
    ``high``, ``-16.7 pp [-50.2, +20.1]``; None → ``—``."""
    if value is None or math.isnan(value):
        return "—"
    text = f"{value * 100:+.1f} pp"
    if low is None or high is None:
        return text
    return f"{text} [{low * 100:+.1f}, {high * 100:+.1f}]"


def error_bars(rate: float, low: float | None, high: float | None) -> list[list[float]]:
    """matplotlib's asymmetric ``[[below], [above]]`` for one point (0 where the bound is unknown)."""
    below = 0.0 if low is None or math.isnan(low) else max(rate - low, 0.0)
    above = 0.0 if high is None or math.isnan(high) else max(high - rate, 0.0)
    return [[below], [above]]


# --- the data -------------------------------------------------------------------------------------


class Cell(NamedTuple):
    """Success of one family or subtype at one severity (or of the clean condition) in one run.

    ``rate``/``low``/``high`` are None when no episode was scored (every task skipped)."""

    group: str
    severity: str
    episodes: int
    successes: int
    rate: float | None
    low: float | None
    high: float | None
    skipped: int = 0


def _scored(run: LoadedRun) -> object:
    frame = run.frame
    return frame[~frame["end"].isin(UNSCORED_ENDS)]


def subtype_cells(score: RunScore) -> list[Cell]:
    """Single-subtype cells exactly as :func:`toolprism.score.score_run` gives them
    (:attr:`RunScore.perturbations`, mixed pairs left out)."""
    return [
        Cell(p.subtype, p.severity, p.episodes, p.successes, p.success_rate, p.ci_low, p.ci_high, p.skipped)
        for p in score.perturbations
        if "+" not in p.subtype
    ]


def family_cells(run: LoadedRun) -> list[Cell]:
    """Single-family success per family and severity, pooled over the family's subtypes (and every
    variant): k/n of the scored episodes with their bootstrap interval
    (:func:`toolprism.score.aggregate`); ``skipped`` sums the subtypes' skipped pairs. Ordered by
    family, then severity."""
    from toolprism.score import aggregate

    frame = _scored(run)
    single = frame[(frame["condition"] != "") & ~frame["subtype"].str.contains("+", regex=False)]
    found: dict[tuple[str, str], Cell] = {}
    if len(single):
        for row in aggregate(single, ["family", "severity"]).itertuples():
            found[(row.family, row.severity)] = Cell(
                row.family, row.severity, row.episodes, row.successes, row.success_rate, row.ci_low, row.ci_high
            )
    skipped: dict[tuple[str, str], int] = {}
    for p in run.score.perturbations:
        if "+" not in p.subtype:
            skipped[(p.subtype[:1], p.severity)] = skipped.get((p.subtype[:1], p.severity), 0) + p.skipped
    cells = []
    for key in sorted(set(found) | set(skipped), key=lambda k: (k[0], _severity_index(k[1]))):
        cell = found.get(key) or Cell(key[0], key[1], 0, 0, None, None, None)
        cells.append(cell._replace(skipped=skipped.get(key, 0)))
    return cells


def clean_cell(run: LoadedRun) -> Cell | None:
    """The clean condition's success over every variant (k/n as :attr:`RunScore.variants` count it)
    with its interval (:func:`toolprism.score.success_interval` over the scored clean episodes);
    None when the run has no scored clean episode."""
    from toolprism.score import success_interval

    clean = [v for v in run.score.variants if v.condition == ""]
    n = sum(v.episodes for v in clean)
    if not n:
        return None
    k = sum(v.successes for v in clean)
    frame = _scored(run)
    outcomes = [bool(s) for s in frame[frame["condition"] == ""]["success"]]
    low, high = success_interval(outcomes)
    return Cell("clean", "", n, k, k / n, low, high)


def _severity_index(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def family_title(family: str) -> str:
    """``C`` → ``C tool output``; a mixed ``A+C`` and clean ``""`` are named as they are."""
    return f"{family} {FAMILIES[family]}" if family in FAMILIES else (family or "clean")


def subtype_title(subtype: str) -> str:
    """``C2`` → ``C2 evidence loss``; a pair or an unknown id is returned as it is."""
    return f"{subtype} {SUBTYPES.get(subtype).name}" if subtype in SUBTYPES else subtype


# --- the charts -----------------------------------------------------------------------------------


class _Series(NamedTuple):
    label: str
    color: str
    cells: list[Cell]
    clean: Cell | None


def _severity_chart(
    name: str, groups: list[str], series: list[_Series], title: Callable[[str], str], caption: str
) -> Chart:
    """Small multiples, one panel per group: success against severity, a line per run with 95%
    intervals, each run's clean success a dashed line in its colour."""
    from matplotlib.lines import Line2D

    columns = min(4, len(groups))
    rows = math.ceil(len(groups) / columns)
    figure = new_figure(2.9 * columns + 0.6, 2.5 * rows + 0.7)
    axes = figure.subplots(rows, columns, sharey=True, squeeze=False)
    spread = 0.1 if len(series) > 1 else 0.0
    for ax, group in zip(axes.flat, groups, strict=False):
        for i, s in enumerate(series):
            drawn = (c for c in s.cells if c.group == group and c.rate is not None)
            points = sorted(drawn, key=lambda c: _severity_index(c.severity))
            offset = (i - (len(series) - 1) / 2) * spread
            xs = [_severity_index(c.severity) + offset for c in points]
            if points:
                bars = [[c.rate - (c.low if c.low is not None else c.rate) for c in points],
                        [(c.high if c.high is not None else c.rate) - c.rate for c in points]]  # fmt: skip
                ax.errorbar(xs, [c.rate for c in points], yerr=bars, color=s.color, marker="o", markersize=5,
                            linewidth=1.6, capsize=3, elinewidth=1)  # fmt: skip
            if s.clean is not None:
                ax.axhline(s.clean.rate, color=s.color, linestyle="--", linewidth=1.1, alpha=0.85)
        ax.set_title(title(group), fontsize=10)
        ax.set_xticks(range(len(SEVERITIES)), SEVERITIES)
        ax.set_xlim(-0.5, len(SEVERITIES) - 0.5)
        ax.set_ylim(-0.04, 1.04)
        percent_axis(ax.yaxis)
        grid_on(ax, "y")
    for ax in list(axes.flat)[len(groups) :]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("success", fontsize=9)
    handles = [
        Line2D([], [], color=s.color, marker="o", linewidth=1.6, label=s.label if len(series) > 1 else "success")
        for s in series
    ]
    handles.append(Line2D([], [], color=NEUTRAL, linestyle="--", linewidth=1.1, label="clean success"))
    figure.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 4), fontsize=9, frameon=False)
    return Chart(name, figure, caption)


def _mixed_chart(rows: list[tuple[str, InteractionRow]]) -> Chart:
    """Mixed success next to its weaker constituent (95% Wilson intervals), and the delta with
    Newcombe's interval, one row per (run,) pair and severity."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter

    figure = new_figure(9.0, 0.62 * len(rows) + 1.3)
    rates, deltas = figure.subplots(1, 2, sharey=True, width_ratios=[3, 2])
    labels = []
    for y, (prefix, r) in enumerate(rows):
        weaker = next(c for c in r.constituents if c.condition == r.weaker)
        for cell, dy, face, color in (
            (weaker, -0.14, "white", WEAKER_COLOR),
            (r.mixed, 0.14, MIXED_COLOR, MIXED_COLOR),
        ):
            rate = cell.success_rate or 0.0
            rates.errorbar([rate], [y + dy], xerr=error_bars(rate, cell.ci_low, cell.ci_high), fmt="o", color=color,
                           markerfacecolor=face, markersize=6, capsize=3, elinewidth=1.2)  # fmt: skip
        delta = r.delta or 0.0
        deltas.errorbar([delta], [y], xerr=[[delta - (r.delta_low or delta)], [(r.delta_high or delta) - delta]],
                        fmt="D", color=NEUTRAL, markersize=5, capsize=3, elinewidth=1.2)  # fmt: skip
        star = "" if r.paper_pair else "*"
        labels.append(f"{prefix}{r.pair}{star} {r.severity}\nweaker: {r.weaker}")
    rates.set_yticks(range(len(rows)), labels)
    rates.set_ylim(len(rows) - 0.5, -0.5)  # first row on top
    rates.set_xlim(-0.03, 1.03)
    percent_axis(rates.xaxis)
    rates.set_xlabel("success (95% Wilson interval)", fontsize=9)
    deltas.axvline(0, color="#999999", linewidth=1)
    deltas.set_xlim(-1.05, 1.05)
    deltas.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x * 100:+.0f}" if x else "0"))
    deltas.set_xlabel("mixed − weaker, percentage points\n(95% Newcombe interval)", fontsize=9)
    for ax in (rates, deltas):
        grid_on(ax, "x")
    handles = [
        Line2D([], [], color=MIXED_COLOR, marker="o", linestyle="none", label="mixed pair"),
        Line2D([], [], color=WEAKER_COLOR, marker="o", markerfacecolor="white", linestyle="none",
               label="weaker constituent"),
        Line2D([], [], color=NEUTRAL, marker="D", linestyle="none", label="delta"),
    ]  # fmt: skip
    figure.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=9, frameon=False)
    caption = (
        "Each mixed pair's success against its weaker single-family constituent over the same tasks and "
        "variants (ToolRobustBench, Figure 4), and the difference; below 0 the mixture is worse than its weaker part."
        + (" *: toolprism's own pair, not one the paper names." if any(not r.paper_pair for _, r in rows) else "")
    )
    return Chart("mixed-pairs", figure, caption)


def _attribution_chart(rows: list[tuple[str | None, AttributionSummary | None]]) -> Chart:
    """Stacked primary-error shares per family and subtype row, and its cascade and
    boundary-violation rates; ``(run label, None)`` rows are headings (several runs)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    figure = new_figure(10.0, 0.36 * len(rows) + 1.5)
    shares, rates = figure.subplots(1, 2, sharey=True, width_ratios=[3, 1.4])
    labels, bold = [], []
    for y, (heading, a) in enumerate(rows):
        if a is None:
            labels.append(heading or "")
            bold.append(True)
            continue
        left = 0.0
        for error in TRB_ERROR_NAMES:
            share = a.primary_error_shares.get(error, 0.0)
            if share:
                shares.barh(
                    y, share, left=left, color=ERROR_COLORS[error], height=0.7, edgecolor="white", linewidth=0.5
                )
                left += share
        if a.cascade_rate is not None:
            rates.plot([a.cascade_rate], [y - 0.12], "o", color=NEUTRAL, markersize=5)
        if a.boundary_violation_rate is not None:
            rates.plot([a.boundary_violation_rate], [y + 0.12], "s", color=MIXED_COLOR, markersize=5,
                       markerfacecolor="white")  # fmt: skip
        if a.subtype is not None:
            name = subtype_title(a.subtype)
        else:
            name = f"{family_title(a.family)}, all" if a.family else "clean"
        labels.append(f"{name} ({a.failures} of {a.episodes} failed)")
        bold.append(a.subtype is None)
    shares.set_yticks(range(len(rows)), labels)
    for tick, strong in zip(shares.get_yticklabels(), bold, strict=True):
        tick.set_fontweight("bold" if strong else "normal")
    shares.set_ylim(len(rows) - 0.5, -0.5)
    shares.set_xlim(0, 1)
    percent_axis(shares.xaxis)
    shares.set_xlabel("share of the failures (primary error)", fontsize=9)
    rates.set_xlim(-0.04, 1.04)
    percent_axis(rates.xaxis)
    rates.set_xlabel("rate among the failures", fontsize=9)
    grid_on(shares, "x")
    grid_on(rates, "x")
    handles = [Patch(color=ERROR_COLORS[e], label=e.replace("_", " ")) for e in TRB_ERROR_NAMES]
    handles += [
        Line2D([], [], color=NEUTRAL, marker="o", linestyle="none", label="cascade"),
        Line2D([], [], color=MIXED_COLOR, marker="s", markerfacecolor="white", linestyle="none",
               label="boundary violation"),
    ]  # fmt: skip
    figure.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=9, frameon=False)
    caption = (
        "Primary errors of the failed episodes in ToolRobustBench's vocabulary (tool misselection: S1, schema "
        "violation: S2, incorrect arguments: S3 or a misused return, runtime failure: S4, wrong final result: "
        "S5), per family (bold: all its subtypes and severities) and subtype; right: the share of the failures "
        "that cascade (source stage other than the earliest failed one) and that fall outside the perturbation's "
        "stages."
    )
    return Chart("attribution", figure, caption)


# --- the tables -----------------------------------------------------------------------------------


def _k_of_n(cell: Cell) -> str:
    return f"{cell.successes}/{cell.episodes}"


def _severity_table(
    title: str, note: str, label: Callable[[str], str], cells: list[tuple[str, Cell]], multi: bool
) -> Table:
    header = ("run",) * multi + ("condition", "severity", "success", "rate", "95% CI", "skipped")
    rows = [
        (run,) * multi
        + (label(c.group), c.severity or "—", _k_of_n(c), pct(c.rate), interval(c.low, c.high), str(c.skipped))
        for run, c in cells
    ]
    return Table(title, header, rows, text_columns=2 + multi, note=note)


def _mixed_table(runs: Sequence[LoadedRun], multi: bool) -> Table:
    header = ("run",) * multi + ("pair", "severity", "mixed", "weaker constituent", "weaker", "delta [95% CI]",
                                 "unmatched")  # fmt: skip
    rows = []
    for run in runs:
        for r in run.score.interactions:
            weaker = next((c for c in r.constituents if c.condition == r.weaker), None)
            mixed = f"{r.mixed.successes}/{r.mixed.episodes} {pct(r.mixed.success_rate)}"
            base = f"{weaker.successes}/{weaker.episodes} {pct(weaker.success_rate)}" if weaker else "—"
            delta = points(r.delta, r.delta_low, r.delta_high) if r.delta is not None else r.note
            row = (r.pair + ("" if r.paper_pair else "*"), r.severity, mixed, base, r.weaker or "—", delta)
            rows.append((run.label,) * multi + (*row, str(r.unmatched)))
    note = (
        "Mixed success against the weaker single-family constituent over the matched (task, variant) cells; "
        "delta = mixed − weaker in percentage points, with Newcombe's 95% interval; "
        "*: toolprism's own pair."
    )
    return Table("Mixed pairs vs their weaker constituent", header, rows, text_columns=2 + multi, note=note)


def _attribution_table(runs: Sequence[LoadedRun], multi: bool) -> Table:
    errors = tuple(e.replace("_", " ") for e in TRB_ERROR_NAMES)
    header = ("run",) * multi + ("family", "subtype", "episodes", "failures", *errors, "cascade", "boundary violation")
    rows = []
    for run in runs:
        for a in run.score.attribution:
            shares = tuple(pct(a.primary_error_shares.get(e, 0.0)) if a.failures else "—" for e in TRB_ERROR_NAMES)
            cells = (family_title(a.family), a.subtype or "all", str(a.episodes), str(a.failures), *shares)
            rows.append((run.label,) * multi + (*cells, pct(a.cascade_rate), pct(a.boundary_violation_rate)))
    note = (
        "Share of each family's and subtype's failures by primary error; cascade and boundary-violation rates "
        "over the failures."
    )
    return Table("Primary errors, cascades and boundary violations", header, rows, text_columns=2 + multi, note=note)


def _runtime_table(runs: Sequence[LoadedRun], multi: bool) -> Table | None:
    fields = ("status", "failure_type", "retryable", "final_result")
    header = ("run",) * multi + ("subtype", "requested", "reported", "missing", "unparsable",
                                 "status", "failure type", "retryable", "final result")  # fmt: skip
    rows = []
    for run in runs:
        for r in run.score.runtime:
            if not r.requested:
                continue
            rates = [getattr(r, f) for f in fields]
            cells = [f"{x.matches}/{x.n} {pct(x.rate)}" if x.n else "—" for x in rates]
            counts = (str(r.requested), str(r.reported), str(r.missing), str(r.unparsable))
            rows.append((run.label,) * multi + (subtype_title(r.subtype), *counts, *cells))
    if not rows:
        return None
    note = (
        "Runtime-report fields that match the perturbation's labels, over the episodes where the field applies "
        "and a report was asked for (a missing report counts as a mismatch); all severities pooled."
    )
    return Table("Runtime-report field match rates", header, rows, text_columns=1 + multi, note=note)


# --- the section ----------------------------------------------------------------------------------


def perturbation_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The "Perturbations" section (ToolRobustBench's views, sections 5-6), or None when no run
    has a perturbed condition.

    Charts (names): ``severity-families`` (success against severity per family, a panel per
    family), ``severity-subtypes`` (the same per subtype), ``mixed-pairs`` (when a mixed pair has
    a weaker constituent to compare with), ``attribution`` (when a perturbed or clean episode
    failed). Tables (HTML, collapsed, and markdown): the same numbers, plus the runtime-report
    field match rates when reports were asked for. Rates are k/n with 95% intervals (bootstrap
    or Wilson, as :func:`toolprism.score.score_run` computes them); deltas with Newcombe's.

    Run labels, condition names and notes are escaped (jinja2 autoescape).
    """
    perturbed = [r for r in runs if r.score.perturbations]
    if not perturbed:
        return None
    multi = len(perturbed) > 1
    series = [_Series(run.label, run_color(i), family_cells(run), clean_cell(run)) for i, run in enumerate(perturbed)]
    by_subtype = [
        _Series(run.label, run_color(i), subtype_cells(run.score), s.clean)
        for i, (run, s) in enumerate(zip(perturbed, series, strict=True))
    ]
    families = sorted({c.group for s in series for c in s.cells})
    subtypes = sorted({c.group for s in by_subtype for c in s.cells}, key=lambda g: (g[:1], _natural(g)))
    charts: list[Chart] = []
    caption = (
        "Success against severity, pooled over each family's subtypes and every variant, with 95% intervals; the "
        "dashed line is the clean success (ToolRobustBench, section 5). Conditions where every task was skipped "
        "are not drawn."
    )
    if families:
        charts.append(_severity_chart("severity-families", families, series, family_title, caption))
    if subtypes:
        caption = "Success against severity per subtype, over every variant, with 95% intervals; dashed: clean success."
        charts.append(_severity_chart("severity-subtypes", subtypes, by_subtype, subtype_title, caption))
    prefix = (lambda run: f"{run.label}: ") if multi else (lambda run: "")
    mixed = [(prefix(run), r) for run in perturbed for r in run.score.interactions if r.weaker is not None]
    if mixed:
        charts.append(_mixed_chart(mixed))
    attributed: list[tuple[str | None, AttributionSummary | None]] = []
    for run in perturbed:
        failed = [(None, a) for a in run.score.attribution if a.failures]
        attributed += [(run.label, None), *failed] if multi and failed else failed
    if attributed:
        charts.append(_attribution_chart(attributed))
    tables = [
        _severity_table(
            "Success per family and severity",
            "Pooled over the family's subtypes and every variant; skipped: (task, variant) pairs the subtype "
            "could not act on.",
            family_title,
            [(s.label, c) for s in series for c in [*([s.clean] if s.clean else []), *s.cells]],
            multi,
        ),
        _severity_table(
            "Success per subtype and severity",
            "Over every variant (toolprism score's perturbation table).",
            subtype_title,
            [(s.label, c) for s in by_subtype for c in s.cells],
            multi,
        ),
    ]
    if any(run.score.interactions for run in perturbed):
        tables.append(_mixed_table(perturbed, multi))
    if any(run.score.attribution for run in perturbed):
        tables.append(_attribution_table(perturbed, multi))
    if (runtime := _runtime_table(perturbed, multi)) is not None:
        tables.append(runtime)
    intro = (
        "Success under ToolRobustBench's perturbation families (A tool interface, B user intent, C tool output, "
        "D runtime) by severity, mixed pairs against their weaker constituent, where failures start, and how "
        "well runtime reports match."
    )
    points = _findings(perturbed, series, by_subtype, multi)
    return Section(
        id="perturbations",
        title="Perturbations",
        html=section_html(intro, points, tables),
        charts=charts,
        markdown=section_markdown(intro, points, tables),
    )


def _natural(subtype: str) -> tuple[str, int]:
    digits = subtype[1:]
    return subtype[:1], int(digits) if digits.isdigit() else 0


def _findings(runs: Sequence[LoadedRun], series: list[_Series], by_subtype: list[_Series], multi: bool) -> list[str]:
    """One line per run: clean success, success per severity pooled over every single family, the
    hardest subtype cell, and the mixed pairs' mean against their weaker constituents."""
    points = []
    for run, s, sub in zip(runs, series, by_subtype, strict=True):
        head = f"{run.label}: " if multi else ""
        parts = []
        if s.clean is not None:
            parts.append(f"clean {pct(s.clean.rate)} ({_k_of_n(s.clean)})")
        for severity in SEVERITIES:
            cells = [c for c in s.cells if c.severity == severity and c.episodes]
            if cells:
                k, n = sum(c.successes for c in cells), sum(c.episodes for c in cells)
                parts.append(f"{severity} {pct(k / n)} ({k}/{n})")
        line = head + "success " + ", ".join(parts) if parts else ""
        scored = [c for c in sub.cells if c.rate is not None]
        if scored:
            worst = min(scored, key=lambda c: (c.rate, -c.episodes))
            line += f"; hardest subtype cell {worst.group}:{worst.severity} {pct(worst.rate)} ({_k_of_n(worst)})"
        if line:
            points.append(line)
        compared = [r for r in run.score.interactions if r.weaker is not None and r.mixed.episodes]
        if compared:
            weaker = [next(c for c in r.constituents if c.condition == r.weaker) for r in compared]
            mixed_mean = sum(r.mixed.success_rate for r in compared) / len(compared)
            weaker_mean = sum(w.success_rate for w in weaker) / len(weaker)
            points.append(
                f"{head}mixed pairs: mean success {pct(mixed_mean)} against {pct(weaker_mean)} for their weaker "
                f"constituent over {len(compared)} pair-severity cell(s) (the paper, medium: 44.8% vs 62.1%)"
            )
    return points
