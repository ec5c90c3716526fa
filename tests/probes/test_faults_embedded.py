"""Smoke test: one retail task of the fault-arm study on the embedded model, end to end through
the command (minutes on 2 cores: a 3,500-token prefix and four arms; k = 0 only)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.cli import app


@pytest.mark.slow  # 1.5 min idle on 2 cores, 6 min under load: in CI's slow suite
@pytest.mark.embedded
def test_one_task_on_the_embedded_model(tmp_path: Path) -> None:
    pytest.importorskip("toolprism.probes._llama")
    out = tmp_path / "study"
    args = ["probe", "faults", "-n", "1", "--max-k", "0", "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["tasks"] == 1 and not summary["skipped"]
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    assert {r["arm"] for r in rows} == {"C", "F", "Ns", "Nm"} and {r["k"] for r in rows} == {0}
    assert len({r["prefix_hash"] for r in rows}) == 1
    assert summary["prefix_checked"] == summary["prefix_identical"] == 1  # token-level, not only text
    for r in rows:
        assert math.fsum(r["probs"].values()) == pytest.approx(1.0, abs=1e-6)
        assert len(r["probs"]) == 17 and r["s0"] > 0 and r["s1"] > 0 and r["n_tokens"] > 0
