"""Family C, tool output: the call runs for real, but the payload the model sees is changed
(ToolRobustBench, C1-C4; Xu et al.'s failed and inconsistent returns). The state is never touched.

Each subtype aims at the first call of one operation chosen from the reference trace, preferring
reads (their payloads carry the evidence), and changes only that call's payload.
"""

from __future__ import annotations

import copy
import random
import re
from typing import Any

from toolprism.domains import Environment, Task, get_domain
from toolprism.errors import ToolprismError
from toolprism.perturb._model import Injection, Instance, RuntimeLabels, Severity
from toolprism.perturb._subtype import CallContext, Subtype, register
from toolprism.schema import JSON, ActionSpace, canonical_json

_ID = re.compile(r"^#?[A-Za-z_]*?\d{3,}$")


def evidence_steps(task: Task, space: ActionSpace) -> list[int]:
    """Indices of reference steps whose reply is a non-empty object, reads first."""
    steps = [
        i for i, s in enumerate(task.reference) if isinstance(s.reply, dict) and s.reply and "error" not in s.reply
    ]
    return sorted(steps, key=lambda i: space.get(task.reference[i].action.op).kind != "read")


def _is_id(key: str, value: Any) -> bool:
    return isinstance(value, str) and (key == "id" or key.endswith("_id") or bool(_ID.match(value)))


def _other_id(value: str) -> str:
    """A different, well-formed identifier: every digit shifted by one (``#W123`` → ``#W234``)."""
    return re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), value)


def _fields(value: JSON, path: str = "") -> list[tuple[str, str, Any]]:
    """Every (path, key, scalar) in ``value``, depth first, in key order."""
    out: list[tuple[str, str, Any]] = []
    if isinstance(value, dict):
        for key in sorted(value):
            where = f"{path}.{key}" if path else key
            if isinstance(value[key], (dict, list)):
                out += _fields(value[key], where)
            else:
                out.append((where, key, value[key]))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _fields(item, f"{path}[{i}]")
    return out


def _set(value: JSON, path: str, new: Any) -> JSON:
    out = copy.deepcopy(value)
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    node = out
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    if last.startswith("["):
        node[int(last[1:-1])] = new
    else:
        node[last] = new
    return out


def legal_values(space: ActionSpace, extra: dict[str, tuple] | None = None) -> dict[str, tuple]:
    """Field name → legal values: every enumerated parameter of the action space by name, with a
    domain's ``reply_values`` (legal values of reply fields, e.g. an order's status) taking
    precedence for the fields it names. Fields with fewer than two values are left out."""
    values: dict[str, set] = {}
    for op in space.operations:
        for p in op.params:
            if p.enum is not None and all(isinstance(v, str) for v in p.enum):
                values.setdefault(p.name, set()).update(p.enum)
    values.update({key: set(vals) for key, vals in (extra or {}).items()})
    return {k: tuple(sorted(v)) for k, v in values.items() if len(v) > 1}


def _occurrence(task: Task, step: int) -> int:
    """How many earlier reference steps call the same operation: the hook fires at that call."""
    return sum(s.action.op == task.reference[step].action.op for s in task.reference[:step])


def _reads(space: ActionSpace) -> list[str]:
    """Every read operation: re-reading state after a changed return is never penalised (Xu et al. 2026:
    an incomplete return moves the agent toward the tools that re-read state)."""
    return [op.name for op in space.operations if op.kind == "read"]


def _reply_values(task: Task) -> dict[str, tuple]:
    """The task's domain's ``reply_values`` (legal values of reply-only fields), if it has any."""
    try:
        return dict(getattr(get_domain(task.domain), "reply_values", {}))
    except ToolprismError:
        return {}


class _Output(Subtype):
    primary = "S4"
    spillover = ("S3", "S5")
    failure_type: str | None = None
    retryable: bool | None = None
    """None: the call ran, so retryability is not a runtime decision here (``not_applicable``);
    C2 sets True (re-reading brings the evidence back: the change hits one call)."""
    final_result = "complete the request using the evidence that is still there"

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        return None if evidence_steps(task, space) else "no call of the task returns an object to change"

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        step = evidence_steps(task, space)[0]
        return self.instance(
            task,
            severity,
            target=task.reference[step].action.op,
            params={"step": step, "occurrence": _occurrence(task, step)},
            labels=self.labels(),
            rereads=_reads(space),
        )

    def labels(self) -> RuntimeLabels:
        """The runtime-decision labels every instance of this subtype carries."""
        return RuntimeLabels(
            status="success", failure_type=self.failure_type, retryable=self.retryable, final_result=self.final_result
        )

    def change(self, instance: Instance, call: CallContext, reply: dict, rng: random.Random) -> tuple[JSON, str]:
        """The changed payload and a description of the change."""
        raise NotImplementedError

    def after(
        self, instance: Instance, call: CallContext, reply: JSON, rng: random.Random
    ) -> tuple[JSON, list[Injection]]:
        hit = call.action.op == instance.target and call.attempt == instance.params.get("occurrence", 0)
        if not hit or not isinstance(reply, dict) or "error" in reply:
            return reply, []
        new, change = self.change(instance, call, reply, rng)
        return new, [self.injection(instance, "reply", call.action.op, change, original=reply, replacement=new)]


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p.title() for p in rest)


def _rename_keys(value: JSON) -> JSON:
    if isinstance(value, dict):
        return {_camel(k): _rename_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename_keys(v) for v in value]
    return value


@register
class StructureNoise(_Output):
    """C1: the same evidence, differently shaped: reordered, renamed, wrapped, noisy, re-serialised."""

    id = "C1"
    name = "structure noise"
    strength = {"light": 1.5, "medium": 3.0, "heavy": 4.0}
    levels = {
        "light": "fields in reverse order plus one noise field",
        "medium": "camelCase field names, wrapped in {'data': ...}, two noise fields",
        "heavy": "the payload as a key=value string inside {'result': ...}, plus noise fields",
    }

    def change(self, instance: Instance, call: CallContext, reply: dict, rng: random.Random) -> tuple[JSON, str]:
        trace_id = f"{rng.getrandbits(32):08x}"
        if instance.severity == "light":
            return {**dict(reversed(list(reply.items()))), "_trace_id": trace_id}, "reordered fields, added _trace_id"
        if instance.severity == "medium":
            body = _rename_keys(reply)
            return {"data": body, "meta": {"trace_id": trace_id, "api_version": "2.3"}}, "camelCase, wrapped, noise"
        flat = "; ".join(f"{path}={canonical_json(v)}" for path, _, v in _fields(reply))
        return {"result": flat, "format": "kv", "trace_id": trace_id}, "re-serialised as key=value text"


def environment_error(environment: Environment, call: CallContext) -> JSON | None:
    """The environment's own error string for this operation: the call re-run on a throwaway copy
    with an identifier-like argument changed to one that does not exist (Xu et al.'s F arm)."""
    for name, value in call.action.arguments.items():
        if not isinstance(value, str):
            continue
        probe = Environment(environment.domain, environment.state.model_copy(deep=True))
        try:
            args = {**call.action.arguments, name: f"{value}_missing"}
            reply = probe.execute(environment.domain.action_space().action(call.action.op, args))
        except Exception:  # noqa: BLE001 - an argument the schema rejects is not an identifier
            continue
        if isinstance(reply, dict) and "error" in reply:  # the message names the id that was asked for
            return {**reply, "error": str(reply["error"]).replace(f"{value}_missing", value)}
    return None


@register
class EvidenceLoss(_Output):
    """C2: an incomplete return: fields dropped, lists truncated, an empty payload, or the
    environment's error string instead of the payload (Xu et al.'s failed return)."""

    id = "C2"
    name = "evidence loss"
    failure_type = "incomplete"
    retryable = True
    final_result = "re-read the state before acting on the missing evidence"
    strength = {"light": 1.0, "medium": 2.5, "heavy": 4.0}
    levels = {
        "light": "one field dropped",
        "medium": "half of the fields dropped and lists cut to one item",
        "heavy": "the environment's own error string instead of the payload (empty payload if it has none)",
    }

    def change(self, instance: Instance, call: CallContext, reply: dict, rng: random.Random) -> tuple[JSON, str]:
        keys = sorted(reply)
        if instance.severity == "light":
            drop = rng.choice(keys)
            return {k: v for k, v in reply.items() if k != drop}, f"dropped field {drop!r}"
        if instance.severity == "medium":
            drop = set(rng.sample(keys, max(1, len(keys) // 2)))
            kept = {k: (v[:1] if isinstance(v, list) else v) for k, v in reply.items() if k not in drop}
            return kept, f"dropped fields {sorted(drop)}, lists cut to one item"
        error = environment_error(call.environment, call)
        return (error, "the environment's error string") if error is not None else ({}, "empty payload")


@register
class InconsistentValues(_Output):
    """C3: schema-valid falsehoods: a status replaced by another legal value (Xu et al.'s Ns), an
    identifier by another well-formed one (Nm), then a number as well."""

    id = "C3"
    name = "inconsistent values"
    primary = "S4"
    spillover = ("S3", "S5")
    failure_type = "inconsistent"
    final_result = "notice the contradiction (re-read or trust the earlier evidence) before acting"
    strength = {"light": 1.0, "medium": 1.5, "heavy": 3.5}
    levels = {
        "light": "one enumerated field (a status) replaced by another legal value",
        "medium": "one identifier replaced by another well-formed identifier (an enumerated field if none)",
        "heavy": "an enumerated field, an identifier and a number all replaced",
    }

    def _candidates(self, task: Task, space: ActionSpace, step: int) -> tuple[list, list, list]:
        legal = legal_values(space, _reply_values(task))
        fields = _fields(task.reference[step].reply)
        enums = [(p, k, v) for p, k, v in fields if k in legal and v in legal[k]]
        ids = [(p, k, v) for p, k, v in fields if _is_id(k, v) and _other_id(v) != v]
        numbers = [(p, k, v) for p, k, v in fields if isinstance(v, int) and not isinstance(v, bool)]
        return enums, ids, numbers

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        for step in evidence_steps(task, space):
            enums, ids, _ = self._candidates(task, space, step)
            if enums or ids:
                return None
        return "no returned field has another legal value or a well-formed identifier to swap in"

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        legal = legal_values(space, _reply_values(task))
        step = next(s for s in evidence_steps(task, space) if any(self._candidates(task, space, s)[:2]))
        enums, ids, numbers = self._candidates(task, space, step)
        wanted = {"light": ["enum"], "medium": ["id"], "heavy": ["enum", "id", "number"]}[severity]
        changes: list[dict[str, Any]] = []
        prefix = task.query + " " + " ".join(canonical_json(s.reply) for s in task.reference[:step])
        for kind in wanted:
            pool = {"enum": enums, "id": ids, "number": numbers}[kind] or enums or ids
            if not pool:
                continue
            path, key, true = rng.choice(pool)
            if any(c["path"] == path for c in changes):
                continue
            if key in legal and true in legal[key]:
                false: Any = rng.choice([v for v in legal[key] if v != true])
            elif isinstance(true, str):
                false = _other_id(true)
            else:
                false = true + 1
            changes.append({"path": path, "true": true, "false": false, "verbatim_in_prefix": str(true) in prefix})
        return self.instance(
            task,
            severity,
            target=task.reference[step].action.op,
            params={"step": step, "occurrence": _occurrence(task, step), "changes": changes},
            labels=self.labels(),
            rereads=_reads(space),
        )

    def change(self, instance: Instance, call: CallContext, reply: dict, rng: random.Random) -> tuple[JSON, str]:
        new: JSON = reply
        done = []
        for c in instance.params["changes"]:
            try:
                new = _set(new, c["path"], c["false"])
                done.append(f"{c['path']}: {c['true']!r} -> {c['false']!r}")
            except (KeyError, IndexError, TypeError):
                continue
        return new, "; ".join(done) or "nothing to change"


@register
class CompetingEvidence(_Output):
    """C4: misleading candidates next to the true payload: a stale copy, near matches. The true
    record stays identifiable (the latest ``as_of``) so there is still a correct way to act."""

    id = "C4"
    name = "competing evidence"
    primary = "S4"
    spillover = ("S3", "S5")
    final_result = "act on the current record, not on the stale or near-matching ones"
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.5}
    levels = {
        "light": "a stale cached copy with one field changed, after the current record",
        "medium": "two near matches listed as candidates after the current record",
        "heavy": "three candidates with the current record in the middle, stale ones first",
    }

    def _near(self, reply: dict, rng: random.Random, age: int) -> dict:
        fields = [(p, k, v) for p, k, v in _fields(reply) if isinstance(v, (str, int)) and not isinstance(v, bool)]
        path, _, value = rng.choice(fields)
        if isinstance(value, str):
            other = _other_id(value) if _other_id(value) != value else f"{value} (old)"
        else:
            other = value + rng.choice((-1, 1))
        return {**_set(reply, path, other), "as_of": f"2026-01-{10 - age:02d}"}

    def change(self, instance: Instance, call: CallContext, reply: dict, rng: random.Random) -> tuple[JSON, str]:
        current = {**reply, "as_of": "2026-01-10"}
        if instance.severity == "light":
            return {**current, "cached_copy": self._near(reply, rng, 3)}, "added a stale cached copy"
        if instance.severity == "medium":
            near = [self._near(reply, rng, age) for age in (2, 5)]
            return {"result": current, "candidates": near}, "added two near-match candidates"
        stale = [self._near(reply, rng, age) for age in (4, 2, 6)]
        return {"matches": [stale[0], stale[1], current, stale[2]]}, "current record among three near matches"
