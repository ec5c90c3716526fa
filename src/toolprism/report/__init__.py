"""``toolprism report``: one self-contained HTML file (and figures, and a markdown summary) built
from stored run directories only; it never calls a model (DESIGN.md: ``report`` reads stored
results)."""

from toolprism.report._section import Chart, LoadedRun, Section, load_runs

__all__ = ["Chart", "LoadedRun", "Section", "load_runs"]
