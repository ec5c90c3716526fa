"""The report's Probes section from stored probe results made without a model: a fault-arm study
scored by the fake character-level scorer (tests/_fake_scorer.py), and variant probes of the
stored ``saboteur`` run (``--curve-only`` through the CLI, and the log-likelihood probe under the
fake scorer). Its numbers are the stored summaries', its charts exist, and a malformed directory is
a ConfigError naming the file."""

from __future__ import annotations

import gzip
import io
import json
import math
import re
import shutil
from pathlib import Path

import pytest
from _fake_scorer import CharScorer
from _report_markdown import markdown_tables
from typer.testing import CliRunner

from toolprism import probes
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.probes import FaultSummary, StoredStudy, VariantProbeSummary
from toolprism.report import load_runs, render_page
from toolprism.report._probes import paired_deltas, probe_section

SABOTEUR = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "saboteur"
runner = CliRunner()


def fault_study(directory: Path, tasks: int = 1) -> Path:
    """A stored study of ``tasks`` retail task(s) reaching at least k = 1, as ``toolprism probe
    faults`` writes it, scored by the fake scorer."""
    retail = get_domain("retail")
    sites = [p for p in probes.study_sites(retail) if len(p[0].reference) - p[1].position >= 2][:tasks]
    config = probes.study_config(retail, sites, steps=(0, 1))
    scorer = CharScorer()
    stored = StoredStudy(config=config, scorer=scorer.name, scorer_settings=scorer.settings(), toolprism_version="t")
    probes.write_study(directory, stored)
    rows = []
    for _, result in probes.fault_study(scorer, retail, sites, config):
        rows += result
        probes.append_rows(directory, result)
    probes.finish_study(directory, stored, probes.summarise(rows, config))
    return directory


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("probes")
    run_dir = Path(shutil.copytree(SABOTEUR, root / "saboteur"))
    (run_dir / "results.sqlite").write_bytes(gzip.decompress((run_dir / "results.sqlite.gz").read_bytes()))
    args = ["probe", "variants", str(run_dir), "--curve-only", "--sizes", "2,4", "-B", "60", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    # the log-likelihood probe under the fake scorer, stored where --out would put it
    table = probes.run_success(run_dir)
    plan = probes.plan_variant_probes(table, 1)
    rows, checks = probes.run_variant_probes(plan, probes.run_setup(run_dir), scorer=CharScorer(), backend=None)
    summary = probes.summarise_variants(
        str(run_dir), "fake:char", table, plan, rows, checks, sizes=[2, 4], bootstrap=60
    )
    settings = {"run_dir": str(run_dir), "model": "fake:char", "plan": plan.model_dump(), "sizes": [2, 4]}
    probes.write_variant_result(root / "loglik", settings, table, rows, checks, summary)
    return {"run": run_dir, "faults": fault_study(root / "faults"), "loglik": root / "loglik", "root": root}


def _number(cell: str) -> float:
    """The first number of a cell (``+0.541 [+0.522, +0.584]`` → 0.541)."""
    return float(cell.split(" ")[0])


def test_nothing_stored_means_no_section(tmp_path: Path) -> None:
    run_dir = Path(shutil.copytree(SABOTEUR, tmp_path / "bare"))
    (run_dir / "results.sqlite").write_bytes(gzip.decompress((run_dir / "results.sqlite.gz").read_bytes()))
    assert probe_section(load_runs([run_dir])) is None
    assert probe_section([], ()) is None


def test_fault_contrasts_are_the_stored_summarys(stored: dict[str, Path]) -> None:
    section = probe_section([], [stored["faults"]])
    assert section is not None and section.id == "probes"
    assert [c.name for c in section.charts] == ["fault-arms", "fault-steps"]
    summary = FaultSummary.model_validate_json((stored["faults"] / "summary.json").read_text())
    (table,) = [t for title, t in markdown_tables(section.markdown).items() if title.endswith("paired contrasts")]
    assert [(r["arm"], r["k"], r["rows"]) for r in table] == [(a.arm, str(a.k), str(a.rows)) for a in summary.arms]
    for row, a in zip(table, summary.arms, strict=True):
        for column, stats in (("ΔS0 nats/token", a.ds0), ("ΔG nats/token", a.dg), ("ΔH nats", a.dh)):
            assert _number(row[column]) == pytest.approx(stats.median, abs=6e-4 if column == "ΔH nats" else 6e-3)
        assert row["ΔG up/down, sign p"].startswith(f"{a.dg.up}/{a.dg.down},")
    # the strip plot's points are each task's injected-minus-clean contrast at k = 0
    _, rows = probes.read_study(stored["faults"])
    f = next(r for r in rows if r.arm == "F" and r.k == 0)
    c = next(r for r in rows if r.arm == "C" and r.k == 0 and r.task_id == f.task_id)
    assert paired_deltas(rows, "F", 0, "g") == [f.g - c.g]
    g_panel = section.charts[0].figure.axes[1]
    drawn = [y for collection in g_panel.collections for _, y in collection.get_offsets()]
    assert drawn[0] == pytest.approx(f.g - c.g)
    assert [t.get_text() for t in g_panel.get_xticklabels()] == [
        a for a in ("F", "Ns", "Nm") if a in {r.arm for r in rows}
    ]


def test_variant_probes_show_the_stored_curve_and_rho(stored: dict[str, Path]) -> None:
    runs = load_runs([stored["run"]])
    section = probe_section(runs, [stored["loglik"]])
    names = [c.name for c in section.charts]
    assert names == ["sampling-curve", "probe-vs-success-2", "sampling-curve-2"]  # curve-only: no probe chart
    curve_only = VariantProbeSummary.model_validate_json(
        (stored["run"] / "probe-variants" / "summary.json").read_text()
    )
    assert curve_only.model is None
    tables = markdown_tables(section.markdown)
    curve = tables[f"Variant probes, {runs[0].label}: query-sampling curve"]
    assert [r["n"] for r in curve] == [str(p.n) for p in curve_only.curve]
    for row, p in zip(curve, curve_only.curve, strict=True):
        assert row["median ρ"] == ("—" if p.rho_median is None else f"{p.rho_median:+.3f}")
        assert row["undefined draws"] == f"{p.undefined}/{p.draws}"
    loglik = VariantProbeSummary.model_validate_json((stored["loglik"] / "summary.json").read_text())
    scatter = section.charts[1].figure.axes[0]
    shown = "undefined" if loglik.rho_loglik is None else f"{loglik.rho_loglik:+.2f}"
    assert scatter.get_title() == f"log-likelihood: Spearman ρ = {shown}, {len(loglik.variants)} variants"
    xs = sorted(x for collection in scatter.collections for x, _ in collection.get_offsets())
    assert xs == pytest.approx(sorted(v.loglik for v in loglik.variants))
    assert all(not math.isnan(x) for x in xs)
    for chart in section.charts:
        buffer = io.BytesIO()
        chart.figure.savefig(buffer, format="png")
        assert buffer.getvalue().startswith(b"\x89PNG") and chart.caption


def test_two_studies_get_distinct_chart_names_and_render(stored: dict[str, Path], tmp_path: Path) -> None:
    copy = Path(shutil.copytree(stored["faults"], tmp_path / "again"))
    section = probe_section([], [stored["faults"], copy])
    assert [c.name for c in section.charts] == ["fault-arms", "fault-steps", "fault-arms-2", "fault-steps-2"]
    page = render_page("probes", [section])
    assert 'id="chart-fault-arms-2"' in page


def test_an_interrupted_study_is_summarised_from_its_rows_and_says_so(stored: dict[str, Path], tmp_path: Path) -> None:
    study = Path(shutil.copytree(stored["faults"], tmp_path / "interrupted"))
    (study / "summary.json").unlink()
    section = probe_section([], [study])
    assert [c.name for c in section.charts] == ["fault-arms", "fault-steps"]
    assert f"{study} has no summary.json (an interrupted study)" in section.markdown
    whole = markdown_tables(probe_section([], [stored["faults"]]).markdown)
    assert (
        markdown_tables(section.markdown)["Fault arms, retail (interrupted): paired contrasts"]
        == (whole["Fault arms, retail (faults): paired contrasts"])
    )


def _broken(root: Path, name: str) -> Path:
    return Path(shutil.copytree(root, root.parent / f"broken-{name}-{root.name}"))


def test_malformed_directories_are_config_errors_naming_the_file(stored: dict[str, Path]) -> None:
    study = _broken(stored["faults"], "study")
    (study / "study.json").write_text("{not json")
    rows = _broken(stored["faults"], "rows")
    lines = (rows / "rows.jsonl").read_text().splitlines()
    (rows / "rows.jsonl").write_text("\n".join([lines[0], '{"task_id": 3}', *lines[1:]]) + "\n")
    summary = _broken(stored["loglik"], "summary")
    (summary / "summary.json").write_text('{"run_dir": 1}')
    empty = stored["root"] / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError) as caught:
        probe_section([], [study, rows, summary, empty, stored["root"] / "missing"])
    problems = caught.value.problems
    assert len(problems) == 5
    assert str(study / "study.json") in problems[0]
    assert str(rows / "rows.jsonl") in problems[1] and "line 2" in problems[1]
    assert str(summary / "summary.json") in problems[2]
    assert str(empty) in problems[3] and "neither" in problems[3]
    assert "missing" in problems[4] and "not a directory" in problems[4]


def test_a_run_with_a_broken_probe_variants_result_names_it(stored: dict[str, Path], tmp_path: Path) -> None:
    run_dir = Path(shutil.copytree(stored["run"], tmp_path / "run"))
    (run_dir / "probe-variants" / "summary.json").write_text("")
    with pytest.raises(ConfigError, match=re.escape(str(run_dir / "probe-variants" / "summary.json"))):
        probe_section(load_runs([run_dir]))


def test_the_report_command_says_what_is_wrong_without_a_traceback(stored: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "study.json").write_text(json.dumps({"kind": "faults"}))
    (bad / "rows.jsonl").write_text("")
    result = runner.invoke(app, ["report", str(stored["run"]), "--probes", str(bad), "-o", str(tmp_path / "r.html")])
    assert result.exit_code != 0
    assert "study.json" in result.output and "Traceback" not in result.output
