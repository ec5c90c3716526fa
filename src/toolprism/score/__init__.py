"""Scoring from stored traces, never a model: the schema-independent multiset match of decoded
native actions against the gold, the failure taxonomy with schema-form rescoring, and stage-wise
scoring (S1-S5) with cascade-aware attribution."""

from toolprism.score._multiset import ActionScore, score_actions
from toolprism.score._report import RunScore, VariantScore, score_run
from toolprism.score._stages import (
    STAGES,
    EpisodeStages,
    normalize_failure_type,
    reported_status,
    score_stages,
)
from toolprism.score._taxonomy import EpisodeDiagnosis, FailureMode, diagnose

__all__ = [
    "STAGES",
    "ActionScore",
    "EpisodeDiagnosis",
    "EpisodeStages",
    "FailureMode",
    "RunScore",
    "VariantScore",
    "diagnose",
    "normalize_failure_type",
    "reported_status",
    "score_actions",
    "score_run",
    "score_stages",
]
