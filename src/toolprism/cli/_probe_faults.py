"""``toolprism probe faults``: Xu et al.'s fault-arm study on a scoring model, stored and summarised."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism._version import __version__
from toolprism.cli._common import ProgressReport, friendly_errors, print_json, refuse_given, stderr
from toolprism.domains import Domain, Task, get_domain
from toolprism.errors import ConfigError
from toolprism.perturb import InjectionSite
from toolprism.probes import (
    FLAT,
    FLOOR_NATS,
    SITE_TOOL,
    Directions,
    FaultRow,
    FaultSummary,
    LogprobScorer,
    SkippedTask,
    StoredStudy,
    append_rows,
    create_scorer,
    fault_study,
    finish_study,
    read_study,
    rewrite_rows,
    signed,
    study_config,
    study_sites,
    summarise,
    write_study,
)
from toolprism.run import git_revision

DEFAULT_LIMIT = 3
"""Tasks a study scores without ``--limit`` or ``--all``: a few minutes with the embedded model on 2 cores."""


def _default_out(model: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Path("toolprism-probes") / f"{stamp}-faults-{model.replace(':', '-').replace('/', '-')}"


def _split(values: list[str] | None) -> list[str] | None:
    return [v.strip() for item in values for v in item.split(",") if v.strip()] if values else None


@friendly_errors
def faults_command(
    domain: Annotated[str, typer.Option("--domain", "-d", help="Domain (the study is defined on retail).")] = "retail",
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="Scoring model: embedded[:<name>], hf:<dir>, openai:<model>. Default: embedded (with --resume, "
            "the study's).",
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(envvar="TOOLPRISM_BASE_URL", help="Server returning prompt log-probabilities (vLLM)."),
    ] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the server's API key.")] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", "-n", help=f"Tasks to score, a sample spread over request kinds (default {DEFAULT_LIMIT})."
        ),
    ] = None,
    all_tasks: Annotated[bool, typer.Option("--all", help="Score every task with an injection site.")] = False,
    tool: Annotated[str, typer.Option(help="The read tool whose first call at position 2+ is the site.")] = SITE_TOOL,
    reread: Annotated[
        list[str] | None,
        typer.Option(help="State-rereading tools (comma list or repeated). Default: the domain's two."),
    ] = None,
    max_k: Annotated[
        int, typer.Option(min=0, help="Read rows at k = 0 (the injected return) up to this many calls later.")
    ] = 3,
    floor: Annotated[
        float, typer.Option(min=0.0, help="Clean entropy (nats) above which a row has room to move.")
    ] = FLOOR_NATS,
    seed: Annotated[int, typer.Option(min=0, help="World and task seed.")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Where to store the study (default toolprism-probes/<time>-faults-<model>).")
    ] = None,
    from_dir: Annotated[
        Path | None,
        typer.Option("--from", help="Re-summarise a stored study (with --floor), without the model."),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            help="Continue a stored study (interrupted, or a long --all job split over several sittings): its "
            "tasks without rows are scored with its stored configuration and the same model, appended, and the "
            "table covers every task.",
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Xu et al.'s fault-arm study: surprisal channels and legal-action distributions at injected returns.

    At each task's injection site (the first TOOL call at position 2 or later) the arms C (clean),
    F (failed return), Ns (falsified status) and Nm (falsified identifier) share a byte-identical
    prefix; after it the reference calls continue with byte-identical returns. At k = 0 (the
    injected return) and k = 1, 2, 3 calls later the scoring model gives S0, S1, G = S1 - S0
    (nats per token) and the distribution over every tool and replying; each is reported as the
    arm's row minus the clean row of the same task and k. Writes rows.jsonl, study.json and
    summary.json under --out, and prints the table."""
    if from_dir is not None:
        given = {
            "--resume": resume,
            "--model": model,
            "--out": out,
            "--limit": limit,
            "--all": all_tasks,
            "--domain": domain != "retail",
            "--tool": tool != SITE_TOOL,
            "--seed": seed,
            "--max-k": max_k != 3,
            "--reread": reread,
        }
        refuse_given(given, "--from re-summarises a stored study (only --floor and --json apply)", what="from")
        notes: list[str] = []
        stored, rows = read_study(from_dir, notes)
        for note in notes:
            stderr.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
        summary = summarise(rows, stored.config, skipped=stored.skipped, floor_nats=floor)
        _show(summary, stored, from_dir, json_output, where="read from")
        return
    if resume is not None:
        given = {"--out": out, "--limit": limit, "--all": all_tasks}
        refuse_given(given, "--resume continues the stored study", what="resume")
        stored, rows = _resumable(resume)
        shaping = {
            "--domain": (domain, "retail", stored.config.domain),
            "--tool": (tool, SITE_TOOL, stored.config.tool),
            "--seed": (seed, 0, stored.config.seed),
            "--max-k": (max_k, 3, max(stored.config.steps)),
            "--reread": (tuple(_split(reread) or ()), (), stored.config.reread),
        }
        clashes = [
            f"{name} {value!r} differs from the stored study's {kept!r}"
            for name, (value, default, kept) in shaping.items()
            if value != default and value != kept
        ]
        if clashes:
            raise ConfigError(clashes, what="resume")
        _continue(resume, stored, rows, model, base_url, api_key_env, floor, json_output)
        return
    if reread is not None and not _split(reread):
        raise ConfigError("--reread names no tool", what="reread")
    if all_tasks and limit is not None:
        raise ConfigError("give --limit or --all, not both", what="limit")
    target = get_domain(domain)
    sites = study_sites(
        target, seed=seed, tool=tool, limit=None if all_tasks else (DEFAULT_LIMIT if limit is None else limit)
    )
    if not sites:
        raise ConfigError(
            f"no {domain} task has a {tool} call at position 2 or later: the study is defined on retail; "
            "another domain needs --tool naming one of its read tools",
            what="tool",
        )
    config = study_config(target, sites, seed=seed, tool=tool, reread=_split(reread), steps=range(max_k + 1))
    if all(set(site.arms) == {"C"} for _, site in sites):
        raise ConfigError(
            f"no fault arm (F, Ns, Nm) applies at the {domain} {tool} sites (no error string, status or "
            "identifier field in its return): nothing to contrast with the clean arm",
            what="tool",
        )
    model = model or "embedded"
    directory = out or _default_out(model)
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"--out {directory} is a file, not a directory", what="out")
    if (directory / "study.json").exists():  # checked again by write_study; here before the model loads
        raise ConfigError(f"{directory} already holds a study; give another --out", what="out")
    scorer = create_scorer(model, base_url=base_url, api_key_env=api_key_env)
    stored = StoredStudy(
        config=config,
        scorer=scorer.name,
        scorer_settings=scorer.settings(),
        toolprism_version=__version__,
        git_revision=git_revision(),
    )
    write_study(directory, stored)
    _score(scorer, target, sites, directory, stored, [], floor, json_output)


def _resumable(directory: Path) -> tuple[StoredStudy, list[FaultRow]]:
    """The stored study and its complete rows; a row line cut off by a kill is removed from
    ``rows.jsonl`` (its task is scored again)."""
    notes: list[str] = []
    stored, rows = read_study(directory, notes)
    if notes:
        rewrite_rows(directory, rows)
        for note in notes:
            stderr.print(f"note: {note}; its task is scored again", markup=False, highlight=False, soft_wrap=True)
    return stored, rows


def _continue(
    directory: Path,
    stored: StoredStudy,
    rows: list[FaultRow],
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    floor: float,
    json_output: bool,
) -> None:
    """Score the stored study's tasks that have no rows yet (skipped ones stay skipped)."""
    config = stored.config
    scorer = create_scorer(model or stored.scorer, base_url=base_url, api_key_env=api_key_env)
    settings = json.loads(json.dumps(scorer.settings()))
    if scorer.name != stored.scorer or settings != stored.scorer_settings:
        differ = sorted(
            k for k in {*settings, *stored.scorer_settings} if settings.get(k) != stored.scorer_settings.get(k)
        )
        raise ConfigError(
            (
                f"{directory} was scored by {stored.scorer}; {scorer.name} differs"
                if scorer.name != stored.scorer
                else f"{directory} was scored by {stored.scorer} with other settings"
            )
            + (f" in {', '.join(differ)}" if differ else "")
            + ": a study is scored by one model",
            what="model",
        )
    done = {r.task_id for r in rows} | {s.task_id for s in stored.skipped}
    target = get_domain(config.domain)
    current = {t.id: (t, site) for t, site in study_sites(target, seed=config.seed, tool=config.tool)}
    missing = [i for i in config.task_ids if i not in current]
    if missing:
        raise ConfigError(
            [f"task {i} of the study has no {config.tool} site in this toolprism" for i in missing], what="resume"
        )
    sites = [current[i] for i in config.task_ids if i not in done]
    stderr.print(
        f"resuming {directory}: {len(done)} of {len(config.task_ids)} tasks done, {len(sites)} to score",
        markup=False,
        highlight=False,
    )
    _score(scorer, target, sites, directory, stored, rows, floor, json_output)


def _score(
    scorer: LogprobScorer,
    target: Domain,
    sites: list[tuple[Task, InjectionSite]],
    directory: Path,
    stored: StoredStudy,
    rows: list[FaultRow],
    floor: float,
    json_output: bool,
) -> None:
    """Score ``sites``, appending each task's rows to ``directory`` as it finishes, then write and
    show the summary of ``rows`` (those stored before) and the new ones."""
    config = stored.config
    skipped = list(stored.skipped)
    try:
        with ProgressReport("tasks", transient=json_output) as progress:
            progress.start(total=len(sites))
            for task_id, result in fault_study(scorer, target, sites, config):
                if isinstance(result, SkippedTask):
                    skipped.append(result)
                else:
                    rows += result
                    append_rows(directory, result)
                progress.update(advance=1, note=task_id, failed=len(skipped))
    except KeyboardInterrupt:
        done = len({r.task_id for r in rows})
        stderr.print(
            f"interrupted: the rows of {done} of {len(config.task_ids)} tasks are stored in {directory}; "
            f"summarise them with: toolprism probe faults --from {directory}; continue with: "
            f"toolprism probe faults --resume {directory}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        if skipped != stored.skipped:
            finish_study(directory, stored.model_copy(update={"skipped": skipped}), None)
        raise typer.Exit(130) from None
    stored = stored.model_copy(update={"skipped": skipped})
    summary = summarise(rows, config, skipped=skipped, floor_nats=floor)
    finish_study(directory, stored, summary)
    _show(summary, stored, directory, json_output)


def _show(
    summary: FaultSummary, stored: StoredStudy, directory: Path, json_output: bool, *, where: str = "stored in"
) -> None:
    if json_output:
        print_json({"directory": str(directory), "scorer": stored.scorer, **summary.model_dump(mode="json")})
        return
    console = Console()
    if not console.is_terminal:  # logs and pipes: keep the tables' rows on one line
        console = Console(width=max(console.width, 250))
    console.print(fault_table(summary, stored))
    console.print(clean_table(summary))
    checked = (
        f"token-level prefix identical across arms on {summary.prefix_identical} of {summary.prefix_checked} tasks"
        if summary.prefix_checked or not summary.tasks
        else "prefix checked as text only (the scorer cannot tokenise)"
    )
    console.print(f"{summary.tasks} task(s) scored, {len(summary.skipped)} skipped; {checked}; {where} {directory}")
    missing = len(stored.config.task_ids) - summary.tasks - len(summary.skipped)
    if missing > 0:
        console.print(
            f"incomplete: {missing} of the study's {len(stored.config.task_ids)} tasks have no rows (an interrupted "
            "study); this table covers the others",
            markup=False,
            highlight=False,
        )
    for s in summary.skipped:
        console.print(f"  skipped {s.task_id}: {s.reason}", markup=False, highlight=False)


def _dirs(d: Directions) -> str:
    return f"{d.up}/{d.down}/{d.flat}"


def fault_table(summary: FaultSummary, stored: StoredStudy) -> Table:
    """Paired contrasts per arm and k (injected minus clean; medians with interquartile ranges)."""
    table = Table(
        title=f"fault arms vs clean, {stored.config.domain} ({stored.scorer}): injected minus clean, median [IQR]"
    )
    columns = (
        "arm", "k", "rows", "dS0 nats/token", "dS1", "dG", "dG up/down, sign p", "dS0 1st token", "dH nats",
        "room", "leader changes (room)", "pi(V) up/down/flat (room)", "d reread mass",
    )  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "arm" else "right", overflow="fold")
    for a in summary.arms:
        table.add_row(
            a.arm,
            str(a.k),
            str(a.rows),
            a.ds0.median_iqr(),
            a.ds1.median_iqr(),
            a.dg.median_iqr(),
            a.dg.signs(),
            signed(a.ds0_first.median),
            signed(a.dh.median, 4),
            str(a.movable),
            f"{a.leader_changes} ({a.leader_changes_movable})",
            f"{_dirs(a.reply_direction)} ({_dirs(a.reply_direction_movable)})",
            signed(a.dreread.median),
        )
    return table


def clean_table(summary: FaultSummary) -> Table:
    """The clean arm's levels per k: median entropy, rows under the floor, pi(V) at the ceiling and floor."""
    table = Table(title=f"clean rows (floor {summary.floor_nats} nats)")
    for column in ("k", "rows", "median H nats", "H <= floor", "pi(V) > 0.99", "pi(V) < 0.01"):
        table.add_column(column, justify="right")
    for c in summary.clean:
        median = "—" if c.entropy_median is None else f"{c.entropy_median:.4f}"
        table.add_row(str(c.k), str(c.rows), median, str(c.below_floor), str(c.reply_above_099), str(c.reply_below_001))
    return table


__all__ = ["DEFAULT_LIMIT", "FLAT", "faults_command"]
