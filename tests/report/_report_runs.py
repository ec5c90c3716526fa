"""Small stored runs for the report's tests (imported as ``_report_runs``; tests/report is on
sys.path as the test files' own folder)."""

from __future__ import annotations

from pathlib import Path

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend
from toolprism.backends._scripted import native_names
from toolprism.errors import BackendError

VARIANTS = ["native", "merge", "split", "transaction"]


def native_names_run(run_dir: Path) -> Path:
    """smart_home, 2 tasks, 4 variants, the scripted agent that calls native names: it succeeds on
    native and fails where the variant hides the native names (variant-dependent success)."""
    evaluate(
        RunConfig(model="scripted", domains=["smart_home"], variants=VARIANTS, tasks=2),
        run_dir=run_dir,
        backend=ScriptedBackend.native_names(),
    )
    return run_dir


def backend_error_run(run_dir: Path) -> Path:
    """native and merge, 2 tasks: native as :func:`native_names_run`; every merge episode ends in a
    backend error (recorded, not scored)."""

    def script(context, messages):  # noqa: ANN001, ANN202
        if context.variant.name != "native":
            raise BackendError("provider down")
        return native_names(context, messages)

    evaluate(
        RunConfig(model="scripted", domains=["smart_home"], variants=["native", "merge"], tasks=2),
        run_dir=run_dir,
        backend=ScriptedBackend(script),
    )
    return run_dir


def oracle_run(run_dir: Path, perturbations: list[str] | None = None) -> Path:
    """The same tasks and variants under the oracle (every episode succeeds)."""
    config = RunConfig(
        model="oracle", domains=["smart_home"], variants=VARIANTS, tasks=2, perturbations=perturbations or []
    )
    evaluate(config, run_dir=run_dir)
    return run_dir
