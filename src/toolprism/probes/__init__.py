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
]
