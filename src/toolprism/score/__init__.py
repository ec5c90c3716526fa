"""Scoring: the schema-independent multiset match of decoded native actions against the gold, and
the failure taxonomy with schema-form rescoring (computed from stored traces, never a model)."""

from toolprism.score._multiset import ActionScore, score_actions
from toolprism.score._report import RunScore, VariantScore, score_run
from toolprism.score._taxonomy import EpisodeDiagnosis, FailureMode, diagnose

__all__ = [
    "ActionScore",
    "EpisodeDiagnosis",
    "FailureMode",
    "RunScore",
    "VariantScore",
    "diagnose",
    "score_actions",
    "score_run",
]
