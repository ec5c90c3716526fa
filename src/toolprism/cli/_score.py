"""``toolprism score RUN_DIR [--baseline BASELINE_RUN]``: re-score a stored run, and compare a mitigated run with
its baseline (no model is called)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table

from toolprism.cli._common import friendly_errors, perturbation_table, print_json
from toolprism.errors import ConfigError
from toolprism.score import (
    LIVELOCK_TURNS,
    STAGES,
    AttributionSummary,
    FailureMode,
    InteractionRow,
    MitigationCell,
    MitigationComparison,
    OutcomeCount,
    RateCell,
    RuntimeFieldRow,
    compare_mitigation,
    score_run,
    trained_variants,
)

if TYPE_CHECKING:
    from toolprism.interop import BfclRunScore


@friendly_errors
def score(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory written by 'toolprism run'.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print the scores as one JSON document.")] = False,
    parquet: Annotated[
        Path | None,
        typer.Option(
            help="Also write one row per episode (success, mode, stages, attribution) as Parquet here "
            "(replaced if it exists: it is derived from the run)."
        ),
    ] = None,
    livelock_turns: Annotated[
        int,
        typer.Option(
            min=1,
            help="Livelock threshold of the failure taxonomy: an episode of at least this many model turns "
            "(or cut off at its own turn limit) is a livelock (Action-Space Shaping: 16).",
        ),
    ] = LIVELOCK_TURNS,
    scorer: Annotated[
        Literal["multiset", "tau2"],
        typer.Option(
            help="'tau2': also score the run's tau2-bench episodes as tau2 does (final-database hash against the "
            "gold replay's, times the communicate_info checks on the agent's messages), beside toolprism's "
            "multiset score, per variant and condition (see 'toolprism import tau2').",
        ),
    ] = "multiset",
    baseline: Annotated[
        Path | None,
        typer.Option(
            metavar="BASELINE_RUN",
            help="Compare RUN_DIR (a mitigated run, 'toolprism run --mitigate ...') with this baseline run, per "
            "variant and condition: success in each with 95% CIs, the difference with Newcombe's 95% interval, and "
            "the share of episodes whose first call is schema-valid in each. The two runs must pose the same tasks "
            "at the same seed.",
        ),
    ] = None,
    trained: Annotated[
        str | None,
        typer.Option(
            metavar="VARIANTS",
            help="With --baseline: mark these variants as trained, the others as untrained: a comma list of variant "
            "names, or an SFT export's manifest.json (its train.variants).",
        ),
    ] = None,
    bfcl: Annotated[
        Path | None,
        typer.Option(
            help="BFCL's data directory (with possible_answer/): also score the run's BFCL packs (made by "
            "'toolprism import bfcl') with BFCL's AST checker, beside the multiset success.",
        ),
    ] = None,
    bfcl_numbers: Annotated[
        str,
        typer.Option(
            help="How the BFCL checker reads numbers: python (BFCL's own: 1 is an int, refused in a list of floats) "
            "or json (one number type).",
        ),
    ] = "python",
) -> None:
    """Re-score a stored run: success with 95% CIs, failure modes, stages S1-S5, attribution.

    Everything is recomputed from the stored traces; no model is called. Failure modes are the
    Action-Space Shaping taxonomy (livelock, txn_handle, rejected_stuck, wrong_class, under_exec,
    over_exec, wrong_args; other: no output). Episodes whose prompt outgrew the model's context
    (context overflow) or that the backend failed (backend error) are left out of every score and
    counted per variant and condition. Also prints the best-vs-worst variant gap per condition;
    --parquet writes one row per episode; --scorer tau2 adds tau2-bench's own reward beside the
    multiset score for a run on an imported tau2 domain.

    With --baseline BASELINE_RUN, RUN_DIR is read as a mitigated run and compared with the
    baseline variant by variant ("Training repairs what it sees"); --trained marks the trained
    variants. Under --json the comparison is the document's "mitigation" object."""
    if trained is not None and baseline is None:
        raise ConfigError("--trained marks variants in a comparison: give --baseline BASELINE_RUN too", what="options")
    marked = None if trained is None else trained_variants(trained)
    if bfcl_numbers not in ("python", "json"):
        raise ConfigError(f"--bfcl-numbers must be python or json, not {bfcl_numbers!r}", what="option")
    result = score_run(run_dir, livelock_turns=livelock_turns)
    mitigation = None
    if baseline is not None:
        base = score_run(baseline, livelock_turns=livelock_turns)
        if base.planned is not None and base.recorded < base.planned:
            Console(stderr=True).print(
                f"the baseline {baseline} holds {base.recorded} of its {base.planned} planned episodes; the comparison "
                "covers those",
                markup=False,
            )
        mitigation = compare_mitigation(base, result, trained=marked)
    if result.planned is not None and result.recorded < result.planned:
        Console(stderr=True).print(
            f"only {result.recorded} of the {result.planned} episodes this run planned are recorded; the scores cover "
            f"those (continue the run with: toolprism run --resume {run_dir})",
            markup=False,
        )
    if errors := sum(o.backend_error for o in result.outcomes):
        Console(stderr=True).print(
            f"{errors} episode(s) ended in a backend error and are not scored "
            f"(run them again with: toolprism run --resume {run_dir})",
            markup=False,
        )
    if parquet is not None:
        from toolprism.score import episode_frame, write_parquet

        written = write_parquet(episode_frame([run_dir], livelock_turns=livelock_turns), parquet)
        Console(stderr=True).print(f"wrote {result.recorded} episodes to {written}", markup=False)
    tau2 = None
    if scorer == "tau2":
        from toolprism.interop import score_tau2

        tau2 = score_tau2(run_dir)
    bfcl_score = _bfcl_score(run_dir, bfcl, bfcl_numbers) if bfcl is not None else None
    if json_output:
        document = result.model_dump()
        if tau2 is not None:
            document["tau2"] = [row.model_dump() for row in tau2]
        if mitigation is not None:
            document["mitigation"] = mitigation.model_dump()
        if bfcl_score is not None:
            document["bfcl"] = bfcl_score.model_dump()
        print_json(document)
        return
    table = Table(title=f"re-scored: {result.run_dir}")
    columns = (
        "variant",
        "condition",
        "episodes",
        "success",
        "95% CI",
        "schema-form success",
        *(m.value for m in FailureMode),
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("variant", "condition") else "right")
    for v in result.variants:
        modes = [str(v.modes.get(m, 0)) for m in FailureMode]
        rates = (f"{v.success_rate:.0%}", f"{v.ci_low:.0%}-{v.ci_high:.0%}", f"{v.schema_form_success_rate:.0%}")
        table.add_row(v.variant, v.condition or "clean", str(v.episodes), *rates, *modes)
    stages = Table(title="stage pass rates (S1 selection, S2 schema, S3 arguments, S4 feedback, S5 end-to-end)")
    for column in ("variant", "condition", *STAGES, "failures by source stage", "cascades", "boundary violations"):
        stages.add_column(column, justify="left" if column in ("variant", "condition") else "right")
    for v in result.variants:
        rates = ["—" if r is None else f"{r:.0%}" for r in v.stage_pass_rates.values()]
        sources = " ".join(f"{k}:{n}" for k, n in v.sources.items()) or "—"
        stages.add_row(v.variant, v.condition or "clean", *rates, sources, str(v.cascades), str(v.boundary_violations))
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 200))
    console.print(table)
    console.print(stages)
    console.print(*_outcome_lines(result.outcomes), markup=False)
    if result.perturbations:
        console.print(perturbation_table(result.perturbations))
    if any(row.failures for row in result.attribution):
        console.print(_attribution_table(result.attribution))
    if any(row.requested for row in result.runtime):
        console.print(_runtime_table(result.runtime))
    if result.interactions:
        console.print(interaction_table(result.interactions))
    if tau2 is not None:
        console.print(tau2_table(tau2))
    for g in result.gaps:
        condition = g.condition or "clean"
        if g.gap == 0:
            line = f"{condition}: no gap, every variant {g.best_rate:.0%}"
        else:
            line = f"{condition}: best {g.best} {g.best_rate:.0%}, worst {g.worst} {g.worst_rate:.0%}, gap {g.gap:.0%}"
        if unscored := [o.variant for o in result.outcomes if o.condition == g.condition and not o.scored]:
            line += f" (not scored, left out: {', '.join(unscored)})"
        console.print(line, markup=False)
    if mitigation is not None:
        console.print(mitigation_table(mitigation))
        for line in mitigation_notes(mitigation):
            console.print(line, markup=False)
    if bfcl_score is not None:
        console.print(_bfcl_table(bfcl_score))


def mitigation_table(comparison: MitigationComparison) -> Table:
    """Per variant and condition: baseline and mitigated success (k/n, rate, 95% CI), the
    difference with its 95% Newcombe interval, the share of schema-valid first calls in each run,
    and (with --trained) whether the variant was trained."""
    applied = ", ".join(comparison.mitigations) or "none"
    before = ", ".join(comparison.baseline_mitigations) or "none"
    models = f" — {comparison.model} vs {comparison.baseline_model}"
    models = "" if comparison.model == comparison.baseline_model else models
    table = Table(
        title=f"mitigated ({applied}) vs baseline ({before}), per variant{models}",
        caption="success k/n, rate and 95% CI as above; delta = mitigated - baseline with Newcombe's 95% interval "
        "(*: it excludes 0); first call valid: episodes whose first call exists and was not rejected as an "
        "unknown tool, invalid or malformed arguments",
    )
    marked = comparison.trained is not None
    columns = ("variant", "condition", *(("trained",) if marked else ()), "baseline", "mitigated", "delta")
    for column in (*columns, "first call valid: baseline", "first call valid: mitigated"):
        table.add_column(column, justify="left" if column in ("variant", "condition", "trained") else "right")
    for r in comparison.rows:
        cells = [_success(r.baseline), _success(r.mitigated)]
        delta = f"{r.delta * 100:+.0f} pts [{r.delta_low * 100:+.0f}, {r.delta_high * 100:+.0f}]"
        delta += "*" if r.significant else ""
        valid = [f"{c.first_call_valid}/{c.episodes} {c.first_call_valid_rate:.0%}" for c in (r.baseline, r.mitigated)]
        mark = ("trained" if r.trained else "untrained",) if marked else ()
        table.add_row(r.variant, r.condition or "clean", *mark, *cells, delta, *valid)
    return table


def mitigation_notes(comparison: MitigationComparison) -> list[str]:
    """Lines on what the table leaves out: cells only one run scored, trained names no cell has,
    and two runs with the same mitigations."""
    notes = []
    if comparison.mitigations == comparison.baseline_mitigations:
        applied = ", ".join(comparison.mitigations) or "none"
        other = (
            f"the models: {comparison.model} vs {comparison.baseline_model}"
            if comparison.model != comparison.baseline_model
            else "nothing recorded in their headers but the runs themselves"
        )
        notes.append(f"note: both runs applied the same mitigations ({applied}); what differs is {other}")
    if comparison.differences:
        notes.append(
            "warning: the runs also differ in "
            + "; ".join(comparison.differences)
            + ": a delta is not the mitigation's alone"
        )
    if comparison.only_baseline:
        notes.append(f"not compared, only in the baseline: {', '.join(comparison.only_baseline)}")
    if comparison.only_mitigated:
        notes.append(f"not compared, only in the mitigated run: {', '.join(comparison.only_mitigated)}")
    if comparison.trained_absent:
        notes.append(f"trained variants no compared cell has: {', '.join(comparison.trained_absent)}")
    return notes


def _success(cell: MitigationCell) -> str:
    return f"{cell.successes}/{cell.episodes} {cell.success_rate:.0%} [{cell.ci_low:.0%}, {cell.ci_high:.0%}]"


def _bfcl_score(run_dir: Path, data: Path, numbers: str) -> BfclRunScore:
    from toolprism.interop import score_bfcl_run

    return score_bfcl_run(run_dir, data, numbers=numbers)  # type: ignore[arg-type]


def _bfcl_table(score: BfclRunScore) -> Table:
    table = Table(title=f"BFCL's AST checker ({score.numbers} numbers) beside toolprism's multiset success")
    for column in ("variant", "condition", "category", "episodes", "BFCL valid", "multiset", "agree", "BFCL errors"):
        table.add_column(column, justify="left" if column in ("variant", "condition", "category") else "right")
    for r in score.rows:
        errors = " ".join(f"{k}:{n}" for k, n in sorted(r.errors.items())) or "—"
        valid = f"{r.bfcl_valid} ({r.bfcl_valid / r.episodes:.0%})"
        table.add_row(
            r.variant,
            r.condition or "clean",
            r.category,
            str(r.episodes),
            valid,
            str(r.multiset_success),
            str(r.agree),
            errors,
        )
    if score.not_bfcl or score.unscored:
        table.caption = (
            f"{score.not_bfcl} episode(s) of other domains, {score.unscored} unscored (overflow, backend error)"
        )
    return table


def _outcome_lines(rows: list[OutcomeCount]) -> list[object]:
    """A table of the episodes left out of every score per model, variant and condition, or one
    line saying there are none."""
    if not any(r.context_overflow or r.backend_error for r in rows):
        return ["not scored: none (no context overflow, no backend error)"]
    table = Table(title="not scored: context overflows and backend errors (out of every rate above)")
    for column in ("model", "variant", "condition", "recorded", "scored", "context overflow", "backend error"):
        table.add_column(column, justify="left" if column in ("model", "variant", "condition") else "right")
    for r in rows:
        counts = (r.recorded, r.scored, r.context_overflow, r.backend_error)
        table.add_row(r.model, r.variant, r.condition or "clean", *map(str, counts))
    return [table]


def _attribution_table(rows: list[AttributionSummary]) -> Table:
    """Per family and subtype: primary errors (ToolRobustBench's vocabulary), cascade and
    boundary-violation rates."""
    table = Table(title="attribution per family and subtype (ToolRobustBench: primary errors, cascades, boundary)")
    left = ("family", "subtype", "primary errors")
    for column in (*left[:2], "episodes", "failures", left[2], "cascade rate", "boundary violations"):
        table.add_column(column, justify="left" if column in left else "right")
    rate = lambda r: "—" if r is None else f"{r:.0%}"  # noqa: E731
    for row in rows:
        errors = ", ".join(f"{e} {share:.0%}" for e, share in row.primary_error_shares.items()) or "—"
        cells = (row.family or "clean", row.subtype or "all", str(row.episodes), str(row.failures), errors)
        table.add_row(*cells, rate(row.cascade_rate), rate(row.boundary_violation_rate))
    return table


def _runtime_table(rows: list[RuntimeFieldRow]) -> Table:
    """Per subtype: runtime-report outcomes and each field's match rate (ToolRobustBench, section 5)."""
    table = Table(title="runtime report per subtype (ToolRobustBench: status, failure type, retryable, final result)")
    fields = ("status", "failure_type", "retryable", "final_result")
    for column in ("subtype", "requested", "reported", "missing", "unparsable", *fields):
        table.add_column(column, justify="left" if column == "subtype" else "right")
    for row in (r for r in rows if r.requested):
        rates = (getattr(row, f) for f in fields)
        cells = ["—" if r.rate is None else f"{r.matches}/{r.n} {r.rate:.0%}" for r in rates]
        table.add_row(row.subtype, str(row.requested), str(row.reported), str(row.missing), str(row.unparsable), *cells)
    return table


def interaction_table(rows: list[InteractionRow]) -> Table:
    """Mixed success against the weaker single-family constituent, with 95% intervals (Wilson for
    rates, Newcombe's hybrid score for the delta); ToolRobustBench, section 6, Figure 4."""
    table = Table(
        title="mixed pairs vs the weaker constituent (matched tasks and variants)",
        caption="*: toolprism's own pair, not one the paper names; rates k/n with 95% Wilson CI; "
        "delta = mixed - weaker, 95% Newcombe CI",
    )
    for column in ("pair", "severity", "mixed", "constituent 1", "constituent 2", "weaker", "delta", "unmatched"):
        table.add_column(column, justify="left" if column in ("pair", "severity", "weaker") else "right")
    for r in rows:
        delta = "—" if r.delta is None else f"{r.delta:+.3f} [{r.delta_low:+.3f}, {r.delta_high:+.3f}]"
        weaker = r.weaker or r.note
        cells = (_rate_cell(r.mixed), *(_rate_cell(c, name=True) for c in r.constituents), weaker, delta)
        table.add_row(r.pair + ("" if r.paper_pair else "*"), r.severity, *cells, str(r.unmatched))
    return table


def _rate_cell(cell: RateCell, *, name: bool = False) -> str:
    label = f"{cell.condition} " if name else ""
    if not cell.ran:
        return f"{label}not run"
    if cell.success_rate is None:
        return f"{label}0/0"
    return f"{label}{cell.successes}/{cell.episodes} {cell.success_rate:.3f} [{cell.ci_low:.2f}, {cell.ci_high:.2f}]"


def tau2_table(rows: list) -> Table:
    """toolprism's multiset score beside tau2's reward (DB x COMMUNICATE) per variant and condition."""
    table = Table(
        title="tau2-bench episodes: toolprism's multiset score and tau2's reward",
        caption="tau2 = DB (final database hash == gold replay's) x COMMUNICATE (communicate_info in the "
        "agent's messages); basis = the task's reward_basis as far as evaluated (NL_ASSERTION is not); "
        "agree = episodes both scorers judge alike",
    )
    for column in ("variant", "condition", "episodes", "multiset", "tau2", "DB", "communicate", "basis", "agree"):
        table.add_column(column, justify="left" if column in ("variant", "condition") else "right")
    for r in rows:
        cells = (_rate(r.multiset, r.episodes, r.multiset_ci), _rate(r.tau2, r.episodes, r.tau2_ci), str(r.db))
        cells += (str(r.communicate),)
        table.add_row(r.variant, r.condition or "clean", str(r.episodes), *cells, str(r.basis), str(r.agree))
    return table


def _rate(k: int, n: int, ci: tuple[float, float]) -> str:
    return f"{k}/{n} {k / n:.0%} ({ci[0]:.0%}-{ci[1]:.0%})"
