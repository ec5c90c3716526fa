"""The public entry point of a run: configuration, planning, orchestration, summary.

``evaluate(config)`` validates the whole configuration first (every problem listed), builds the
variants and tasks, runs the episodes through the backend, scores each one on the multiset of
decoded native actions, and records it in the run directory as it finishes. ``evaluate``,
``RunConfig`` and ``RunSummary`` are also importable from :mod:`toolprism` itself.
"""

from toolprism.evaluation._config import (
    DEFAULT_DOMAINS,
    DEFAULT_TASKS,
    MAIN_JOB,
    RunConfig,
    expand_conditions,
    expand_variants,
)
from toolprism.evaluation._evaluate import default_run_dir, evaluate
from toolprism.evaluation._plan import RunPlan, plan_episodes, plan_run, spread
from toolprism.evaluation._preset import DEVICE_DOMAINS, PRESETS, Preset, apply_preset
from toolprism.evaluation._score import expected_gold, gold_state_hash, score_episode
from toolprism.evaluation._summary import RunSummary, VariantSummary, summarize

__all__ = [
    "DEFAULT_DOMAINS",
    "DEFAULT_TASKS",
    "DEVICE_DOMAINS",
    "MAIN_JOB",
    "PRESETS",
    "Preset",
    "RunConfig",
    "RunPlan",
    "RunSummary",
    "VariantSummary",
    "apply_preset",
    "default_run_dir",
    "evaluate",
    "expand_conditions",
    "expand_variants",
    "expected_gold",
    "gold_state_hash",
    "plan_episodes",
    "plan_run",
    "score_episode",
    "spread",
    "summarize",
]
