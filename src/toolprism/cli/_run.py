"""``toolprism run``: evaluate a model across variants of the domains' tool interfaces."""

from __future__ import annotations

import asyncio
import os
import signal
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism.backends import DEFAULT_MODEL, TOOL_FORMATS
from toolprism.cli._common import ProgressReport, friendly_errors, perturbation_table, print_json, stderr
from toolprism.domains import TASK_KINDS, catalog_pack
from toolprism.errors import ConfigError, ToolprismError
from toolprism.evaluation import (
    DEFAULT_DOMAINS,
    DEFAULT_TASKS,
    MAIN_JOB,
    PRESETS,
    RunConfig,
    RunSummary,
    apply_preset,
    default_run_dir,
    evaluate,
    expand_conditions,
)
from toolprism.run import MAX_TURNS, MITIGATIONS, EpisodeResult, RunProgress, RunStopped
from toolprism.shaping import CONTROLS, DEFAULT_VARIANTS

ControlChoice = StrEnum("ControlChoice", {c: c for c in CONTROLS})
"""The adapter controls as a command-line choice."""
ToolFormatChoice = StrEnum("ToolFormatChoice", {f: f for f in TOOL_FORMATS})
"""The tool-call formats as a command-line choice."""
McpScopeChoice = StrEnum("McpScopeChoice", {s: s for s in ("episode", "run")})
"""How long an --mcp server process lives, as a command-line choice."""
ExecutorChoice = StrEnum("ExecutorChoice", {e: e for e in ("local", "ray")})
"""Where episodes run, as a command-line choice."""


def _split(values: list[str] | None) -> list[str] | None:
    """Accept repeated options and comma lists alike (``--variants merge,split``)."""
    if not values:
        return None
    return [v.strip() for item in values for v in _split_top(item) if v.strip()]


def _kinds(values: list[str] | None, main: dict[str, object]) -> list[str] | None:
    """``--kinds``: None (every kind) for ``all``; when not given, the main job's in the main job,
    else every kind."""
    if values is None:
        return main.get("task_kinds")  # type: ignore[return-value]
    return None if values == ["all"] else values


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


REPORT_LIMIT = 2_000
"""Runs of more episodes than this do not write their report at the end (``--report``)."""


@friendly_errors
def run(
    ctx: typer.Context,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            envvar="TOOLPRISM_MODEL",
            help="Backend: embedded, embedded:smollm2, embedded:qwen2.5-coder-0.5b, oracle, openai:<model>, hf:<dir>. "
            f"Default: {MAIN_JOB['model']} in the main job, else {DEFAULT_MODEL} (SmolLM2-135M).",
        ),
    ] = DEFAULT_MODEL,
    domains: Annotated[
        list[str] | None,
        typer.Option(
            "--domains",
            "-d",
            help="Domains (comma list or repeated): built-in names (see 'toolprism domains') or domain pack .json "
            f"paths (see 'toolprism import'). Default: the main job's {','.join(MAIN_JOB['domains'])} (with no "
            f"--variants either), else {','.join(DEFAULT_DOMAINS)}.",
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
            f"Default: the main job's {','.join(MAIN_JOB['variants'])} (with no --domains either), else each domain's "
            f"own: {','.join(DEFAULT_VARIANTS)}; native only for trb (ToolRobustBench).",
        ),
    ] = None,
    tasks: Annotated[
        str | None,
        typer.Option(
            "--tasks",
            "-n",
            metavar="N|FILE",
            help=f"Tasks per domain, spread across templates. Default: {MAIN_JOB['tasks']} in the main job, else each "
            f"domain's own: {DEFAULT_TASKS}; all 192 for trb (ToolRobustBench's anchors). With --catalog: a task "
            "file (JSON Lines: a query and its gold calls per line; see the README), every task of which runs.",
            show_default=False,
        ),
    ] = None,
    catalog: Annotated[
        Path | None,
        typer.Option(
            help="Your own tool catalog (OpenAI tools, MCP tools/list, BFCL function docs or ToolSchemaSpace "
            "tools.json), run with the tasks of --tasks FILE in an action-log environment (writes are logged, "
            "calls acknowledged or answered with the task file's scripted replies). The pair becomes a domain "
            "pack in RUN_DIR/packs/ (added to --domains), so the run resumes and re-scores from its directory.",
            show_default=False,
        ),
    ] = None,
    mcp: Annotated[
        str | None,
        typer.Option(
            "--mcp",
            help="A live MCP server's command line, quoted as one argument (e.g. 'mcp-server-git --repository "
            "REPO'): its tools (tools/list) are the native tools and it executes the calls of the tasks of --tasks "
            "FILE, one server process per episode (extra toolprism\\[mcp]). A tool's isError result is a reply "
            "the model sees; a protocol or transport failure ends the episode as a backend error, never scored. "
            "The tools and the command become a pack in RUN_DIR/packs/.",
            show_default=False,
        ),
    ] = None,
    mcp_scope: Annotated[
        McpScopeChoice,
        typer.Option(
            help="With --mcp: 'episode' starts a server process per episode (its in-process state never leaks); "
            "'run' one per run, for servers without state (saves a start per episode). Files or databases the server "
            "keeps are never reset by toolprism: give a command that resets them.",
        ),
    ] = McpScopeChoice.episode,
    task_kinds: Annotated[
        list[str] | None,
        typer.Option(
            "--kinds",
            help=f"Task kinds to pose (comma list or repeated): {', '.join(TASK_KINDS)}, or 'all'. "
            f"Default: {','.join(MAIN_JOB['task_kinds'])} in the main job (one-call requests), else all.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Run seed: tasks, worlds and episode seeds derive from it.")] = 0,
    max_turns: Annotated[
        int | None,
        typer.Option(
            help=f"Model turns per episode before it is cut off. Default: {MAIN_JOB['max_turns']} in the main job, "
            f"else {MAX_TURNS}.",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option(
            help="Episodes in flight at once, against the one endpoint (its connection pool is sized to this; "
            "with --executor ray, 1 means one per cluster CPU)."
        ),
    ] = 1,
    base_url: Annotated[
        str | None,
        typer.Option(
            envvar="TOOLPRISM_BASE_URL",
            help="OpenAI-compatible endpoint (key from $OPENAI_API_KEY). May differ on --resume: the same model "
            "served from another address (the header keeps the address the run started with).",
        ),
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
    mitigate: Annotated[
        list[str] | None,
        typer.Option(
            "--mitigate",
            metavar="MITIGATIONS",
            help=f"Training-free mitigations (comma list or repeated): {', '.join(MITIGATIONS)}. 'instruction' adds "
            "each variant's calling-convention sentences to the system prompt (see 'toolprism variants show'); "
            "'constrain-first' decodes the model's turns under a grammar of the variant's valid calls until its "
            "first tool call, 'constrain-all' every turn (a backend that cannot says so; not both). Recorded in "
            "the run header and every trace; compare with the unmitigated run: toolprism score RUN --baseline BASE. "
            "With --resume it must be the run's.",
            show_default=False,
        ),
    ] = None,
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
    report: Annotated[
        bool,
        typer.Option(
            help="Write the HTML report (toolprism report) to RUN_DIR/report.html at the end and print its path. "
            f"Runs of more than {REPORT_LIMIT:,} episodes skip it (building it re-scores every trace): "
            "run 'toolprism report RUN_DIR' for them."
        ),
    ] = True,
    tool_format: Annotated[
        ToolFormatChoice,
        typer.Option(
            envvar="TOOLPRISM_TOOL_FORMAT",
            help="How an OpenAI-compatible endpoint is shown the tools: 'native' sends them in the request; "
            "'hermes' (<tool_call> tags, Hermes/Qwen), 'json' (a bare JSON object), 'llama' (Llama 3 JSON calls) and "
            "'mistral' ([TOOL_CALLS]) put them in the system prompt and parse the reply, for servers or models "
            "without native tool calling.",
        ),
    ] = ToolFormatChoice.native,
    cache: Annotated[
        bool,
        typer.Option(
            "--cache",
            help="Answer temperature-0 endpoint requests seen before from a local response cache (and keep new "
            "answers there), so a re-run after a crash or a scoring change costs nothing. Allowed with --resume.",
        ),
    ] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="The response cache's directory (implies --cache). Default: the user cache directory."),
    ] = None,
    executor: Annotated[
        ExecutorChoice,
        typer.Option(
            envvar="TOOLPRISM_EXECUTOR",
            help="Where episodes run: 'local' (this process) or 'ray' (Ray workers; the extra toolprism\\[ray]; "
            "with --concurrency 1, one episode per cluster CPU in flight). May differ on --resume.",
        ),
    ] = ExecutorChoice.local,
    ray_address: Annotated[
        str | None,
        typer.Option(
            envvar="RAY_ADDRESS",
            help="Ray cluster for --executor ray (e.g. ray://head:10001); default: a cluster started on this "
            "machine, else a local Ray instance.",
        ),
    ] = None,
    max_tokens_total: Annotated[
        int | None,
        typer.Option(
            help="Stop once the episodes finished in this invocation used this many tokens (prompt + completion); "
            "resume continues. Allowed with --resume.",
            show_default=False,
        ),
    ] = None,
    max_wall: Annotated[
        float | None,
        typer.Option(
            help="Stop this many seconds after the first episode started (episodes in flight are cancelled and run "
            "again on resume). "
            "Allowed with --resume.",
            show_default=False,
        ),
    ] = None,
    max_backend_errors: Annotated[
        int,
        typer.Option(
            help="Circuit breaker: stop after this many episodes in a row ended with a backend error (the endpoint "
            "looks down); 0 never stops. Allowed with --resume.",
        ),
    ] = 10,
) -> None:
    """Run a model on tasks under several equivalent tool interfaces and report success per variant.

    With no options, the main job: Qwen2.5-Coder-0.5B (embedded, offline) on the garden domain's
    one-call requests, 6 tasks under native, rename-opaque and merge, 3 turns each (see the
    README). Every run ends by writing its HTML report (--no-report skips it). With
    --domains or --variants, the other defaults are each domain's own (trb, ToolRobustBench's
    environment, runs its 192 anchors natively).
    With --perturb or --perturb-suite, each task also runs under each perturbation condition, and
    the summary breaks success down by subtype and severity.

    Ctrl-C or SIGTERM stops within seconds (finished episodes are kept; a second Ctrl-C exits at
    once). A spent budget or the circuit breaker stops cleanly with exit code 3; every stop
    prints the --resume command that continues the run.
    """
    if resume is not None:
        _refuse_options_with_resume(ctx)
    given_empty = [name for name, v in (("--domains", domains), ("--variants", variants), ("--perturb", perturb),
                                        ("--kinds", task_kinds)) if v is not None and not _split(v)]  # fmt: skip
    if given_empty:  # e.g. -v "$VARIANTS" with the variable unset: not a silent fall-back to the defaults
        raise ConfigError(
            [f"{name} was given an empty value (it names nothing)" for name in given_empty], what="options"
        )
    # no domains, variants, preset or resume: the main job's settings fill what is not given
    if catalog is not None and mcp is not None:
        raise ConfigError("give --catalog (an action log answers) or --mcp (a live server answers), not both")
    own = catalog or mcp
    chosen = preset or resume is not None or own or _given(ctx, "domains") or _given(ctx, "variants")
    main: dict[str, object] = {} if chosen else MAIN_JOB
    count = _task_count(tasks, own, "--mcp" if mcp is not None else "--catalog")
    if own is not None:  # the pair becomes a pack in the run directory, a domain like any other
        run_dir = run_dir or default_run_dir(model)
        pack = _catalog_pack(catalog, Path(str(tasks)), run_dir, mcp, mcp_scope.value)
        domains = [*(_split(domains) or []), str(pack)]
    values = {
        "model": model if _given(ctx, "model") else main.get("model", model),
        "base_url": base_url,
        "domains": _split(domains) or list(main.get("domains", DEFAULT_DOMAINS)),
        "variants": _split(variants) or main.get("variants"),
        "tasks": main.get("tasks", "default") if count == "default" else count,
        "task_kinds": _kinds(_split(task_kinds), main),
        "seed": seed,
        "max_turns": main.get("max_turns", MAX_TURNS) if max_turns is None else max_turns,
        "concurrency": concurrency,
        "perturbations": expand_conditions(_split(perturb) or [], perturb_suite),
        "tool_format": tool_format.value,
        "executor": executor.value,
        "ray_address": ray_address,
        "max_tokens_total": max_tokens_total,
        "max_wall_s": max_wall,
        "max_consecutive_backend_errors": max_backend_errors,
    }
    if resume is None or _given(ctx, "control"):  # with --resume, a control given is checked against the run's
        values["control"] = control.value
    if resume is None or _given(ctx, "mitigate"):  # likewise the mitigations
        values["mitigations"] = _split(mitigate) or []
    for name in ("concurrency", "base_url"):  # a resumed run keeps its own unless told (an endpoint may move)
        if resume is not None and not _given(ctx, name):
            del values[name]
    config = RunConfig(
        **apply_preset(preset, {k: v for k, v in values.items() if _given(ctx, k) or not preset}),
        cache=cache or cache_dir is not None,
        cache_dir=None if cache_dir is None else str(cache_dir.resolve()),
    )
    for note in _unused_options(config, resume is not None):
        stderr.print(f"note: {note}", markup=False, soft_wrap=True)
    progress = ProgressReport("episodes", transient=json_output)
    where: list[Path] = []

    def on_start(todo: int, finished: int, directory: Path) -> None:
        where.append(directory)
        if finished:
            stderr.print(f"resuming: {finished} episode(s) already finished{'' if todo else '; nothing left to run'}")
        if todo:
            progress.start(todo)

    last: list[str] = [""]

    def on_progress(p: RunProgress) -> None:
        if p.total == 0:  # a finished run resumed: no progress to show
            return
        counts = {"running": p.running, "failed": p.failed, "backend_errors": p.backend_errors, "tokens": p.tokens}
        progress.update(done=p.done, note=last[0], **counts)

    def on_result(result: EpisodeResult) -> None:
        last[0] = f"last: {'ok' if result.success else result.end} {result.episode_id}"

    signals: list[int] = []
    previous = _install_stop_handlers(signals, where)
    try:
        summary = evaluate(
            config, run_dir=run_dir, resume=resume, on_start=on_start, on_result=on_result, on_progress=on_progress
        )
    except RunStopped as stop:
        progress.stop()
        if stop.summary is not None:
            _print_summary(stop.summary, json_output)  # type: ignore[arg-type]
        stderr.print(f"stopped: {stop}", soft_wrap=True, markup=False)
        _resume_hint(where)
        raise typer.Exit(3) from None
    except (KeyboardInterrupt, asyncio.CancelledError, ToolprismError) as error:
        progress.stop()
        _resume_hint(where)
        if signals or not isinstance(error, ToolprismError):
            if not where:  # still validating and planning (a large plan takes seconds)
                stderr.print("interrupted before the first episode started")
            raise typer.Exit(128 + (signals[0] if signals else signal.SIGINT)) from None
        raise
    finally:
        _restore_handlers(previous)
        progress.stop()
    _print_summary(summary, json_output)
    if report:
        _write_report(Path(summary.run_dir), summary.episodes + summary.context_overflow + summary.backend_error)


def _task_count(tasks: str | None, catalog: object | None, option: str = "--catalog") -> int | None | str:
    """``--tasks``: a count (an int, checked with the rest of the configuration), ``"default"``
    when not given, or, with ``--catalog`` (or ``--mcp``, named by ``option``), None (every task of
    the task file it names).

    Raises:
        ConfigError: a task file without --catalog, or --catalog without a task file."""
    number = _integer(tasks)
    if catalog is not None:
        if tasks is None or number is not None:
            raise ConfigError(
                f'{option} needs --tasks FILE: a JSON Lines task file (one {{"query", "gold"}} object per line)',
                what="options",
            )
        return None
    if tasks is None:
        return "default"
    if number is None:
        raise ConfigError(
            f"--tasks {tasks!r}: expected a number of tasks (a task file goes with --catalog TOOLS)", what="options"
        )
    return number


def _integer(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def _catalog_pack(
    catalog: Path | None, tasks: Path, run_dir: Path, mcp: str | None = None, scope: str = "episode"
) -> Path:
    """Check ``catalog`` (or the tools of the live MCP server ``mcp``, started per ``scope``) and
    ``tasks`` as one domain pack and write it to ``run_dir/packs/<name>.json``.

    Raises:
        ConfigError: every problem of the catalog and the task file; a run already in ``run_dir``.
        McpServerError: the MCP server cannot be started or breaks the protocol."""
    if (run_dir / "header.json").exists():
        raise ConfigError(f"{run_dir} already holds a run: continue it with --resume {run_dir}", what="run directory")
    from toolprism.interop import mcp_pack, write_packs  # only runs of a user's catalog need them

    pack = catalog_pack(catalog, tasks) if mcp is None else mcp_pack(mcp, tasks, run_dir / "packs", scope=scope)  # type: ignore[arg-type]
    try:
        return write_packs([pack], run_dir / "packs")[0].resolve()
    except OSError as e:
        raise ConfigError(
            f"cannot write the pack into {run_dir / 'packs'}: {e.strerror}", what="run directory"
        ) from None


def _write_report(run_dir: Path, episodes: int) -> None:
    """Write ``run_dir/report.html`` and print its path (on stderr, so ``--json`` stays one document)."""
    if episodes > REPORT_LIMIT:
        stderr.print(f"report: not written for {episodes:,} episodes; run: toolprism report {run_dir}", markup=False)
        return
    from toolprism.report import write_report

    stderr.print(f"report: {write_report([run_dir], run_dir / 'report.html')}", markup=False, soft_wrap=True)


def _print_summary(summary: RunSummary, json_output: bool) -> None:
    if json_output:
        print_json(summary.model_dump())
    else:
        _print_table(summary)


def _resume_hint(where: list[Path]) -> None:
    if where:
        stderr.print(
            f"stopped; finished episodes are kept in {where[0]}; continue with: toolprism run --resume {where[0]}",
            soft_wrap=True,
            markup=False,
        )


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _install_stop_handlers(signals: list[int], where: list[Path]) -> dict[int, object]:
    """Ctrl-C and SIGTERM stop the run within seconds: the first cancels the episodes in flight
    (from the event loop, woken at once; an embedded generation stops at its next token), so that
    finished episodes are kept and the resume hint printed; a second one exits at once (exit code
    128 + signal; every finished episode is already committed). A signal the process ignores (a
    background job's SIGINT) stays ignored. Returns the handlers to restore (none outside the
    main thread)."""

    def on_signal(signum: int, _frame: object) -> None:
        signals.append(signum)
        if len(signals) > 1:
            where_text = f"; finished episodes are kept in {where[0]}" if where else ""
            os.write(2, f"\ninterrupted again: exiting now{where_text}\n".encode())
            os._exit(128 + signum)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # still planning, outside the event loop
            raise KeyboardInterrupt from None
        loop.call_soon_threadsafe(_cancel_all, loop)

    previous: dict[int, object] = {}
    for signum in _STOP_SIGNALS:
        try:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, on_signal)
        except ValueError:  # not the main thread: signals stay as they are
            break
    return previous


def _restore_handlers(previous: dict[int, object]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)  # type: ignore[arg-type]


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel every task of ``loop``: each episode in flight stops at its next await, and is
    recorded whole or not at all."""
    for task in asyncio.all_tasks(loop):
        task.cancel()


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was set (on the command line or through its environment variable)."""
    if name == "perturbations":
        return _given(ctx, "perturb") or _given(ctx, "perturb_suite")
    if name == "mitigations":
        return _given(ctx, "mitigate")
    return getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")


def _unused_options(config: RunConfig, resuming: bool) -> list[str]:
    """Options given that change nothing in this run (said, not refused: the run is still right)."""
    notes = []
    if config.ray_address and config.executor != "ray":
        notes.append("--ray-address is used only with --executor ray; episodes run here")
    own = config.model == "oracle" or config.model.partition(":")[0] == "embedded"  # never an endpoint
    endpoint = not own and (config.model.startswith("openai:") or config.base_url is not None)
    if config.cache and not endpoint and not resuming:
        notes.append(f"--cache applies to OpenAI-compatible endpoints; {config.model!r} is not one (nothing is cached)")
    if config.base_url and own:
        notes.append(f"--base-url is ignored by {config.model!r}")
    return notes


def _refuse_options_with_resume(ctx: typer.Context) -> None:
    """``--resume`` continues a run with its stored configuration: other run options would be ignored."""
    given = [
        "--" + name.replace("_", "-")
        for name in (
            "model",
            "catalog",
            "mcp",
            "mcp_scope",
            "domains",
            "variants",
            "tasks",
            "task_kinds",
            "seed",
            "max_turns",
            "run_dir",
            "perturb",
            "perturb_suite",
            "preset",
            "tool_format",
        )  # fmt: skip
        if _given(ctx, name)
    ]
    if given:
        raise ConfigError(
            f"--resume continues a run with the configuration stored in its header; drop {', '.join(given)}",
            what="options",
        )


def _print_table(summary: RunSummary) -> None:
    console = Console()
    if not console.is_terminal:  # logs and pipes: wide enough that specs stay on one line
        console = Console(width=max(console.width, 170))
    perturbed = any(v.condition for v in summary.variants)
    wide = console.width >= 130  # a narrow terminal gets the rates whole; the report has the rest
    mitigated = f" — mitigations: {', '.join(summary.mitigations)}" if summary.mitigations else ""
    table = Table(title=f"success per variant — {summary.model}{mitigated}")
    columns = ("variant", *(("spec",) if wide else ()), *(("condition",) if perturbed else ()))
    numbers = ("episodes", "success", "rate", "95% CI", *(("rejected calls", "turn limit hit") if wide else ()))
    unscored = ("context overflow", "backend error") if wide else ("not scored",)  # out of every rate
    for column in columns:
        table.add_column(column, overflow="fold")
    for column in (*numbers, *unscored):
        table.add_column(column, justify="right", no_wrap=True)
    for v in summary.variants:
        extra = (str(v.rejected_calls), str(v.turn_limit)) if wide else ()
        counts = (v.context_overflow, v.backend_error) if wide else (v.context_overflow + v.backend_error,)
        table.add_row(
            v.variant,
            *((v.spec,) if wide else ()),
            *((v.condition or "clean",) if perturbed else ()),
            str(v.episodes),
            str(v.successes),
            "—" if v.success_rate is None else f"{v.success_rate:.0%}",
            "—" if v.ci_low is None or v.ci_high is None else f"{v.ci_low:.0%}-{v.ci_high:.0%}",
            *extra,
            *map(str, counts),
        )
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
