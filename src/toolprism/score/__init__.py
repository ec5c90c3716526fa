"""Scoring: schema-independent multiset match of decoded native actions against the gold."""

from toolprism.score._multiset import ActionScore, score_actions

__all__ = ["ActionScore", "score_actions"]
