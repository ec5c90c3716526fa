"""Counterfactual repair (ToolRobustBench, section 5): failed episodes of a stored run are re-run
with their attributed primary error corrected, and sorted into tiers by whether the correction
recovers success. Unlike :mod:`toolprism.score`, which reads stored traces only, this runs the
model again (the run's own backend, or one handed in)."""

from toolprism.repair._repair import Repair, RepairReport, diagnose_run

__all__ = ["Repair", "RepairReport", "diagnose_run"]
