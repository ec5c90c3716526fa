"""``toolprism report RUN_DIR [RUN_DIR ...]``: one self-contained HTML report (or a markdown
summary, or figures for papers) built from stored runs only."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from toolprism.cli._common import friendly_errors, stderr
from toolprism.errors import ConfigError

REPORT_NAME = "report.html"
"""The report's file name when -o is not given."""


class ReportFormat(StrEnum):
    """What ``toolprism report`` writes."""

    html = "html"
    md = "md"


def default_output(run_dirs: list[Path]) -> Path:
    """``RUN_DIR/report.html`` for one run, ``./report.html`` for several."""
    return run_dirs[0] / REPORT_NAME if len(run_dirs) == 1 else Path(REPORT_NAME)


def _check_paths(output: Path | None, figures: Path | None, probes: list[Path]) -> None:
    """Every problem with the output paths and the probe directories, before any work is done."""
    problems = []
    if output is not None:
        if output.is_dir():
            problems.append(f"-o {output}: is a directory (give a file name)")
        elif not output.parent.is_dir():
            problems.append(f"-o {output}: the directory {output.parent} does not exist")
    if figures is not None and figures.exists() and not figures.is_dir():
        problems.append(f"--figures {figures}: is a file, not a directory")
    problems += [f"--probes {p}: not a directory" for p in probes if not p.is_dir()]
    if problems:
        raise ConfigError(problems, what="option")


@friendly_errors
def report(
    run_dirs: Annotated[
        list[Path], typer.Argument(metavar="RUN_DIR", help="One or more run directories written by 'toolprism run'.")
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the report (replaced if it exists). Default: RUN_DIR/report.html for one run, "
            "./report.html for several; with --format md, stdout.",
        ),
    ] = None,
    figures: Annotated[
        Path | None,
        typer.Option(help="Also write every chart as PNG and SVG into this directory (made if missing)."),
    ] = None,
    report_format: Annotated[
        ReportFormat,
        typer.Option("--format", help="html: the self-contained page; md: a markdown summary of the same sections."),
    ] = ReportFormat.html,
    probes: Annotated[
        list[Path] | None,
        typer.Option("--probes", metavar="DIR", help="Stored probe results to include (repeat for several)."),
    ] = None,
    trained: Annotated[
        str | None,
        typer.Option(
            metavar="VARIANTS",
            help="Mark these variants as trained in the mitigation section (runs whose mitigations differ from the "
            "first run's, compared with it): a comma list of variant names, or an SFT export's manifest.json "
            "(its train.variants).",
        ),
    ] = None,
) -> None:
    """Write a report of one or more stored runs: one self-contained HTML file.

    The page opens offline (styles, scripts, charts and data are inlined; nothing is fetched) and is
    built from the stored traces only: no model is called. Sections: the overview (each run's
    header, episode counts, episodes not scored, wall time, tokens), the success grid (model x
    variant with 95% intervals, variants grouped by operator family, the best-vs-worst gap), the
    comparison of two or more runs (the first is the baseline), the mitigations (each run whose
    mitigations differ from the first run's, per variant; --trained marks trained variants), the
    granularity ladder, failure modes, perturbations, probes and the trace viewer, each where the
    runs have data for it.

    Prints the path written. --format md prints a markdown summary instead (or writes it to -o);
    --figures DIR writes each chart as PNG and SVG, for papers."""
    from toolprism.report import build_sections, load_runs, render_markdown, report_title, write_figures, write_html
    from toolprism.score import trained_variants

    probe_dirs = probes or []
    _check_paths(output, figures, probe_dirs)
    marked = None if trained is None else trained_variants(trained)
    runs = load_runs(run_dirs)
    for run in runs:
        if run.score.planned is not None and run.score.recorded < run.score.planned:
            stderr.print(
                f"{run.path}: only {run.score.recorded} of the {run.score.planned} episodes it planned are recorded; "
                f"the report covers those (continue the run with: toolprism run --resume {run.path})",
                markup=False,
                highlight=False,
            )
    sections = build_sections(runs, probe_dirs, trained=marked)
    if figures is not None:
        written = write_figures(sections, figures)
        stderr.print(f"wrote {len(written) // 2} figure(s) as PNG and SVG to {figures}", markup=False, highlight=False)
    if report_format is ReportFormat.md:
        text = render_markdown(sections, title=report_title(runs)[0])
        if output is None:
            print(text, end="")
            return
        output.write_text(text, encoding="utf-8")
        print(output)
        return
    print(write_html(runs, sections, output or default_output(run_dirs)))
