"""``toolprism run``: evaluate a model across variants of the domains' tool interfaces."""

from __future__ import annotations

import asyncio
import signal
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.backends import DEFAULT_MODEL
from toolprism.cli._common import counting_progress, friendly_errors, perturbation_table, print_json, stderr
from toolprism.errors import ConfigError, ToolprismError
from toolprism.evaluation import (
    DEFAULT_DOMAINS,
    DEFAULT_TASKS,
    PRESETS,
    RunConfig,
    RunSummary,
    apply_preset,
    evaluate,
    expand_conditions,
)
from toolprism.run import MAX_TURNS, EpisodeResult
from toolprism.shaping import CONTROLS, DEFAULT_VARIANTS

ControlChoice = StrEnum("ControlChoice", {c: c for c in CONTROLS})
"""The adapter controls as a command-line choice."""


def _split(values: list[str] | None) -> list[str] | None:
    """Accept repeated options and comma lists alike (``--variants merge,split``)."""
    if not values:
        return None
    return [v.strip() for item in values for v in _split_top(item) if v.strip()]


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses, so specs like ``merge(by=full,args=flat)`` survive."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


@friendly_errors
def run(
    ctx: typer.Context,
    model: Annotated[
        str,
        typer.Option(
            envvar="TOOLPRISM_MODEL",
            help="Backend: embedded, embedded:smollm2, embedded:qwen2.5-coder-0.5b, oracle, or openai:<model>.",
        ),
    ] = DEFAULT_MODEL,
    domains: Annotated[
        list[str] | None,
        typer.Option(
            "--domains",
            "-d",
            help="Domains (comma list or repeated): built-in names (see 'toolprism domains') or domain pack .json "
            f"paths (see 'toolprism import'). Default: {','.join(DEFAULT_DOMAINS)}.",
        ),
    ] = None,
    variants: Annotated[
        list[str] | None,
        typer.Option(
            "--variants",
            "-v",
            help="Variant names, spec strings such as 'merge(by=class)|rename(style=opaque)', or a suite: 'paper' (the "
            "Action-Space Shaping paper's 32 variants), 'extended' (toolprism's own) or 'all'. "
            "See 'toolprism variants list'. "
            f"Default: each domain's own: {','.join(DEFAULT_VARIANTS)}; native only for trb (ToolRobustBench).",
        ),
    ] = None,
    tasks: Annotated[
        int | None,
        typer.Option(
            "--tasks",
            "-n",
            help="Tasks per domain, spread across templates. Default: each domain's own: "
            f"{DEFAULT_TASKS}; all 192 for trb (ToolRobustBench's anchors).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Run seed: tasks, worlds and episode seeds derive from it.")] = 0,
    max_turns: Annotated[int, typer.Option(help="Model turns per episode before it is cut off.")] = MAX_TURNS,
    concurrency: Annotated[int, typer.Option(help="Episodes in flight at once.")] = 1,
    base_url: Annotated[
        str | None,
        typer.Option(envvar="TOOLPRISM_BASE_URL", help="OpenAI-compatible endpoint (key from $OPENAI_API_KEY)."),
    ] = None,
    run_dir: Annotated[
        Path | None, typer.Option(help="Where to write the run (default toolprism-runs/<time>-<model>).")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Continue the run in this directory with its stored configuration; finished episodes are skipped."
        ),
    ] = None,
    perturb: Annotated[
        list[str] | None,
        typer.Option(
            "--perturb",
            "-p",
            help="Perturbation conditions, e.g. 'C2:medium,D2:light' (each term its own condition; "
            "'A3:medium+C4:medium' mixes two families; a bare 'C2' means medium). Every task also runs clean. "
            "See 'toolprism perturbations'.",
        ),
    ] = None,
    perturb_suite: Annotated[
        str | None,
        typer.Option(
            help="'all': every subtype at every severity (42 conditions); 'mixed': the 5 representative mixed pairs at "
            "medium and heavy, each with its single-family constituents (10 mixed and 14 single conditions)."
        ),
    ] = None,
    control: Annotated[
        ControlChoice,
        typer.Option(
            envvar="TOOLPRISM_CONTROL",
            help="How the adapter treats invalid calls: 'strict' rejects them with a helpful message (toolprism's "
            "own); 'paper' is the Action-Space Shaping paper's hard control (rejects only unknown tools, off-enum "
            "operations, out-of-interval calls and transaction errors, tersely; wrong arguments run as wrong "
            "actions); 'loose' is its loose control (also runs native tool names and whatever else decodes to a "
            "native action). With --resume it must be the run's control.",
        ),
    ] = ControlChoice.strict,
    preset: Annotated[
        str | None,
        typer.Option(
            help="A paper's setup; options you give override it. "
            + "; ".join(f"'{p.name}': {p.summary}" for p in map(PRESETS.get, PRESETS.names()))
            + ".",
        ),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON document on stdout.")
    ] = False,
) -> None:
    """Run a model on tasks under several equivalent tool interfaces and report success per variant.

    With no options: the embedded offline model, both domains, five variants, two tasks each
    (each domain's defaults: trb, ToolRobustBench's environment, runs its 192 anchors natively).
    With --perturb or --perturb-suite, each task also runs under each perturbation condition, and
    the summary breaks success down by subtype and severity.
    """
    if resume is not None:
        _refuse_options_with_resume(ctx)
    values = {
        "model": model,
        "base_url": base_url,
        "domains": _split(domains) or list(DEFAULT_DOMAINS),
        "variants": _split(variants),
        "tasks": "default" if tasks is None else tasks,
        "seed": seed,
        "max_turns": max_turns,
        "concurrency": concurrency,
        "perturbations": expand_conditions(_split(perturb) or [], perturb_suite),
    }
    if resume is None or _given(ctx, "control"):  # with --resume, a control given is checked against the run's
        values["control"] = control.value
    config = RunConfig(**apply_preset(preset, {k: v for k, v in values.items() if _given(ctx, k) or not preset}))
    progress = counting_progress("episodes", transient=json_output)
    bar = progress.add_task("", total=None)
    where: list[Path] = []

    def on_start(todo: int, finished: int, directory: Path) -> None:
        where.append(directory)
        if finished:
            stderr.print(f"resuming: {finished} episode(s) already finished")
        progress.update(bar, total=todo)
        progress.start()

    def on_result(result: EpisodeResult) -> None:
        mark = "[green]ok[/]" if result.success else "[red]fail[/]"
        progress.update(bar, advance=1, description=f"{mark} {result.episode_id}")

    terminated: list[int] = []
    try:
        previous = signal.signal(signal.SIGTERM, lambda signum, _: _terminate(terminated, signum))
    except ValueError:  # not the main thread: signals stay as they are
        previous = None
    try:
        summary = evaluate(config, run_dir=run_dir, resume=resume, on_start=on_start, on_result=on_result)
    except (KeyboardInterrupt, asyncio.CancelledError, ToolprismError):
        progress.stop()
        if where:
            stderr.print(
                f"stopped; finished episodes are kept in {where[0]}; continue with: toolprism run --resume {where[0]}",
                soft_wrap=True,
                markup=False,
            )
        if terminated:
            raise typer.Exit(128 + terminated[0]) from None
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        progress.stop()
    if json_output:
        print_json(summary.model_dump())
    else:
        _print_table(summary)


def _terminate(terminated: list[int], signum: int) -> None:
    """SIGTERM stops a run as Ctrl-C does: the episodes in flight are cancelled at their next
    await (an episode is recorded whole or not at all), and the caller prints the resume hint.
    Unlike SIGINT this also works where SIGINT is ignored (a background job)."""
    terminated.append(signum)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # still planning, outside the event loop
        raise KeyboardInterrupt from None
    for task in asyncio.all_tasks(loop):
        task.cancel()


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was set (on the command line or through its environment variable)."""
    if name == "perturbations":
        return _given(ctx, "perturb") or _given(ctx, "perturb_suite")
    return getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")


def _refuse_options_with_resume(ctx: typer.Context) -> None:
    """``--resume`` continues a run with its stored configuration: other run options would be ignored."""
    given = [
        "--" + name.replace("_", "-")
        for name in (
            "model",
            "domains",
            "variants",
            "tasks",
            "seed",
            "max_turns",
            "concurrency",
            "base_url",
            "run_dir",
            "perturb",
            "perturb_suite",
            "preset",
        )  # fmt: skip
        if _given(ctx, name)
    ]
    if given:
        raise ConfigError(
            f"--resume continues a run with the configuration stored in its header; drop {', '.join(given)}",
            what="options",
        )


def _print_table(summary: RunSummary) -> None:
    perturbed = any(v.condition for v in summary.variants)
    table = Table(title=f"success per variant — {summary.model}")
    columns = ("variant", "spec", *(("condition",) if perturbed else ()), "episodes", "success", "rate")
    unscored = ("context overflow", "backend error")  # counted apart, out of every rate
    for column in (*columns, "rejected calls", "turn limit hit", *unscored):
        left = column in ("variant", "spec", "condition")
        table.add_column(column, justify="left" if left else "right", overflow="fold")
    for v in summary.variants:
        table.add_row(
            v.variant,
            v.spec,
            *((v.condition or "clean",) if perturbed else ()),
            str(v.episodes),
            str(v.successes),
            "—" if v.success_rate is None else f"{v.success_rate:.0%}",
            str(v.rejected_calls),
            str(v.turn_limit),
            str(v.context_overflow),
            str(v.backend_error),
        )
    console = Console()
    if not console.is_terminal:  # logs and pipes: wide enough that specs stay on one line
        console = Console(width=max(console.width, 170))
    console.print(table)
    if summary.perturbations:
        console.print(perturbation_table(summary.perturbations))
    episodes = f"{summary.episodes} episode{'s' if summary.episodes != 1 else ''} scored"
    if summary.context_overflow or summary.backend_error:
        episodes += (
            f" ({summary.context_overflow} context overflow, {summary.backend_error} backend error: "
            "not scored, out of every rate)"
        )
    console.print(f"{episodes} in {summary.wall_s:.1f} s; run directory: [bold]{summary.run_dir}[/]")
    if summary.backend_error:
        console.print(f"run the backend-error episodes again: toolprism run --resume {summary.run_dir}", markup=False)
