"""Scoring from stored traces, never a model: the schema-independent multiset match of decoded
native actions against the gold, the failure taxonomy with schema-form rescoring, and stage-wise
scoring (S1-S5) with cascade-aware attribution; mixed pairs against their weaker constituent
(:func:`interactions`); aggregates with bootstrap intervals as pandas DataFrames (loaded lazily)."""

from toolprism.score._interaction import EpisodeOutcome, InteractionRow, RateCell, interactions
from toolprism.score._interval import newcombe_difference, success_interval, wilson_interval
from toolprism.score._multiset import ActionScore, multiset_success, score_actions
from toolprism.score._report import (
    AttributionSummary,
    OutcomeCount,
    PerturbationSummary,
    RunScore,
    VariantScore,
    attribution_summary,
    by_condition,
    episode_outcomes,
    score_run,
)
from toolprism.score._runtime import (
    FAILURE_TYPE_ALIASES,
    REPORT_FIELDS,
    FieldRate,
    ReportOutcome,
    RuntimeFieldRow,
    RuntimeMatches,
    RuntimeReport,
    RuntimeScore,
    asks,
    must_ask,
    normalize_failure_type,
    normalize_report_failure_type,
    normalize_result,
    normalize_retryable,
    normalize_status,
    parse_report,
    report_requested,
    reported_status,
    result_match,
    result_target,
    results_match,
    runtime_decided,
    runtime_rows,
    score_runtime,
)
from toolprism.score._stages import (
    PRIMARY_ERRORS,
    STAGES,
    TRB_ERROR_NAMES,
    TRB_ERRORS,
    EpisodeStages,
    ObservedError,
    PrimaryError,
    StageEvent,
    TrbError,
    score_stages,
)
from toolprism.score._taxonomy import (
    LIVELOCK_TURNS,
    PROTOCOL_BREAKS,
    TXN_BREAKS,
    EpisodeDiagnosis,
    FailureMode,
    ProtocolBreak,
    diagnose,
    is_class_arm,
    protocol_breaks,
    run_domains,
)

_AGGREGATES = ("aggregate", "episode_frame", "variant_gap", "write_parquet")


def __getattr__(name: str) -> object:
    # pandas and scipy load only when aggregates are used
    if name in _AGGREGATES:
        from toolprism.score import _aggregate

        return getattr(_aggregate, name)
    raise AttributeError(f"module 'toolprism.score' has no attribute {name!r}")


__all__ = [
    "FAILURE_TYPE_ALIASES",
    "REPORT_FIELDS",
    "FieldRate",
    "ReportOutcome",
    "RuntimeFieldRow",
    "RuntimeMatches",
    "RuntimeReport",
    "RuntimeScore",
    "normalize_report_failure_type",
    "normalize_result",
    "normalize_retryable",
    "normalize_status",
    "parse_report",
    "report_requested",
    "asks",
    "must_ask",
    "result_match",
    "runtime_decided",
    "result_target",
    "results_match",
    "runtime_rows",
    "score_runtime",
    "LIVELOCK_TURNS",
    "PRIMARY_ERRORS",
    "PROTOCOL_BREAKS",
    "TXN_BREAKS",
    "STAGES",
    "TRB_ERRORS",
    "TRB_ERROR_NAMES",
    "ObservedError",
    "PrimaryError",
    "StageEvent",
    "TrbError",
    "aggregate",
    "episode_frame",
    "success_interval",
    "newcombe_difference",
    "wilson_interval",
    "EpisodeOutcome",
    "InteractionRow",
    "RateCell",
    "interactions",
    "variant_gap",
    "write_parquet",
    "ActionScore",
    "AttributionSummary",
    "EpisodeDiagnosis",
    "EpisodeStages",
    "FailureMode",
    "OutcomeCount",
    "PerturbationSummary",
    "ProtocolBreak",
    "RunScore",
    "VariantScore",
    "attribution_summary",
    "by_condition",
    "episode_outcomes",
    "diagnose",
    "is_class_arm",
    "normalize_failure_type",
    "protocol_breaks",
    "reported_status",
    "run_domains",
    "multiset_success",
    "score_actions",
    "score_run",
    "score_stages",
]
