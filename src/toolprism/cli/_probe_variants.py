"""``toolprism probe variants RUN_DIR``: Action-Space Shaping's query-free probes per variant, their
Spearman rho with the run's success, and the query-sampling curve (RQ3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolprism import probes
from toolprism._version import __version__
from toolprism.cli._common import ProgressReport, friendly_errors, print_json, refuse_given
from toolprism.errors import ConfigError
from toolprism.run import RunStore

DEFAULT_LIMIT = 2
"""Tasks the probes use by default: per variant, this many gold conversations to score plus one
compliance episode (up to ``--compliance-turns`` generations) per distinct operation of their gold."""


def _local(model: str | None) -> bool:
    from toolprism.backends import _is_model_dir

    return bool(model) and (model.partition(":")[0] in ("embedded", "hf") or _is_model_dir(model))


def _run_model(run_dir: Path) -> str | None:
    store = RunStore.open(run_dir)
    try:
        return store.header.config.model
    finally:
        store.close()


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise ConfigError(f"--sizes takes positive integers separated by commas, not {text!r}", what="sizes")
    return sizes


@friendly_errors
def variants_command(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory written by 'toolprism run'.")],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="The model to probe (embedded[:<name>], hf:<dir>, openai:<model> with --base-url); default: the "
            "run's model when it is local (embedded or hf).",
        ),
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of an openai:<model> (vLLM).")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the endpoint's key.")] = None,
    variants: Annotated[
        str | None, typer.Option("--variants", "-v", help="The run's variants to use, comma-separated (default: all).")
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", min=1, help=f"Tasks the probes use (the run's first; default {DEFAULT_LIMIT})."),
    ] = None,
    all_tasks: Annotated[bool, typer.Option("--all", help="Probe every paired task of the run.")] = False,
    loglik: Annotated[bool, typer.Option(help="Run the sequence log-likelihood probe.")] = True,
    compliance: Annotated[bool, typer.Option(help="Run the compliance probe (the model generates).")] = True,
    curve_only: Annotated[
        bool, typer.Option("--curve-only", help="No probes: success and the query-sampling curve only (no model).")
    ] = False,
    sizes: Annotated[str, typer.Option(help="Query counts of the sampling curve, comma-separated.")] = ",".join(
        map(str, probes.SAMPLE_SIZES)
    ),
    bootstrap: Annotated[int, typer.Option("--bootstrap", "-B", min=1, help="Draws per curve point.")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the curve's draws.")] = 0,
    compliance_turns: Annotated[int, typer.Option(min=1, help="Model turns per compliance episode.")] = (
        probes.COMPLIANCE_TURNS
    ),
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where to store the result (a previous result there is replaced; a directory holding other "
            "files is refused); default RUN_DIR/probe-variants."
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON document.")] = False,
) -> None:
    """Query-free probes per variant and the query-sampling curve (Action-Space Shaping, RQ3).

    Per variant of the run: the mean per-token log-likelihood (nats/token) of the gold call
    sequences in the variant's encoding, and the share of short schema-derived instructions the
    model follows with a correct call in isolation. Then Spearman's rho between each probe and the
    run's clean full-episode success across variants, and rho between success on n sampled
    queries and on all queries (bootstrap 95% intervals). The curve needs no model (--curve-only).
    Stores settings.json, success.json, loglik.jsonl, compliance.jsonl and summary.json."""
    if all_tasks and limit is not None:
        raise ConfigError("give --limit or --all, not both", what="limit")
    if curve_only:
        given = {"--limit": limit, "--all": all_tasks, "--model": model, "--base-url": base_url}
        refuse_given(given, "--curve-only runs no probe", what="curve-only")
    curve_sizes = _sizes(sizes)
    target = out or run_dir / "probe-variants"
    probes.check_variant_out(target)  # before any model time is spent
    chosen = None if variants is None else [v.strip() for v in variants.split(",") if v.strip()]
    table = probes.run_success(run_dir, chosen)  # tasks paired over the chosen variants only
    setup = probes.run_setup(run_dir)
    plan = probes.plan_variant_probes(table, 0 if curve_only else None if all_tasks else limit or DEFAULT_LIMIT)
    loglik = loglik and not curve_only
    compliance = compliance and not curve_only
    scorer = backend = None
    if loglik or compliance:
        if model is None:
            model = _run_model(run_dir)
            if not _local(model):
                raise ConfigError(
                    f"the run's model {model!r} is not a local model; name the model to probe with --model "
                    "(embedded, hf:<dir>, or openai:<model> with --base-url), or use --curve-only",
                    what="model",
                )
        assert model is not None
        if loglik:
            from toolprism.probes import create_scorer

            scorer = create_scorer(model, base_url=base_url, api_key_env=api_key_env)
        if compliance:
            backend = _generator(scorer, model, base_url, api_key_env)
    units = probes.variant_probe_units(plan, setup, loglik=loglik, compliance=compliance)
    with ProgressReport("probes", transient=json_output) as progress:
        if units:
            progress.start(units)
        rows, checks = probes.run_variant_probes(
            plan,
            setup,
            scorer=scorer,
            backend=backend,
            compliance_turns=compliance_turns,
            progress=lambda note: progress.update(advance=1, note=note),
        )
    summary = probes.summarise_variants(
        str(run_dir), model if (loglik or compliance) else None, table, plan, rows, checks,
        sizes=curve_sizes, bootstrap=bootstrap, seed=seed,
    )  # fmt: skip
    settings = {
        "toolprism_version": __version__,
        "run_dir": str(run_dir),
        "model": summary.model,
        "scorer": scorer.settings() if scorer is not None else None,
        "backend": backend.settings() if backend is not None else None,
        "plan": plan.model_dump(),
        "setup": setup.model_dump(),
        "sizes": curve_sizes,
        "bootstrap": bootstrap,
        "seed": seed,
        "compliance_turns": compliance_turns,
    }
    probes.write_variant_result(target, settings, table, rows, checks, summary)
    if json_output:
        print_json(summary.model_dump())
        return
    _print(summary, target)


def _generator(scorer: object, model: str, base_url: str | None, api_key_env: str | None):  # noqa: ANN202
    """The generating backend of the compliance probe: the scorer's own backend where it holds one
    (one copy of the weights), else :func:`toolprism.backends.create_backend`."""
    from toolprism.backends import create_backend

    own = getattr(scorer, "backend", None)
    if own is not None and hasattr(own, "agent") and hasattr(own, "settings"):
        return own
    return create_backend(model, base_url=base_url, api_key_env=api_key_env)


def _number(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def _print(summary: probes.VariantProbeSummary, target: Path) -> None:
    console = Console()
    if not console.is_terminal:  # logs and pipes: keep the tables' rows on one line
        console = Console(width=max(console.width, 200))
    table = Table(
        title=f"variant probes: {summary.run_dir} ({summary.tasks} paired tasks; "
        + (f"probes on {len(summary.probed_tasks)})" if summary.probed_tasks else "no probes)")
    )
    for column in ("variant", "spec", "success", "log-lik (nats/token)", "tokens", "compliance", "instructions"):
        table.add_column(column, justify="left" if column in ("variant", "spec") else "right", overflow="fold")
    for v in summary.variants:
        table.add_row(
            v.variant, v.spec, f"{v.success_rate:.0%}", _number(v.loglik, ".4f"), str(v.loglik_tokens),
            _number(v.compliance, ".0%"), str(v.compliance_n),
        )  # fmt: skip
    console.print(table)
    for v in summary.variants:
        if v.loglik_failures:
            console.print(f"{v.variant}: {v.loglik_failures} task(s) could not be scored, left out of its "
                          f"log-likelihood (the errors are in {target / 'loglik.jsonl'})", markup=False)  # fmt: skip
        if v.compliance_unscored:
            console.print(f"{v.variant}: {v.compliance_unscored} compliance episode(s) failed in the backend, "
                          "left out of its compliance", markup=False)  # fmt: skip
    console.print(
        f"Spearman rho with success across variants: log-likelihood {_number(summary.rho_loglik, '.2f')}, "
        f"compliance {_number(summary.rho_compliance, '.2f')} (—: undefined or not probed; the paper: 0.52, 0.57)",
        markup=False,
    )
    curve = Table(
        title=f"query-sampling curve: rho(success on n sampled queries, success on all), {summary.bootstrap} draws"
    )
    for column in ("n", "median rho", "mean rho", "95% interval", "undefined draws"):
        curve.add_column(column, justify="right")
    for p in summary.curve:
        interval = "—" if p.ci_low is None else f"{p.ci_low:.2f} to {p.ci_high:.2f}"
        curve.add_row(str(p.n), _number(p.rho_median, ".2f"), _number(p.rho_mean, ".2f"), interval, str(p.undefined))
    console.print(curve)
    console.print(f"stored in {target}", markup=False)
