"""Placeholder replaced by the helper who owns this section (report/_probes.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolprism.report._section import LoadedRun, Section


def probe_section(runs: Sequence[LoadedRun], probe_dirs: Sequence[Path] = ()) -> Section | None:
    return None
