"""tau2-bench's retail domain imported into toolprism: the gold replay reproduces tau2's own expected
database, and the oracle scores 100% under native, merge and transaction by both scorers.

The expected hashes (``data/tau2_retail_expected.json``) were computed by tau2-bench's own code at the
commit the data comes from (``make_tau2_expected.py``: its ``RetailTools`` replaying each task's gold
actions on its ``RetailDB``, hashed by its ``get_db_hash``), not by toolprism.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from toolprism.backends import OracleBackend
from toolprism.domains import Tau2Domain, get_domain, tau2_hash
from toolprism.evaluation import score_episode
from toolprism.interop import communicate_checks, import_tau2, tau2_reward, write_packs
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import Variant

EXPECTED = Path(__file__).parent / "data" / "tau2_retail_expected.json"
TAU2_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "external" / "tau2"  # ../shared, as conftest's
VARIANTS = ("native", "merge", "transaction")
MAX_TURNS = 120  # transaction: begin, one setter per argument, commit for each of up to 14 gold actions


@pytest.fixture(scope="module")
def tau2_files() -> dict[str, Path]:
    base = TAU2_DATA
    files = {
        "tools": base / "tau2_retail_tools.openai.json",
        "tasks": base / "tau2_retail_tasks.json",
        "db": base / "tau2_retail_db.json",
    }
    if not all(p.is_file() for p in files.values()):
        pytest.skip("../shared/external/tau2 is not present")
    return files


@pytest.fixture(scope="module")
def domain(tau2_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Tau2Domain:
    pack = import_tau2(tau2_files["tools"], tau2_files["tasks"], tau2_files["db"])
    path = write_packs([pack], tmp_path_factory.mktemp("tau2"))[0]
    loaded = get_domain(str(path))
    assert isinstance(loaded, Tau2Domain)
    return loaded


@pytest.fixture(scope="module")
def expected(tau2_files: dict[str, Path]) -> dict:
    import hashlib

    data = json.loads(EXPECTED.read_text())
    for key, name in (("db_sha256", "db"), ("tasks_sha256", "tasks")):
        assert data[key] == hashlib.sha256(tau2_files[name].read_bytes()).hexdigest(), f"{name} is not the file hashed"
    return data


def test_initial_database_hash_is_tau2s(domain: Tau2Domain, expected: dict) -> None:
    assert domain.environment().state_hash() == expected["initial_hash"]
    assert tau2_hash(domain.initial_state(0)) == expected["initial_hash"]


def test_every_task_gold_replay_gives_tau2s_final_database(domain: Tau2Domain, expected: dict) -> None:
    tasks = domain.tasks()
    assert len(tasks) == len(expected["tasks"]) == 114
    mismatched, refusals = [], {}
    for task in tasks:
        tau2_id = domain.tau2_task(task.id).id
        env = domain.environment()
        replies = [env.execute(action) for action in task.gold]
        if env.state_hash() != expected["tasks"][tau2_id]["final_hash"]:
            mismatched.append(tau2_id)
        errors = [f"{a.op}: {r['error']}" for a, r in zip(task.gold, replies, strict=True) if "error" in r]
        assert errors == expected["tasks"][tau2_id]["gold_errors"], tau2_id  # tau2's refusals, word for word
        refusals[tau2_id] = len(errors)
    assert mismatched == []
    assert sum(refusals.values()) == 18 and sum(map(bool, refusals.values())) == 15


def test_assembled_hash_equals_full_hash_and_pristine_database_is_untouched(domain: Tau2Domain, expected: dict) -> None:
    writers = [t for t in domain.tasks() if any(a.op.startswith(("modify", "cancel")) for a in t.gold)][:12]
    assert len(writers) == 12
    for task in writers:
        env = domain.environment()
        for action in task.gold:
            env.execute(action)
        assert env.state_hash() == tau2_hash(env.state) != expected["initial_hash"]
    assert domain.environment().state_hash() == expected["initial_hash"]
    assert tau2_hash(domain._pristine) == expected["initial_hash"]


def test_a_refused_write_changes_nothing(domain: Tau2Domain, expected: dict) -> None:
    env = domain.environment()
    space = domain.action_space()
    order = next(o for o in env.state.orders.values() if o.status == "delivered")
    reply = env.execute(
        space.action("cancel_pending_order", {"order_id": order.order_id, "reason": "no longer needed"})
    )
    assert reply == {"error": "Non-pending order cannot be cancelled"}
    assert env.state_hash() == expected["initial_hash"]


def test_communicate_check_is_tau2s() -> None:
    messages = [
        {"role": "user", "content": "it costs 1,234.5"},
        {"role": "assistant", "content": "The total is 1,234.50 and the Camera ships."},
    ]
    checks = communicate_checks(messages, ["1234.50", "camera", "1234.5 ", "missing"])
    assert [c.met for c in checks] == [True, True, False, False]


def _oracle_both_ways(domain: Tau2Domain, spec: str, sample: int | None) -> list[str]:
    """Run the oracle on the tasks (every ``len // sample``-th with ``sample``); the ids that fail
    either scorer."""
    tasks = domain.tasks()
    if sample is not None:
        tasks = tasks[:: max(1, len(tasks) // sample)]
    variant = Variant.build(spec, domain.action_space())

    async def run_all() -> list:
        backend = OracleBackend()
        return [await run_episode(EpisodeSpec(domain, t, variant, 0), backend, max_turns=MAX_TURNS) for t in tasks]

    failed = []
    for task, trace in zip(tasks, asyncio.run(run_all()), strict=True):
        result = score_episode(EpisodeSpec(domain, task, variant, 0), trace)
        reward = tau2_reward(trace, domain)
        ok = result.success and result.final_state_match and result.rejected_calls == 0 and trace.end == "answered"
        if not (ok and reward.reward == 1.0 and reward.db_match and reward.basis_reward == 1.0):
            failed.append(task.id)
    return failed


@pytest.mark.parametrize("spec", VARIANTS)
def test_oracle_scores_100_by_both_scorers_on_a_sample(domain: Tau2Domain, spec: str) -> None:
    assert _oracle_both_ways(domain, spec, sample=12) == []


@pytest.mark.slow
@pytest.mark.parametrize("spec", VARIANTS)
def test_oracle_scores_100_by_both_scorers_on_every_task(domain: Tau2Domain, spec: str) -> None:
    assert _oracle_both_ways(domain, spec, sample=None) == []


def test_a_wrong_answer_or_a_wrong_write_fails_tau2s_reward(domain: Tau2Domain) -> None:
    """The tau2 reward can fail: an answer without the facts fails COMMUNICATE, a missing write fails DB."""
    task = next(t for t in domain.tasks() if t.facts and any(a.op.startswith("modify") for a in t.gold))
    variant = Variant.build("native", domain.action_space())
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), OracleBackend(), max_turns=MAX_TURNS))
    assert tau2_reward(trace, domain).reward == 1.0
    silent = trace.model_copy(
        update={"messages": [m for m in trace.messages if m.get("role") != "assistant" or m.get("tool_calls")]}
    )
    assert tau2_reward(silent, domain).db_match and tau2_reward(silent, domain).reward == 0.0
    stale = trace.model_copy(update={"final_state_hash": domain.environment().state_hash()})
    assert not tau2_reward(stale, domain).db_match
