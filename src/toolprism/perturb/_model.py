"""Data of the perturbation engine: severities, stages, planned instances and recorded injections.

Source: ToolRobustBench, section 3 ("Instance representation": family, subtype,
severity, gold targets, expected result) and section 5 ("Runtime feedback": status, failure type,
retryability, final result).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from toolprism.schema import ActionRecord

Severity = Literal["light", "medium", "heavy"]
SEVERITIES: tuple[str, ...] = get_args(Severity)
Stage = Literal["S1", "S2", "S3", "S4", "S5"]
"""S1 tool selection, S2 schema grounding, S3 argument binding, S4 output/runtime-feedback
handling, S5 end-to-end (ToolRobustBench, section 3)."""
Site = Literal["query", "tools", "reply", "runtime"]
"""Where a change enters the episode: the user request (B), the tool list (A), a returned payload
(C) or the runtime's answer to a call (D)."""
FailureType = Literal[
    "timeout", "unavailable", "rate_limited", "server_error", "incomplete", "inconsistent", "invalid_request"
]
"""Canonical runtime failure types (ToolRobustBench, section 5 and appendix C)."""
FAILURE_TYPES: tuple[str, ...] = get_args(FailureType)
FAMILIES: dict[str, str] = {
    "A": "tool interface",
    "B": "user intent",
    "C": "tool output",
    "D": "runtime",
}


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RuntimeLabels(_Frozen):
    """What a correct agent should conclude about the call the perturbation hits: the expected
    fields of the runtime report (ToolRobustBench, section 5 "Runtime feedback": status, failure
    type, retryability, final result; the report form is :mod:`toolprism.score`'s runtime report).

    Attributes:
        status: ``success`` when the call's effect can still be achieved, else ``failure``.
        failure_type: ``None`` (nothing failed), or one of :data:`FailureType` (``timeout``,
            ``unavailable``, ``rate_limited``, ``server_error``, ``incomplete``, ``inconsistent``,
            ``invalid_request``): the failure the agent met, even when a retry then fixed it.
        retryable: whether retrying (or re-reading) can succeed; ``None`` where the question does
            not apply (nothing failed, or either remedy is right): the paper's ``not_applicable``
            convention (appendix C), the field is not scored.
        final_result: what the agent should report or act on, in words (guidance, not scored).
    """

    status: Literal["success", "failure"] = "success"
    failure_type: FailureType | None = None
    retryable: bool | None = False
    final_result: str = "complete the request as asked"

    @property
    def result_target(self) -> Literal["expected", "none"]:
        """The post-execution target of the report's ``final_result``: ``none`` (``null``: there
        is no result) when the status is ``failure`` (a permanent runtime failure, D1), else
        ``expected``: the domain's expected result (``Domain.expected_result``; not applicable
        where the domain fixes none). toolprism's reading: the seed says only that observation or
        runtime perturbations may define another post-execution target (appendix B.1)."""
        return "none" if self.status == "failure" else "expected"


REPORT_FAMILIES = frozenset({"C", "D"})
"""Families whose conditions ask the agent for a runtime report: observation (C) and runtime (D)."""
REPORT_MARKER = "Runtime report:"
"""How the runtime-report instruction starts; a trace whose system message holds it was asked for one."""
RUNTIME_REPORT_INSTRUCTION = (
    f"{REPORT_MARKER} after your reply to the user, end your final answer with one JSON object "
    '{"status": "success" or "failure", "failure_type": null or one of '
    + ", ".join(f'"{t}"' for t in get_args(FailureType))
    + ', "retryable": true or false, "final_result": a value or null}. '
    "status: whether the request was achieved in the end; failure_type: the kind of tool or runtime "
    "problem you met, even if a retry fixed it (null if there was none); retryable: whether retrying "
    "the call or reading again can fix that problem; final_result: the value that answers the request "
    "(a number, a name...) as the tools gave it, or null when there is none."
)
"""The system-prompt addition of conditions with a C or D perturbation (toolprism's wording of the
paper's runtime-decision fields, ToolRobustBench section 5). A JSON object in the final answer, not
a reporting tool: a tool would change the tool list, which family A and the shaping variants vary
and every S1 and multiset count reads."""


def asks_report(instances: Sequence[Instance]) -> bool:
    """Whether a condition asks for a runtime report: it has a C or D perturbation."""
    return any(i.family in REPORT_FAMILIES for i in instances)


def report_instance(instances: Sequence[Instance]) -> Instance | None:
    """The instance whose :class:`RuntimeLabels` a runtime report is scored against: the first
    runtime (D) instance, else the first observation (C) one, else None (no report is asked for).
    The paper's mixed pairs never combine C and D, so a condition has at most one of them."""
    runtime = [i for i in instances if i.family == "D"] or [i for i in instances if i.family == "C"]
    return runtime[0] if runtime else None


class Instance(_Frozen):
    """One subtype at one severity, planned for one task (deterministic from the seed).

    Attributes:
        subtype: id ``A1`` … ``D3``; ``family``: its letter; ``severity``: light|medium|heavy.
        strength: intrinsic strength score of the level (ToolRobustBench, "Severity-controlled
            expansion"): higher is harder; strictly increasing with severity per subtype.
        target: the native operation (or ``"query"``/``"tools"``) the perturbation aims at.
        params: the decisions drawn for this task (which call, which field, which value...).
        expected_gold: the native actions a correct agent executes under the perturbation
            (``{"op", "args"}`` records; equal to the task's gold unless the perturbation makes an
            action impossible or wrong to take, e.g. an unavailable tool or an underspecified request).
        labels: the runtime-decision labels.
        rereads: read operations a correct agent may call again to re-read state after a changed
            return; extra calls of them are not counted against it.
        primary_stage: the stage the subtype is designed to hit; ``spillover``: stages a failure
            may legitimately show up in (attribution outside both is a boundary violation).
    """

    subtype: str
    family: str
    severity: Severity
    strength: float
    target: str
    params: dict[str, Any] = {}
    expected_gold: list[ActionRecord]
    labels: RuntimeLabels = RuntimeLabels()
    rereads: list[str] = []
    primary_stage: Stage
    spillover: list[Stage] = []

    @property
    def key(self) -> str:
        """``<subtype>:<severity>``, as written on the command line."""
        return f"{self.subtype}:{self.severity}"

    @property
    def blocked_ops(self) -> set[str]:
        """The native operations the perturbation aims at: those it drew (``params["ops"]``, when
        it hits several, as a runtime outage of a whole class does), else its target."""
        return set(self.params.get("ops", [self.target]))


class Skip(_Frozen):
    """A subtype that cannot apply to a task, with the reason (recorded, never silent)."""

    subtype: str
    severity: Severity
    reason: str


class SkipRecord(Skip):
    """A skip as a run header stores it: which (task, variant, condition) it left out, and why.

    Attributes:
        task: the task id; ``variant``: the variant name; ``condition``: the whole condition
            (``A3:medium+C4:medium``), of which ``subtype``/``severity`` is the term that could not apply.
    """

    task: str
    variant: str
    condition: str


class Injection(_Frozen):
    """One change a perturbation made during an episode, recorded in the trace as data.

    Attributes:
        subtype / severity: which perturbation made it.
        site: where it entered (see :data:`Site`).
        target: the tool, operation or field path changed.
        change: what was done, in words (``"dropped field 'status'"``).
        original / replacement: the value before and after (JSON).
        call: 0-based index of the native call it hit (reply and runtime sites), else None.
    """

    subtype: str
    severity: Severity
    site: Site
    target: str
    change: str
    original: Any = None
    replacement: Any = None
    call: int | None = None
