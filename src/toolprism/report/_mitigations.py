"""The mitigation section: each later run whose mitigations differ from the first run's, against
the first (the baseline), per variant and condition ("Training repairs what it sees": a
calling-convention instruction, constrained decoding): success in each with its 95% interval, the
difference with Newcombe's 95% interval, the share of schema-valid first calls in each run, and
trained variants marked (:func:`toolprism.score.compare_mitigation`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from toolprism.errors import ConfigError
from toolprism.report._html import new_figure, pct, plain, render, style_axes
from toolprism.report._section import Chart, LoadedRun, Section
from toolprism.score import MitigationComparison, compare_mitigation, run_mitigations

_HTML = """
<p class="note">Each run whose mitigations differ from the baseline's (<b>{{ baseline }}</b>, mitigations:
{{ baseline_mitigations }}), variant by variant: success in each run with its 95% interval, the change
(mitigated minus baseline) with its 95% interval (Newcombe's hybrid score interval, the runs' episodes taken
as independent samples; <span class="sig">bold</span>: it excludes 0), and the share of episodes whose first
call is schema-valid (a call was made and not rejected as an unknown tool or as invalid or malformed
arguments).{% if marked %} Trained variants are marked <b>trained</b>.{% endif %}</p>
{% for c in comparisons %}
<h3>{{ c.label }} (mitigations: {{ c.applied }}) vs {{ baseline }}</h3>
{% if c.refused %}<p class="warning">Not compared: {{ c.refused }}</p>
{% elif not c.rows %}<p class="muted">No variant in common.</p>
{% else %}
<div class="scroll"><table>
<tr><th>variant</th><th>condition</th>{% if marked %}<th>trained</th>{% endif %}
<th class="num">baseline</th><th class="num">mitigated</th><th class="num">change</th><th class="num">95% interval</th>
<th class="num">first call valid: baseline</th><th class="num">first call valid: mitigated</th></tr>
{% for r in c.rows %}
<tr><td>{{ r.variant }}</td><td>{{ r.condition or "clean" }}</td>
{% if marked %}<td>{{ "trained" if r.trained else "untrained" }}</td>{% endif %}
{% for cell in (r.baseline, r.mitigated) %}
<td class="num">{{ cell.success_rate|pct }}
 <small class="muted">{{ cell.successes }}/{{ cell.episodes }} {{ cell.ci_low|pct }}–{{ cell.ci_high|pct }}</small></td>
{% endfor %}
<td class="num {{ 'pos' if r.delta > 0 else 'neg' if r.delta < 0 else '' }}{{ ' sig' if r.significant else '' }}"
 data-delta="{{ '%.6f'|format(r.delta) }}">{{ '%+.0f'|format(r.delta * 100) }} pts</td>
<td class="num">[{{ '%+.0f'|format(r.delta_low * 100) }}, {{ '%+.0f'|format(r.delta_high * 100) }}]</td>
{% for cell in (r.baseline, r.mitigated) %}<td class="num">{{ cell.first_call_valid_rate|pct }}</td>{% endfor %}
</tr>
{% endfor %}
</table></div>
{% if c.notes %}<p class="note">{{ c.notes }}</p>{% endif %}
{% endif %}
{% endfor %}
"""


def mitigation_section(runs: Sequence[LoadedRun], trained: Collection[str] | None = None) -> Section | None:
    """The mitigation section; None unless some later run's mitigations differ from the first run's.

    Args:
        runs: the report's runs; the first is the baseline.
        trained: trained variant names (``toolprism report --trained``); None: rows unmarked.

    Two runs that do not pose the same tasks at the same seed are not compared: the section says
    why instead (:func:`toolprism.score.check_comparable`).
    """
    if len(runs) < 2:
        return None
    first = run_mitigations(runs[0].path)
    others = [(run, applied) for run in runs[1:] if (applied := run_mitigations(run.path)) != first]
    if not others:
        return None
    readable, charts, markdown = [], [], []
    for index, (run, applied) in enumerate(others, 1):
        entry = {"label": run.label, "applied": ", ".join(applied) or "none", "refused": "", "rows": [], "notes": ""}
        try:
            comparison = compare_mitigation(runs[0].score, run.score, trained=trained)
        except ConfigError as e:
            entry["refused"] = "; ".join(e.problems)
            markdown.append(f"### {run.label} vs {runs[0].label}\n\nNot compared: {entry['refused']}")
            readable.append(entry)
            continue
        entry["rows"] = comparison.rows
        entry["notes"] = _notes(comparison)
        readable.append(entry)
        markdown.append(_markdown(run.label, runs[0].label, comparison))
        if comparison.rows:
            name = "mitigation" if len(others) == 1 else f"mitigation-{index}"
            charts.append(
                Chart(
                    name,
                    mitigation_figure(comparison, run.label, runs[0].label),
                    caption=f"Success per variant, {runs[0].label} (baseline) and {run.label} (mitigations: "
                    f"{entry['applied']}), with 95% intervals; trained variants marked †.",
                )
            )
    html = render(
        _HTML,
        baseline=runs[0].label,
        baseline_mitigations=", ".join(first) or "none",
        comparisons=readable,
        marked=trained is not None,
    )
    text = "\n\n".join(markdown)
    return Section(id="mitigations", title="Mitigations", html=html, charts=tuple(charts), markdown=text)


def mitigation_figure(comparison: MitigationComparison, label: str, baseline: str):
    """Baseline and mitigated success per cell as two points with 95% interval bars, joined by a
    line; trained variants marked † in the labels."""
    rows = comparison.rows
    figure = new_figure(7.5, 1.3 + 0.32 * len(rows))
    ax = figure.add_subplot()
    style_axes(ax)
    ys = list(range(len(rows)))[::-1]
    for y, r in zip(ys, rows, strict=True):
        ax.plot([r.baseline.success_rate, r.mitigated.success_rate], [y, y], color="#c5ccd8", linewidth=2, zorder=1)
        for cell, color, dy in ((r.baseline, "#5b6475", 0.12), (r.mitigated, "#2166ac", -0.12)):
            ax.plot([cell.ci_low, cell.ci_high], [y + dy, y + dy], color=color, linewidth=1.2)
            ax.plot([cell.success_rate], [y + dy], "o", color=color, markersize=5)
    ax.plot([], [], "o", color="#5b6475", label=plain(f"{baseline} (baseline)"))
    ax.plot([], [], "o", color="#2166ac", label=plain(f"{label} (mitigated)"))
    labels = [f"{r.variant}{' †' if r.trained else ''}" + (f" · {r.condition}" if r.condition else "") for r in rows]
    ax.set_yticks(ys, [plain(t) for t in labels], fontsize=8.5)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("success rate", fontsize=9)
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:.0%}")
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    return figure


def _notes(comparison: MitigationComparison) -> str:
    parts = []
    if comparison.only_baseline:
        parts.append(f"only in the baseline (not compared): {', '.join(comparison.only_baseline)}")
    if comparison.only_mitigated:
        parts.append(f"only in the mitigated run (not compared): {', '.join(comparison.only_mitigated)}")
    if comparison.trained_absent:
        parts.append(f"trained variants no compared cell has: {', '.join(comparison.trained_absent)}")
    return "; ".join(parts) + ("." if parts else "")


def _markdown(label: str, baseline: str, comparison: MitigationComparison) -> str:
    marked = comparison.trained is not None
    applied = ", ".join(comparison.mitigations) or "none"
    head = "| variant | condition |" + (" trained |" if marked else "")
    lines = [
        f"### {label} (mitigations: {applied}) vs {baseline}",
        "",
        head + " baseline | mitigated | change | 95% interval | first call valid: baseline | "
        "first call valid: mitigated |",
        "|---|---|" + ("---|" if marked else "") + "---:|---:|---:|---:|---:|---:|",
    ]
    for r in comparison.rows:
        mark = f" {'trained' if r.trained else 'untrained'} |" if marked else ""
        rates = f"{pct(r.baseline.success_rate)} | {pct(r.mitigated.success_rate)}"
        delta = f"{r.delta * 100:+.0f} pts | [{r.delta_low * 100:+.0f}, {r.delta_high * 100:+.0f}]"
        valid = f"{pct(r.baseline.first_call_valid_rate)} | {pct(r.mitigated.first_call_valid_rate)}"
        lines.append(f"| {r.variant} | {r.condition or 'clean'} |{mark} {rates} | {delta} | {valid} |")
    return "\n".join(lines)
