"""Failure modes per variant: the share of episodes in each mode of the Action-Space Shaping
taxonomy (section 6, :class:`toolprism.score.FailureMode`) as stacked bars, and schema-form success
(a call in the wrong schema's form counted as its native action) next to real success: the part of
the failures that is the interface's, not the task's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolprism.report._html import new_figure, pct, plain, render, style_axes
from toolprism.report._section import Chart, LoadedRun, Section
from toolprism.score import FailureMode, VariantScore

SUCCESS_COLOR = "#2166ac"
MODE_COLORS: dict[FailureMode, str] = {
    FailureMode.LIVELOCK: "#8c510a",
    FailureMode.TXN_HANDLE: "#d8b365",
    FailureMode.REJECTED_STUCK: "#b2182b",
    FailureMode.WRONG_CLASS: "#f4a582",
    FailureMode.UNDER_EXEC: "#7b3294",
    FailureMode.OVER_EXEC: "#c2a5cf",
    FailureMode.WRONG_ARGS: "#e08214",
    FailureMode.OTHER: "#9aa3b2",
}
"""One color per failure mode (success is :data:`SUCCESS_COLOR`)."""


@dataclass(frozen=True)
class FailureRow:
    """One bar: a run's variant under one condition."""

    run: str
    score: VariantScore

    @property
    def label(self) -> str:
        """``variant`` (``· condition`` when perturbed)."""
        v = self.score
        return v.variant + (f" · {v.condition}" if v.condition else "")

    def share(self, mode: FailureMode) -> float:
        """The share of the row's episodes that failed in ``mode``."""
        return self.score.modes.get(mode, 0) / self.score.episodes


def failure_rows(runs: Sequence[LoadedRun]) -> list[FailureRow]:
    """Per run, its clean variants (every condition when the run has no clean episode)."""
    rows = []
    for run in runs:
        clean = [v for v in run.score.variants if v.condition == ""]
        rows += [FailureRow(run.label, v) for v in (clean or run.score.variants) if v.episodes]
    return rows


_HTML = """
<p class="note">Each variant's episodes by outcome: success, or the failure mode the taxonomy assigns
(Action-Space Shaping, section 6). <i>Schema-form success</i> counts a call in a wrong schema's form
as its native action: the gap between it and success is what the interface, not the task, cost.
{% if clean_only %}Clean episodes only; perturbed ones are in the perturbation section.{% endif %}</p>
<details{% if rows|length <= 12 %} open{% endif %}><summary>counts per variant ({{ rows|length }} rows)</summary>
<div class="scroll"><table>
<tr>{% if multi %}<th>run</th>{% endif %}<th>variant</th><th class="num">n</th><th class="num">success</th>
<th class="num">schema-form success</th>
{% for m in modes %}<th class="num"><span style="color:{{ colors[m] }}">&#9632;</span>
 {{ m.value }}</th>{% endfor %}</tr>
{% for r in rows %}
<tr>{% if multi %}<td>{{ r.run }}</td>{% endif %}<td>{{ r.label }}</td><td class="num">{{ r.score.episodes }}</td>
<td class="num">{{ r.score.success_rate|pct }}</td>
{% set uplift = r.score.schema_form_success_rate - r.score.success_rate %}
<td class="num">{{ r.score.schema_form_success_rate|pct }}
{% if uplift > 0 %}<small class="pos">+{{ (uplift * 100)|round|int }}</small>{% endif %}</td>
{% for m in modes %}<td class="num">{{ r.score.modes.get(m, 0) or "" }}</td>{% endfor %}</tr>
{% endfor %}
</table></div>
</details>
"""


def failure_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The failure-mode section; None when no variant has a scored episode."""
    rows = failure_rows(runs)
    if not rows:
        return None
    modes = [m for m in FailureMode if any(r.score.modes.get(m) for r in rows)]
    clean_only = any(r.score.condition == "" for r in rows)
    html = render(_HTML, rows=rows, modes=modes, colors=MODE_COLORS, multi=len(runs) > 1, clean_only=clean_only)
    chart = Chart(
        "failure-modes",
        failure_figure(rows, multi=len(runs) > 1),
        caption="Share of episodes per outcome (success, then each failure mode); the diamond marks schema-form "
        "success.",
    )
    return Section(
        id="failures",
        title="Failure modes",
        html=html,
        charts=(chart,),
        markdown=_markdown(rows, modes, multi=len(runs) > 1),
    )


def failure_figure(rows: Sequence[FailureRow], *, multi: bool = False):
    """Horizontal stacked bars (success, then the modes in taxonomy order), one per row, with the
    schema-form success rate as a diamond."""
    figure = new_figure(8.0, 1.5 + 0.3 * len(rows))
    ax = figure.add_subplot()
    style_axes(ax)
    ax.grid(False, axis="y")
    ys = list(range(len(rows)))[::-1]
    labels = [f"{r.label} · {r.run}" if multi else r.label for r in rows]
    left = [r.score.success_rate for r in rows]
    ax.barh(ys, left, color=SUCCESS_COLOR, height=0.7, label="success")
    for mode in FailureMode:
        shares = [r.share(mode) for r in rows]
        if any(shares):
            ax.barh(ys, shares, left=left, color=MODE_COLORS[mode], height=0.7, label=mode.value)
            left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.plot([r.score.schema_form_success_rate for r in rows], ys, "D", color="white", markeredgecolor="#1d2330",
            markersize=6, label="schema-form success", clip_on=False, zorder=5)  # fmt: skip
    ax.set_yticks(ys, [plain(label) for label in labels], fontsize=8.5)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:.0%}")
    ax.set_xlabel("share of episodes", fontsize=9)
    handles, names = ax.get_legend_handles_labels()
    order = sorted(range(len(names)), key=lambda i: names[i] == "schema-form success")  # the marker last
    figure.legend([handles[i] for i in order], [names[i] for i in order], fontsize=8, frameon=False,
                  loc="outside lower center", ncols=5)  # fmt: skip
    return figure


def _markdown(rows: Sequence[FailureRow], modes: Sequence[FailureMode], *, multi: bool) -> str:
    head = "| variant | n | success | schema-form success |" + "".join(f" {m.value} |" for m in modes)
    lines = [head, "|---|---:|---:|---:|" + "---:|" * len(modes)]
    for r in rows:
        counts = "".join(f" {r.score.modes.get(m, 0)} |" for m in modes)
        v = r.score
        label = f"{r.label} · {r.run}" if multi else r.label
        lines.append(f"| {label} | {v.episodes} | {pct(v.success_rate)} | {pct(v.schema_form_success_rate)} |{counts}")
    return "\n".join(lines)
