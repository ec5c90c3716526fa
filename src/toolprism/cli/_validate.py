"""``toolprism validate``: check every variant is equivalent to native on reference traces."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toolprism.cli._common import ProgressReport, friendly_errors, print_json, stderr
from toolprism.cli._run import ControlChoice, _install_stop_handlers, _restore_handlers, _split
from toolprism.errors import ConfigError
from toolprism.validate import ValidationReport, VariantSummary
from toolprism.validate import validate as run_validation


def _seeds(text: str) -> list[int]:
    """``0``, ``0,2,5`` or ``0-3``."""
    seeds: list[int] = []
    try:
        for part in (p.strip() for p in text.split(",")):
            low, dash, high = part.partition("-")
            span = list(range(int(low), int(high) + 1)) if dash else [int(low)]
            if not span or span[0] < 0:
                raise ValueError
            seeds += span
    except ValueError:
        raise ConfigError(f"--seeds {text!r}: expected N, N,M,... or N-M with 0 <= N <= M", what="option") from None
    return seeds


@friendly_errors
def validate(
    domains: Annotated[
        list[str] | None,
        typer.Option(
            "--domains", "-d", help="Built-in domains (comma list or repeated). Default: all, unless --catalog."
        ),
    ] = None,
    variants: Annotated[
        list[str] | None,
        typer.Option("--variants", "-v", help="Variant names or spec strings. Default: the whole suite ('all')."),
    ] = None,
    catalog: Annotated[
        Path | None,
        typer.Option(
            help="An external catalog (OpenAI tools, MCP tools/list, BFCL, ToolSchemaSpace): one "
            "synthesized call per operation is its reference trace, run on a stub environment."
        ),
    ] = None,
    seeds: Annotated[
        str,
        typer.Option(
            help="World seeds whose tasks are the reference traces: N, N,M or N-M (each seed is about "
            "55k checks per domain)."
        ),
    ] = "0",
    entry: Annotated[
        str | None, typer.Option(help="BFCL entry files: validate one entry (its id or line index).")
    ] = None,
    group: Annotated[str | None, typer.Option(help="ToolSchemaSpace: validate one domain (tool group).")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many tasks per domain and seed.")] = None,
    negative: Annotated[bool, typer.Option(help="Also check invalid calls are rejected.")] = True,
    jobs: Annotated[int, typer.Option(help="Worker processes (default: up to 2).")] = min(2, os.cpu_count() or 1),
    control: Annotated[
        ControlChoice,
        typer.Option(
            envvar="TOOLPRISM_CONTROL",
            help="The adapter control calls are handled under: 'strict' (toolprism's), 'paper' or 'loose' (the "
            "Action-Space Shaping paper's). Reference traces must pass under each; under 'paper' and 'loose' an "
            "invalid call must only leave the state unchanged (they execute much of what 'strict' rejects).",
        ),
    ] = ControlChoice.strict,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as one JSON document.")] = False,
    show: Annotated[int, typer.Option(help="Failures to describe in full (the rest are counted).")] = 5,
) -> None:
    """Prove each variant equivalent to the native tools on reference traces.

    Each variant must decode to the same native actions, replies and states as the native schema
    on every reference trace, and reject invalid calls without executing anything. Exit code 1
    when any check fails."""
    # no refresh thread: workers are forked
    progress = ProgressReport("variants", transient=json_output, auto_refresh=False)
    totals = {"checks": 0, "failures": 0}

    def advance(done: int, total: int, summary: VariantSummary) -> None:
        # the progress appears with the first result, so that a bad option's error stands alone
        totals["checks"] += summary.checks
        totals["failures"] += summary.failures
        note = f"{summary.suite}/{summary.variant}; {totals['checks']} checks, {totals['failures']} failures"
        progress.update(done=done, total=total, note=note)

    # Ctrl-C or SIGTERM: the first stops within seconds (the workers are terminated), a second exits at once
    signals: list[int] = []
    previous = _install_stop_handlers(signals, [])
    try:
        report = run_validation(
            _split(domains), _split(variants), catalog=catalog, group=group,
            entry=int(entry) if entry and entry.isdigit() else entry,
            seeds=_seeds(seeds), limit=limit, negative=negative, jobs=jobs, progress=advance, control=control.value,
        )  # fmt: skip
    except KeyboardInterrupt:
        progress.stop()
        done = f"{progress.done} of {progress.total}" if progress.total else "0"
        stderr.print(f"interrupted: {done} variants done ({totals['checks']} checks, {totals['failures']} failures)",
                     markup=False, highlight=False, soft_wrap=True)  # fmt: skip
        raise typer.Exit(128 + (signals[0] if signals else signal.SIGINT)) from None
    finally:
        _restore_handlers(previous)
        progress.stop()
    if json_output:
        print_json(report.model_dump(mode="json"))
    else:
        _print_summary(report, show)
    if not report.passed:
        raise typer.Exit(1)


def _print_summary(report: ValidationReport, show: int) -> None:
    console = Console()
    if not console.is_terminal:  # a log or a pipe: do not truncate variant names
        console = Console(width=max(console.width, 140))
    table = Table("suite", "variant", "traces", "negatives", "checks", "failures", "time", title="validation")
    for s in report.summaries:
        failures = f"[bold red]{s.failures}[/]" if s.failures else "0"
        table.add_row(s.suite, s.variant, str(s.traces), str(s.negatives), str(s.checks), failures, f"{s.seconds:.2f}s")
    table.add_section()
    traces = sum(s.traces for s in report.summaries)
    negatives = sum(s.negatives for s in report.summaries)
    table.add_row(
        "total", f"{len(report.variants)} variants", str(traces), str(negatives), str(report.checks),
        str(len(report.failures)), f"{report.seconds:.2f}s",
    )  # fmt: skip
    console.print(table)
    kinds = ", ".join(f"{k} {n}" for k, n in report.checks_by_kind.items())
    console.print(f"checks by kind: {kinds}", markup=False, soft_wrap=True)
    for s in report.skipped:
        console.print(f"skipped {s.suite}/{s.variant}: {s.reason}", markup=False, soft_wrap=True)
    for f in report.failures[:show]:
        console.print(f"\n[bold red]FAIL[/] {escape(f.kind)}: {escape(f.suite)}/{escape(f.variant)} "
                      f"[dim]({escape(f.spec)})[/] task {escape(f.task_id)}")  # fmt: skip
        console.print(f"  {f.message}", markup=False, soft_wrap=True)
        for c in f.calls:
            extra = f" [{c.rejection}]" if c.rejection else ""
            console.print(f"  {c.outcome:>8}{extra} {c.name}({c.arguments})", markup=False, soft_wrap=True)
        if f.expected_actions or f.decoded_actions:
            console.print(f"  expected: {f.expected_actions}", markup=False, soft_wrap=True)
            console.print(f"  decoded:  {f.decoded_actions}", markup=False, soft_wrap=True)
        if f.state_path:
            console.print(f"  first state difference at {f.state_path}: expected {f.expected_at_path!r}, "
                          f"got {f.actual_at_path!r}", markup=False, soft_wrap=True)  # fmt: skip
    if len(report.failures) > show:
        console.print(f"\n... and {len(report.failures) - show} more failure(s) (see --json)")
    for note in report.notes[:show]:
        console.print(f"note: {note}", markup=False, soft_wrap=True)
    if len(report.notes) > show:
        console.print(f"... and {len(report.notes) - show} more note(s) (see --json)")
    verdict = "[bold green]PASSED[/]" if report.passed else "[bold red]FAILED[/]"
    console.print(f"\n{verdict}: {report.checks} checks, {len(report.failures)} failures in {report.seconds:.1f}s "
                  f"({report.checks_per_second:.0f} checks/s), control {report.control}")  # fmt: skip
    if not report.passed and not report.failures:
        console.print(escape(report.verdict))
