"""Xu et al.'s fault-arm study (2026, sections II-III): the surprisal channels and the legal-action
distribution at an injected tool return, read as paired contrasts against the clean arm.

Design (faithful to the paper unless said):

- **Site and arms**: :func:`toolprism.perturb.fault_arms`: the first call of the site tool
  (``get_order_details``) at position 2 or later of a task's reference trace; arms ``C``, ``F``,
  ``Ns``, ``Nm``, each entering where its target exists. ``Nm`` falsifies the domain's
  :attr:`~toolprism.domains.Domain.identifier_field` (retail: the order's ``user_id``, which the
  context may carry verbatim; ``verbatim_in_prefix`` records whether it does).
- **Messages** are built as an episode builds them on the native variant
  (:func:`toolprism.run.initial_messages`; one assistant call per reference action with ids
  ``call_1``, ``call_2``... and sorted-key JSON arguments, as the oracle writes them; tool
  messages with :func:`toolprism.shaping.reply_text`).
- **Propagation control**: only the site's payload differs between arms; after it the reference
  action sequence continues with its recorded returns, byte-identical across arms. A row is read
  at ``k`` = 0 (the injected return itself) and ``k`` = 1, 2, 3 calls later (the return of the
  ``k``-th later reference call), only where the reference reaches that call.
- **Quantities** per row: S0, S1, G and their first-token versions of the return scored at ``k``
  (nats; at ``k`` >= 1 that return is identical across arms, so its S0 is computed once and
  ``dS0`` is 0 by construction), and the legal-action distribution after it: entropy (nats),
  leader, and grouped mass on the domain's two state-rereading tools, on its write tools, and on
  replying (pi(V)).
- **Prefix control**: every arm's rendered context before the site payload must be the same text
  (else :class:`ProbeError`); its SHA-256 is ``prefix_hash``. The context tokens kept before the
  payload (the scored-token rule of ``_scorer.py``, through the scorer's ``tokenize``) are hashed
  too (``prefix_token_hash``), so token-level identity across arms is checked, not assumed.

Cost order: all arms of a task are scored together; within a task the schema-only (S0) contexts
come first, then each arm's whole-prefix contexts in order of ``k``, so a scorer that reuses the
longest common prefix with its previous call evaluates the shared prefix once per task and each
arm's extension once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolprism.backends import Message
from toolprism.domains import Domain, Task
from toolprism.errors import ConfigError, validation_problems
from toolprism.perturb import ARMS, InjectionSite, fault_arms
from toolprism.probes._channels import REPLY, ActionDistribution, Surprisal, action_distribution, schema_only
from toolprism.probes._scorer import LogprobScorer, ProbeError, scored_tokens, turn_span
from toolprism.probes._stats import Directions, PairedStats, directions, paired_stats
from toolprism.run import EpisodeSpec, initial_messages
from toolprism.schema import JSON
from toolprism.shaping import Variant, reply_text

SITE_TOOL = "get_order_details"
"""Xu et al.'s injection-site tool (section II.C)."""
STEPS: tuple[int, ...] = (0, 1, 2, 3)
"""Calls after the site at which rows are read (section III.D)."""
FLOOR_NATS = 0.01
"""Clean entropy above which a row has "room to move" (section III.B)."""
FLAT = 1e-3
"""|d pi(V)| at or below which a row counts as flat (toolprism's choice; the paper gives none)."""

_SERIALISE = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="constants")


class FaultStudyConfig(BaseModel):
    """What a fault-arm study scores (stored as ``study.json`` with the scorer's settings).

    Attributes:
        domain, seed: the domain and its world/task seed.
        tool: the site tool.
        reread: the state-rereading tools (default: the domain's ``rereading_tools``).
        writes: the write tools (the domain's write operations).
        steps: the ``k`` read (default 0, 1, 2, 3).
        task_ids: the tasks scored, in order (a sample under ``--limit``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: str
    seed: int = 0
    tool: str = SITE_TOOL
    reread: tuple[str, ...]
    writes: tuple[str, ...]
    steps: tuple[int, ...] = STEPS
    task_ids: tuple[str, ...]


class FaultRow(BaseModel):
    """One scored decision point: a task, an arm, a step ``k`` (raw values, not contrasts).

    Attributes:
        task_id, arm, k: the row's key; ``site`` is the site's index in the reference trace and
            ``step`` = ``site + k`` the index of the scored return, a call of ``tool``.
        field, true, false, verbatim_in_prefix, policy_only: the arm's substitution (see
            :class:`toolprism.perturb.FaultArm`).
        s0, s1, g, s0_first, s1_first, g_first: surprisal channels of the scored return (nats per
            token; ``*_first``: nats); ``n_tokens`` its scored tokens under the whole prefix.
        probs: legal action → probability after the return (every tool and ``reply``; sums to 1).
        entropy: of ``probs`` (nats); ``leader``: its most probable action.
        reread, write, reply: grouped mass on the state-rereading tools, the write tools, and
            replying (pi(V)).
        opener_prob, name_mass: see :class:`toolprism.probes.ActionDistribution`.
        prefix_hash: SHA-256 of the rendered text before the site payload (identical across arms).
        prefix_token_hash, prefix_tokens: SHA-256 and count of the context tokens kept before the
            site payload (None in results stored before scorers could tokenise).
    """

    model_config = _SERIALISE

    task_id: str
    arm: str
    k: int
    site: int
    step: int
    tool: str
    field: str | None = None
    true: Any = None
    false: Any = None
    verbatim_in_prefix: bool | None = None
    policy_only: bool | None = None
    s0: float
    s1: float
    g: float
    s0_first: float
    s1_first: float
    g_first: float
    n_tokens: int
    probs: dict[str, float]
    entropy: float
    leader: str
    reread: float
    write: float
    reply: float
    opener_prob: float
    name_mass: float
    prefix_hash: str
    prefix_token_hash: str | None = None
    prefix_tokens: int | None = None


class SkippedTask(BaseModel):
    """A task the study could not score, with the probe's reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    reason: str


# --- building the conversation -------------------------------------------------------------------


def reference_messages(
    domain: Domain, task: Task, site: InjectionSite, payload: JSON, last: int, *, seed: int = 0
) -> list[Message]:
    """The native-variant conversation of ``task``'s reference through call ``last`` (inclusive),
    with the site's return replaced by ``payload``: system and user turns, then per reference call
    one assistant call (id ``call_<n>``, sorted-key JSON arguments) and its tool message."""
    variant = Variant.build("native", domain.action_space())
    messages = initial_messages(EpisodeSpec(domain, task, variant, seed))
    for index, step in enumerate(task.reference[: last + 1]):
        call = step.action.call()
        call_id = f"call_{index + 1}"
        arguments = json.dumps(dict(call.arguments), sort_keys=True)
        function = {"name": call.name, "arguments": arguments}
        tool_call = {"id": call_id, "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [tool_call]})
        reply = payload if index == site.position else step.reply
        messages.append({"role": "tool", "tool_call_id": call_id, "content": reply_text(reply)})
    return messages


def _sha(data: str) -> str:
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


# --- one task ------------------------------------------------------------------------------------


def task_rows(
    scorer: LogprobScorer, domain: Domain, task: Task, site: InjectionSite, config: FaultStudyConfig
) -> list[FaultRow]:
    """Every row of one task: each eligible arm at each ``k`` the reference reaches.

    Raises:
        ProbeError: the scorer cannot score a context, or the arms' rendered prefixes before the
            payload differ (the byte-identical-prefix control fails).
    """
    ks = [k for k in config.steps if site.position + k < len(task.reference)]
    if not ks:
        return []
    last = site.position + max(ks)
    arms = [a for a in ARMS if a in site.arms]
    tools = Variant.build("native", domain.action_space()).openai_tools
    conversations = {
        a: reference_messages(domain, task, site, site.arms[a].payload, last, seed=config.seed) for a in arms
    }
    base = len(conversations[arms[0]]) - 2 * (last + 1)  # the system and user turns
    index = {k: base + 2 * (site.position + k) + 1 for k in ks}
    at_site = base + 2 * site.position + 1
    # schema-only contexts first: one per arm at k = 0, one per later step (identical across arms)
    s0 = {(a, 0): schema_only(scorer, conversations[a], tools, index[0]) for a in arms}
    later = {k: schema_only(scorer, conversations[arms[0]], tools, index[k]) for k in ks if k}
    s0.update({(a, k): scored for a in arms for k, scored in later.items()})
    prefixes = {a: _site_prefix(scorer, conversations[a], tools, at_site) for a in arms}
    if len({p.text for p in prefixes.values()}) > 1:
        raise ProbeError(f"{task.id}: the arms' rendered prefixes before the site payload differ")
    rows: list[FaultRow] = []
    for a in arms:
        messages, arm, prefix = conversations[a], site.arms[a], prefixes[a]
        for k in ks:
            i = index[k]
            text = messages[i]["content"]
            (s1,) = scorer.score(turn_span(scorer, messages[: i + 1], tools, i, text)[0], [text])
            distribution = action_distribution(scorer, messages[: i + 1], tools)
            rows.append(_row(task, site, arm, k, Surprisal.of(s0[(a, k)], s1), distribution, config, prefix))
    return rows


class _SitePrefix(NamedTuple):
    text: str
    token_hash: str | None
    tokens: int | None


def _site_prefix(scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON], index: int) -> _SitePrefix:
    """The rendered text before the site payload, and the context tokens kept before it."""
    context, text = turn_span(scorer, messages[: index + 1], tools, index, messages[index]["content"])
    context_ids, full_ids = scorer.tokenize(context), scorer.tokenize(context + text)
    kept = full_ids[: scored_tokens(context_ids, full_ids)]
    return _SitePrefix(context, _sha(json.dumps(kept)), len(kept))


def _row(
    task: Task,
    site: InjectionSite,
    arm: Any,
    k: int,
    s: Surprisal,
    d: ActionDistribution,
    config: FaultStudyConfig,
    prefix: _SitePrefix,
) -> FaultRow:
    return FaultRow(
        task_id=task.id,
        arm=arm.arm,
        k=k,
        site=site.position,
        step=site.position + k,
        tool=task.reference[site.position + k].action.op,
        field=arm.field,
        true=arm.true,
        false=arm.false,
        verbatim_in_prefix=arm.verbatim_in_prefix,
        policy_only=arm.policy_only,
        s0=s.s0,
        s1=s.s1,
        g=s.g,
        s0_first=s.s0_first,
        s1_first=s.s1_first,
        g_first=s.g_first,
        n_tokens=s.n_tokens,
        probs=d.probs,
        entropy=d.entropy,
        leader=d.leader,
        reread=d.mass(config.reread),
        write=d.mass(config.writes),
        reply=d.probs[REPLY],
        opener_prob=d.opener_prob,
        name_mass=d.name_mass,
        prefix_hash=_sha(prefix.text),
        prefix_token_hash=prefix.token_hash,
        prefix_tokens=prefix.tokens,
    )


# --- the study -----------------------------------------------------------------------------------


def study_sites(
    domain: Domain, *, seed: int = 0, tool: str = SITE_TOOL, limit: int | None = None
) -> list[tuple[Task, InjectionSite]]:
    """The tasks with an injection site (the domain's ``easy`` forms, as ``toolprism fault-arms``
    lists them), with their sites; under ``limit`` a sample of that many, taken round-robin over
    the task templates (``retail/cancel/0``'s template is ``retail/cancel``) in task order, so a
    small sample spans kinds of request. Deterministic.

    Raises:
        ConfigError: ``tool`` is not a read of the domain; ``limit`` < 1.
    """
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {limit}", what="limit")
    sites = [(t, s) for t in domain.tasks(seed) if t.form == "easy" and (s := fault_arms(domain, t, tool)) is not None]
    if limit is None or limit >= len(sites):
        return sites
    by_template: dict[str, list[tuple[Task, InjectionSite]]] = {}
    for pair in sites:
        by_template.setdefault(pair[0].id.rsplit("/", 1)[0], []).append(pair)
    queues = list(by_template.values())
    chosen: list[tuple[Task, InjectionSite]] = []
    while len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    order = {t.id: i for i, (t, _) in enumerate(sites)}
    return sorted(chosen, key=lambda pair: order[pair[0].id])


def study_config(
    domain: Domain,
    sites: Sequence[tuple[Task, InjectionSite]],
    *,
    seed: int = 0,
    tool: str = SITE_TOOL,
    reread: Sequence[str] | None = None,
    steps: Sequence[int] = STEPS,
) -> FaultStudyConfig:
    """The study's configuration; ``reread`` defaults to the domain's ``rereading_tools``.

    Raises:
        ConfigError: a reread tool that is not a read operation of the domain, no reread tools,
            or a negative step.
    """
    space = domain.action_space()
    reads = [op.name for op in space.operations if op.kind == "read"]
    chosen = tuple(reread) if reread is not None else tuple(domain.rereading_tools)
    if not chosen:
        raise ConfigError(f"{domain.name} designates no state-rereading tools: give --reread", what="reread")
    unknown = [t for t in chosen if t not in reads]
    if unknown:
        raise ConfigError(
            f"not read operations of {domain.name}: {', '.join(unknown)} (its reads: {', '.join(reads)})",
            what="reread",
        )
    if any(k < 0 for k in steps):
        raise ConfigError("steps must be 0 or later", what="steps")
    return FaultStudyConfig(
        domain=domain.name,
        seed=seed,
        tool=tool,
        reread=chosen,
        writes=tuple(op.name for op in space.operations if op.kind == "write"),
        steps=tuple(sorted(set(steps))),
        task_ids=tuple(t.id for t, _ in sites),
    )


def fault_study(
    scorer: LogprobScorer,
    domain: Domain,
    sites: Sequence[tuple[Task, InjectionSite]],
    config: FaultStudyConfig,
) -> Iterator[tuple[str, list[FaultRow] | SkippedTask]]:
    """Score every task, one at a time: yields ``(task_id, rows)`` or ``(task_id, SkippedTask)``
    when a :class:`ProbeError` stops that task (the others go on). Deterministic given a
    deterministic scorer."""
    for task, site in sites:
        try:
            yield task.id, task_rows(scorer, domain, task, site, config)
        except ProbeError as e:
            yield task.id, SkippedTask(task_id=task.id, reason=str(e))


# --- the summary ---------------------------------------------------------------------------------


class ArmStepSummary(BaseModel):
    """Paired contrasts (arm row minus the clean row of the same task and ``k``) for one arm and step.

    Attributes:
        arm, k, rows: the arm, the step, and how many paired rows.
        ds0, ds1, dg, ds0_first, dg_first, dh: :class:`PairedStats` of the surprisal, gap and
            entropy contrasts (nats).
        dreread, dwrite, dreply: :class:`PairedStats` of the grouped-mass contrasts.
        movable: rows whose clean entropy is above the floor (room to move).
        leader_changes, leader_changes_movable: rows whose leader differs from the clean leader
            (all rows; rows with room to move).
        new_leaders: among leader changes, how many new leaders are a reread tool, a write tool,
            ``reply``, or another read.
        reply_direction, reply_direction_movable: pi(V) up/down/flat counts (|d| <= flat is flat).
        dg_by_context: ``dG`` split by the falsified value's visibility: ``Nm``: ``verbatim`` /
            ``not verbatim`` in the prefix; ``Ns``: ``policy only`` / ``in prefix``; else empty.
    """

    model_config = _SERIALISE

    arm: str
    k: int
    rows: int
    ds0: PairedStats
    ds1: PairedStats
    dg: PairedStats
    ds0_first: PairedStats
    dg_first: PairedStats
    dh: PairedStats
    dreread: PairedStats
    dwrite: PairedStats
    dreply: PairedStats
    movable: int
    leader_changes: int
    leader_changes_movable: int
    new_leaders: dict[str, int]
    reply_direction: Directions
    reply_direction_movable: Directions
    dg_by_context: dict[str, PairedStats] = Field(default_factory=dict)


class CleanStepSummary(BaseModel):
    """The clean arm's levels at one step (the paper's ceiling and floor readings, section III.B-C).

    Attributes:
        k, rows: the step and its clean rows.
        entropy_median: median clean entropy (nats); ``below_floor``: rows at or under the floor.
        reply_above_099, reply_below_001: rows with pi(V) > 0.99 and < 0.01 (the bimodality).
    """

    model_config = _SERIALISE

    k: int
    rows: int
    entropy_median: float | None
    below_floor: int
    reply_above_099: int
    reply_below_001: int


class FaultSummary(BaseModel):
    """The study's summary: per arm and step the paired contrasts, and the clean levels.

    Attributes:
        floor_nats, flat: the room-to-move floor and the pi(V) flat band used.
        tasks: tasks scored; ``skipped``: tasks a ProbeError stopped, with reasons.
        prefix_checked: tasks whose token-level prefix was checked (the scorer can tokenise);
            ``prefix_identical``: of those, tasks whose arms kept identical context tokens.
        clean: one :class:`CleanStepSummary` per step; ``arms``: one :class:`ArmStepSummary` per
            (injected arm, step) with rows, in arm then step order.
    """

    model_config = _SERIALISE

    floor_nats: float
    flat: float
    tasks: int
    skipped: list[SkippedTask]
    prefix_checked: int
    prefix_identical: int
    clean: list[CleanStepSummary]
    arms: list[ArmStepSummary]


def _group(action: str, config: FaultStudyConfig) -> str:
    if action in config.reread:
        return "reread"
    if action in config.writes:
        return "write"
    return "reply" if action == REPLY else "other read"


def summarise(
    rows: Sequence[FaultRow],
    config: FaultStudyConfig,
    *,
    skipped: Sequence[SkippedTask] = (),
    floor_nats: float = FLOOR_NATS,
    flat: float = FLAT,
) -> FaultSummary:
    """Paired contrasts per arm and step, from stored rows only (no model). Deterministic."""
    clean = {(r.task_id, r.k): r for r in rows if r.arm == "C"}
    steps = sorted({r.k for r in rows})
    clean_summaries = []
    for k in steps:
        at = [r for r in clean.values() if r.k == k]
        entropy = paired_stats(r.entropy for r in at).median
        clean_summaries.append(
            CleanStepSummary(
                k=k,
                rows=len(at),
                entropy_median=entropy,
                below_floor=sum(r.entropy <= floor_nats for r in at),
                reply_above_099=sum(r.reply > 0.99 for r in at),
                reply_below_001=sum(r.reply < 0.01 for r in at),
            )
        )
    summaries = []
    for arm in ARMS[1:]:
        for k in steps:
            pairs = [(r, clean[(r.task_id, k)]) for r in rows if r.arm == arm and r.k == k and (r.task_id, k) in clean]
            if pairs:
                summaries.append(_arm_step(arm, k, pairs, config, floor_nats, flat))
    by_task: dict[str, set[str | None]] = {}
    for r in rows:
        if r.k == 0 and r.prefix_token_hash is not None:
            by_task.setdefault(r.task_id, set()).add(r.prefix_token_hash)
    return FaultSummary(
        floor_nats=floor_nats,
        flat=flat,
        tasks=len({r.task_id for r in rows}),
        skipped=list(skipped),
        prefix_checked=len(by_task),
        prefix_identical=sum(len(h) == 1 for h in by_task.values()),
        clean=clean_summaries,
        arms=summaries,
    )


def _arm_step(
    arm: str, k: int, pairs: list[tuple[FaultRow, FaultRow]], config: FaultStudyConfig, floor: float, flat: float
) -> ArmStepSummary:
    def delta(attribute: str, subset: list[tuple[FaultRow, FaultRow]] = pairs) -> list[float]:
        return [getattr(r, attribute) - getattr(c, attribute) for r, c in subset]

    movable = [(r, c) for r, c in pairs if c.entropy > floor]
    changed = [(r, c) for r, c in pairs if r.leader != c.leader]
    new_leaders: dict[str, int] = {}
    for r, _ in changed:
        new_leaders[_group(r.leader, config)] = new_leaders.get(_group(r.leader, config), 0) + 1
    split: dict[str, PairedStats] = {}
    if arm == "Nm":
        for name, flag in (("verbatim", True), ("not verbatim", False)):
            split[name] = paired_stats(delta("g", [(r, c) for r, c in pairs if r.verbatim_in_prefix is flag]))
    if arm == "Ns":
        for name, flag in (("policy only", True), ("in prefix", False)):
            split[name] = paired_stats(delta("g", [(r, c) for r, c in pairs if r.policy_only is flag]))
    return ArmStepSummary(
        arm=arm,
        k=k,
        rows=len(pairs),
        ds0=paired_stats(delta("s0")),
        ds1=paired_stats(delta("s1")),
        dg=paired_stats(delta("g")),
        ds0_first=paired_stats(delta("s0_first")),
        dg_first=paired_stats(delta("g_first")),
        dh=paired_stats(delta("entropy")),
        dreread=paired_stats(delta("reread")),
        dwrite=paired_stats(delta("write")),
        dreply=paired_stats(delta("reply")),
        movable=len(movable),
        leader_changes=len(changed),
        leader_changes_movable=sum(r.leader != c.leader for r, c in movable),
        new_leaders=dict(sorted(new_leaders.items())),
        reply_direction=directions(delta("reply"), flat=flat),
        reply_direction_movable=directions(delta("reply", movable), flat=flat),
        dg_by_context=split,
    )


# --- the stored result ---------------------------------------------------------------------------

STUDY_FILE, ROWS_FILE, SUMMARY_FILE = "study.json", "rows.jsonl", "summary.json"


class StoredStudy(BaseModel):
    """``study.json``: the configuration, the scorer, and what toolprism wrote it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = "faults"
    config: FaultStudyConfig
    scorer: str
    scorer_settings: dict[str, JSON]
    toolprism_version: str
    git_revision: str | None = None
    skipped: list[SkippedTask] = Field(default_factory=list)


def write_study(directory: Path, stored: StoredStudy) -> None:
    """Create ``directory`` with ``study.json`` and an empty ``rows.jsonl`` (refuses a directory
    that already holds a study: ConfigError)."""
    if (directory / STUDY_FILE).exists():
        raise ConfigError(f"{directory} already holds a study; give another --out", what="out")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / STUDY_FILE).write_text(stored.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (directory / ROWS_FILE).write_text("", encoding="utf-8")


def append_rows(directory: Path, rows: Sequence[FaultRow]) -> None:
    """Append ``rows`` to ``rows.jsonl`` (one JSON object per line; NaN written as ``NaN``)."""
    with (directory / ROWS_FILE).open("a", encoding="utf-8") as f:
        for row in rows:
            f.write(row.model_dump_json() + "\n")


def rewrite_rows(directory: Path, rows: Sequence[FaultRow]) -> None:
    """Replace ``rows.jsonl`` with ``rows`` (written to a temporary file, then renamed over it):
    how a resumed study drops a line a kill cut off."""
    partial = directory / (ROWS_FILE + ".tmp")
    partial.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    partial.replace(directory / ROWS_FILE)


def finish_study(directory: Path, stored: StoredStudy, summary: FaultSummary | None) -> None:
    """Rewrite ``study.json`` (with the skipped tasks) and, given one, write ``summary.json``."""
    (directory / STUDY_FILE).write_text(stored.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if summary is not None:
        (directory / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_study(directory: Path, notes: list[str] | None = None) -> tuple[StoredStudy, list[FaultRow]]:
    """A stored study and its rows, for re-summarising without the model.

    A last line of ``rows.jsonl`` cut off mid-write (no newline after it, as a killed process
    leaves it) is not an error: that task's rows (written together) are left out, and a line
    saying so is appended to ``notes``. So are the rows of a task that lack some of its rows
    (every arm of a task has a row at every k from 0 up to the task's largest).

    Raises:
        ConfigError: ``directory`` holds no fault study, a file does not parse (naming the line of
            ``rows.jsonl``), a row belongs to no task of the study, or a row appears twice.
    """
    if not directory.is_dir():
        raise ConfigError(f"{directory} does not exist or is not a directory", what="stored study")
    path = directory / STUDY_FILE
    if not path.is_file():
        raise ConfigError(f"{directory} holds no fault-arm study ({STUDY_FILE} is missing)", what="stored study")
    try:
        stored = StoredStudy.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as e:
        raise ConfigError(f"{path}: cannot read the stored study ({_brief(e)})", what="stored study") from None
    rows_path = directory / ROWS_FILE
    try:
        text = rows_path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(
            f"{rows_path}: cannot read the stored rows ({e.strerror or e})", what="stored study"
        ) from None
    lines = text.splitlines()
    rows: list[FaultRow] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(FaultRow.model_validate(json.loads(line)))
        except ValueError as e:
            if number == len(lines) and not text.endswith("\n"):  # cut off mid-write
                match = re.match(r'\{"task_id":"((?:[^"\\]|\\.)*)"', line)
                cut = json.loads(f'"{match.group(1)}"') if match else None
                rows = [r for r in rows if r.task_id != cut]
                if notes is not None:
                    notes.append(
                        f"{rows_path}: the last line is cut off (an interrupted write); "
                        + (f"the rows of {cut} are left out" if cut else "it is left out")
                    )
                break
            raise ConfigError(
                f"{rows_path} line {number}: not a stored row ({_brief(e)})", what="stored study"
            ) from None
    return stored, _whole_tasks(rows, stored.config.task_ids, rows_path, notes)


def _brief(error: Exception) -> str:
    """A parse error in a line: pydantic's first three problems and how many more there are."""
    return "; ".join(validation_problems(error, limit=3)) if isinstance(error, ValidationError) else str(error)


def _whole_tasks(
    rows: list[FaultRow], task_ids: Sequence[str], rows_path: Path, notes: list[str] | None
) -> list[FaultRow]:
    """``rows`` without the tasks that lack rows (noted); refuses rows of other tasks and repeats."""
    problems: list[str] = []
    cells: dict[str, set[tuple[str, int]]] = {}
    for row in rows:
        cell = (row.arm, row.k)
        if row.task_id not in task_ids:
            problems.append(f"{rows_path}: a row of {row.task_id}, which is not a task of this study")
        elif cell in cells.get(row.task_id, ()):
            problems.append(f"{rows_path}: the row of {row.task_id} arm {row.arm} at k = {row.k} appears twice")
        cells.setdefault(row.task_id, set()).add(cell)
    if problems:
        raise ConfigError(problems, what="stored study")
    partial = [task for task in task_ids if task in cells and not _whole_grid(cells[task])]
    if notes is not None:
        notes.extend(f"{rows_path}: {task} lacks some of its rows; its rows are left out" for task in partial)
    return [r for r in rows if r.task_id not in partial]


def _whole_grid(cells: set[tuple[str, int]]) -> bool:
    """Every arm of a task (the clean one among them) has a row at every k from 0 to its largest."""
    arms = {arm for arm, _ in cells}
    steps = range(max(k for _, k in cells) + 1)
    return "C" in arms and cells == {(arm, k) for arm in arms for k in steps}
