"""Placeholder replaced by the helper who owns this section (report/_traces.py)."""

from __future__ import annotations

from collections.abc import Sequence

from toolprism.report._section import LoadedRun, Section


def trace_section(runs: Sequence[LoadedRun]) -> Section | None:
    return None
