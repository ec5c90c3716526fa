"""Counterfactual repair (ToolRobustBench, section 5): failed episodes of a stored run are assigned
a repair tier from their scored traces, then re-run once with their attributed primary error
corrected, and recovery is reported per tier and overall. Unlike :mod:`toolprism.score`, which
reads stored traces only, this runs the model again (the run's own backend, or one handed in)."""

from toolprism.repair._repair import Recovery, Repair, RepairReport, diagnose_run, recovery
from toolprism.repair._tiers import TIER_NAMES, TIER_RULES, TIERS, Tier, TierAssignment, assign_tier

__all__ = [
    "TIERS",
    "TIER_NAMES",
    "TIER_RULES",
    "Recovery",
    "Repair",
    "RepairReport",
    "Tier",
    "TierAssignment",
    "assign_tier",
    "diagnose_run",
    "recovery",
]
