"""Comparison of two or more runs, cell by cell: "did my schema refactor hurt model X".

Each later run is compared with the first (the baseline) on every (variant, condition) cell both
ran: the difference in success and its 95% interval (Newcombe's hybrid score interval,
:func:`toolprism.score.newcombe_difference`; the two runs' episodes are treated as independent
samples), and whether that interval excludes 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolprism.report._html import new_figure, pct, plain, render, style_axes
from toolprism.report._section import Chart, LoadedRun, Section
from toolprism.score import VariantScore, newcombe_difference


@dataclass(frozen=True)
class CellDelta:
    """One cell's change from the baseline run to another run.

    Attributes:
        variant / condition: the cell (``condition`` ``""`` clean).
        baseline / other: the two runs' scores of the cell.
        delta: ``other`` rate minus ``baseline`` rate; ``low``/``high``: its 95% interval.
        significant: the interval excludes 0.
    """

    variant: str
    condition: str
    baseline: VariantScore
    other: VariantScore
    delta: float
    low: float
    high: float

    @property
    def significant(self) -> bool:
        """Whether the 95% interval of the delta excludes 0."""
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class RunComparison:
    """One run against the baseline: the shared cells' deltas, and the cells only one side ran."""

    baseline: str
    other: str
    cells: list[CellDelta]
    only_baseline: list[tuple[str, str]]
    only_other: list[tuple[str, str]]


def compare_runs(baseline: LoadedRun, other: LoadedRun) -> RunComparison:
    """Deltas of ``other`` against ``baseline`` on every (variant, condition) cell both scored, in
    the baseline's order."""
    mine = {(v.variant, v.condition): v for v in baseline.score.variants}
    theirs = {(v.variant, v.condition): v for v in other.score.variants}
    cells = []
    for key, b in mine.items():
        if (o := theirs.get(key)) is None:
            continue
        delta, low, high = newcombe_difference(o.successes, o.episodes, b.successes, b.episodes)
        cells.append(CellDelta(key[0], key[1], b, o, delta, low, high))
    return RunComparison(
        baseline.label,
        other.label,
        cells,
        only_baseline=[k for k in mine if k not in theirs],
        only_other=[k for k in theirs if k not in mine],
    )


_HTML = """
<p class="note">Each run against the baseline <b>{{ baseline }}</b>, cell by cell: the change in
success (later run minus baseline) with its 95% interval (Newcombe's hybrid score interval, the
runs' episodes taken as independent samples). <span class="sig">Bold</span> deltas have an interval
that excludes 0.</p>
{% for c in comparisons %}
<h3>{{ c.other }} ({{ models[c.other] }}) vs {{ c.baseline }} ({{ models[c.baseline] }})</h3>
{% if c.cells %}
<p><b>{{ c.verdict }}</b></p>
<div class="scroll"><table>
<tr><th>variant</th><th>condition</th><th class="num">{{ c.baseline }}</th><th class="num">{{ c.other }}</th>
<th class="num">delta</th><th class="num">95% interval</th><th>excludes 0</th></tr>
{% for d in c.cells %}
<tr><td>{{ d.variant }}</td><td>{{ d.condition or "clean" }}</td>
<td class="num">{{ d.baseline.success_rate|pct }}
 <small class="muted">{{ d.baseline.successes }}/{{ d.baseline.episodes }}</small></td>
<td class="num">{{ d.other.success_rate|pct }}
 <small class="muted">{{ d.other.successes }}/{{ d.other.episodes }}</small></td>
<td class="num {{ 'pos' if d.delta > 0 else 'neg' if d.delta < 0 else '' }}{{ ' sig' if d.significant else '' }}"
 data-delta="{{ '%.6f'|format(d.delta) }}">{{ '%+.0f'|format(d.delta * 100) }} pts</td>
<td class="num">[{{ '%+.0f'|format(d.low * 100) }}, {{ '%+.0f'|format(d.high * 100) }}]</td>
<td>{{ "yes" if d.significant else "no" }}</td></tr>
{% endfor %}
</table></div>
{% else %}<p class="muted">No cell in common.</p>{% endif %}
{% if c.only_baseline or c.only_other %}
<p class="note">Cells only one run has (not compared):
{% if c.only_baseline %}{{ c.baseline }}: {{ c.only_baseline }}.{% endif %}
{% if c.only_other %}{{ c.other }}: {{ c.only_other }}.{% endif %}</p>
{% endif %}
{% endfor %}
"""


def _cell_names(cells: Sequence[CellDelta], most: int = 6) -> str:
    names = [d.variant + (f" · {d.condition}" if d.condition else "") for d in cells]
    return ", ".join(names[:most]) + (" …" if len(names) > most else "")


def verdict(comparison: RunComparison) -> str:
    """One sentence: how many shared cells got worse or better beyond their 95% interval, and how
    many show no clear change."""
    worse = [d for d in comparison.cells if d.significant and d.delta < 0]
    better = [d for d in comparison.cells if d.significant and d.delta > 0]
    unclear = len(comparison.cells) - len(worse) - len(better)
    parts = [f"{len(worse)} cell(s) worse" + (f" ({_cell_names(worse)})" if worse else "")]
    parts.append(f"{len(better)} better" + (f" ({_cell_names(better)})" if better else ""))
    parts.append(f"{unclear} without a clear change (the interval includes 0)")
    return "; ".join(parts) + "."


def unmatched(cells: Sequence[tuple[str, str]]) -> str:
    """Cells one run lacks, by condition: ``C2:light (16 variants); clean: merge, split``."""
    by_condition: dict[str, list[str]] = {}
    for variant, condition in cells:
        by_condition.setdefault(condition or "clean", []).append(variant)
    parts = [
        f"{condition} ({len(names)} variants)" if len(names) > 4 else f"{condition}: {', '.join(names)}"
        for condition, names in by_condition.items()
    ]
    return "; ".join(parts)


def comparison_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The comparison section; None for fewer than two runs."""
    if len(runs) < 2:
        return None
    comparisons = [compare_runs(runs[0], other) for other in runs[1:]]
    models = {r.label: (r.score.outcomes[0].model if r.score.outcomes else "?") for r in runs}
    readable = [
        {
            "baseline": c.baseline,
            "other": c.other,
            "cells": c.cells,
            "only_baseline": unmatched(c.only_baseline),
            "only_other": unmatched(c.only_other),
            "verdict": verdict(c),
        }
        for c in comparisons
    ]
    html = render(_HTML, baseline=runs[0].label, comparisons=readable, models=models)
    charts = tuple(
        Chart(
            f"comparison-{i}" if len(comparisons) > 1 else "comparison",
            comparison_figure(c),
            caption=f"Change in success, {c.other} minus {c.baseline}, per cell, with 95% intervals "
            "(filled: the interval excludes 0).",
        )
        for i, c in enumerate(comparisons, 1)
        if c.cells
    )
    return Section(
        id="comparison", title="Comparison of runs", html=html, charts=charts, markdown=_markdown(comparisons)
    )


def comparison_figure(comparison: RunComparison):
    """Deltas as points with 95% interval bars, one row per cell, a line at 0."""
    cells = comparison.cells
    figure = new_figure(7.5, 1.2 + 0.28 * len(cells))
    ax = figure.add_subplot()
    style_axes(ax)
    ys = range(len(cells))[::-1]
    for y, d in zip(ys, cells, strict=True):
        color = "#1a7f37" if d.delta > 0 else "#b42318" if d.delta < 0 else "#5b6475"
        ax.plot([d.low, d.high], [y, y], color=color, linewidth=1.6, solid_capstyle="butt")
        ax.plot([d.delta], [y], "o", color=color, markerfacecolor=color if d.significant else "white", markersize=5)
    ax.axvline(0, color="#1d2330", linewidth=0.8)
    labels = [f"{d.variant} · {d.condition or 'clean'}" for d in cells]
    ax.set_yticks(list(ys), [plain(label) for label in labels], fontsize=8.5)
    ax.set_xlim(-1.02, 1.02)
    difference = plain(f"{comparison.other} − {comparison.baseline}")
    ax.set_xlabel(f"change in success, {difference} (percentage points)", fontsize=9)
    ax.xaxis.set_major_formatter(lambda x, _: f"{x * 100:+.0f}")
    return figure


def _markdown(comparisons: Sequence[RunComparison]) -> str:
    parts = []
    for c in comparisons:
        lines = [
            f"**{c.other} vs {c.baseline}**: {verdict(c)}",
            "",
            f"| variant | condition | {c.baseline} | {c.other} | delta | 95% interval | excludes 0 |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for d in c.cells:
            rates = f"{pct(d.baseline.success_rate)} | {pct(d.other.success_rate)}"
            delta = f"{d.delta * 100:+.0f} pts | [{d.low * 100:+.0f}, {d.high * 100:+.0f}]"
            lines.append(
                f"| {d.variant} | {d.condition or 'clean'} | {rates} | {delta} | {'yes' if d.significant else 'no'} |"
            )
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
