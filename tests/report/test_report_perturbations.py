"""The report's Perturbations section on stored perturbed runs (a seeded, deliberately flaky
oracle on ToolRobustBench's single-step domain): its numbers are score_run's, its charts exist and
draw, its text is escaped, and it is left out when no run is perturbed."""

from __future__ import annotations

import dataclasses
import io
import json
import zlib
from pathlib import Path

import pytest
from _report_markdown import markdown_tables

from toolprism import RunConfig, evaluate
from toolprism.backends import EpisodeContext, OracleBackend, ScriptedTurns
from toolprism.report import load_runs, render_page
from toolprism.report._html import interval, pct
from toolprism.report._perturbations import (
    family_title,
    perturbation_section,
    points,
    subtype_title,
)
from toolprism.score import TRB_ERROR_NAMES, score_run

TURNS = ScriptedTurns()
FAIL = {"": 0.1, "light": 0.3, "medium": 0.5, "heavy": 0.75}
"""Chance that the flaky agent spoils an episode, by the severity of its (last) perturbation."""
CONDITIONS = [
    "A2:light", "A2:medium", "A2:heavy", "B3:medium", "C2:light", "C2:heavy", "D2:light", "D2:medium",
    "D2:heavy", "B2:medium", "B2:medium+D2:medium", "A2:medium+B3:medium",
]  # fmt: skip


class Flaky:
    """The oracle, spoiled on a seeded share of episodes: it answers at once ("Done.", a missing
    tool) or calls the gold tool with a changed string value (a wrong argument)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def settings(self) -> dict:
        return {"backend": self.name}

    def agent(self, context: EpisodeContext):  # noqa: ANN201
        oracle = OracleBackend().agent(context)
        severity = context.perturbations[-1].severity if context.perturbations else ""
        terms = [(i.subtype, i.severity) for i in context.perturbations]
        key = f"{self.name}|{context.task.id}|{context.variant.name}|{terms}|{context.seed}"
        u = (zlib.crc32(key.encode()) % 1000) / 1000
        mode = "quit" if u < FAIL[severity] / 2 else "wrong" if u < FAIL[severity] else "oracle"

        class Agent:
            turns = 0

            async def respond(self, messages, tools):  # noqa: ANN001, ANN202
                self.turns += 1
                if mode == "quit" and self.turns == 1:
                    return TURNS.answer("Done.")
                turn = await oracle.respond(messages, tools)
                if mode == "wrong" and self.turns == 1 and turn.calls:
                    args = json.loads(turn.calls[0].arguments)
                    key = next((k for k, v in sorted(args.items()) if isinstance(v, str)), None)
                    if key is not None:
                        return TURNS.call(turn.calls[0].name, {**args, key: args[key] + "x"})
                return turn

        return Agent()


def flaky_run(run_dir: Path, name: str = "flaky", conditions: list[str] = CONDITIONS) -> Path:
    config = RunConfig(model="oracle", domains=["trb"], variants=["native"], tasks=4, perturbations=conditions)
    evaluate(config, run_dir=run_dir, backend=Flaky(name))
    return run_dir


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("perturbed")
    clean = RunConfig(model="oracle", domains=["trb"], variants=["native"], tasks=2)
    evaluate(clean, run_dir=root / "clean")
    return flaky_run(root / "flaky"), flaky_run(root / "other", "other", CONDITIONS[:4]), root / "clean"


def test_no_section_without_a_perturbed_condition(stored: tuple[Path, Path, Path]) -> None:
    assert perturbation_section(load_runs([stored[2]])) is None
    assert perturbation_section([]) is None


def test_every_number_is_score_runs(stored: tuple[Path, Path, Path]) -> None:
    run_dir = stored[0]
    section = perturbation_section(load_runs([run_dir]))
    assert section is not None and section.id == "perturbations"
    score = score_run(run_dir)
    tables = markdown_tables(section.markdown)

    subtypes = {(r["condition"], r["severity"]): r for r in tables["Success per subtype and severity"]}
    singles = [p for p in score.perturbations if "+" not in p.subtype]
    assert len(subtypes) == len(singles) == 10
    for p in singles:
        row = subtypes[(subtype_title(p.subtype), p.severity)]
        assert row["success"] == f"{p.successes}/{p.episodes}"
        assert (row["rate"], row["95% CI"]) == (pct(p.success_rate), interval(p.ci_low, p.ci_high))
        assert row["skipped"] == str(p.skipped)

    families = {(r["condition"], r["severity"]): r for r in tables["Success per family and severity"]}
    for family in "ABCD":
        for severity in ("light", "medium", "heavy"):
            cells = [p for p in singles if p.subtype[0] == family and p.severity == severity]
            if cells:
                k, n = sum(p.successes for p in cells), sum(p.episodes for p in cells)
                row = families[(family_title(family), severity)]
                assert (row["success"], row["rate"]) == (f"{k}/{n}", pct(k / n))
    clean = [v for v in score.variants if v.condition == ""]
    k, n = sum(v.successes for v in clean), sum(v.episodes for v in clean)
    assert families[("clean", "—")]["success"] == f"{k}/{n}"

    mixed = tables["Mixed pairs vs their weaker constituent"]
    assert [(r["pair"], r["severity"]) for r in mixed] == [(i.pair, i.severity) for i in score.interactions]
    for row, i in zip(mixed, score.interactions, strict=True):
        assert row["mixed"] == f"{i.mixed.successes}/{i.mixed.episodes} {pct(i.mixed.success_rate)}"
        assert row["weaker"] == i.weaker
        assert row["delta [95% CI]"] == points(i.delta, i.delta_low, i.delta_high)

    attribution = tables["Primary errors, cascades and boundary violations"]
    assert len(attribution) == len(score.attribution)
    for row, a in zip(attribution, score.attribution, strict=True):
        assert (row["family"], row["subtype"]) == (family_title(a.family), a.subtype or "all")
        assert (row["episodes"], row["failures"]) == (str(a.episodes), str(a.failures))
        if a.failures:
            shares = [row[e.replace("_", " ")] for e in TRB_ERROR_NAMES]
            assert shares == [pct(a.primary_error_shares.get(e, 0.0)) for e in TRB_ERROR_NAMES]
            assert row["cascade"] == pct(a.cascade_rate)
    assert sum(a.failures for a in score.attribution if a.subtype is None) > 0  # the flaky agent fails

    runtime = tables["Runtime-report field match rates"]
    reported = [r for r in score.runtime if r.requested]
    assert [r["subtype"] for r in runtime] == [subtype_title(r.subtype) for r in reported]
    for row, r in zip(runtime, reported, strict=True):
        assert row["requested"] == str(r.requested)
        assert row["status"] == (f"{r.status.matches}/{r.status.n} {pct(r.status.rate)}" if r.status.n else "—")


def test_charts_have_their_names_and_draw(stored: tuple[Path, Path, Path]) -> None:
    section = perturbation_section(load_runs([stored[0]]))
    assert [c.name for c in section.charts] == ["severity-families", "severity-subtypes", "mixed-pairs", "attribution"]
    by_name = {c.name: c for c in section.charts}
    families = [ax.get_title() for ax in by_name["severity-families"].figure.axes if ax.get_visible()]
    assert families == ["A tool interface", "B user intent", "C tool output", "D runtime"]
    subtypes = [ax.get_title() for ax in by_name["severity-subtypes"].figure.axes if ax.get_visible()]
    assert subtypes == [subtype_title(s) for s in ("A2", "B2", "B3", "C2", "D2")]
    labels = [t.get_text() for t in by_name["mixed-pairs"].figure.axes[0].get_yticklabels()]
    compared = [i for i in score_run(stored[0]).interactions if i.weaker is not None]
    assert labels == [f"{i.pair} {i.severity}\nweaker: {i.weaker}" for i in compared] and len(labels) == 2
    for chart in section.charts:
        assert chart.caption
        buffer = io.BytesIO()
        chart.figure.savefig(buffer, format="png")
        assert buffer.getvalue().startswith(b"\x89PNG")


def test_several_runs_get_a_run_column_and_a_line_each(stored: tuple[Path, Path, Path]) -> None:
    runs = load_runs([stored[0], stored[1], stored[2]])
    section = perturbation_section(runs)
    tables = markdown_tables(section.markdown)
    assert {r["run"] for r in tables["Success per subtype and severity"]} == {"flaky", "other"}
    legend = section.charts[0].figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["flaky", "other", "clean success"]
    headings = [
        t.get_text() for t in section.charts[-1].figure.axes[0].get_yticklabels() if t.get_fontweight() == "bold"
    ]
    assert "flaky" in headings and "other" in headings


def test_run_labels_are_escaped(stored: tuple[Path, Path, Path]) -> None:
    (run,) = load_runs([stored[0]])
    hostile = dataclasses.replace(run, label="<script>alert(1)</script>")
    other = dataclasses.replace(load_runs([stored[1]])[0], label="x|y")
    section = perturbation_section([hostile, other])
    assert "<script>" not in section.html and "&lt;script&gt;alert(1)&lt;/script&gt;" in section.html
    assert "x\\|y" in section.markdown  # a pipe in a cell does not split the markdown table
    assert "<script>" not in section.markdown and "&lt;script>alert(1)" in section.markdown
    assert not section.markdown.startswith("#")  # the page writes the section's title
    page = render_page("t", [section])
    assert "<script>alert(1)" not in page and "chart-severity-families" in page
