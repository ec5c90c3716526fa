"""The report's mitigation section: present when a run's mitigations differ from the first run's,
absent otherwise, the same comparison as ``toolprism score --baseline`` (trained variants marked),
a chart, and a note instead of a table for runs that do not share tasks; the overview names each
run's mitigations."""

from __future__ import annotations

from pathlib import Path

import pytest
from _mitigated_runs import reader_run  # tests/_mitigated_runs.py
from _report_markdown import markdown_tables  # tests/_report_markdown.py
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.report import build_sections, load_runs, render_markdown
from toolprism.report._mitigations import mitigation_section
from toolprism.report._overview import header_rows, run_usage

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report-mitigation")
    return {
        "baseline": reader_run(root / "baseline"),
        "told": reader_run(root / "told", ["instruction"]),
        "again": reader_run(root / "again"),  # no mitigation, like the baseline
        "more": reader_run(root / "more", ["instruction"], tasks=3),
    }


def test_the_section_compares_runs_whose_mitigations_differ(runs: dict[str, Path]) -> None:
    loaded = load_runs([runs["baseline"], runs["told"]])
    section = mitigation_section(loaded, trained=["merge"])
    assert section is not None and section.id == "mitigations"
    assert [c.name for c in section.charts] == ["mitigation"]
    tables = markdown_tables(section.markdown)
    rows = {r["variant"]: r for r in tables["told (mitigations: instruction) vs baseline"]}
    assert rows["merge"]["trained"] == "trained" and rows["native"]["trained"] == "untrained"
    merge = rows["merge"]
    assert (merge["baseline"], merge["mitigated"], merge["change"], rows["native"]["change"]) == (
        "0%", "100%", "+100 pts", "+0 pts"
    )  # fmt: skip
    assert (merge["first call valid: baseline"], merge["first call valid: mitigated"]) == ("0%", "100%")
    assert "<th>trained</th>" in section.html and "untrained" in section.html
    assert "<th>trained</th>" not in mitigation_section(loaded).html  # unmarked without --trained


def test_the_section_is_absent_when_mitigations_agree(runs: dict[str, Path]) -> None:
    assert mitigation_section(load_runs([runs["baseline"]])) is None
    same = load_runs([runs["baseline"], runs["again"]])
    assert mitigation_section(same) is None
    assert "mitigations" not in [s.id for s in build_sections(same)]


def test_runs_without_shared_tasks_get_a_note_not_a_table(runs: dict[str, Path]) -> None:
    section = mitigation_section(load_runs([runs["baseline"], runs["more"]]))
    assert section is not None and not section.charts
    assert "Not compared:" in section.html and "is posed by the mitigated run only" in section.html


def test_the_overview_names_each_runs_mitigations(runs: dict[str, Path]) -> None:
    loaded = load_runs([runs["baseline"], runs["told"]])
    assert [header_rows(r, *run_usage(r))["mitigations"] for r in loaded] == ["none", "instruction"]
    markdown = render_markdown(build_sections(loaded))
    assert "| mitigations | none | instruction |" in markdown
    assert "## Mitigations" in markdown


def test_report_cli_marks_trained_variants(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    args = ["report", str(runs["baseline"]), str(runs["told"]), "--trained", "merge", "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert 'id="mitigations"' in page and 'id="chart-mitigation"' in page and "untrained" in page
