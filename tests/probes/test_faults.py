"""The fault-arm study (Xu et al. 2026) on a fake deterministic scorer: the conversation it scores,
the controls (byte-identical prefix, byte-identical later returns), the rows, the paired
contrasts and the stored result."""

from __future__ import annotations

import asyncio
import functools
import json
import math
from pathlib import Path

import pytest
from _fake_scorer import CharScorer

from toolprism.backends import OracleBackend
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.probes import REPLY, ProbeError
from toolprism.probes._faults import (
    FaultRow,
    StoredStudy,
    append_rows,
    fault_study,
    finish_study,
    read_study,
    reference_messages,
    study_config,
    study_sites,
    summarise,
    task_rows,
    write_study,
)
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import Variant

RETAIL = get_domain("retail")


@functools.cache
def sample() -> tuple:
    """Two tasks (one reaching k = 2) scored by the fake scorer, and the study's config."""
    sites = study_sites(RETAIL)
    pick = [next(p for p in sites if len(p[0].reference) - p[1].position >= 3), sites[0]]
    config = study_config(RETAIL, pick)
    scorer = CharScorer()
    rows = [r for _, result in fault_study(scorer, RETAIL, pick, config) for r in result]
    return pick, config, rows


def test_the_conversation_is_the_oracle_episode_with_the_site_payload_swapped() -> None:
    (task, site), _ = sample()[0]
    variant = Variant.build("native", RETAIL.action_space())
    trace = asyncio.run(run_episode(EpisodeSpec(RETAIL, task, variant, 0), OracleBackend()))
    last = len(task.reference) - 1
    clean = reference_messages(RETAIL, task, site, site.arms["C"].payload, last)
    assert clean == trace.messages[: len(clean)]
    failed = reference_messages(RETAIL, task, site, site.arms["F"].payload, last)
    differing = [i for i, (a, b) in enumerate(zip(clean, failed, strict=True)) if a != b]
    assert differing == [2 + 2 * site.position + 1]  # only the site's tool message


def test_rows_exist_for_every_eligible_arm_where_the_reference_reaches_k() -> None:
    pick, config, rows = sample()
    for task, site in pick:
        reach = [k for k in config.steps if site.position + k < len(task.reference)]
        keys = sorted((r.arm, r.k) for r in rows if r.task_id == task.id)
        assert keys == sorted((a, k) for a in site.arms for k in reach)
    assert max(r.k for r in rows) >= 2


def test_the_prefix_before_the_payload_is_identical_across_arms_in_text_and_tokens() -> None:
    _, _, rows = sample()
    for task_id in {r.task_id for r in rows}:
        mine = [r for r in rows if r.task_id == task_id]
        assert len({r.prefix_hash for r in mine}) == 1
        assert len({r.prefix_token_hash for r in mine}) == 1 and mine[0].prefix_tokens > 1000


def test_later_returns_are_the_same_bytes_so_their_schema_only_surprisal_is_equal() -> None:
    _, _, rows = sample()
    for r in rows:
        clean = next(c for c in rows if c.task_id == r.task_id and c.k == r.k and c.arm == "C")
        if r.k >= 1:
            assert r.s0 == clean.s0 and r.s0_first == clean.s0_first and r.tool == clean.tool
            assert r.s1 != clean.s1 or r.arm == "C"  # the prefix differs: the whole-prefix channel may move
        else:
            assert r.tool == "get_order_details"


def test_each_row_is_a_distribution_with_its_groups_read_from_it() -> None:
    _, config, rows = sample()
    for r in rows:
        assert set(r.probs) == {op.name for op in RETAIL.action_space().operations} | {REPLY}
        assert math.fsum(r.probs.values()) == pytest.approx(1.0, abs=1e-9)
        assert r.reread == pytest.approx(sum(r.probs[t] for t in ("get_order_details", "get_user_details")))
        assert r.write == pytest.approx(sum(r.probs[t] for t in config.writes))
        assert r.reply == r.probs[REPLY] and r.leader == max(r.probs, key=r.probs.get)
        assert r.g == pytest.approx(r.s1 - r.s0) and r.n_tokens > 0
    assert len(config.writes) == 7


def test_the_study_is_deterministic() -> None:
    pick, config, rows = sample()
    again = [r for _, result in fault_study(CharScorer(), RETAIL, pick[:1], config) for r in result]
    assert [r.model_dump_json() for r in again] == [r.model_dump_json() for r in rows if r.task_id == pick[0][0].id]


def test_scoring_keeps_all_arms_of_a_task_together_with_schema_only_contexts_first() -> None:
    (task, site), _ = sample()[0]
    config = sample()[1]

    class Recording(CharScorer):
        contexts: list[str] = []

        def score(self, context, continuations):
            self.contexts.append(context)
            return super().score(context, continuations)

    scorer = Recording()
    task_rows(scorer, RETAIL, task, site, config)
    short = [len(c) < 3000 for c in scorer.contexts]  # schema-only contexts: one tool, no policy
    reach = sum(site.position + k < len(task.reference) for k in config.steps)
    first = len(site.arms) + reach - 1  # one per arm at k = 0, one per later step
    assert short == [True] * first + [False] * (len(scorer.contexts) - first)


def test_a_probe_error_skips_the_task_and_says_why() -> None:
    pick, config, _ = sample()

    class Failing(CharScorer):
        def score(self, context, continuations):
            raise ProbeError("prompt of 9000 tokens does not fit n_ctx 8192")

    results = list(fault_study(Failing(), RETAIL, pick, config))
    assert [r.reason for _, r in results] == ["prompt of 9000 tokens does not fit n_ctx 8192"] * 2


def _row(task: str, arm: str, k: int = 0, **values: object) -> FaultRow:
    base = dict(s0=1.0, s1=1.0, g=0.0, s0_first=1.0, s1_first=1.0, g_first=0.0, entropy=0.5, reply=0.5)
    base.update(values)
    probs = {"reply": base["reply"], "cancel_order": 1 - base["reply"]}
    leader = values.pop("leader", max(probs, key=probs.get))  # type: ignore[arg-type]
    return FaultRow(
        task_id=task,
        arm=arm,
        k=k,
        site=1,
        step=1 + k,
        tool="get_order_details",
        n_tokens=10,
        probs=probs,
        leader=leader,
        reread=0.0,
        write=1 - base["reply"],
        opener_prob=1 - base["reply"],
        name_mass=1.0,
        prefix_hash="h",
        verbatim_in_prefix=values.get("verbatim_in_prefix"),  # type: ignore[arg-type]
        **{k: v for k, v in base.items() if k not in ("verbatim_in_prefix", "leader")},
    )


def test_summary_pairs_each_arm_with_the_clean_row_of_the_same_task_and_step() -> None:
    config = sample()[1]
    rows = [
        _row("a", "C", s0=1.0, g=0.1, entropy=0.005, reply=0.995),  # no room to move
        _row("a", "F", s0=3.0, g=0.9, entropy=0.001, reply=0.999),
        _row("b", "C", s0=2.0, g=0.2, entropy=0.6, reply=0.3),
        _row("b", "F", s0=2.5, g=0.4, entropy=0.004, reply=0.999, leader="reply"),
        _row("c", "C", s0=1.0, g=0.0, entropy=0.3, reply=0.2),
        _row("c", "F", s0=1.5, g=-0.1, entropy=0.3, reply=0.2),
        _row("b", "Nm", g=0.7, verbatim_in_prefix=True),
        _row("c", "Nm", g=-0.2, verbatim_in_prefix=False),
        _row("z", "F", s0=9.0),  # no clean row: not paired
    ]
    summary = summarise(rows, config, floor_nats=0.01)
    f = next(s for s in summary.arms if s.arm == "F" and s.k == 0)
    assert f.rows == 3 and f.ds0.median == pytest.approx(0.5) and (f.ds0.up, f.ds0.down) == (3, 0)
    assert f.ds0.q1 == pytest.approx(0.5) and f.ds0.q3 == pytest.approx(1.25)  # numpy linear quartiles of .5,.5,2
    assert f.ds0.sign_p == pytest.approx(0.25)  # 3 of 3 up, two-sided
    assert (f.dg.up, f.dg.down) == (2, 1)
    assert f.movable == 2  # clean entropy 0.6 and 0.3 clear the floor, 0.005 does not
    assert f.leader_changes == 1 and f.leader_changes_movable == 1 and f.new_leaders == {"reply": 1}
    assert (f.reply_direction.up, f.reply_direction.down, f.reply_direction.flat) == (2, 0, 1)
    assert (f.reply_direction_movable.up, f.reply_direction_movable.flat) == (1, 1)
    nm = next(s for s in summary.arms if s.arm == "Nm")
    assert nm.dg_by_context["verbatim"].median == pytest.approx(0.5)
    assert nm.dg_by_context["not verbatim"].median == pytest.approx(-0.2)
    clean = summary.clean[0]
    assert (clean.rows, clean.below_floor, clean.reply_above_099) == (3, 1, 1)
    assert summary.tasks == 4 and not any(s.arm == "Ns" for s in summary.arms)


def test_the_stored_study_resummarises_without_the_model(tmp_path: Path) -> None:
    pick, config, rows = sample()
    stored = StoredStudy(
        config=config, scorer="fake:char", scorer_settings=CharScorer().settings(), toolprism_version="test"
    )
    write_study(tmp_path / "s", stored)
    append_rows(tmp_path / "s", rows[:3])
    append_rows(tmp_path / "s", rows[3:])
    summary = summarise(rows, config)
    finish_study(tmp_path / "s", stored, summary)
    again, stored_rows = read_study(tmp_path / "s")
    assert again == stored and stored_rows == rows
    assert summarise(stored_rows, again.config) == summary
    assert json.loads((tmp_path / "s" / "summary.json").read_text())["tasks"] == 2
    with pytest.raises(ConfigError, match="already holds a study"):
        write_study(tmp_path / "s", stored)
    with pytest.raises(ConfigError, match="holds no fault-arm study"):
        read_study(tmp_path)
    (tmp_path / "s" / "study.json").write_text('{"kind": "faults", "config": {}, "scorer": 3}')
    with pytest.raises(
        ConfigError, match=r"cannot read the stored study \(config.domain: Field required; .* and \d+ more\)"
    ):
        read_study(tmp_path / "s")


def test_a_stored_study_with_repeated_foreign_or_missing_rows_is_not_summarised_as_it_stands(tmp_path: Path) -> None:
    """QA: rows appended twice, a row of a task outside the study and a task with a deleted row
    were all summarised without a word (a 3-task study counted 4 tasks)."""
    _, config, rows = sample()
    stored = StoredStudy(
        config=config, scorer="fake:char", scorer_settings=CharScorer().settings(), toolprism_version="test"
    )
    first, second = config.task_ids[:2]
    cases = {
        "twice": (rows + [rows[0]], "appears twice"),
        "foreign": (rows + [rows[0].model_copy(update={"task_id": "retail/none/0"})], "not a task of this study"),
    }
    for name, (written, message) in cases.items():
        write_study(tmp_path / name, stored)
        append_rows(tmp_path / name, written)
        with pytest.raises(ConfigError, match=message):
            read_study(tmp_path / name)
    write_study(tmp_path / "partial", stored)
    gap = next(i for i, r in enumerate(rows) if r.task_id == second and r.arm != "C")
    append_rows(tmp_path / "partial", rows[:gap] + rows[gap + 1 :])
    notes: list[str] = []
    _, kept = read_study(tmp_path / "partial", notes)
    assert kept == [r for r in rows if r.task_id == first]
    assert notes == [f"{tmp_path / 'partial' / 'rows.jsonl'}: {second} lacks some of its rows; its rows are left out"]


def test_the_sample_spans_templates_and_the_reread_tools_are_checked() -> None:
    every = study_sites(RETAIL)
    four = study_sites(RETAIL, limit=4)
    assert len(four) == 4 and len({t.id.rsplit("/", 1)[0] for t, _ in four}) == 4
    assert [t.id for t, _ in four] == [t.id for t, _ in every if t.id in {u.id for u, _ in four}]
    assert study_config(RETAIL, four).reread == ("get_order_details", "get_user_details")
    assert study_config(RETAIL, four, reread=["track_order"]).reread == ("track_order",)
    with pytest.raises(ConfigError, match="not read operations of retail: cancel_order"):
        study_config(RETAIL, four, reread=["cancel_order"])
    with pytest.raises(ConfigError, match="--limit must be at least 1"):
        study_sites(RETAIL, limit=0)


def test_nm_falsifies_the_domains_identifier_field_and_records_whether_it_is_verbatim() -> None:
    sites = study_sites(RETAIL)
    assert RETAIL.identifier_field == "user_id"
    for task, site in sites:
        nm = site.arms["Nm"]
        assert nm.field == "user_id" and nm.true == site.arms["C"].payload["user_id"] != nm.false
        prefix = task.query + " " + " ".join(json.dumps(s["reply"]) for s in site.prefix)
        assert nm.verbatim_in_prefix == (nm.true in prefix)
