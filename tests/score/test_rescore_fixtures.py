"""Re-scoring stored version-1 runs with the typed records gives the numbers the untyped code gave.

The fixture runs under ``tests/fixtures/runs/`` were recorded, and their scores computed, on commit
3ce79d5 (trace version 1, records read as dicts); see ``tests/fixtures/runs/make_fixtures.py``.
Every trace goes through the upgrade path (:func:`toolprism.run.upgrade_trace`).

The failure labels were then updated once, deliberately, when the taxonomy became the paper's
(Action-Space Shaping, ``eval/taxonomy.py``); every other number is as recorded:

- 18 episodes (9 per run) ``wrong_class`` → ``over_exec`` (an extra action in another operation group under a
  variant that is no class arm; all B2 episodes, where the agent acts on a changed request).
- saboteur ``retail/cancel/0@merge+D1:light#0`` ``over_exec`` → ``livelock`` (it answered on its
  8th turn, the run's turn limit: the paper counts the turn limit reached, answer or not).
- new fields: each diagnosis's ``protocol`` (15 saboteur transaction episodes left a transaction
  dangling; 3 of them succeeded), each variant's ``protocols``, the run's ``livelock_turns``.

And once more when the earliest failed stage became the first in time (ToolRobustBench's temporal
attribution, issue 13; ``score/_stages.py``): 8 saboteur episodes ``earliest_failed_stage`` S1 → S2
(a refused call at the start comes before the end, where a missing tool shows); of these, 4
``cascade`` true → false (the right tool in the wrong form: source S2, a direct failure) and 4
false → true (no refused call named a missing tool: source S1, seen first as a refused form). New fields: each episode's
``events``, ``trb_observed_error``, ``trb_primary_error``; the run's ``attribution`` rows.

The repair reports (``repair.json``) were then rewritten once, deliberately, when tiers came to be
assigned before the repair (issue 13): each repair is one intervention (``intervention``,
``recovered``: the recorded first level and its outcome, unchanged for every episode) with the tier
and its reason read from the scored trace, and the report gives recovery per tier and overall.

When context overflows and backend errors became outcomes of their own (issue 14, trace version
4), the fixtures stayed as recorded: neither run has such an episode, and the new ``outcomes``
rows (per variant and condition: recorded, scored, context overflow, backend error) are checked
to count every episode as scored, and the repair report's new ``not_repaired`` list is checked empty.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from toolprism.backends import OracleBackend
from toolprism.cli import app
from toolprism.repair import diagnose_run
from toolprism.run import TRACE_VERSION, RunStore
from toolprism.score import diagnose, episode_frame, run_domains, score_run, score_stages

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs"
RUNS = sorted(p.name for p in FIXTURES.iterdir() if (p / "header.json").is_file())


def _copy(name: str, tmp_path: Path) -> Path:
    """A copy of the fixture run with its database unpacked (opening a store may add columns; the
    fixture stays as recorded)."""
    run_dir = Path(shutil.copytree(FIXTURES / name, tmp_path / name))
    packed = run_dir / "results.sqlite.gz"
    (run_dir / "results.sqlite").write_bytes(gzip.decompress(packed.read_bytes()))
    packed.unlink()
    return run_dir


def _expected(name: str, what: str) -> dict:
    return json.loads((FIXTURES / name / what).read_text())


def test_the_fixtures_are_version_1_runs_with_failures_to_score(tmp_path: Path) -> None:
    assert RUNS == ["oracle", "saboteur"]
    assert TRACE_VERSION == 5
    for name in RUNS:
        with sqlite3.connect(_copy(name, tmp_path) / "results.sqlite") as db:
            versions = {v for (v,) in db.execute("SELECT DISTINCT json_extract(trace, '$.version') FROM traces")}
        assert versions == {1}, name
    saboteur = _expected("saboteur", "score.json")
    assert sum(sum(v["modes"].values()) for v in saboteur["variants"]) >= 20
    modes = {m for v in saboteur["variants"] for m in v["modes"]}
    assert len(modes) >= 4, modes
    assert {s for v in saboteur["variants"] for s in v["sources"]} >= {"S1", "S4"}


@pytest.mark.parametrize("name", RUNS)
def test_rescoring_a_version_1_run_gives_the_recorded_numbers(name: str, tmp_path: Path) -> None:
    run_dir = _copy(name, tmp_path)
    now = score_run(run_dir).model_dump(mode="json")
    before = _expected(name, "score.json")
    assert now.pop("run_dir") == str(run_dir)
    assert now.pop("planned") == now["episodes"]  # new since the fixtures: the header's planned episodes
    # new since the fixtures: mixed vs weaker constituent; these runs have a pair but no constituent
    (pair,) = now.pop("interactions")
    (summary,) = [p for p in before["perturbations"] if p["subtype"] == "A3+C4"]
    assert (pair["mixed"]["episodes"], pair["mixed"]["successes"]) == (summary["episodes"], summary["successes"])
    assert [c["ran"] for c in pair["constituents"]] == [False, False] and pair["delta"] is None
    runtime = now.pop("runtime")  # new since the fixtures: runtime-report rows; version 1 asked for no report
    assert runtime and all(r["requested"] == 0 and r["status"]["n"] == 0 for r in runtime)
    # new since the fixtures: per-cell counts of the episodes not scored; these runs have none
    outcomes = now.pop("outcomes")
    assert sum(o["recorded"] for o in outcomes) == sum(o["scored"] for o in outcomes) == now["episodes"]
    cells = {(v["variant"], v["condition"]) for v in now["variants"]}
    assert {(o["variant"], o["condition"]) for o in outcomes} == cells
    before.pop("run_dir")
    assert now == before
    # the command line prints the same document
    printed = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert printed.exit_code == 0, printed.output
    new = ("run_dir", "planned", "interactions", "runtime", "outcomes")
    assert {k: v for k, v in json.loads(printed.stdout).items() if k not in new} == before


@pytest.mark.parametrize("name", RUNS)
def test_every_episode_gets_the_recorded_diagnosis_and_stages(name: str, tmp_path: Path) -> None:
    run_dir = _copy(name, tmp_path)
    expected = _expected(name, "episodes.json")
    store = RunStore.open(run_dir)
    try:
        domains = run_domains(store)
        results = store.results()
        assert {r.episode_id for r in results} == set(expected)
        for result in results:
            trace = store.trace(result.episode_id)
            assert trace.version == TRACE_VERSION and trace.control == "strict"  # upgraded on reading
            domain = domains.get(result.domain)
            stages = score_stages(trace, domain).model_dump(mode="json")
            # new since the fixtures: runtime-report fields; version-1 traces asked for no report
            assert stages.pop("runtime_report") is None and stages.pop("runtime_matches") is None
            assert stages.pop("result_match") is None  # new since: stateful domains fix no result
            assert stages.pop("runtime_decided") is None  # new since: version 1 asked for no report
            got = {"diagnosis": diagnose(trace, domain).model_dump(mode="json"), "stages": stages}
            assert got == expected[result.episode_id], result.episode_id
    finally:
        store.close()
    frame = episode_frame(run_dir)  # one row per episode, in recording order
    wanted = [expected[r.episode_id] for r in results]
    column = lambda name: [None if pd.isna(v) else v for v in frame[name]]  # noqa: E731 - pandas: None → nan
    assert column("success") == [e["diagnosis"]["success"] for e in wanted]
    assert column("mode") == [e["diagnosis"]["mode"] for e in wanted]
    assert column("source_stage") == [e["stages"]["source_stage"] for e in wanted]
    for stage in ("S1", "S2", "S3", "S4", "S5"):
        assert column(stage) == [e["stages"]["stages"][stage] for e in wanted]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "saboteur" else n for n in RUNS])
def test_repairing_a_version_1_run_gives_the_recorded_report(name: str, tmp_path: Path) -> None:
    run_dir = _copy(name, tmp_path)
    now = diagnose_run(run_dir, backend=OracleBackend()).model_dump(mode="json")
    before = _expected(name, "repair.json")
    assert now.pop("run_dir") == str(run_dir)
    before.pop("run_dir")
    assert now.pop("not_repaired") == []  # issue 14: repairs the backend could not serve; none here
    assert now == before
