"""Family D, runtime: the call is decoded but the runtime answers with a failure (ToolRobustBench, D1-D3).

Failures are replies with an ``error`` and an HTTP-like ``status`` (or, for malformed feedback, a
bare string); nothing runs, so the state is untouched and the adapter records the call as
``failed``. Each subtype aims at one gold operation chosen from the reference trace.
"""

from __future__ import annotations

import random

from toolprism.domains import Task, get_domain
from toolprism.errors import ToolprismError
from toolprism.perturb._model import Injection, Instance, RuntimeLabels, Severity
from toolprism.perturb._subtype import CallContext, Subtype, register
from toolprism.schema import JSON, ActionSpace


def _neighbours(task: Task) -> dict[str, tuple[str, ...]]:
    """``task``'s domain's confusable neighbours (:attr:`Domain.neighbours`); none for a domain
    not registered (an imported pack)."""
    try:
        return dict(get_domain(task.domain).neighbours)
    except ToolprismError:
        return {}


def _target_ops(task: Task, rng: random.Random, count: int) -> list[str]:
    ops = list(dict.fromkeys(a.op for a in task.gold))
    return rng.sample(ops, min(count, len(ops)))


class _Runtime(Subtype):
    primary = "S4"
    spillover = ("S5",)

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        return None if task.gold else "the task has no gold call for the runtime to fail"

    def failures(self, instance: Instance, call: CallContext) -> JSON | None:
        """The failure reply for ``call``, or None to let it run."""
        raise NotImplementedError

    def before(self, instance: Instance, call: CallContext) -> tuple[JSON, list[Injection]] | None:
        reply = self.failures(instance, call)
        if reply is None:
            return None
        change = f"runtime failure instead of running {call.action.op} (attempt {call.attempt + 1})"
        return reply, [self.injection(instance, "runtime", call.action.op, change, replacement=reply)]


_WHY = {"unavailable": "the service is unavailable", "timeout": "the service timed out"}
"""How a final result words each permanent failure type (each normalizes back to its type)."""


@register
class Availability(_Runtime):
    """D1: the tool is unavailable for the whole episode; retrying does not help."""

    id = "D1"
    name = "availability"
    strength = {"light": 1.0, "medium": 2.0, "heavy": 4.0}
    levels = {
        "light": "one gold operation answers 503 Service Unavailable with a clear message, every time",
        "medium": "one gold operation times out (504) on every call, without saying whether to retry",
        "heavy": "two gold operations time out on every call (a one-call task: its operation and the domain's "
        "nearest neighbour of it, the tool an agent would turn to)",
    }

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        ops = _target_ops(task, rng, 2 if severity == "heavy" else 1)
        if severity == "heavy" and len(ops) < 2:  # ToolRobustBench's one-call tasks: block the neighbour too
            shown = {op.name for op in space.operations}
            ops += [n for n in _neighbours(task).get(ops[0], ()) if n in shown][:1]
        asked = [op for op in ops if any(a.op == op for a in task.gold)]
        kind = "unavailable" if severity == "light" else "timeout"
        return self.instance(
            task,
            severity,
            target=ops[0],
            params={"ops": ops},
            expected_gold=[a for a in task.gold if a.op not in ops],
            labels=RuntimeLabels(
                status="failure",
                failure_type=kind,
                retryable=False,
                final_result=f"tell the user that {' and '.join(asked)} could not be done because {_WHY[kind]}",
            ),
        )

    def failures(self, instance: Instance, call: CallContext) -> JSON | None:
        if call.action.op not in instance.params["ops"]:
            return None
        if instance.severity == "light":
            return {"error": f"Service Unavailable: {call.action.op} is down for maintenance", "status": 503}
        return {"error": "Gateway Timeout: the upstream service did not respond", "status": 504}


_TRANSIENT: dict[str, list[JSON]] = {
    "light": [{"error": "Gateway Timeout: the request took too long, please retry", "status": 504}],
    "medium": [
        {"error": "Too Many Requests", "status": 429, "retry_after_s": 1},
        {"error": "Too Many Requests", "status": 429, "retry_after_s": 2},
    ],
    "heavy": [
        {"error": "Service Unavailable, please retry", "status": 503},
        {"error": "Too Many Requests", "status": 429, "retry_after_s": 2},
        {"error": "Gateway Timeout: the request took too long, please retry", "status": 504, "latency_ms": 30000},
    ],
}


@register
class Variability(_Runtime):
    """D2: transient failures that succeed on retry (timeouts, 429 with retry-after, latency)."""

    id = "D2"
    name = "variability"
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.0}
    levels = {
        "light": "the first call of one gold operation times out once, then it works",
        "medium": "two 429 Too Many Requests with retry-after, then it works",
        "heavy": "503, 429 and a slow 504 in a row, then it works",
    }

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        op = _target_ops(task, rng, 1)[0]
        first = _TRANSIENT[severity][0]
        kind = {429: "rate_limited", 503: "unavailable", 504: "timeout"}[first["status"]]
        return self.instance(
            task,
            severity,
            target=op,
            params={"failures": len(_TRANSIENT[severity])},
            labels=RuntimeLabels(
                status="success", failure_type=kind, retryable=True, final_result="retry, then complete the request"
            ),
        )

    def failures(self, instance: Instance, call: CallContext) -> JSON | None:
        script = _TRANSIENT[instance.severity]
        if call.action.op != instance.target or call.attempt >= len(script):
            return None
        return script[call.attempt]


@register
class FeedbackQuality(_Runtime):
    """D3: the same transient failure (one retry fixes it), reported vaguely, misleadingly or in
    malformed form."""

    id = "D3"
    name = "feedback quality"
    primary = "S4"
    spillover = ("S3", "S5")
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.0}
    levels = {
        "light": "vague: 'Something went wrong.' with status 500",
        "medium": "misleading: blames an argument that is in fact right (status 503)",
        "heavy": "malformed: a truncated HTML error page instead of JSON",
    }

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        op = _target_ops(task, rng, 1)[0]
        return self.instance(
            task,
            severity,
            target=op,
            labels=RuntimeLabels(
                status="success",
                failure_type="server_error",
                retryable=True,
                final_result="retry the same call unchanged, then complete the request",
            ),
        )

    def failures(self, instance: Instance, call: CallContext) -> JSON | None:
        if call.action.op != instance.target or call.attempt > 0:
            return None
        if instance.severity == "light":
            return {"error": "Something went wrong.", "status": 500}
        if instance.severity == "medium":
            name = next(iter(call.action.arguments), "input")
            return {"error": f"Invalid value for '{name}'", "status": 503}
        return "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gat"
