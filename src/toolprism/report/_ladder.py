"""The granularity ladder: success against the tool-count ratio to native (log scale) for the
tool-set partitioning variants a run holds (merges below 1x, splits above; Action-Space Shaping,
Appendix Figure 4).

A variant's ratio is the mean over the run's domains of (tools the model was shown under the
variant) / (native operations of the domain), the paper's definition (registry.json; see
``tests/shaping/test_paper_partitions.py``). The tool count is read from a stored trace (the tools
it records), clean episodes preferred (a tool-interface perturbation can change the list).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean

from toolprism.report._families import NATIVE, PARTITIONING, spec_operators, variant_family
from toolprism.report._html import new_figure, pct, plain, render, style_axes
from toolprism.report._section import Chart, LoadedRun, Section
from toolprism.run import RunStore
from toolprism.score import VariantScore, run_domains

PALETTE = ("#2166ac", "#b2182b", "#1b7837", "#762a83", "#e08214", "#35978f")
TICKS = (0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50)
"""Tool-count ratios labelled on the x axis (those within its range)."""


@dataclass(frozen=True)
class LadderPoint:
    """One variant on the ladder: its tool-count ratio to native and its clean success."""

    run: str
    variant: str
    ratio: float
    score: VariantScore


def tool_ratios(run: LoadedRun, variants: Sequence[str]) -> dict[str, float]:
    """Variant -> mean over domains of its shown tools / the domain's native operations, from the
    stored traces (variants without a stored trace left out)."""
    store = RunStore.open(run.path)
    try:
        natives = {name: len(d.action_space().operations) for name, d in run_domains(store).items()}
        first: dict[tuple[str, str], tuple[bool, str]] = {}
        for r in store.results():
            key = (r.variant, r.domain)
            if r.variant not in variants or r.domain not in natives:
                continue
            if key not in first or (r.condition == "" and not first[key][0]):  # a clean episode preferred
                first[key] = (r.condition == "", r.episode_id)
        counts: dict[str, list[float]] = {}
        for (variant, domain), (_, episode) in first.items():
            shown = len(store.trace(episode).tools)
            counts.setdefault(variant, []).append(shown / natives[domain])
    finally:
        store.close()
    return {v: mean(rs) for v, rs in counts.items()}


def ladder_steps(variants: Sequence[VariantScore]) -> list[VariantScore]:
    """The clean variants on the ladder: native and the paper's ``ladder(k=...)`` steps when the
    run has any (Appendix Figure 4), else native and every tool-set partitioning variant; ``[]``
    when there is no step besides native."""
    clean = [v for v in variants if v.condition == ""]
    paper = [v for v in clean if spec_operators(v.spec) == ["ladder"]]
    others = [v for v in clean if variant_family(v.spec) == PARTITIONING]
    steps = paper or others
    return [v for v in clean if variant_family(v.spec) == NATIVE] + steps if steps else []


def ladder_points(run: LoadedRun) -> list[LadderPoint]:
    """The run's ladder steps (:func:`ladder_steps`) with their ratios, by ratio."""
    steps = ladder_steps(run.score.variants)
    if not steps:
        return []
    ratios = tool_ratios(run, [v.variant for v in steps])
    points = [LadderPoint(run.label, v.variant, ratios[v.variant], v) for v in steps if v.variant in ratios]
    return sorted(points, key=lambda p: (p.ratio, p.variant))


_HTML = """
<p class="note">Clean success of each step of the merge/split ladder (the paper's
<code>ladder(k=…)</code> variants where the run has them, else every tool-set partitioning variant)
against its tool-count ratio to native (tools shown / native operations, the mean over the run's
domains; log scale): merges sit below 1x, splits above. Bars are 95% intervals.</p>
<details{% if points|length <= 12 %} open{% endif %}><summary>the ladder's variants ({{ points|length }} rows)</summary>
<div class="scroll"><table>
<tr>{% if multi %}<th>run</th>{% endif %}<th>variant</th><th class="num">tools / native</th>
<th class="num">success</th><th class="num">95% interval</th><th class="num">n</th></tr>
{% for p in points %}
<tr>{% if multi %}<td>{{ p.run }}</td>{% endif %}<td>{{ p.variant }}</td>
<td class="num">{{ '%.2f'|format(p.ratio) }}x</td>
<td class="num">{{ p.score.success_rate|pct }}</td><td class="num">{{ p.score.ci_low|interval(p.score.ci_high) }}</td>
<td class="num">{{ p.score.episodes }}</td></tr>
{% endfor %}
</table></div>
</details>
"""


def ladder_section(runs: Sequence[LoadedRun]) -> Section | None:
    """The ladder section; None when no run has a clean tool-set partitioning variant."""
    points = [p for run in runs for p in ladder_points(run)]
    if not points:
        return None
    html = render(_HTML, points=points, multi=len(runs) > 1)
    chart = Chart(
        "ladder",
        ladder_figure(points),
        caption="Success against tool-count ratio to native (log scale), with 95% intervals; merges left of 1x, "
        "splits right.",
    )
    lines = ["| run | variant | tools / native | success | n |", "|---|---|---:|---:|---:|"]
    lines += [
        f"| {p.run} | {p.variant} | {p.ratio:.2f}x | {pct(p.score.success_rate)} | {p.score.episodes} |" for p in points
    ]
    return Section(id="ladder", title="Granularity ladder", html=html, charts=(chart,), markdown="\n".join(lines))


def _labels(points: Sequence[LadderPoint]) -> dict[tuple[float, float], list[str]]:
    """(ratio, rate) -> the variants drawn there (one label for points that coincide)."""
    labels: dict[tuple[float, float], list[str]] = {}
    for p in points:
        labels.setdefault((round(p.ratio, 6), p.score.success_rate), []).append(p.variant)
    return labels


def ladder_figure(points: Sequence[LadderPoint]):
    """Success (with 95% interval bars) against ratio on a log x axis, one series per run, each
    point named by its variant."""
    figure = new_figure(7.5, 4.2)
    ax = figure.add_subplot()
    style_axes(ax)
    runs = list(dict.fromkeys(p.run for p in points))
    named: set[tuple[float, float]] = set()
    for i, run in enumerate(runs):
        mine = [p for p in points if p.run == run]
        color = PALETTE[i % len(PALETTE)]
        dodge = 1 + 0.025 * (i - (len(runs) - 1) / 2)  # runs' bars side by side, not on top of each other
        xs = [p.ratio * dodge for p in mine]
        ys = [p.score.success_rate for p in mine]
        lows = [p.score.success_rate - p.score.ci_low for p in mine]
        highs = [p.score.ci_high - p.score.success_rate for p in mine]
        ax.errorbar(xs, ys, yerr=[lows, highs], fmt="-o", color=color, markersize=5, capsize=3, linewidth=1.3,
                    label=plain(run) if len(runs) > 1 else None)  # fmt: skip
        for (ratio, rate), names in _labels(mine).items():
            if (ratio, rate) not in named:
                named.add((ratio, rate))
                label = plain(", ".join(names))
                ax.annotate(label, (ratio, rate), textcoords="offset points", xytext=(3, 5), fontsize=7.5,
                            color="#3b4252", rotation=35, rotation_mode="anchor")  # fmt: skip
    ax.set_xscale("log")
    ratios = [p.ratio for p in points]
    ax.set_xlim(min(ratios + [1.0]) / 1.6, max(ratios + [1.0]) * 1.6)
    ax.set_xticks([t for t in TICKS if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]])
    ax.minorticks_off()
    ax.axvline(1.0, color="#9aa3b2", linewidth=0.8, linestyle="--")
    ax.set_ylim(-0.04, 1.25)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.yaxis.set_major_formatter(lambda y, _: f"{y:.0%}")
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:g}x")
    ax.set_xlabel("tools shown / native operations (log scale)", fontsize=9)
    ax.set_ylabel("success", fontsize=9)
    if len(runs) > 1:
        figure.legend(fontsize=8, frameon=False, loc="outside upper right", ncols=len(runs))
    return figure
