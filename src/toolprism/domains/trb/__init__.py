"""The ``trb`` domain: ToolRobustBench's deterministic single-step tool environment.

ToolRobustBench (section 4, appendices A, B.1 and E) evaluates single tool-calling episodes over
"40 original deterministic tools across 12 functional groups", of which the main experiments
sample 16 "with fixed seed 20260511"; each sampled tool has 12 clean anchors (192 per model). The
paper publishes neither tools nor code, so everything here is toolprism's own construction of that
description:

- the catalogue: 40 tools in 12 groups (:data:`TOOLS`, :data:`GROUPS`, :data:`CATALOG`), with
  hand-written descriptions, JSON schemas from their signatures, deterministic executors and fixed
  outputs; neighbouring tools that invite confusion sit side by side (:data:`NEIGHBOURS`: route
  vs travel time, currency conversion vs exchange rate, ...). Every return carries an identifier,
  an enumerated status and a whole number, so every tool-output subtype has something to change.
- the tool registry the model sees (the domain's action space): the 16 sampled tools,
  :data:`SAMPLED` = ``random.Random(20260511).sample(TOOLS, 16)``, in catalogue order. The paper's
  instance has a "candidate tool registry"; toolprism's reading is that it is the sample.
- tasks: 12 clean anchors per sampled tool (192), single-step (one call, then state the result).
  Anchors do not depend on the run seed (only ``world_seed`` is recorded); each is posed once
  (no hard form: the user-intent family rewrites the request instead).
- expected results (appendix B.1): :meth:`Trb.expected_result` executes the anchor's stored
  arguments on a fresh environment, before any perturbation, and returns the field of the return
  that answers the request (:data:`ANSWERS`).
- cells: each (subtype, severity) cell perturbs 48 of the 192 anchors (:mod:`._cells`), so
  ``toolprism run -d trb --perturb-suite all`` makes 192 clean and 2,016 perturbed episodes.
- run defaults: all 192 tasks and the native interface only, unless ``--tasks``/``--variants``
  are given (the paper has no interface variants).
- success needs the final answer to state the expected result (section 3; see
  ``toolprism.score.result_match``); :meth:`Trb.answer_field` names the field a reader states.
  What the scripted oracle gets per subtype and severity, and why: :data:`ORACLE_SUCCESS`
  (:mod:`._oracle`).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, Task, TaskDraft
from toolprism.domains._grammar import bind, unmark, unslotted
from toolprism.domains.trb._anchors import anchor_arguments, phrase
from toolprism.domains.trb._catalog import (
    ANSWERS,
    CATALOG,
    GROUPS,
    NEIGHBOURS,
    REPLY_VALUES,
    SAMPLE_SEED,
    SAMPLED,
    TOOLS,
    registry_neighbours,
    sample_tools,
)
from toolprism.domains.trb._cells import SUBTYPE_IDS, cell_block, in_cell
from toolprism.domains.trb._fixtures import TrbState
from toolprism.domains.trb._oracle import ORACLE_SUCCESS
from toolprism.schema import JSON


@DOMAINS.register("trb")
class Trb(Domain):
    """ToolRobustBench's environment: 16 sampled deterministic tools, 12 single-step anchors each."""

    name = "trb"
    version = 1
    policy = (
        "You are an assistant with a set of deterministic tools. Each request needs exactly one tool "
        "call: choose the tool that does what the user asks, fill its arguments with the values the user "
        "gave, call it once, and then answer the user with the result the tool returned, stating the "
        "value they asked for. Do not call tools the request does not need. If a value the tool needs is "
        "missing or unclear, ask the user instead of guessing; if the tool fails, say so."
    )
    operations = tuple(CATALOG[t] for t in SAMPLED)
    reply_values = dict(REPLY_VALUES)
    single_step = True
    neighbours: ClassVar[dict[str, tuple[str, ...]]] = {t: registry_neighbours(t) for t in SAMPLED}
    default_tasks = None
    default_variants = ("native",)

    def initial_state(self, world_seed: int) -> BaseModel:
        """An empty record of confirmed writes (the same for every seed)."""
        return TrbState()

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """12 anchors per sampled tool, tools in registry order (the same for every seed)."""
        out = []
        for tool in SAMPLED:
            for index, args in enumerate(anchor_arguments(tool)):
                gold = [(tool, args)]
                query, found = unmark(phrase(tool, index, args))
                spans = tuple(bind(found, gold))
                if missing := unslotted(spans, gold, ()):
                    raise ValueError(f"{tool}/{index}: gold values not slotted: {missing}")
                out.append(TaskDraft(tool, query, gold, kind="single", spans=spans))
        return out

    def expected_result(self, task: Task) -> JSON | None:
        """The anchor's expected result (ToolRobustBench, appendix B.1): its stored arguments
        executed on a fresh environment, before any perturbation; the value of the field that
        answers the request (:data:`ANSWERS`: ``distance_km`` for ``compute_route``, ...).
        None for a task that is not one call of a catalogue tool."""
        if len(task.gold) != 1 or task.gold[0].op not in ANSWERS:
            return None
        reply = self.environment(task.world_seed).execute(task.gold[0])
        return reply.get(self.answer_field(task.gold[0].op)) if isinstance(reply, dict) else None

    def answer_field(self, op: str) -> str | None:
        """The field of ``op``'s return that answers the request (:data:`ANSWERS`), None for an
        operation outside the catalogue."""
        return ANSWERS.get(op)

    def assigned(self, task: Task, condition: str) -> bool:
        """Whether ``task`` runs under ``condition``: every anchor runs clean; each (subtype,
        severity) cell covers 48 anchors, three per tool (see :mod:`toolprism.domains.trb._cells`)."""
        parts = task.id.split("/")
        if len(parts) != 3 or parts[1] not in SAMPLED or not parts[2].isdigit():
            return True
        return in_cell(condition, SAMPLED.index(parts[1]), int(parts[2]))


__all__ = [
    "ANSWERS",
    "CATALOG",
    "GROUPS",
    "NEIGHBOURS",
    "ORACLE_SUCCESS",
    "SAMPLED",
    "SAMPLE_SEED",
    "SUBTYPE_IDS",
    "TOOLS",
    "Trb",
    "cell_block",
    "in_cell",
    "sample_tools",
]
