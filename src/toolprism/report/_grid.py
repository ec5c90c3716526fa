"""The grid: success per model (and condition) x variant, Action-Space Shaping's headline figure
(section 5, Figure 2): a heat-map table with each cell's rate, 95% interval and episodes, variants
grouped by operator family, and the best-vs-worst gap per row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolprism.report._families import group_by_family
from toolprism.report._html import (
    SCALE,
    colormap,
    new_figure,
    pct,
    plain,
    render,
    scale_color,
    short_interval,
    text_color,
)
from toolprism.report._section import Chart, LoadedRun, Section
from toolprism.score import OutcomeCount, VariantScore

if TYPE_CHECKING:
    from toolprism.score._report import VariantGap


@dataclass(frozen=True)
class GridRow:
    """One row of the grid: one run's model under one condition.

    Attributes:
        run: the run's label; ``model``: its model; ``condition``: ``""`` clean.
        cells: variant -> its score (variants with no scored episode in this row left out).
        unscored: variant -> its episode counts, for variants with episodes recorded but not
            scored (context overflow, backend error).
        gap: the run's best-vs-worst variant gap under ``condition`` (``RunScore.gaps``).
    """

    run: str
    model: str
    condition: str
    cells: dict[str, VariantScore]
    unscored: dict[str, OutcomeCount]
    gap: VariantGap | None


def grid_rows(runs: Sequence[LoadedRun]) -> list[GridRow]:
    """Rows per run and condition (clean first, then in recording order)."""
    rows = []
    for run in runs:
        score = run.score
        model = score.outcomes[0].model if score.outcomes else "?"
        conditions = list(dict.fromkeys([v.condition for v in score.variants] + [o.condition for o in score.outcomes]))
        conditions.sort(key=lambda c: c != "")
        for condition in conditions:
            cells = {v.variant: v for v in score.variants if v.condition == condition}
            unscored = {o.variant: o for o in score.outcomes if o.condition == condition and o.scored < o.recorded}
            gap = next((g for g in score.gaps if g.condition == condition), None)
            rows.append(GridRow(run.label, model, condition, cells, unscored, gap))
    return rows


def grid_columns(runs: Sequence[LoadedRun]) -> list[tuple[str, list[str]]]:
    """(family, variants) column groups over every run, variants in recording order."""
    specs: dict[str, str] = {}
    for run in runs:
        for v in run.score.variants:
            specs.setdefault(v.variant, v.spec)
        if len(run.frame):  # variants none of whose episodes was scored
            for name, spec in zip(run.frame["variant"], run.frame["spec"], strict=True):
                specs.setdefault(name, spec)
    return group_by_family(specs.items())


_HTML = """
<p class="note">Success rate per row (a model, under one condition) and variant, with its 95%
interval and the number of scored episodes n. Variants are grouped by operator family. <i>Gap</i>
is the best-vs-worst difference across the row's variants: the spread that equivalent interfaces
alone cause.</p>
<div class="legend"><span>0%</span><span class="ramp" style="background:linear-gradient(90deg,{{ ramp }})"></span>
<span>100%</span><span style="margin-left:1.2rem">each cell: success rate, its 95% interval, n episodes</span></div>
<div class="scroll"><table class="grid">
<thead>
<tr><th rowspan="2" class="corner">model · condition</th><th rowspan="2" class="corner gap">gap</th>
{% for family, names in columns %}<th class="family" colspan="{{ names|length }}">
{{- family if names|length > 2 else family.replace(" ", "\n") }}</th>{% endfor %}</tr>
<tr>{% for family, names in columns %}{% for name in names %}<th class="variant" title="{{ name }}">{{ name }}</th>
{% endfor %}{% endfor %}</tr>
</thead>
<tbody>
{% for row in rows %}
<tr><td class="row">{{ row.model }}
<small>{{ row.condition or "clean" }}{% if multi %} · {{ row.run }}{% endif %}</small></td>
<td class="gap">{% if row.gap and row.gap.gap > 0 %}<b>{{ row.gap.gap|pct }}</b>
<small>best {{ row.gap.best }} {{ row.gap.best_rate|pct }}</small>
<small>worst {{ row.gap.worst }} {{ row.gap.worst_rate|pct }}</small>
{% elif row.gap %}<b>0%</b><small>every variant {{ row.gap.best_rate|pct }}</small>{% else %}—{% endif %}</td>
{% for family, names in columns %}{% for name in names %}
{% set v = row.cells.get(name) %}
{% if v %}
<td class="cell" style="{{ cell_style(v.success_rate) }}" data-variant="{{ name }}"
 data-rate="{{ '%.6f'|format(v.success_rate) }}"
 title="{{ name }}: {{ v.successes }}/{{ v.episodes }} succeeded">
<b>{{ v.success_rate|pct }}</b><small>{{ v.ci_low|short_interval(v.ci_high) }}</small>
<small>n={{ v.episodes }}{% if name in row.unscored %} +{{ row.unscored[name].recorded - row.unscored[name].scored }}
not scored{% endif %}</small></td>
{% elif name in row.unscored %}
{% set o = row.unscored[name] %}
<td class="cell" style="{{ cell_style(None) }}" data-variant="{{ name }}"
 title="{{ name }}: none of {{ o.recorded }} episodes scored"><b>—</b><small>not scored</small>
<small>{{ unscored_reason(o) }}</small></td>
{% else %}<td class="cell" style="{{ cell_style(None) }}" data-variant="{{ name }}"><small>not run</small></td>
{% endif %}
{% endfor %}{% endfor %}
</tr>
{% endfor %}
</tbody>
</table></div>
"""


def grid_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The grid section (HTML heat-map table, a matplotlib heat map, a markdown table); None when
    no run has an episode."""
    rows = grid_rows(runs)
    columns = grid_columns(runs)
    if not rows or not columns:
        return None
    ramp = ",".join(f"{color} {stop:.0%}" for stop, color in SCALE)
    html = render(_HTML, rows=rows, columns=columns, multi=len(runs) > 1, ramp=ramp, unscored_reason=unscored_reason)
    chart = Chart(
        "grid",
        grid_figure(rows, columns, multi=len(runs) > 1),
        caption="Success per model and variant (95% interval below each rate); variants grouped by operator family.",
        page=False,  # the page shows the same grid as the table above
    )
    markdown = _markdown(rows, columns, multi=len(runs) > 1)
    return Section(id="grid", title="Success grid: model × variant", html=html, charts=(chart,), markdown=markdown)


def unscored_reason(counts: OutcomeCount) -> str:
    """``2 context overflow, 1 backend error`` (the nonzero parts)."""
    parts = [(counts.context_overflow, "context overflow"), (counts.backend_error, "backend error")]
    return ", ".join(f"{n} {what}" for n, what in parts if n)


def _row_label(row: GridRow, multi: bool) -> str:
    label = f"{row.model} · {row.condition or 'clean'}"
    return f"{label} · {row.run}" if multi else label


def grid_figure(rows: Sequence[GridRow], columns: Sequence[tuple[str, list[str]]], *, multi: bool = False):
    """The grid as a matplotlib heat map: rows x variants, each cell annotated with its rate and
    interval, family boundaries drawn as white lines and named above the columns."""
    import numpy as np

    names = [n for _, group in columns for n in group]
    values = np.full((len(rows), len(names)), np.nan)
    for i, row in enumerate(rows):
        for j, name in enumerate(names):
            if name in row.cells:
                values[i, j] = row.cells[name].success_rate
    width = min(3.2 + 0.7 * len(names), 30)
    height = 1.9 + 0.45 * len(rows) + 0.06 * max(len(n) for n in names)
    figure = new_figure(width, height)
    ax = figure.add_subplot()
    cmap = colormap().with_extremes(bad="#eeeeee")
    xs, ys = np.arange(len(names) + 1) - 0.5, np.arange(len(rows) + 1) - 0.5
    image = ax.pcolormesh(xs, ys, np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=1)  # vector, not raster
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[-1], ys[0])
    for i, row in enumerate(rows):
        for j, name in enumerate(names):
            v = row.cells.get(name)
            text = "—" if v is None else f"{v.success_rate:.0%}\n[{v.ci_low:.0%}, {v.ci_high:.0%}]"
            color = text_color(scale_color(None if v is None else v.success_rate))  # as on the page
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color=color, linespacing=1.15)
    ax.set_xticks(
        range(len(names)), [plain(n) for n in names], rotation=60, ha="right", rotation_mode="anchor", fontsize=8.5
    )
    ax.set_yticks(range(len(rows)), [plain(_row_label(r, multi)) for r in rows], fontsize=8.5)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    start = 0
    for family, group in columns:
        if start:
            ax.axvline(start - 0.5, color="white", linewidth=3)
        label = family if len(group) > 2 else family.replace(" ", "\n")
        ax.text(start + (len(group) - 1) / 2, -0.6, label, ha="center", va="bottom", fontsize=7.5, color="#5b6475")
        start += len(group)
    bar = figure.colorbar(image, ax=ax, fraction=0.025, pad=0.01)
    bar.ax.tick_params(labelsize=7)
    bar.set_label("success", fontsize=8)
    return figure


def _markdown_cell(row: GridRow, name: str) -> str:
    if (v := row.cells.get(name)) is not None:
        return f"{v.success_rate:.0%} [{short_interval(v.ci_low, v.ci_high)}] n={v.episodes}"
    return f"not scored ({unscored_reason(row.unscored[name])})" if name in row.unscored else "not run"


def _markdown_gap(row: GridRow) -> str:
    if row.gap is None:
        return "—"
    if row.gap.gap == 0:
        return f"0 (every variant {pct(row.gap.best_rate)})"
    g = row.gap
    return f"**{pct(g.gap)}** ({g.best} {pct(g.best_rate)}, {g.worst} {pct(g.worst_rate)})"


def _markdown(rows: Sequence[GridRow], columns: Sequence[tuple[str, list[str]]], *, multi: bool) -> str:
    """The grid transposed for a terminal: one line per variant, one column per model and condition
    (rate, 95% interval, n), then the best-vs-worst gap of each column."""
    heads = [_row_label(r, multi) for r in rows]
    lines = ["| family | variant | " + " | ".join(heads) + " |", "|---|---|" + "---:|" * len(rows)]
    for family, names in columns:
        for name in names:
            lines.append(f"| {family} | {name} | " + " | ".join(_markdown_cell(r, name) for r in rows) + " |")
    lines.append("| | **best-vs-worst gap** | " + " | ".join(_markdown_gap(r) for r in rows) + " |")
    return "\n".join(lines)
