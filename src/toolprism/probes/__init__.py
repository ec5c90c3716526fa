"""Log-probability probes: Xu et al.'s surprisal channels and legal-action distribution at fault
arms, and Action-Space Shaping's query-free probes and query-sampling curve.

Everything is computed from a :class:`LogprobScorer` (teacher-forced scoring on a backend's exact
rendering); see ``_scorer.py``.
"""

from __future__ import annotations

from toolprism.probes._channels import (
    REPLY,
    ActionDistribution,
    Surprisal,
    action_distribution,
    schema_only_messages,
    surprisal,
)
from toolprism.probes._factory import create_scorer
from toolprism.probes._faults import (
    FLAT,
    FLOOR_NATS,
    SITE_TOOL,
    STEPS,
    ArmStepSummary,
    CleanStepSummary,
    FaultRow,
    FaultStudyConfig,
    FaultSummary,
    SkippedTask,
    StoredStudy,
    append_rows,
    fault_study,
    finish_study,
    read_study,
    reference_messages,
    study_config,
    study_sites,
    summarise,
    task_rows,
    write_study,
)
from toolprism.probes._scorer import (
    SENTINEL,
    CallSyntax,
    LogprobScorer,
    ProbeError,
    TokenLogprobs,
    assistant_text,
    call_syntax,
    scored_tokens,
    turn_span,
)
from toolprism.probes._stats import Directions, PairedStats, directions, paired_stats

__all__ = [
    "REPLY",
    "ActionDistribution",
    "Surprisal",
    "action_distribution",
    "schema_only_messages",
    "surprisal",
    "SENTINEL",
    "CallSyntax",
    "LogprobScorer",
    "ProbeError",
    "TokenLogprobs",
    "assistant_text",
    "create_scorer",
    "call_syntax",
    "scored_tokens",
    "turn_span",
    "FLAT",
    "FLOOR_NATS",
    "SITE_TOOL",
    "STEPS",
    "ArmStepSummary",
    "CleanStepSummary",
    "FaultRow",
    "FaultStudyConfig",
    "FaultSummary",
    "SkippedTask",
    "StoredStudy",
    "append_rows",
    "fault_study",
    "finish_study",
    "read_study",
    "reference_messages",
    "study_config",
    "study_sites",
    "summarise",
    "task_rows",
    "write_study",
    "Directions",
    "PairedStats",
    "directions",
    "paired_stats",
]
