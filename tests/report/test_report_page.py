"""The report page: one self-contained file with every section, grid values equal to score_run's,
run comparison deltas, the ladder's ratios, figures and markdown, escaping and embedded data."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _report_runs import backend_error_run, native_names_run, oracle_run
from markupsafe import Markup

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend
from toolprism.backends._scripted import native_names
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.report import (
    Chart,
    Section,
    build_sections,
    decode_data,
    load_runs,
    render_markdown,
    render_page,
    write_figures,
    write_report,
)
from toolprism.report._comparison import compare_runs, verdict
from toolprism.report._families import COMPOSED, NATIVE, PARTITIONING, PROTOCOLS, SURFACE, variant_family
from toolprism.report._html import new_figure
from toolprism.report._ladder import ladder_points, ladder_steps
from toolprism.score import VariantScore, newcombe_difference, score_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    return native_names_run(root / "names"), oracle_run(root / "oracle", ["C2:light"])


@pytest.fixture(scope="module")
def page(runs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> str:
    out = write_report(list(runs), tmp_path_factory.mktemp("page") / "report.html")
    return out.read_text(encoding="utf-8")


class _Links(HTMLParser):
    """Every src/href attribute value and every element id."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.ids: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href") and value:
                self.urls.append(value)
            if name == "id" and value:
                self.ids.append(value)


def _parse(page: str) -> _Links:
    parser = _Links()
    parser.feed(page)
    return parser


def test_the_page_is_one_self_contained_file_with_every_section(page: str) -> None:
    parsed = _parse(page)
    assert not [u for u in parsed.urls if not u.startswith(("#", "data:"))]  # only in-page links and data
    assert "http://" not in page and "https://" not in page  # no URL at all, not even SVG namespaces
    assert "link" not in parsed.tags and "@import" not in page and "url(http" not in page
    for section in ("overview", "grid", "comparison", "ladder", "failures"):
        assert section in parsed.ids and f'href="#{section}"' in page
    for chart in ("comparison", "ladder", "failure-modes"):
        assert f"chart-{chart}" in parsed.ids
    assert "chart-grid" not in parsed.ids  # the grid is on the page as a table; its figure is for --figures
    charts = len([i for i in parsed.ids if i.startswith("chart-")])  # every chart, whichever sections have them
    assert charts >= 3 and page.count("<svg") == charts and "<?xml" not in page and "<!DOCTYPE svg" not in page
    assert "<text" in page  # svg.fonttype none: labels stay text
    ids = [i for i in parsed.ids if not i.startswith(("chart-", "data-"))]
    svg_ids = re.findall(r'<clipPath id="([^"]+)"', page)
    assert len(svg_ids) == len(set(svg_ids))  # clip paths of different charts never collide
    assert len(set(ids) & {"overview", "grid"}) == 2


def test_grid_values_are_score_runs_rates(runs: tuple[Path, Path], page: str) -> None:
    grid = page[page.index('<section class="report" id="grid"') : page.index('<section class="report" id="comparison"')]
    cells = re.findall(r'data-variant="([^"]+)"\s+data-rate="([0-9.]+)"', grid)
    expected = [(v.variant, v.success_rate) for run in runs for v in score_run(run).variants]
    assert len(cells) == len(expected) == 4 + 8  # 4 clean variants, then 4 clean + 4 under C2:light
    got = sorted((name, round(float(rate), 6)) for name, rate in cells)
    assert got == sorted((name, round(rate, 6)) for name, rate in expected)
    names = {v.variant: v.success_rate for v in score_run(runs[0]).variants}
    assert names["native"] == 1.0 and names["merge"] == 0.0  # the scripted agent's native names
    gap = score_run(runs[0]).gaps[0]
    flat = " ".join(grid.split())
    assert gap.gap == 1.0 and f"best {gap.best} 100%" in flat and f"worst {gap.worst} 0%" in flat


def test_comparison_deltas_are_newcombe_differences(runs: tuple[Path, Path], page: str) -> None:
    loaded = load_runs(list(runs))
    comparison = compare_runs(*loaded)
    baseline = {(v.variant, v.condition): v for v in loaded[0].score.variants}
    other = {(v.variant, v.condition): v for v in loaded[1].score.variants}
    assert [(d.variant, d.condition) for d in comparison.cells] == [
        (v, "") for v in ("native", "merge", "split", "transaction")
    ]
    assert comparison.only_other == [(v, "C2:light") for v in ("native", "merge", "split", "transaction")]
    for d in comparison.cells:
        b, o = baseline[(d.variant, d.condition)], other[(d.variant, d.condition)]
        assert (d.delta, d.low, d.high) == newcombe_difference(o.successes, o.episodes, b.successes, b.episodes)
    merge = next(d for d in comparison.cells if d.variant == "merge")
    native = next(d for d in comparison.cells if d.variant == "native")
    assert merge.delta == 1.0 and merge.significant  # 0/2 -> 2/2: the interval excludes 0
    assert native.delta == 0.0 and not native.significant
    assert verdict(comparison).startswith("0 cell(s) worse; 2 better (merge, split); 2 without a clear change")
    deltas = [float(x) for x in re.findall(r'data-delta="([-0-9.]+)"', page)]
    assert deltas == pytest.approx([d.delta for d in comparison.cells])


def test_ladder_ratios_put_merges_below_and_splits_above_native(runs: tuple[Path, Path]) -> None:
    points = {p.variant: p.ratio for p in ladder_points(load_runs([runs[0]])[0])}
    assert set(points) == {"native", "merge", "split"}  # transaction is no partitioning variant
    assert points["merge"] < points["native"] == 1.0 < points["split"]
    operations = len(get_domain("smart_home").action_space().operations)
    assert points["merge"] == pytest.approx(1 / operations)  # merge(by=full): one tool for every operation


def _score(variant: str, spec: str, condition: str = "") -> VariantScore:
    return VariantScore(
        variant=variant, spec=spec, condition=condition, episodes=1, successes=1, success_rate=1.0, ci_low=0.2,
        ci_high=1.0, schema_form_success_rate=1.0, modes={}, stage_pass_rates={}, sources={}, cascades=0,
        boundary_violations=0,
    )  # fmt: skip


def test_the_ladder_is_the_papers_ladder_where_the_run_has_it() -> None:
    paper = [
        _score("native", "native"),
        _score("fully-merged", "ladder(k=0)"),
        _score("split-enum-1.5x", "ladder(k=6)"),
        _score("merge-semantic-groups", "merge(by=semantic,args=flat)"),
        _score("transaction", "transaction"),
        _score("fully-split", "ladder(k=9)", "C2:light"),
    ]
    assert [v.variant for v in ladder_steps(paper)] == ["native", "fully-merged", "split-enum-1.5x"]
    assert [v.variant for v in ladder_steps(paper[3:5] + paper[:1])] == ["native", "merge-semantic-groups"]
    assert ladder_steps([paper[0], paper[4]]) == []  # nothing but native on the ladder


def test_sections_are_left_out_when_the_runs_have_nothing_for_them(runs: tuple[Path, Path]) -> None:
    ids = [s.id for s in build_sections(load_runs([runs[1]]))]
    assert ids[:2] == ["overview", "grid"] and "comparison" not in ids  # one run: nothing to compare


def test_operator_families_group_the_variants() -> None:
    assert variant_family("") == NATIVE and variant_family("rename(style=opaque)") == SURFACE
    assert variant_family("ladder(k=3)") == variant_family("split|merge(by=class)") == PARTITIONING
    assert variant_family("transaction(setters=tool)") == PROTOCOLS
    assert variant_family("split|transaction") == variant_family("compose") == COMPOSED


def test_overview_shows_the_header_and_what_was_not_recorded(runs: tuple[Path, Path], page: str) -> None:
    overview = page[: page.index('<section class="report" id="grid"')]
    header = score_run(runs[0])
    assert "smart_home" in overview and "C2:light" in overview and "scripted" in overview
    assert f"{header.recorded} recorded of {header.planned} planned" in overview
    assert "0 context overflow, 0 backend error" in overview
    assert "not recorded" in overview  # the scripted backends report no tokens


def test_episodes_not_scored_are_counted_not_rated(tmp_path: Path) -> None:
    run = backend_error_run(tmp_path / "errors")
    page = write_report([run], tmp_path / "report.html").read_text()
    overview = " ".join(page[: page.index('<section class="report" id="grid"')].split())
    assert "4 recorded of 4 planned, 2 scored" in overview and "0 context overflow, 2 backend error" in overview
    grid = " ".join(page[page.index('<section class="report" id="grid"') :].split())
    assert re.search(r'data-variant="merge" title="merge: none of 2 episodes scored"><b>—</b><small>not scored</small> '
                     r"<small>2 backend error</small>", grid)  # fmt: skip
    assert re.findall(r'data-variant="([^"]+)"\s+data-rate="([0-9.]+)"', page) == [("native", "1.000000")]


def test_names_with_dollars_and_markup_are_shown_as_written(tmp_path: Path) -> None:
    name = "evil$\\frac{$<b>model</b>"  # malformed mathtext and markup, as an endpoint could name its model
    evaluate(
        RunConfig(model="scripted", domains=["smart_home"], variants=["native", "merge"], tasks=1),
        run_dir=tmp_path / "run",
        backend=ScriptedBackend(native_names, label={"model": name}),
    )
    runs = load_runs([tmp_path / "run"])
    assert runs[0].score.outcomes[0].model == name
    page = write_report([tmp_path / "run"], tmp_path / "report.html").read_text()
    assert "<b>model</b>" not in page and "evil$\\frac{$&lt;b&gt;model&lt;/b&gt;" in page
    written = write_figures(runs, tmp_path / "figs")  # drawing the labels does not fail
    assert "evil$\\frac{$&lt;b&gt;model&lt;/b&gt;" in (tmp_path / "figs" / "grid.svg").read_text() and written


def test_markdown_and_figures(runs: tuple[Path, Path], tmp_path: Path) -> None:
    loaded = load_runs(list(runs))
    sections = build_sections(loaded)
    markdown = render_markdown(sections)
    for s in sections:
        assert f"## {s.title}" in markdown
    assert "| tool-set partitioning | merge | 0% [0–66%] n=2 | 100% [34–100%] n=2 | 100% [34–100%] n=2 |" in markdown
    assert "| | **best-vs-worst gap** | **100%** (native 100%, split 0%) | 0 (every variant 100%) |" in markdown
    written = write_figures(sections, tmp_path / "figs")
    names = {p.name for p in written}
    assert {"grid.png", "grid.svg", "ladder.png", "ladder.svg", "failure-modes.svg", "comparison.png"} <= names
    for path in written:
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG") if path.suffix == ".png" else b"<text" in data


def _chart() -> Chart:
    figure = new_figure(2, 1.5)
    figure.add_subplot().plot([0, 1], [0, 1])
    return Chart("tiny", figure, caption="a <b>caption</b>")


def test_untrusted_text_is_escaped_and_data_is_embedded_compressed() -> None:
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    section = Section(
        id="s",
        title=evil,
        html=Markup("<p>trusted</p>"),
        charts=(_chart(),),
        script="console.log('</script>');",
        data={"episodes": [{"text": evil}] * 50, "broken": "bad \udcff byte", "accents": "é ✓"},
    )
    twin = Section(id="t", title="twin", script="console.log('</script>');")
    page = render_page(evil, [section, twin], subtitle=evil)
    assert "<script>alert(1)" not in page and "<img src=x" not in page and "&lt;script&gt;alert(1)" in page
    assert "a &lt;b&gt;caption&lt;/b&gt;" in page and "<p>trusted</p>" in page
    assert page.count("console.log(") == 1  # each distinct script once
    assert "console.log('<\\/script>')" in page  # cannot close its element early
    payload = re.search(r'<script type="application/octet-stream" id="data-s">([^<]*)</script>', page).group(1)
    decoded = decode_data(payload)  # a lone surrogate (broken UTF-8) encodes and comes back as it was
    assert decoded == {"episodes": [{"text": evil}] * 50, "broken": "bad \udcff byte", "accents": "é ✓"}
    assert evil not in payload and len(payload) < len(evil) * 50  # compressed, not readable markup


def test_duplicate_section_ids_and_chart_names_are_refused() -> None:
    with pytest.raises(ConfigError, match="section id 'a' is used twice"):
        render_page("t", [Section(id="a", title="A"), Section(id="a", title="B")])
    with pytest.raises(ConfigError, match="chart name 'tiny' is used twice"):
        render_page("t", [Section(id="a", title="A", charts=(_chart(), _chart()))])


def test_the_page_is_deterministic_but_for_its_date(runs: tuple[Path, Path], tmp_path: Path) -> None:
    first = write_report([runs[0]], tmp_path / "1.html").read_text()
    second = write_report([runs[0]], tmp_path / "2.html").read_text()
    strip = lambda text: re.sub(r"made \d{4}-\d\d-\d\d \d\d:\d\d UTC", "", text)  # noqa: E731
    assert strip(first) == strip(second)


def test_an_incomplete_run_says_so_on_the_page(tmp_path: Path) -> None:
    import sqlite3

    from typer.testing import CliRunner

    from toolprism.cli import app

    run_dir = tmp_path / "partial"
    result = CliRunner().invoke(app, ["run", "--model", "oracle", "-n", "2", "--run-dir", str(run_dir), "--no-report"])
    assert result.exit_code == 0, result.output
    assert "Incomplete run" not in write_report([run_dir], tmp_path / "whole.html").read_text()
    with sqlite3.connect(run_dir / "results.sqlite") as db:  # as if killed before the last two episodes
        gone = [row[0] for row in db.execute("SELECT episode_id FROM episodes ORDER BY episode_id LIMIT 2")]
        db.executemany("DELETE FROM episodes WHERE episode_id = ?", [(g,) for g in gone])
        db.executemany("DELETE FROM traces WHERE episode_id = ?", [(g,) for g in gone])
    page = " ".join(write_report([run_dir], tmp_path / "report.html").read_text().split())
    assert "Incomplete run partial:</strong> 4 of 6 planned episodes are recorded" in page
    assert f"toolprism run --resume {run_dir}" in page
