"""Perturbations: deliberate, non-equivalent changes to an episode (ToolRobustBench).

Four families enter at four points of the tool-use pipeline: A tool interface (the tool list),
B user intent (the request), C tool output (returned payloads), D runtime (the answer to a call).
Fourteen subtypes ``A1`` … ``D3``, each at ``light``/``medium``/``heavy`` severity, are registered
in :data:`SUBTYPES`. A condition is a variant plus zero, one or two (mixed-family) perturbations;
:func:`plan` makes the per-task :class:`Instance` (or a :class:`Skip` with its reason) and a
:class:`Perturber` applies them to one episode, recording every change as an :class:`Injection`.

:func:`fault_arms` builds Xu et al.'s four arms (clean, failed, inconsistent status, inconsistent
identifier) at a task's injection site, over a replayed, byte-identical prefix.
"""

# the subtype modules register their subtypes in SUBTYPES on import
from toolprism.perturb import _intent, _interface, _output, _runtime  # noqa: F401
from toolprism.perturb._arms import ARMS, FaultArm, InjectionSite, fault_arms, site_position
from toolprism.perturb._engine import (
    MIXED_PAIRS,
    PAPER_MIXED_PAIRS,
    TOOLPRISM_MIXED_PAIR,
    Perturbation,
    Perturber,
    condition_cell,
    expected_gold,
    mixing_problem,
    parse_perturbations,
    plan,
    rereads,
    suite,
)
from toolprism.perturb._model import (
    FAILURE_TYPES,
    FAMILIES,
    REPORT_FAMILIES,
    REPORT_MARKER,
    RUNTIME_REPORT_INSTRUCTION,
    SEVERITIES,
    FailureType,
    Injection,
    Instance,
    RuntimeLabels,
    Severity,
    Site,
    Skip,
    SkipRecord,
    Stage,
    asks_report,
    report_instance,
)
from toolprism.perturb._subtype import SUBTYPES, CallContext, Subtype

__all__ = [
    "ARMS",
    "FaultArm",
    "InjectionSite",
    "fault_arms",
    "site_position",
    "FAILURE_TYPES",
    "FAMILIES",
    "FailureType",
    "MIXED_PAIRS",
    "PAPER_MIXED_PAIRS",
    "TOOLPRISM_MIXED_PAIR",
    "REPORT_FAMILIES",
    "REPORT_MARKER",
    "RUNTIME_REPORT_INSTRUCTION",
    "SEVERITIES",
    "SUBTYPES",
    "CallContext",
    "Injection",
    "Instance",
    "Perturbation",
    "Perturber",
    "RuntimeLabels",
    "Severity",
    "Site",
    "Skip",
    "SkipRecord",
    "Stage",
    "Subtype",
    "condition_cell",
    "expected_gold",
    "mixing_problem",
    "parse_perturbations",
    "plan",
    "asks_report",
    "report_instance",
    "rereads",
    "suite",
]
