"""The report's building blocks: a loaded run, a chart, a section.

Every section of ``toolprism report`` is a pure function ``(runs) -> Section | None`` over
:class:`LoadedRun` values read from run directories (stored results only; no model is ever
called). ``None`` means the section has nothing to show for these runs (it is left out of the
page, the figures and the markdown).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from toolprism.score import RunScore


@dataclass(frozen=True)
class Chart:
    """One static figure (matplotlib): inlined in the page as SVG, written by ``--figures DIR`` as
    ``<name>.png`` and ``<name>.svg``.

    Attributes:
        name: file stem, unique within the report (``grid``, ``ladder``, ``severity-curves``).
        figure: the matplotlib figure (built with the Agg backend, never shown).
        caption: one or two sentences under the chart (plain text; escaped when rendered).
        page: whether the page shows it; False for a figure only ``--figures`` writes (the page
            shows the same numbers otherwise, e.g. the grid as a colored table).
    """

    name: str
    figure: Figure
    caption: str = ""
    page: bool = True


@dataclass(frozen=True)
class Section:
    """One titled part of the report.

    Attributes:
        id: HTML anchor and nav key (``overview``, ``grid``, ``traces``).
        title: heading (plain text).
        html: body fragment, already safe (rendered by a jinja2 template with autoescaping, or
            built with ``markupsafe.escape``); untrusted text (model output, tool returns, names
            from a user's catalog) must never reach it unescaped.
        charts: figures shown after ``html``.
        markdown: the section for ``--format md`` (GitHub-flavoured markdown; may be empty).
        script: inline JavaScript this section needs (our own code only: never data).
        data: JSON-serialisable payload the script reads; the page embeds it gzip-compressed and
            base64-encoded in ``<script type="application/octet-stream" id="data-<id>">``.
    """

    id: str
    title: str
    html: Markup = field(default_factory=Markup)
    charts: Sequence[Chart] = ()
    markdown: str = ""
    script: str = ""
    data: Any = None


@dataclass(frozen=True)
class LoadedRun:
    """One run directory, scored from its stored traces.

    Attributes:
        path: the run directory.
        label: how the report names the run (its directory name, made unique across the runs).
        score: :func:`toolprism.score.score_run` of ``path``.
        frame: :func:`toolprism.score.episode_frame` of ``path`` (one row per episode).
    """

    path: Path
    label: str
    score: RunScore
    frame: pd.DataFrame


def load_runs(paths: Sequence[Path]) -> list[LoadedRun]:
    """Score each run directory (no model is called).

    Raises:
        ConfigError: a path is not a run directory (every bad path listed).
    """
    from toolprism.errors import ConfigError
    from toolprism.score import episode_frame, score_run

    runs, seen, problems = [], set(), []
    for path in map(Path, paths):
        try:
            score = score_run(path)
        except ConfigError as e:
            problems += e.problems
            continue
        label = path.resolve().name or str(path)
        while label in seen:
            label = f"{label}'"
        seen.add(label)
        runs.append(LoadedRun(path, label, score, episode_frame([path])))
    if problems:
        raise ConfigError(problems, what="run directory")
    return runs
