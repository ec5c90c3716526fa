"""The grid: success per model (and condition) x variant, Action-Space Shaping's headline figure
(section 5, Figure 2): a heat-map table with each cell's rate, 95% interval and episodes, variants
grouped by operator family, and the best-vs-worst gap per row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolprism.report._families import group_by_family
from toolprism.report._html import SCALE, colormap, new_figure, pct, render
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
        unscored: variant -> episodes recorded but not scored (context overflow, backend error).
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
            unscored = {
                o.variant: o
                for o in score.outcomes
                if o.condition == condition and o.scored < o.recorded and o.scored == 0
            }
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
interval and the number of scored episodes n. Variants are grouped by operator family; the last
column is the best-vs-worst gap across the row's variants (the spread that equivalent interfaces
alone cause).</p>
<div class="legend"><span>0%</span><span class="ramp" style="background:linear-gradient(90deg,{{ ramp }})"></span>
<span>100%</span><span class="cellkey" style="margin-left:1rem">cell: rate · [95% interval] · n</span></div>
<div class="scroll"><table class="grid">
<thead>
<tr><th rowspan="2">model · condition</th>
{% for family, names in columns %}<th class="family" colspan="{{ names|length }}">{{ family }}</th>{% endfor %}
<th rowspan="2" class="num">gap</th></tr>
<tr>{% for family, names in columns %}{% for name in names %}<th class="variant" title="{{ name }}">{{ name }}</th>
{% endfor %}{% endfor %}</tr>
</thead>
<tbody>
{% for row in rows %}
<tr><td class="row">{{ row.model }}
<small>{{ row.condition or "clean" }}{% if multi %} · {{ row.run }}{% endif %}</small></td>
{% for family, names in columns %}{% for name in names %}
{% set v = row.cells.get(name) %}
{% if v %}
<td class="cell" style="{{ cell_style(v.success_rate) }}" data-variant="{{ name }}"
 data-rate="{{ '%.6f'|format(v.success_rate) }}"
 title="{{ name }}: {{ v.successes }}/{{ v.episodes }} succeeded">
<b>{{ v.success_rate|pct }}</b><small>{{ v.ci_low|interval(v.ci_high) }}</small><small>n={{ v.episodes }}</small></td>
{% elif name in row.unscored %}
{% set o = row.unscored[name] %}
<td class="cell" style="{{ cell_style(None) }}" data-variant="{{ name }}"
 title="{{ name }}: none of {{ o.recorded }} episodes scored"><b>—</b><small>not scored</small>
<small>{{ o.context_overflow }} overflow{% if o.backend_error %}, {{ o.backend_error }} error{% endif %}</small></td>
{% else %}<td class="cell" style="{{ cell_style(None) }}" data-variant="{{ name }}"><small>not run</small></td>
{% endif %}
{% endfor %}{% endfor %}
<td class="num">{% if row.gap %}<b>{{ row.gap.gap|pct }}</b><br>
<small class="muted">{{ row.gap.best }} {{ row.gap.best_rate|pct }}
 vs {{ row.gap.worst }} {{ row.gap.worst_rate|pct }}</small>{% else %}—{% endif %}</td>
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
    html = render(_HTML, rows=rows, columns=columns, multi=len(runs) > 1, ramp=ramp)
    chart = Chart(
        "grid",
        grid_figure(rows, columns, multi=len(runs) > 1),
        caption="Success per model and variant (95% interval below each rate); variants grouped by operator family.",
    )
    return Section(
        id="grid", title="Success grid: model x variant", html=html, charts=(chart,), markdown=_markdown(rows)
    )


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
    width = min(2.6 + 0.62 * len(names), 30)
    height = 1.9 + 0.5 * len(rows) + 0.06 * max(len(n) for n in names)
    figure = new_figure(width, height)
    ax = figure.add_subplot()
    cmap = colormap().copy()
    cmap.set_bad("#eeeeee")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i, row in enumerate(rows):
        for j, name in enumerate(names):
            v = row.cells.get(name)
            text = "—" if v is None else f"{v.success_rate:.0%}\n[{v.ci_low:.0%}, {v.ci_high:.0%}]"
            color = "#111111" if v is None or 0.3 < v.success_rate < 0.7 else "white"
            ax.text(j, i, text, ha="center", va="center", fontsize=6.5, color=color, linespacing=1.1)
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", rotation_mode="anchor", fontsize=7.5)
    ax.set_yticks(range(len(rows)), [_row_label(r, multi) for r in rows], fontsize=8)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    start = 0
    for family, group in columns:
        if start:
            ax.axvline(start - 0.5, color="white", linewidth=3)
        ax.text(start + (len(group) - 1) / 2, -0.65, family, ha="center", va="bottom", fontsize=7, color="#5b6475")
        start += len(group)
    bar = figure.colorbar(image, ax=ax, fraction=0.025, pad=0.01)
    bar.ax.tick_params(labelsize=7)
    bar.set_label("success", fontsize=8)
    return figure


def _markdown(rows: Sequence[GridRow]) -> str:
    lines = ["| model · condition | variant | success | 95% CI | n |", "|---|---|---:|---:|---:|"]
    for row in rows:
        for name, v in row.cells.items():
            cell = f"{v.success_rate:.0%} | {v.ci_low:.0%}–{v.ci_high:.0%} | {v.episodes}"
            lines.append(f"| {row.model} · {row.condition or 'clean'} | {name} | {cell} |")
    gaps = [f"- {r.model} · {r.condition or 'clean'}: best {r.gap.best} {pct(r.gap.best_rate)}, worst {r.gap.worst} "
            f"{pct(r.gap.worst_rate)}, gap {pct(r.gap.gap)}" for r in rows if r.gap]  # fmt: skip
    return "\n".join(lines) + ("\n\nBest-vs-worst gap per row:\n\n" + "\n".join(gaps) if gaps else "")
