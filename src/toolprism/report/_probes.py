"""The report's "Probes" section, from stored probe results only (no model is called).

- Xu et al.'s fault-arm study (2026, section III), as ``toolprism probe faults`` stores it
  (``study.json``, ``rows.jsonl``, ``summary.json``): per arm F, Ns, Nm the paired contrasts
  against the clean arm C of the same task and step (injected minus clean): dS0 and dG (nats per
  token), dH (entropy of the legal-action distribution, nats) and d pi(V) (the mass on replying),
  as strip plots at the injected return (k = 0) with medians and interquartile ranges, and the
  median dG against k (the likelihood trace: +0.085 nats/token at k = 1 for F in the paper).
- Action-Space Shaping's variant probes (RQ3), as ``toolprism probe variants RUN_DIR`` stores them
  under ``RUN_DIR/probe-variants``: each probe against success across variants with Spearman's
  rho (the paper: 0.52 for log-likelihood, 0.57 for compliance), and the query-sampling curve
  with its 95% intervals (the paper: 36 queries reach rho 0.72, ~100 reach 0.81, 800 reach 0.92).

The contrasts are recomputed from the stored rows with :func:`toolprism.probes.summarise` (with the
floor and flat band the study's ``summary.json`` records), so the tables equal ``toolprism probe
faults --from DIR``; the variant probes are read from their ``summary.json`` as stored.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from toolprism.errors import ConfigError
from toolprism.report._html import new_figure
from toolprism.report._ladder import PALETTE
from toolprism.report._perturbations import (
    NEUTRAL,
    Table,
    grid_on,
    percent_axis,
    run_color,
    section_html,
    section_markdown,
)
from toolprism.report._section import Chart, LoadedRun, Section

if TYPE_CHECKING:
    from toolprism.probes import FaultRow, FaultSummary, StoredStudy, VariantProbeSummary

VARIANT_DIR = "probe-variants"
"""Where ``toolprism probe variants RUN_DIR`` stores its result by default (under the run)."""
STUDY_FILE, SUMMARY_FILE = "study.json", "summary.json"
"""A fault study's files (``toolprism probe faults``); a variant-probe result also has a
``summary.json`` (and ``settings.json``, ``success.json``). The same names as in
``toolprism.probes`` (``_faults.py``), repeated here because importing that package loads scipy
(1.6 s), which a report without probes must not pay."""
ARM_COLORS = {"F": PALETTE[1], "Ns": PALETTE[0], "Nm": PALETTE[2]}
"""Fault arm → colour (the report's palette): F failed return, Ns inconsistent status, Nm inconsistent identifier."""
ARM_NAMES = {"F": "F failed", "Ns": "Ns status", "Nm": "Nm identifier"}
PAPER_CURVE = ((36, 0.72), (100, 0.81), (800, 0.92))
"""Action-Space Shaping, RQ3: rho between success on n sampled queries and on all queries."""
QUANTITIES = (
    ("s0", "ΔS0 (nats/token)", "surprisal of the return under the schema alone"),
    ("g", "ΔG = ΔS1 − ΔS0 (nats/token)", "surprisal the context adds"),
    ("entropy", "ΔH (nats)", "entropy of the next legal action"),
    ("reply", "Δπ(V)", "probability of replying instead of calling a tool"),
)
"""Fault-row attribute, axis label, and what it measures, for the strip plots."""
NOISE = 1e-9
"""Contrasts smaller than this are drawn as 0 (floating-point noise of a quantity that did not move)."""
MIN_SPAN = 0.01
"""The smallest half-range of a strip plot's y axis (nats, or probability)."""


@dataclass(frozen=True)
class FaultStudy:
    """A stored fault-arm study: where it is, what it holds, and its summary recomputed from the rows."""

    directory: Path
    stored: StoredStudy
    rows: list[FaultRow]
    summary: FaultSummary
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class VariantResult:
    """A stored variant-probe result and the run it probed (its directory)."""

    directory: Path
    summary: VariantProbeSummary


# --- loading --------------------------------------------------------------------------------------


def load_fault_study(directory: Path) -> FaultStudy:
    """Read a study written by ``toolprism probe faults`` and recompute its summary from the rows,
    with the floor and flat band of its ``summary.json`` (the defaults when it has none: an
    interrupted study).

    Raises:
        ConfigError: a file is missing or does not parse (the message names it).
    """
    from toolprism.probes import FLAT, FLOOR_NATS, FaultSummary, read_study, summarise

    notes: list[str] = []
    stored, rows = read_study(directory, notes)
    floor, flat = FLOOR_NATS, FLAT
    summary_path = directory / SUMMARY_FILE
    if summary_path.is_file():
        try:
            saved = FaultSummary.model_validate_json(summary_path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as e:
            raise ConfigError(f"{summary_path}: not a fault-study summary ({_first_line(e)})", what="probe") from None
        floor, flat = saved.floor_nats, saved.flat
    else:
        notes.append(f"{directory} has no {SUMMARY_FILE} (an interrupted study); its rows are summarised here")
    summary = summarise(rows, stored.config, skipped=stored.skipped, floor_nats=floor, flat=flat)
    return FaultStudy(directory, stored, rows, summary, tuple(notes))


def load_variant_result(directory: Path) -> VariantResult:
    """Read the ``summary.json`` of a result written by ``toolprism probe variants``.

    Raises:
        ConfigError: the file is missing or is not a variant-probe summary (the message names it).
    """
    from toolprism.probes import VariantProbeSummary

    path = directory / SUMMARY_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the variant-probe summary ({e.strerror or e})", what="probe") from None
    try:
        return VariantResult(directory, VariantProbeSummary.model_validate_json(text))
    except ValueError as e:
        raise ConfigError(f"{path}: not a variant-probe summary ({_first_line(e)})", what="probe") from None


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return " ".join(lines[:3]) if lines else type(error).__name__


def _load(runs: Sequence[LoadedRun], probe_dirs: Sequence[Path | str]) -> tuple[list[FaultStudy], list[VariantResult]]:
    studies: list[FaultStudy] = []
    results: list[VariantResult] = []
    problems: list[str] = []
    candidates = [(run.path / VARIANT_DIR, True) for run in runs if (run.path / VARIANT_DIR).exists()]
    candidates += [(Path(d), False) for d in probe_dirs]
    for directory, variants_only in candidates:
        try:
            if not directory.is_dir():
                raise ConfigError(f"{directory} is not a directory", what="probe")
            if not variants_only and (directory / STUDY_FILE).exists():
                studies.append(load_fault_study(directory))
            elif (directory / SUMMARY_FILE).exists() or variants_only:
                results.append(load_variant_result(directory))
            else:
                raise ConfigError(
                    f"{directory} holds neither a fault-arm study ({STUDY_FILE}) nor a variant-probe result "
                    f"({SUMMARY_FILE})",
                    what="probe",
                )
        except ConfigError as e:
            problems += e.problems
    if problems:
        raise ConfigError(problems, what="probe directory")
    return studies, results


# --- fault arms -----------------------------------------------------------------------------------


def paired_deltas(rows: Sequence[FaultRow], arm: str, k: int, attribute: str) -> list[float]:
    """``attribute`` of each ``arm`` row at step ``k`` minus the clean row of the same task and
    step (rows without a clean partner left out; NaN kept), in row order."""
    clean = {r.task_id: r for r in rows if r.arm == "C" and r.k == k}
    return [
        getattr(r, attribute) - getattr(clean[r.task_id], attribute)
        for r in rows
        if r.arm == arm and r.k == k and r.task_id in clean
    ]


def _jitter(values: int, key: str) -> np.ndarray:
    """Deterministic horizontal jitter in [-0.18, 0.18] (seeded by the panel and arm)."""
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    return rng.uniform(-0.18, 0.18, size=values)


def _fault_chart(name: str, study: FaultStudy) -> Chart:
    """Strip plots at k = 0: one panel per quantity, one column of points per arm, the median as
    a bar and the interquartile range as a box outline."""
    arms = [a for a in ARM_COLORS if any(r.arm == a and r.k == 0 for r in study.rows)]
    figure = new_figure(2.7 * len(QUANTITIES) + 0.4, 3.3)
    axes = figure.subplots(1, len(QUANTITIES))
    for ax, (attribute, label, _) in zip(axes, QUANTITIES, strict=True):
        reach = MIN_SPAN
        for x, arm in enumerate(arms):
            values = np.array([v for v in paired_deltas(study.rows, arm, 0, attribute) if not math.isnan(v)])
            if not values.size:
                continue
            values = np.where(np.abs(values) < NOISE, 0.0, values)  # float noise of an unmoved quantity
            reach = max(reach, float(np.abs(values).max()))
            color = ARM_COLORS[arm]
            ax.scatter(x + _jitter(values.size, f"{attribute}/{arm}"), values, s=16, color=color, alpha=0.7,
                       linewidths=0, zorder=3)  # fmt: skip
            q1, median, q3 = np.percentile(values, [25, 50, 75])
            ax.add_patch(_box(x, q1, q3, color))
            ax.plot([x - 0.3, x + 0.3], [median, median], color=color, linewidth=2.4, zorder=4)
        ax.axhline(0, color="#999999", linewidth=1, zorder=1)
        low, high = ax.get_ylim()
        ax.set_ylim(min(low, -reach * 0.1), max(high, reach * 0.1))  # a flat panel still shows a scale around 0
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
        ax.set_xticks(range(len(arms)), arms)
        ax.set_xlim(-0.6, len(arms) - 0.4)
        ax.set_title(label, fontsize=10)
        grid_on(ax, "y")
    config = study.stored.config
    meanings = "; ".join(f"{label.split(' ')[0]}: {meaning}" for _, label, meaning in QUANTITIES)
    caption = (
        f"Fault arms against the clean arm at the injected return (k = 0), {config.domain} "
        f"({study.stored.scorer}, {study.summary.tasks} task(s)): each point is one task's injected-minus-clean "
        "contrast; the bar is the median, the box the interquartile range (Xu et al., section III). "
        f"F: failed return, Ns: inconsistent status, Nm: inconsistent identifier. {meanings}."
    )
    return Chart(name, figure, caption)


def _box(x: float, low: float, high: float, color: str) -> object:
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.3, low), 0.6, high - low, fill=False, edgecolor=color, linewidth=1.1, zorder=2)


def _steps_chart(name: str, study: FaultStudy) -> Chart | None:
    """Median dG (interquartile range as bars) against k per arm: the likelihood trace after the
    site; None when the study read only k = 0."""
    steps = sorted({a.k for a in study.summary.arms})
    if len(steps) < 2:
        return None
    from matplotlib.lines import Line2D

    figure = new_figure(6.4, 3.4)
    ax = figure.subplots()
    arms = [a for a in ARM_COLORS if any(s.arm == a for s in study.summary.arms)]
    for i, arm in enumerate(arms):
        cells = [s for s in study.summary.arms if s.arm == arm and s.dg.median is not None]
        offset = (i - (len(arms) - 1) / 2) * 0.08
        xs = [s.k + offset for s in cells]
        medians = [s.dg.median for s in cells]
        bars = [[s.dg.median - s.dg.q1 for s in cells], [s.dg.q3 - s.dg.median for s in cells]]
        ax.errorbar(xs, medians, yerr=bars, color=ARM_COLORS[arm], marker="o", markersize=5, linewidth=1.5,
                    capsize=3, elinewidth=1)  # fmt: skip
    ax.axhline(0, color="#999999", linewidth=1)
    ax.set_xticks(steps, [f"k = {k}" + (" (site)" if k == 0 else "") for k in steps])
    ax.set_ylabel("ΔG, median and IQR (nats/token)", fontsize=9)
    grid_on(ax, "y")
    handles = [Line2D([], [], color=ARM_COLORS[a], marker="o", label=ARM_NAMES[a]) for a in arms]
    figure.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=9, frameon=False)
    caption = (
        "The gap G = S1 − S0 of the return read k calls after the injected one, injected minus clean: how long "
        "the injected return keeps changing what the model expects (later returns are byte-identical across arms)."
    )
    return Chart(name, figure, caption)


def _fault_tables(study: FaultStudy, title: str) -> list[Table]:
    header = ("arm", "k", "rows", "ΔS0 nats/token", "ΔG nats/token", "ΔG up/down, sign p", "ΔH nats",
              "Δπ(V)", "π(V) up/down/flat", "leader changes")  # fmt: skip
    rows = []
    for a in study.summary.arms:
        d = a.reply_direction
        rows.append(
            (a.arm, str(a.k), str(a.rows), a.ds0.median_iqr(), a.dg.median_iqr(), a.dg.signs(), a.dh.median_iqr(4),
             a.dreply.median_iqr(), f"{d.up}/{d.down}/{d.flat}", str(a.leader_changes))
        )  # fmt: skip
    s = study.summary
    note = (
        f"Injected minus clean, median [interquartile range], per arm and step; {s.tasks} task(s) scored, "
        f"{len(s.skipped)} skipped; token-level prefix identical across arms on {s.prefix_identical} of "
        f"{s.prefix_checked} checked. Stored in {study.directory}."
    )
    clean_rows = [
        (str(c.k), str(c.rows), "—" if c.entropy_median is None else f"{c.entropy_median:.4f}", str(c.below_floor),
         str(c.reply_above_099), str(c.reply_below_001))
        for c in s.clean
    ]  # fmt: skip
    clean = Table(
        f"{title}: clean levels",
        ("k", "rows", "median H nats", f"H ≤ {s.floor_nats}", "π(V) > 0.99", "π(V) < 0.01"),
        clean_rows,
        text_columns=0,
        note="The clean arm's entropy of the next legal action and its mass on replying (section III.B-C).",
    )
    return [Table(f"{title}: paired contrasts", header, rows, text_columns=2, note=note), clean]


# --- variant probes -------------------------------------------------------------------------------


def _scatter_chart(name: str, result: VariantResult, color: str) -> Chart | None:
    """Each probe against success across variants (one panel per probe that ran), rho in the title."""
    s = result.summary
    probes = [
        (key, label, rho)
        for key, label, rho in (
            ("loglik", "log-likelihood (nats/token)", s.rho_loglik),
            ("compliance", "compliance", s.rho_compliance),
        )
        if any(getattr(v, key) is not None for v in s.variants)
    ]
    if not probes:
        return None
    from matplotlib.ticker import MaxNLocator

    figure = new_figure(4.4 * len(probes) + 0.4, 3.8)
    axes = np.atleast_1d(figure.subplots(1, len(probes)))
    for ax, (key, label, rho) in zip(axes, probes, strict=True):
        have = [v for v in s.variants if getattr(v, key) is not None]
        xs, ys = [getattr(v, key) for v in have], [v.success_rate for v in have]
        ax.scatter(xs, ys, s=30, color=color, zorder=3)
        ax.margins(x=0.12)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        if key == "compliance":
            ax.set_xlim(-0.05, 1.05)
            percent_axis(ax.xaxis)
        if len(have) <= 12:
            _label_points(ax, xs, ys, [v.variant for v in have])
        shown = "undefined" if rho is None else f"{rho:+.2f}"
        ax.set_title(f"{label.split(' (')[0]}: Spearman ρ = {shown}, {len(have)} variants", fontsize=10)
        ax.set_xlabel(label, fontsize=9)
        ax.set_ylabel("success (clean)", fontsize=9)
        ax.set_ylim(-0.05, 1.05)
        percent_axis(ax.yaxis)
        grid_on(ax, "both")
    caption = (
        f"Query-free probes against full-episode success across the variants of {s.run_dir} (Action-Space Shaping, "
        "RQ3; the paper's rho: 0.52 for log-likelihood, 0.57 for compliance)."
    )
    return Chart(name, figure, caption)


def _label_points(ax: object, xs: list[float], ys: list[float], names: list[str]) -> None:
    """Name each point, once per position: variants at the same place share one label."""
    left, right = ax.get_xlim()  # type: ignore[attr-defined]
    places: dict[tuple[int, int], list[int]] = {}
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        places.setdefault((round((x - left) / (right - left) * 40), round(y * 40)), []).append(i)
    for members in places.values():
        i = members[0]
        text = ", ".join(names[j] for j in members)
        east = (xs[i] - left) / (right - left) > 0.5  # label toward the middle, never past the panel's edge
        ax.annotate(text, (xs[i], ys[i]), xytext=(-5 if east else 5, 4), textcoords="offset points",  # type: ignore[attr-defined]
                    ha="right" if east else "left", fontsize=8, color=NEUTRAL)  # fmt: skip


def _curve_chart(name: str, result: VariantResult, color: str) -> Chart | None:
    """rho(success on n sampled queries, success on all) against n (log scale) with its 95%
    interval, the paper's points, and the probes' rho as reference lines."""
    s = result.summary
    points = [p for p in s.curve if p.rho_median is not None]
    if not points:
        return None
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter

    figure = new_figure(6.6, 3.8)
    ax = figure.subplots()
    ns = [p.n for p in points]
    ax.fill_between(ns, [p.ci_low for p in points], [p.ci_high for p in points], color=color, alpha=0.18, linewidth=0)
    ax.plot(ns, [p.rho_median for p in points], "o-", color=color, markersize=5, linewidth=1.6)
    handles = [
        Line2D([], [], color=color, marker="o", label="this run: median ρ (band: 95% of draws)"),
        Line2D([], [], color="#777777", marker="s", markerfacecolor="white", linestyle="none",
               label="the paper (36, ~100, 800 queries)"),
    ]  # fmt: skip
    ax.plot(*zip(*PAPER_CURVE, strict=True), "s", color="#777777", markerfacecolor="white", markersize=6)
    for rho, label, style in (
        (s.rho_loglik, "log-likelihood probe", ":"),
        (s.rho_compliance, "compliance probe", "--"),
    ):
        if rho is not None:
            ax.axhline(rho, color=NEUTRAL, linestyle=style, linewidth=1.1)
            handles.append(Line2D([], [], color=NEUTRAL, linestyle=style, label=f"{label}: ρ = {rho:+.2f}"))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: ""))
    low = min([p.ci_low for p in points if p.ci_low is not None] + [0.0])
    ax.set_ylim(min(low, 0.0) - 0.05, 1.05)
    ax.set_xlim(min(ns + [36]) / 1.6, max(ns + [800]) * 1.6)
    ax.set_xlabel("queries sampled (n, log scale)", fontsize=9)
    ax.set_ylabel("Spearman ρ with all queries", fontsize=9)
    grid_on(ax, "both")
    figure.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=8.5, frameon=False)
    caption = (
        f"How well success on n sampled queries ranks the variants as all {s.tasks} queries do ({s.bootstrap} draws "
        "per n without replacement; Action-Space Shaping, RQ3)."
    )
    return Chart(name, figure, caption)


def _variant_tables(result: VariantResult, title: str) -> list[Table]:
    s = result.summary
    rows = [
        (v.variant, v.spec, f"{v.success_rate:.1%}", "—" if v.loglik is None else f"{v.loglik:.4f}",
         str(v.loglik_tokens), "—" if v.compliance is None else f"{v.compliance:.1%}", str(v.compliance_n))
        for v in s.variants
    ]  # fmt: skip
    rho = lambda r: "—" if r is None else f"{r:+.3f}"  # noqa: E731
    note = (
        f"Clean success over {s.tasks} paired task(s); probes on {len(s.probed_tasks)} task(s) "
        f"({s.model or 'no model: curve only'}). Spearman ρ with success: log-likelihood {rho(s.rho_loglik)}, "
        f"compliance {rho(s.rho_compliance)} (—: undefined or not probed). Stored in {result.directory}."
    )
    variants = Table(
        f"{title}: probes per variant",
        ("variant", "spec", "success", "log-lik nats/token", "tokens", "compliance", "instructions"),
        rows,
        text_columns=2,
        note=note,
    )
    curve_rows = [
        (str(p.n), rho(p.rho_median), rho(p.rho_mean),
         "—" if p.ci_low is None else f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]", f"{p.undefined}/{p.draws}")
        for p in s.curve
    ]  # fmt: skip
    curve = Table(
        f"{title}: query-sampling curve",
        ("n", "median ρ", "mean ρ", "95% interval", "undefined draws"),
        curve_rows,
        text_columns=0,
        note="ρ between per-variant success on n sampled queries and on all queries.",
    )
    return [variants, curve]


# --- the section ----------------------------------------------------------------------------------


def probe_section(runs: Sequence[LoadedRun], probe_dirs: Sequence[Path | str] = ()) -> Section | None:
    """The "Probes" section, or None when nothing is stored: no ``probe_dirs`` and no run with a
    ``probe-variants`` result.

    Args:
        runs: the report's runs; each one's ``RUN_DIR/probe-variants`` (``toolprism probe variants``)
            is shown when present.
        probe_dirs: directories written by ``toolprism probe faults`` (``study.json``, ``rows.jsonl``,
            ``summary.json``) or by ``toolprism probe variants --out`` (``summary.json``).

    Charts (names; ``-2``, ``-3`` … for the second and later study or result): ``fault-arms``
    (strip plots of dS0, dG, dH, d pi(V) per arm at k = 0), ``fault-steps`` (median dG against k,
    when more than one k was read), ``probe-vs-success`` (when a probe ran), ``sampling-curve``.

    Raises:
        ConfigError: a probe directory that is missing, holds neither result, or has a file that
            does not parse (every problem listed; each names its file).
    """
    studies, results = _load(runs, probe_dirs)
    if not studies and not results:
        return None
    charts: list[Chart] = []
    tables: list[Table] = []
    points: list[str] = []
    for i, study in enumerate(studies):
        suffix = f"-{i + 1}" if i else ""
        title = f"Fault arms, {study.stored.config.domain} ({study.directory.name})"
        if any(r.arm != "C" and r.k == 0 for r in study.rows):
            charts.append(_fault_chart(f"fault-arms{suffix}", study))
        if (steps := _steps_chart(f"fault-steps{suffix}", study)) is not None:
            charts.append(steps)
        tables += _fault_tables(study, title)
        points += [*study.notes, *_fault_findings(study)]
    index = {run.path.resolve(): i for i, run in enumerate(runs)}
    for i, result in enumerate(results):
        suffix = f"-{i + 1}" if i else ""
        probed = Path(result.summary.run_dir).resolve()
        color = run_color(index.get(probed, i))
        label = runs[index[probed]].label if probed in index else Path(result.summary.run_dir).name
        title = f"Variant probes, {label}"
        for chart in (_scatter_chart(f"probe-vs-success{suffix}", result, color),
                      _curve_chart(f"sampling-curve{suffix}", result, color)):  # fmt: skip
            if chart is not None:
                charts.append(chart)
        tables += _variant_tables(result, title)
        points.append(_variant_finding(result, label))
    intro = (
        "Cheap measurements stored next to the runs: Xu et al.'s fault arms read from a scoring model's "
        "log-probabilities, and Action-Space Shaping's query-free probes against the run's success."
    )
    return Section(
        id="probes",
        title="Probes",
        html=section_html(intro, points, tables),
        charts=charts,
        markdown=section_markdown(intro, points, tables),
    )


def _fault_findings(study: FaultStudy) -> list[str]:
    from toolprism.probes import signed

    lines = []
    for a in study.summary.arms:
        if a.k != 0:
            continue
        median = signed(a.dg.median)
        lines.append(
            f"{study.directory.name}, arm {a.arm} at the site ({a.rows} rows): ΔS0 > 0 on {a.ds0.up} of {a.ds0.n}, "
            f"ΔG > 0 on {a.dg.up} of {a.dg.n} (median {median} nats/token), "
            f"π(V) up/down/flat {a.reply_direction.up}/{a.reply_direction.down}/{a.reply_direction.flat}"
        )
    return lines


def _variant_finding(result: VariantResult, label: str) -> str:
    s = result.summary
    rho = lambda r: "undefined" if r is None else f"{r:+.2f}"  # noqa: E731
    reached = [p for p in s.curve if p.rho_median is not None]
    curve = "; the curve: " + ", ".join(f"n={p.n} ρ {p.rho_median:+.2f}" for p in reached) if reached else ""
    probes = (
        f"Spearman ρ with success: log-likelihood {rho(s.rho_loglik)}, compliance {rho(s.rho_compliance)}"
        if s.model
        else "no probe ran (curve only)"
    )
    return f"{label}, {len(s.variants)} variants over {s.tasks} task(s): {probes}{curve}"
