"""Helpers shared by commands: error display, JSON output, shared tables."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from toolprism.errors import ConfigError, ToolprismError
from toolprism.score import PerturbationSummary

stderr = Console(stderr=True)

MIN_RATE_S = 1.0
"""Rates and the ETA are shown once a progress report has run this long (seconds)."""


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Show a ToolprismError, or an OSError on a path the user gave, as a clear message on stderr
    with exit code 2, not a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ToolprismError as e:
            stderr.print(f"[bold red]error:[/] {escape(str(e))}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except OSError as e:  # a path the user gave cannot be read or written
            where = f": {e.filename}" if e.filename else ""
            stderr.print(f"[bold red]error:[/] {escape((e.strerror or str(e)) + where)}", markup=True, highlight=False)
            raise typer.Exit(2) from None

    return wrapper


def refuse_given(given: dict[str, object], why: str, *, what: str) -> None:
    """Refuse the options of ``given`` (name -> value; falsy: not given) that ``why`` excludes:
    ConfigError ``"<why>: <name> cannot be given with it"``, one problem per option given."""
    clashes = [f"{why}: {name} cannot be given with it" for name, value in given.items() if value]
    if clashes:
        raise ConfigError(clashes, what=what)


def print_json(document: Any) -> None:
    """Print exactly one JSON document on stdout."""
    print(json.dumps(document, indent=2, sort_keys=False))


def perturbation_table(rows: list[PerturbationSummary]) -> Table:
    """Success per perturbation condition over all variants, with the 95% interval and the most
    frequent reason a (task, variant) pair was skipped."""
    table = Table(title="success per perturbation condition (all variants)")
    columns = ("subtype", "severity", "episodes", "success", "rate", "95% CI", "skipped", "why skipped (most often)")
    for column in columns:
        left = column in ("subtype", "severity", "why skipped (most often)")
        table.add_column(column, justify="left" if left else "right", overflow="fold")
    for p in rows:
        rate = "—" if p.success_rate is None else f"{p.success_rate:.0%}"
        interval = "—" if p.ci_low is None or p.ci_high is None else f"{p.ci_low:.0%}-{p.ci_high:.0%}"
        counts = (str(p.episodes), str(p.successes), rate, interval, str(p.skipped))
        table.add_row(p.subtype, p.severity, *counts, next(iter(p.reasons), ""))
    return table


PROGRESS_INTERVAL_S = 10.0
"""Seconds between two progress lines in a log (not a terminal); ``$TOOLPRISM_PROGRESS_INTERVAL`` overrides."""


def _interval_from_env() -> float:
    """``$TOOLPRISM_PROGRESS_INTERVAL`` as seconds (>= 0), else :data:`PROGRESS_INTERVAL_S`."""
    try:
        return max(0.0, float(os.environ.get("TOOLPRISM_PROGRESS_INTERVAL", PROGRESS_INTERVAL_S)))
    except ValueError:
        return PROGRESS_INTERVAL_S


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


class ProgressReport:
    """Progress of a long command, shared by ``run``, ``validate``, ``export`` and ``diagnose``.

    On a terminal: a Rich bar on stderr. Elsewhere (a log file, CI, a pipe): one plain line on
    stderr at the start, at most every ``interval_s`` seconds while it runs, and at the end::

        episodes: 120/1000 done, 8 running, 3 failed, 0 backend errors, 4.1 episodes/s, 850 tokens/s, ETA 3m34s

    A count never given (``running``, ``failed``, ``backend_errors``, ``tokens``) is left out of
    the line. Rates are per second since :meth:`start`, over the items done since then.

    Args:
        label: what is counted (``episodes``, ``tasks``, ``variants``).
        transient: on a terminal, remove the bar when done (``--json`` runs).
        auto_refresh: on a terminal, let Rich refresh from its own thread (False where worker
            processes are forked: the bar is refreshed at each update instead).
        interval_s: seconds between plain lines (default :data:`PROGRESS_INTERVAL_S`).
        console: where to draw (default stderr); its ``is_terminal`` picks the form.
    """

    def __init__(
        self,
        label: str,
        *,
        transient: bool = False,
        auto_refresh: bool = True,
        interval_s: float | None = None,
        console: Console | None = None,
    ) -> None:
        self.label = label
        self.console = console or stderr
        self.interval_s = interval_s if interval_s is not None else _interval_from_env()
        self.counts: dict[str, int | None] = dict.fromkeys(("running", "failed", "backend_errors", "tokens"))
        self.done = 0
        self.total: int | None = None
        self.note = ""
        self._started: float | None = None
        self._printed = 0.0
        self._shown: tuple[object, ...] | None = None
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if self.console.is_terminal:
            self._bar = Progress(
                TextColumn(f"[bold]{label}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[stats]}"),
                TextColumn("{task.description}"),
                console=self.console,
                transient=transient,
                auto_refresh=auto_refresh,
            )
            self._task = self._bar.add_task("", total=None, stats="")
        self.auto_refresh = auto_refresh

    def start(self, total: int | None = None) -> None:
        """Show the progress (idempotent): the bar appears, or the first line is printed."""
        if total is not None:
            self.total = total
        if self._started is not None:
            return
        self._started = time.monotonic()
        if self._bar is not None:
            self._bar.start()
        self._show(force=True)

    def update(
        self,
        *,
        done: int | None = None,
        advance: int = 0,
        total: int | None = None,
        note: str | None = None,
        **counts: int | None,
    ) -> None:
        """Set what is done (``done``, or ``advance`` it), the total, the current item (``note``)
        and any of the counts ``running``, ``failed``, ``backend_errors``, ``tokens``; starts the
        display if needed."""
        unknown = set(counts) - set(self.counts)
        if unknown:
            raise TypeError(f"unknown progress counts: {sorted(unknown)}")
        self.done = done if done is not None else self.done + advance
        self.total = total if total is not None else self.total
        self.note = note if note is not None else self.note
        self.counts.update(counts)
        if self._started is None:
            self.start()
        else:
            self._show()

    def stop(self) -> None:
        """Remove or freeze the bar, or print the last line (nothing when never started)."""
        if self._started is None:
            return
        if self._bar is not None or self._state() != self._shown:  # the final state, unless the last line said it
            self._show(force=True)
        if self._bar is not None:
            self._bar.stop()
        self._started = None

    def __enter__(self) -> ProgressReport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def line(self) -> str:
        """The one-line form: ``<label>: done[/total] done, <counts>, <rate>, ETA``."""
        elapsed = time.monotonic() - (self._started or time.monotonic())
        rate = self.done / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.done}/{self.total} done" if self.total is not None else f"{self.done} done"]
        parts += self._stats(elapsed, rate)
        text = f"{self.label}: {', '.join(parts)}"
        return f"{text} ({self.note})" if self.note else text

    def _stats(self, elapsed: float, rate: float) -> list[str]:
        c = self.counts
        parts = [f"{c['running']} running"] if c["running"] is not None else []
        parts += [f"{c['failed']} failed"] if c["failed"] is not None else []
        parts += [f"{c['backend_errors']} backend errors"] if c["backend_errors"] is not None else []
        if elapsed < MIN_RATE_S:  # a rate over a few milliseconds says nothing (24,354 variants/s after one)
            return parts
        if rate >= 0.1 or not self.done:
            parts.append(f"{rate:.1f} {self.label}/s")
        else:  # slow units (minutes each): time per unit reads better than "0.0/s"
            parts.append(f"{_duration(elapsed / self.done)} per {self.label.rstrip('s')}")
        if c["tokens"] is not None:
            parts.append(f"{c['tokens'] / elapsed:.0f} tokens/s")
        if self.total is not None and self.done and rate > 0:
            parts.append(f"ETA {_duration(max(0, self.total - self.done) / rate)}")
        return parts

    def _show(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if self._bar is not None and self._task is not None:
            elapsed = now - (self._started or now)
            rate = self.done / elapsed if elapsed > 0 else 0.0
            stats = ", ".join(self._stats(elapsed, rate))
            self._bar.update(self._task, completed=self.done, total=self.total, description=self.note, stats=stats)
            if not self.auto_refresh:
                self._bar.refresh()
            return
        if force or now - self._printed >= self.interval_s:
            self._printed, self._shown = now, self._state()
            self.console.print(self.line(), markup=False, highlight=False, soft_wrap=True)

    def _state(self) -> tuple[object, ...]:
        return self.done, self.total, self.note, tuple(self.counts.items())
