"""``oracle``: a scripted agent that issues the gold actions through the variant's encoder.

It reacts to replies (a transaction id it was given flows into its next calls) and issues
independent calls together in one turn, so it succeeds on 100% of tasks under every correct
variant within the turn limit: the end-to-end proof (DESIGN.md principle 5).

It cannot see perturbations, with one exception any careful client has: a runtime failure (a
reply with an ``error`` and an HTTP ``status`` of 429 or more, or a reply that is not JSON at all)
makes it resend the same calls, up to :data:`MAX_RETRIES` times. So it still passes transient
runtime faults (D2, D3); after a permanent one (D1) it moves on and its final answer says what
failed. A read whose return comes back as an error or empty (where its gold does not fail: its
reference reply is not an error) is read once more, as Xu et al.'s incomplete returns call for; so
is a read whose returns never carried the field that answers the request, where the domain names
one (``Domain.answer_field``). Where the task names facts its answer must state (``Task.facts``:
tau2-bench's ``communicate_info``), the final answer states them.

Where the domain names an answer field, the answer states the result the oracle READ: that field's
value in the last successful return of the gold call (:func:`read_field`: a careful reader's
search, which sees through reshaped payloads and picks the current record among stale copies). It
never asks the domain for the answer, so a falsified answer field (C3) is what it reports, and a
write whose answer field was dropped (C2; a write is not redone) leaves it with none. When the
system prompt asks for a runtime report (a C or D condition), the answer ends with one: status,
failure type and retryability from the perturbation's runtime labels in its
:class:`EpisodeContext` (the oracle is the reference upper bound, not a model under test, so
reading the labels is allowed; a model's backend never sees them), and ``final_result`` the same
value it read (null when nothing was read, as after a permanent failure).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolprism.backends._base import (
    Constrain,
    EpisodeContext,
    Message,
    ModelTurn,
    RawCall,
    ScriptedTurns,
    check_constrain,
)
from toolprism.domains import get_domain
from toolprism.errors import ToolprismError
from toolprism.perturb import REPORT_MARKER, report_instance
from toolprism.schema import JSON, Action, ToolCall, canonical_json
from toolprism.shaping import Batch, Plan

MAX_RETRIES = 3
"""Resends of the same calls after runtime failures, per plan step."""


def runtime_failure(reply: JSON) -> bool:
    """A reply that says the runtime failed, not the tool: an HTTP-like ``status`` ≥ 429 next to
    an ``error``, or a bare string (malformed feedback)."""
    if isinstance(reply, str):
        return True
    return (
        isinstance(reply, dict) and "error" in reply and isinstance(reply.get("status"), int) and reply["status"] >= 429
    )


@dataclass
class OracleAgent:
    """Walks the task's gold actions in order; each turn issues the plan's next call or batch."""

    context: EpisodeContext
    _pending: list[Action] = field(init=False)
    _plan: Plan | None = None
    _batch: bool = False
    _issued: int = 0
    _step: tuple[ToolCall, ...] = ()
    _replies: list[JSON] = field(default_factory=list)
    _waiting: list[int] = field(default_factory=list)
    _retries: int = 0
    _gave_up: list[str] = field(default_factory=list)
    _action: Action | None = None
    _rereads: int = 0
    _result: JSON = None

    def __post_init__(self) -> None:
        self._pending = list(self.context.task.gold)

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        """The next call of the encoder's plan for the gold actions (reading the replies of the calls
        before it), or the final answer once the plan is done."""
        item: ToolCall | Batch | None = None
        if self._plan is not None:
            for index, message in zip(self._waiting, _trailing_tool_messages(messages), strict=False):
                self._replies[index] = json.loads(message["content"])
            if any(self._lost_read(self._replies[i]) for i in self._waiting):
                self._rereads += 1  # the read ran, so its protocol steps are spent: encode it afresh
                self._pending.insert(0, self._action)
                self._plan = None
                return await self.respond(messages, tools)
            if field := self._answer_field():  # the value the last successful return gives for it
                read = [read_field(self._replies[i], field) for i in self._waiting if _succeeded(self._replies[i])]
                self._result = next((v for v in reversed(read) if v is not None), self._result)
            failed = [i for i in self._waiting if runtime_failure(self._replies[i])]
            if failed and self._retries < MAX_RETRIES:  # resend only the calls the runtime failed
                self._retries += 1
                return self._issue([self._step[i] for i in failed], failed)
            self._gave_up += [f"{self._step[i].name} ({_message(self._replies[i])})" for i in failed]
            replies, self._retries = self._replies, 0
            try:
                item = self._plan.send(replies if self._batch else replies[-1])
            except StopIteration:
                self._plan = None
                if self._unanswered():  # the answer field never came back: read it once more
                    self._rereads += 1
                    self._pending.insert(0, self._action)
            except (KeyError, TypeError, IndexError):  # a failed reply the plan cannot read: move on
                self._plan = None
        while item is None and self._pending:
            self._action = self._pending.pop(0)
            self._plan = self.context.variant.plan(self._action)
            item = next(self._plan)
        if item is None:
            return ScriptedTurns.answer(self._answer(messages))
        self._batch = isinstance(item, Batch)
        self._step = item.calls if isinstance(item, Batch) else (item,)
        self._replies = [None] * len(self._step)
        return self._issue(list(self._step), list(range(len(self._step))))

    def _answer(self, messages: Sequence[Message]) -> str:
        """The final answer: what was done or could not be, the result read where the domain fixes
        one, and the runtime report where the system prompt asks for it."""
        if self._gave_up:
            text = f"Done, except what could not be done: {'; '.join(self._gave_up)} failed."
        else:
            text = "Done."
        if self._result is not None:
            text += f" Result: {self._result if isinstance(self._result, str) else canonical_json(self._result)}"
        if self.context.task.facts:  # what the source benchmark checks the answer for (tau2's communicate_info)
            text += f" For your information: {'; '.join(self.context.task.facts)}."
        system = next((m for m in messages if m.get("role") == "system"), {})
        instance = report_instance(self.context.perturbations)
        if instance is not None and REPORT_MARKER in str(system.get("content") or ""):
            labels = instance.labels
            report = {
                "status": labels.status,
                "failure_type": labels.failure_type,
                "retryable": bool(labels.retryable),
                "final_result": self._result,
            }
            text += f"\n\n```json\n{canonical_json(report)}\n```"
        return text

    def _answer_field(self) -> str | None:
        """The field of the current gold action's return that answers the request, if the domain names one."""
        try:
            return get_domain(self.context.task.domain).answer_field(self._action.op) if self._action else None
        except ToolprismError:
            return None

    def _is_read(self) -> bool:
        space = self.context.variant.layers[0].space
        return self._action is not None and space.get(self._action.op).kind == "read"

    def _lost_read(self, reply: JSON) -> bool:
        """An error or nothing in place of a read's return (its gold never fails): read it again, once."""
        if self._rereads or not isinstance(reply, dict) or runtime_failure(reply) or self._fails_in_gold():
            return False
        return self._is_read() and (reply == {} or "error" in reply)

    def _fails_in_gold(self) -> bool:
        """The current gold action is refused in the task's own reference trace too (tau2-bench's
        gold has look-ups of wrong ids): its error is the expected reply, not a lost read."""
        return any(
            step.action == self._action and isinstance(step.reply, dict) and "error" in step.reply
            for step in self.context.task.reference
        )

    def _unanswered(self) -> bool:
        """A read done, nothing failed, and no return carried the answer field: read it again, once."""
        field = self._answer_field()
        return bool(field) and self._result is None and not self._gave_up and not self._rereads and self._is_read()

    def _issue(self, calls: list[ToolCall], indices: list[int]) -> ModelTurn:
        self._waiting = indices
        raw = []
        for call in calls:
            self._issued += 1
            raw.append(RawCall(f"call_{self._issued}", call.name, json.dumps(dict(call.arguments), sort_keys=True)))
        text = json.dumps([{"name": c.name, "arguments": c.arguments} for c in raw])
        return ModelTurn(raw=text, calls=tuple(raw))


def read_field(reply: JSON, field: str) -> JSON:
    """The value of ``field`` in a return, as a careful reader finds it (toolprism's reading of
    how an agent reads a reshaped payload): keys compared case- and underscore-insensitively
    (``distanceKm`` is ``distance_km``), through nested objects and lists (``{"data": ...}``) and
    ``key=value; ...`` text (C1's re-serialised payloads); where several records carry the field,
    the one with the latest ``as_of`` (C4's current record among stale copies), else the first
    found, breadth first. None when no scalar value is found."""
    want = field.replace("_", "").lower()
    found: list[tuple[str, JSON]] = []
    queue: list[tuple[JSON, str]] = [(reply, "")]
    while queue:
        node, as_of = queue.pop(0)
        if isinstance(node, list):
            queue += [(item, as_of) for item in node]
        if not isinstance(node, dict):
            continue
        as_of = node["as_of"] if isinstance(node.get("as_of"), str) else as_of
        for key, value in node.items():
            if str(key).replace("_", "").lower() == want and not isinstance(value, (dict, list)):
                found.append((as_of, value))
            elif isinstance(value, (dict, list)):
                queue.append((value, as_of))
            elif isinstance(value, str) and (pairs := _key_values(value)):
                queue.append((pairs, as_of))
    latest = max((stamp for stamp, _ in found), default=None)
    return next((value for stamp, value in found if stamp == latest), None)


_KV = re.compile(r"(?:^|; )([\w.\[\]]+)=")


def _key_values(text: str) -> dict[str, JSON]:
    """``a.b=1; c="x"`` as ``{"b": 1, "c": "x"}`` (each path's last key; values read as JSON)."""
    marks = list(_KV.finditer(text))
    if not marks or marks[0].start() != 0:
        return {}
    out: dict[str, JSON] = {}
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        raw = text[mark.end() : after.start() if after else len(text)]
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        names = re.findall(r"[A-Za-z_]\w*", mark.group(1))
        if names:
            out.setdefault(names[-1], value)
    return out


def _succeeded(reply: JSON) -> bool:
    """A return that is neither a runtime failure nor an ``error`` object."""
    return not runtime_failure(reply) and not (isinstance(reply, dict) and "error" in reply)


def _message(reply: JSON) -> str:
    return str(reply.get("error", reply)) if isinstance(reply, dict) else str(reply)[:80]


def _trailing_tool_messages(messages: Sequence[Message]) -> list[Message]:
    tail: list[Message] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        tail.append(message)
    return tail[::-1]


class OracleBackend:
    """Backend ``oracle``: one :class:`OracleAgent` per episode.

    Args:
        constrain: only ``none``: the oracle decodes nothing (its calls come from the encoder and
            are valid by construction), so there is nothing to constrain.

    Raises:
        ConfigError: ``constrain`` other than ``none``.
    """

    name = "oracle"

    def __init__(self, *, constrain: Constrain = "none") -> None:
        check_constrain(
            constrain,
            what="oracle backend",
            supported=("none",),
            why="the oracle decodes nothing (its calls come from the encoder and are valid by construction); "
            "constrain a model backend (embedded, hf, openai)",
        )
        self.constrain: Constrain = constrain

    def settings(self) -> dict[str, JSON]:
        """No parameters: the oracle is fully determined by the task and the variant."""
        return {"backend": "oracle", "constraint": "none", "constrain": self.constrain}

    def agent(self, context: EpisodeContext) -> OracleAgent:
        """A fresh oracle agent for ``context``."""
        return OracleAgent(context)
