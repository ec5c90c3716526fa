"""Repair tiers, assigned from a failure's scored trace before any repair is tried.

ToolRobustBench, section 5 ("Diagnostic validation and interventions"): "Correcting the
attributed primary error recovers 100% of Tier-1, 82.1% of Tier-2, and 0% of Tier-3 failures".
The paper assigns the tiers first and then measures recovery; the seed does not give the tier
definitions. The rule below is toolprism's reading: a pure function of the episode's stage
verdicts and attribution (:class:`toolprism.score.EpisodeStages`) and of its trace (the planned
perturbations and the request, tool list and returns the agent saw). It never looks at a repair.

First rule that fires:

- **Tier 3, evidence lost**: a value the expected gold needs (an argument of an action a correct
  agent executes under the perturbations) was taken out of the episode by a perturbation and is
  nowhere else in it. Taken out: dropped from a return by evidence loss (C2), when that return
  cannot be re-read (its operation is not among the instance's re-reads); withheld by a
  non-retryable runtime fault (D, ``retryable`` false: the blocked operation's reference reply is
  never shown); blanked from the request by ambiguity (B2). Nowhere else: not in the request as
  posed to the agent, not in the tool list, not in any return the agent received. (Toolprism's B2
  moves every action that needs a blanked value out of the expected gold, since asking is the
  correct move, so B2 alone yields Tier 3 only when another action still needs the value.)
- **Tier 2, cascade**: the attribution is a cascade (the source stage is not the earliest failed
  stage), or several of S1-S4 failed and the source is upstream of the others: correcting the
  source must also clear failures it caused.
- **Tier 1, direct**: one of S1-S4 failed and it is the source, or none did (the error is at S5
  alone: an extra action, no answer, an incomplete episode).

The rule reads ``stages``, ``earliest_failed_stage``, ``source_stage`` and ``cascade`` only;
``boundary_violation`` does not enter it (it judges the perturbation's design, not whether the
error can be corrected), nor does the primary error's name.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from toolprism.errors import ConfigError
from toolprism.perturb import expected_gold
from toolprism.run import Trace
from toolprism.score import EpisodeStages

Tier = Literal[1, 2, 3]
TIERS: tuple[Tier, ...] = (1, 2, 3)
TIER_NAMES: dict[int, str] = {1: "direct", 2: "cascade", 3: "evidence lost"}
TIER_RULES: dict[int, str] = {
    1: "direct: the source stage failed alone (or only S5 failed)",
    2: "cascade: the source is upstream of other failed stages, or not the earliest failed stage",
    3: "evidence lost: a value the expected gold needs was taken out of the episode and is nowhere else in it",
}
"""Each tier's rule, in one line (module docstring: the full rule and its source)."""


class TierAssignment(BaseModel):
    """A failure's tier and why (:func:`assign_tier`).

    Attributes:
        tier: 1, 2 or 3 (:data:`TIER_RULES`).
        reason: the facts of the episode that decided it, in words.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tier: Tier
    reason: str


def assign_tier(stages: EpisodeStages, trace: Trace) -> TierAssignment:
    """The repair tier of the failed episode ``trace`` scored as ``stages`` (module docstring):
    deterministic, a pure function of its two arguments, decided before any repair.

    Raises:
        ConfigError: the episode succeeded (no source stage: nothing to assign a tier to).
    """
    if stages.source_stage is None or stages.earliest_failed_stage is None:
        raise ConfigError(f"episode {trace.episode_id!r} did not fail: it has no repair tier", what="episode")
    lost = _lost_evidence(trace)
    if lost:
        return TierAssignment(tier=3, reason="evidence lost: " + "; ".join(lost))
    source, earliest = stages.source_stage, stages.earliest_failed_stage
    failed = [s for s in ("S1", "S2", "S3", "S4") if stages.stages[s] == "fail"]
    if stages.cascade:
        return TierAssignment(tier=2, reason=f"cascade: earliest failed stage {earliest}, source {source}")
    if len(failed) > 1:
        return TierAssignment(tier=2, reason=f"several failed stages ({', '.join(failed)}), source {source} upstream")
    if failed:
        return TierAssignment(tier=1, reason=f"direct: {source} failed alone and is the source")
    return TierAssignment(tier=1, reason=f"direct: only {source} failed")


def _lost_evidence(trace: Trace) -> list[str]:
    """What the perturbations took out of the episode that the expected gold needs and the episode
    shows nowhere else, one description each (empty: nothing)."""
    gold = expected_gold([a.to_action() for a in trace.task.gold], trace.perturbations)
    needed = {_key(v): (a.op, v) for a in gold for v in _scalars(a.arguments)}
    request = next((str(m.get("content") or "") for m in trace.messages if m.get("role") == "user"), "")
    seen = {_key(v) for c in trace.calls if c.outcome == "executed" for v in _scalars(c.reply)}
    tools = json.dumps(trace.tools)

    def elsewhere(value: Any) -> bool:
        return _key(value) in seen or _stated(value, request) or _stated(value, tools)

    taken: list[tuple[Any, str]] = []
    for instance in trace.perturbations:
        if instance.subtype == "C2":
            for j in trace.injections:
                if j.subtype == "C2" and j.site == "reply" and j.target not in instance.rereads:
                    kept = {_key(v) for v in _scalars(j.replacement)}
                    why = f"dropped from the return of {j.target} (C2), which cannot be re-read"
                    taken += [(v, why) for v in _scalars(j.original) if _key(v) not in kept]
        elif instance.family == "D" and not instance.labels.retryable:
            blocked = instance.blocked_ops
            for step in trace.task.reference:
                if step.action.op in blocked:
                    why = f"{step.action.op} would return it, and it fails every time ({instance.subtype})"
                    taken += [(v, why) for v in _scalars(step.reply)]
        elif instance.subtype == "B2":
            why = "blanked from the request (B2)"
            taken += [(v, why) for v in instance.params.get("values", [])]
    lost = {}
    for value, why in taken:
        if _key(value) in needed and not elsewhere(value):
            op, _ = needed[_key(value)]
            lost.setdefault(_key(value), f"{json.dumps(value)} needed by {op}: {why}")
    return list(lost.values())


def _scalars(value: Any) -> list[Any]:
    """The strings and numbers inside a JSON value (booleans and nulls say nothing on their own)."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [] if value is None or isinstance(value, bool) else [value]


def _key(value: Any) -> str:
    return json.dumps(value)


def _stated(value: Any, text: str) -> bool:
    """Whether ``text`` states ``value`` as a whole word: verbatim, or with underscores read as
    spaces, any case (``5`` is not stated by ``50``, nor ``W12`` by ``#W123``)."""
    said = str(value).lower()
    forms = {said, said.replace("_", " ")}
    return any(re.search(rf"(?<![\w.]){re.escape(f)}(?![\w])", text, re.IGNORECASE) for f in forms if f)
