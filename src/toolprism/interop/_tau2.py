"""tau2-bench: import a domain's tools, tasks and database as a tau2 pack, and score episodes tau2's way.

Import (:func:`import_tau2`): tau2-bench's tool schemas (OpenAI format), ``tasks.json`` and ``db.json``
become one ``toolprism.tau2/1`` pack (:class:`toolprism.domains.Tau2Pack`), checked whole before it is
written: every tool has an executor, the database fits tau2's model, every gold action fits its tool.

Scoring (:func:`tau2_reward`, :func:`score_tau2`): tau2's reward as its evaluator computes it for a
half-duplex run (``src/tau2/evaluator/evaluator_env.py``, ``evaluator_communicate.py``):

- **DB**: the episode's final database hash equals the hash the task's gold actions give when replayed
  in order on a fresh database (tau2 replays the agent's calls on a fresh environment; toolprism's
  environment is deterministic, so the episode's own final hash is the same);
- **COMMUNICATE**: every ``communicate_info`` string occurs, case-insensitively, in one assistant
  message's text with its commas removed (1.0 when the task has none).

``reward`` is DB x COMMUNICATE, what issue #18 asks for. tau2's own ``ALL`` evaluation multiplies only
the components in the task's ``reward_basis``: for retail that is ``DB`` and ``NL_ASSERTION`` (an LLM
judge toolprism does not run), so ``basis_reward`` is the product over the basis components evaluated
here and ``not_evaluated`` names the rest. Where the two scorers differ: toolprism's multiset counts
reads and refused calls (tau2's hash sees only the database: a missing or extra read, or a refused
write, fails the multiset and passes DB), ignores order (tau2's hash sees the order of writes where it
matters: two writes to one order), and ignores the final answer (tau2's communicate check reads it).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from toolprism.domains import Task, Tau2Domain, Tau2Pack, Tau2Source, file_digest
from toolprism.errors import ConfigError
from toolprism.run import RunStore, Trace
from toolprism.schema import Action
from toolprism.score import run_domains, score_actions, success_interval

TAU2_COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"
"""The tau2-bench commit whose tool semantics the executors follow (and whose data ``../shared`` holds)."""


def _read_json(path: Path, what: str, problems: list[str]) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        problems.append(f"{what} {path}: cannot read: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        problems.append(f"{what} {path}: not JSON: {e}")
    return None


def import_tau2(
    tools: Path,
    tasks: Path,
    db: Path,
    *,
    name: str = "tau2_retail",
    policy: Path | None = None,
    commit: str = TAU2_COMMIT,
) -> Tau2Pack:
    """A tau2 pack from tau2-bench's published files, checked whole (the domain is built once).

    Args:
        tools: tau2's tool schemas, an OpenAI ``tools`` list (``[t.openai_schema for t in ...]``).
        tasks: tau2's ``tasks.json`` (a list of tasks).
        db: tau2's ``db.json`` (retail: products, users, orders).
        name: the toolprism domain name.
        policy: tau2's ``policy.md`` (the system prompt); default :data:`toolprism.domains.TAU2_POLICY`.
        commit: the tau2-bench commit the files come from (provenance).

    Raises:
        ConfigError: unreadable or non-JSON files, and every problem :class:`Tau2Domain` finds.
    """
    problems: list[str] = [] if re.fullmatch(r"[A-Za-z0-9_]+", name) else [f"name {name!r}: letters, digits and _ only"]
    data = {key: _read_json(path, key, problems) for key, path in (("tools", tools), ("tasks", tasks), ("db", db))}
    text = None
    if policy is not None:
        try:
            text = Path(policy).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            problems.append(f"policy {policy}: cannot read: {e}")
    for key, kind in (("tools", list), ("tasks", list), ("db", dict)):
        if data[key] is not None and not isinstance(data[key], kind):
            problems.append(f"{key}: expected a JSON {kind.__name__}, got {type(data[key]).__name__}")
    if problems:
        raise ConfigError(problems, what="tau2 import")
    files = {Path(p).name: file_digest(p) for p in (tools, tasks, db, *([policy] if policy else []))}
    fields: dict[str, Any] = {"policy": text} if text else {}
    try:
        pack = Tau2Pack(name=name, source=Tau2Source(commit=commit, files=files), **data, **fields)
    except ValueError as e:
        raise ConfigError(str(e), what="tau2 import") from None
    pack.domain()
    return pack


class CommunicateCheck(BaseModel):
    """One ``communicate_info`` string and whether an assistant message states it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    info: str
    met: bool


class Tau2Reward(BaseModel):
    """tau2's reward of one episode (see the module doc).

    Attributes:
        task_id: the toolprism task id.
        db_match: final database hash == the gold replay's.
        communicate: one check per ``communicate_info`` string.
        reward: DB x COMMUNICATE (1.0 or 0.0).
        reward_basis: the task's ``reward_basis`` as tau2 gives it.
        basis_reward: the product over the components of ``reward_basis`` evaluated here.
        not_evaluated: components of ``reward_basis`` toolprism cannot evaluate (``NL_ASSERTION``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    db_match: bool
    communicate: list[CommunicateCheck]
    reward: float
    reward_basis: list[str]
    basis_reward: float
    not_evaluated: list[str]


def communicate_checks(messages: Sequence[dict[str, Any]], infos: Sequence[str]) -> list[CommunicateCheck]:
    """tau2's communicate check: ``info.lower()`` in an assistant message's text, lower-cased, with
    commas removed (``CommunicateEvaluator.evaluate_communicate_info``)."""
    texts = [
        str(m["content"]).lower().replace(",", "")
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), str) and m["content"]
    ]
    return [CommunicateCheck(info=info, met=any(info.lower() in text for text in texts)) for info in infos]


@functools.lru_cache(maxsize=1024)
def gold_hash(domain: Tau2Domain, gold: tuple[Action, ...]) -> str:
    """tau2's hash of the database after ``gold`` is replayed in order on a fresh one (refused
    actions change nothing, as tau2 logs and skips them)."""
    env = domain.environment(0)
    for action in gold:
        env.execute(action)
    return env.state_hash()


def tau2_reward(trace: Trace, domain: Tau2Domain) -> Tau2Reward:
    """tau2's reward of a stored episode (see the module doc).

    Raises:
        ConfigError: the trace's task is not one of ``domain``'s.
    """
    task: Task = trace.task.to_task()
    tau2 = domain.tau2_task(task.id)
    criteria = tau2.evaluation_criteria
    db_match = trace.final_state_hash == gold_hash(domain, task.gold)
    checks = communicate_checks(trace.messages, domain.stated_facts(task.id))
    said = all(c.met for c in checks)
    basis = list(criteria.reward_basis) if criteria else []
    parts = {"DB": db_match, "COMMUNICATE": said}
    return Tau2Reward(
        task_id=task.id,
        db_match=db_match,
        communicate=checks,
        reward=float(db_match and said),
        reward_basis=basis,
        basis_reward=float(all(parts[b] for b in basis if b in parts)),
        not_evaluated=[b for b in basis if b not in parts],
    )


class Tau2Row(BaseModel):
    """Both scorers side by side for one variant and condition of a run.

    Attributes:
        variant / condition: the cell (condition ``""``: clean).
        episodes: scored episodes of tau2 domains.
        multiset: toolprism's successes (the multiset of decoded actions equals the gold).
        tau2: tau2 reward 1.0 (DB and COMMUNICATE).
        db / communicate: episodes whose DB check / communicate check passed.
        basis: ``basis_reward`` 1.0 (the task's reward basis, as far as evaluated).
        agree: episodes both scorers judge alike.
        multiset_ci / tau2_ci: 95% intervals of the two rates (``toolprism.score.success_interval``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    variant: str
    condition: str
    episodes: int
    multiset: int
    tau2: int
    db: int
    communicate: int
    basis: int
    agree: int
    multiset_ci: tuple[float, float]
    tau2_ci: tuple[float, float]


def score_tau2(run_dir: Path) -> list[Tau2Row]:
    """Score a stored run both ways, per variant and condition, from its traces (no model is called).

    Episodes of other domains and unscored episodes (context overflow, backend error) are left out.

    Raises:
        ConfigError: not a run directory, or the run has no episode of a tau2 domain.
    """
    store = RunStore.open(run_dir)
    try:
        domains = run_domains(store)
        cells: dict[tuple[str, str], list[tuple[bool, Tau2Reward]]] = {}
        for result in store.results():
            domain = domains.get(result.domain)
            if not isinstance(domain, Tau2Domain):
                continue
            trace = store.trace(result.episode_id)
            if not trace.scored:
                continue
            decoded = [a.to_action() for a in trace.actions]
            gold = trace.task.to_task().gold
            multiset = score_actions(gold, decoded, end=trace.end).success
            cells.setdefault((result.variant, result.condition or ""), []).append(
                (multiset, tau2_reward(trace, domain))
            )
    finally:
        store.close()
    if not cells:
        raise ConfigError(f"{run_dir}: no scored episode of a tau2 domain", what="tau2 scoring")
    rows = []
    for (variant, condition), scored in cells.items():
        wins = [m for m, _ in scored]
        rewards = [r.reward == 1.0 for _, r in scored]
        rows.append(
            Tau2Row(
                variant=variant,
                condition=condition,
                episodes=len(scored),
                multiset=sum(wins),
                tau2=sum(rewards),
                db=sum(r.db_match for _, r in scored),
                communicate=sum(all(c.met for c in r.communicate) for _, r in scored),
                basis=sum(r.basis_reward == 1.0 for _, r in scored),
                agree=sum(m == t for m, t in zip(wins, rewards, strict=True)),
                multiset_ci=success_interval(wins),
                tau2_ci=success_interval(rewards),
            )
        )
    return rows
