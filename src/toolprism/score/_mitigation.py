"""A mitigated run against its baseline, the comparison "Training repairs what it sees" makes: per
variant (and condition), success without and with the mitigation, the difference, and the share
of episodes whose first call is schema-valid in each run, trained variants marked.

Both runs must pose the same tasks at the same seed (the pinned task hashes and the run seed in
their headers, see :mod:`toolprism.run._pins`); the difference's interval is Newcombe's hybrid
score interval (:func:`toolprism.score.newcombe_difference`), the two runs' episodes taken as
independent samples, as the report's comparison of runs takes them.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from toolprism.errors import ConfigError, RejectionKind
from toolprism.run import RunStore, Trace
from toolprism.score._interval import newcombe_difference
from toolprism.score._report import RunScore, VariantScore, _model_name

SCHEMA_REJECTIONS: frozenset[RejectionKind] = frozenset(
    {RejectionKind.UNKNOWN_TOOL, RejectionKind.INVALID_ARGUMENTS, RejectionKind.MALFORMED_CALL}
)
"""The adapter's rejections that make a call schema-invalid: a tool the variant does not show
(``unknown_tool``), arguments that are not a JSON object or not JSON (``malformed_call``), and
arguments the tool's schema or the layer's decoding refuses (``invalid_arguments``) — what a
grammar of the variant's tool names and argument schemas rules out (constrained decoding). The
protocol-state rejections (``unknown_transaction``, ``incomplete_transaction``,
``unknown_handle``, ``undiscovered``, ``protocol``) are calls that match a shown tool's schema
made at the wrong moment; they do not count against schema validity."""
SHOWN = 10
"""Task differences named in a refusal at most (the rest are counted)."""


def first_call_valid(trace: Trace) -> bool:
    """Whether ``trace``'s first call is schema-valid: the episode made at least one tool call and
    the adapter did not reject the first with one of :data:`SCHEMA_REJECTIONS`. An episode that
    answered (or ended) without any call counts as not valid. Under the ``paper`` and ``loose``
    adapter controls some schema-invalid calls are not rejected (they run, or decode): there the
    share counts what the adapter let through, as the paper's own share does."""
    calls = trace.calls
    return bool(calls) and not (calls[0].outcome == "rejected" and calls[0].rejection in SCHEMA_REJECTIONS)


class MitigationCell(BaseModel):
    """One run's episodes of one (variant, condition) cell.

    Attributes:
        episodes / successes: scored episodes and their successes (as ``toolprism score`` counts
            them); ``success_rate`` with its 95% interval ``ci_low``/``ci_high``, the same interval
            ``toolprism score`` gives the cell (:func:`toolprism.score.success_interval`).
        first_call_valid: scored episodes whose first call is schema-valid (:func:`first_call_valid`);
            ``first_call_valid_rate``: their share of ``episodes``.
    """

    model_config = ConfigDict(extra="forbid")

    episodes: int
    successes: int
    success_rate: float
    ci_low: float
    ci_high: float
    first_call_valid: int
    first_call_valid_rate: float


class MitigationRow(BaseModel):
    """One (variant, condition) cell both runs scored.

    Attributes:
        variant / condition: the cell (``condition`` ``""`` clean).
        trained: whether the variant is among the trained ones; None when none were given.
        baseline / mitigated: the two runs' cells.
        delta: mitigated minus baseline success rate; ``delta_low``/``delta_high``: its 95%
            Newcombe interval.
        first_call_delta: mitigated minus baseline share of schema-valid first calls.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    condition: str = ""
    trained: bool | None = None
    baseline: MitigationCell
    mitigated: MitigationCell
    delta: float
    delta_low: float
    delta_high: float
    first_call_delta: float

    @property
    def significant(self) -> bool:
        """Whether the 95% interval of ``delta`` excludes 0."""
        return self.delta_low > 0 or self.delta_high < 0


class MitigationComparison(BaseModel):
    """A mitigated run against its baseline (``toolprism score RUN --baseline BASE``, the report's
    mitigation section).

    Attributes:
        baseline_run / mitigated_run: the run directories.
        baseline_model / model: each run's model (its backend's model id, else its configured name):
            they may differ, e.g. a fine-tuned model against its base model.
        baseline_mitigations / mitigations: what each run applied (:data:`toolprism.run.Mitigation`).
        trained: the trained variant names given (None: not given; rows are then unmarked).
        trained_absent: trained names no compared cell has (a misspelling, or a variant neither ran).
        rows: the cells both runs scored, in the baseline's order.
        differences: settings other than the mitigations in which the runs differ (``"control:
            'loose' vs 'strict'"``, baseline first; see :data:`HELD_FIXED`): then a row's
            difference is not the mitigation's alone.
        only_baseline / only_mitigated: cells one run scored and the other did not, as
            ``variant`` or ``variant · condition``.
    """

    model_config = ConfigDict(extra="forbid")

    baseline_run: str
    mitigated_run: str
    baseline_model: str
    model: str
    baseline_mitigations: list[str]
    mitigations: list[str]
    trained: list[str] | None = None
    trained_absent: list[str] = []
    rows: list[MitigationRow]
    only_baseline: list[str] = []
    only_mitigated: list[str] = []
    differences: list[str] = []


def run_mitigations(run_dir: Path | str) -> list[str]:
    """The mitigations a run applied, from its header (``[]`` for a run made before they existed).

    Raises:
        ConfigError: ``run_dir`` is not a run directory.
    """
    return _header_facts(run_dir)[1]


def _header_facts(run_dir: Path | str) -> tuple[str, list[str], dict[str, object]]:
    """A run's model, mitigations, and the settings a comparison must hold fixed (see
    :data:`HELD_FIXED`), from its header."""
    store = RunStore.open(Path(run_dir))
    try:
        header = store.header
        config = header.config.model_dump()
        settings = {k: config.get(k) for k in HELD_FIXED if k in config}
        backend = {k: v for k, v in header.backend.items() if k not in ("constrain", "constraint")}
        settings["backend"] = backend
        model = _model_name(header.backend.get("model"), header.config.model)
        return model, list(header.config.mitigations), settings
    finally:
        store.close()


HELD_FIXED = ("model", "base_url", "control", "max_turns", "instruction", "tool_format", "perturbations", "preset")
"""The run settings besides the mitigations that a mitigated run and its baseline should share (and
the backend's settings but its decoding constraint); :attr:`MitigationComparison.differences`
names those that differ."""


def _differences(base: dict[str, object], mine: dict[str, object]) -> list[str]:
    return [f"{k}: {base.get(k)!r} vs {mine.get(k)!r}" for k in base.keys() | mine.keys() if base.get(k) != mine.get(k)]


def trained_variants(value: str) -> list[str]:
    """The trained variant names ``--trained`` gives: a comma list of names, or the path of an SFT
    export's ``manifest.json``, of which only ``train.variants`` (a list of names) is read.

    Raises:
        ConfigError: the manifest cannot be read, is not JSON, or has no list of names at
            ``train.variants``; an empty list.
    """
    path = Path(value)
    if value.endswith(".json") or path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ConfigError(f"{value}: cannot read the manifest ({e})", what="--trained") from None
        names = data.get("train", {}).get("variants") if isinstance(data, dict) else None
        if isinstance(data, dict) and not isinstance(data.get("train"), dict):
            names = None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"{value}: no list of variant names at train.variants", what="--trained")
    else:
        names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise ConfigError(f"{value!r} names no variant", what="--trained")
    return list(dict.fromkeys(names))


def check_comparable(baseline: Path | str, mitigated: Path | str) -> None:
    """Refuse two runs that do not pose the same tasks at the same seed.

    The tasks are the header's pinned task hashes, per domain and task id (a run made before pins
    existed: the task ids its episodes recorded, without hashes); the seed is the run seed, from
    which every episode seed derives.

    Raises:
        ConfigError: the run seeds differ; a task only one run poses; a task both pose with
            different hashes (the first :data:`SHOWN` named, the rest counted).
    """
    base, mine = _identity(Path(baseline)), _identity(Path(mitigated))
    problems = []
    if base[0] != mine[0]:
        problems.append(f"the runs' seeds differ: the baseline ran at seed {base[0]}, the mitigated run at {mine[0]}")
    tasks: list[str] = []
    for key in dict.fromkeys([*base[1], *mine[1]]):
        name = "/".join(key) if not key[1].startswith(f"{key[0]}/") else key[1]
        if key not in mine[1]:
            tasks.append(f"task {name} is posed by the baseline only")
        elif key not in base[1]:
            tasks.append(f"task {name} is posed by the mitigated run only")
        elif None not in (base[1][key], mine[1][key]) and base[1][key] != mine[1][key]:
            tasks.append(f"task {name} differs between the runs (hash {base[1][key]} vs {mine[1][key]})")
    problems += tasks[:SHOWN] + ([f"... and {len(tasks) - SHOWN} more"] if len(tasks) > SHOWN else [])
    if problems:
        problems.append(f"a mitigated run is compared with its baseline on the same tasks and seeds ({mitigated})")
        raise ConfigError(problems, what="comparison of runs")


def _identity(run_dir: Path) -> tuple[int, dict[tuple[str, str], str | None]]:
    """A run's seed and its tasks: (domain, task id) -> pinned hash (None where not pinned)."""
    store = RunStore.open(run_dir)
    try:
        header = store.header
        if header.tasks:
            tasks = {(d, t): h for d, pins in header.tasks.items() for t, h in pins.tasks.items()}
        else:
            tasks = {(r.domain, r.task_id): None for r in store.results()}
        return header.config.seed, tasks
    finally:
        store.close()


def first_calls(run_dir: Path | str) -> dict[tuple[str, str], list[bool]]:
    """Per (variant, condition) of a stored run: :func:`first_call_valid` of each scored episode
    (those left out of every score, context overflows and backend errors, are left out here too).

    Raises:
        ConfigError: ``run_dir`` is not a run directory.
    """
    store = RunStore.open(Path(run_dir))
    try:
        cells: dict[tuple[str, str], list[bool]] = {}
        for result in store.results():
            trace = store.trace(result.episode_id)
            if trace.scored:
                cells.setdefault((result.variant, result.condition or ""), []).append(first_call_valid(trace))
        return cells
    finally:
        store.close()


def compare_mitigation(
    baseline: RunScore, mitigated: RunScore, *, trained: Collection[str] | None = None
) -> MitigationComparison:
    """The mitigated run against the baseline, cell by cell (see :class:`MitigationComparison`).

    Args:
        baseline / mitigated: :func:`toolprism.score.score_run` of the two runs (their
            ``run_dir`` is read again for the headers and the first calls).
        trained: the trained variant names (see :func:`trained_variants`); None: rows unmarked.

    Raises:
        ConfigError: the runs do not pose the same tasks at the same seed (:func:`check_comparable`).
    """
    check_comparable(baseline.run_dir, mitigated.run_dir)
    calls = {baseline.run_dir: first_calls(baseline.run_dir), mitigated.run_dir: first_calls(mitigated.run_dir)}
    mine = {(v.variant, v.condition): v for v in baseline.variants}
    other = {(v.variant, v.condition): v for v in mitigated.variants}
    chosen = None if trained is None else set(trained)
    rows = []
    for key, b in mine.items():
        if (m := other.get(key)) is None:
            continue
        cells = [_cell(s, calls[r.run_dir].get(key, [])) for s, r in ((b, baseline), (m, mitigated))]
        delta, low, high = newcombe_difference(m.successes, m.episodes, b.successes, b.episodes)
        rows.append(
            MitigationRow(
                variant=key[0],
                condition=key[1],
                trained=None if chosen is None else key[0] in chosen,
                baseline=cells[0],
                mitigated=cells[1],
                delta=delta,
                delta_low=low,
                delta_high=high,
                first_call_delta=cells[1].first_call_valid_rate - cells[0].first_call_valid_rate,
            )
        )
    base_model, base_applied, base_settings = _header_facts(baseline.run_dir)
    model, applied, settings = _header_facts(mitigated.run_dir)
    return MitigationComparison(
        baseline_run=baseline.run_dir,
        mitigated_run=mitigated.run_dir,
        baseline_model=base_model,
        model=model,
        baseline_mitigations=base_applied,
        mitigations=applied,
        trained=None if trained is None else list(trained),
        trained_absent=[n for n in trained or () if n not in {r.variant for r in rows}],
        rows=rows,
        only_baseline=_names(k for k in mine if k not in other),
        only_mitigated=_names(k for k in other if k not in mine),
        differences=sorted(_differences(base_settings, settings)),
    )


def _cell(score: VariantScore, valid: list[bool]) -> MitigationCell:
    n = score.episodes
    return MitigationCell(
        episodes=n,
        successes=score.successes,
        success_rate=score.success_rate,
        ci_low=score.ci_low,
        ci_high=score.ci_high,
        first_call_valid=sum(valid),
        first_call_valid_rate=sum(valid) / n if n else 0.0,
    )


def _names(keys: Iterable[tuple[str, str]]) -> list[str]:
    return [f"{v} · {c}" if c else v for v, c in keys]
