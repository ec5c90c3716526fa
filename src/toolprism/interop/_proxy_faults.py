"""Tool-output perturbations (family C) in the schema proxy: the harness's tool results changed on
their way to the model.

In an episode a C subtype hits the first call of an operation chosen from the task's reference trace
(ToolRobustBench, C1-C4; :mod:`toolprism.perturb`). The proxy has no task and no reference trace, so
its site is toolprism's own choice, stated here: **the first harness tool result of the conversation
that carries evidence** (a non-empty JSON object without an ``error`` key, the condition
:func:`toolprism.perturb` subtypes use for their targets) and that the subtype can act on. The
subtype plans its instance from a one-step task made of that call and its result, and changes the
result with its own :meth:`~toolprism.perturb.Subtype.after`, seeded by the call's id and the
proxy's seed: the history is rebuilt on every request, so the model sees the same change each time.

Not available: ``C2:heavy`` (the environment's own error string needs the environment, which lives
in the harness); families A, B and D (the proxy sees neither the harness's task nor its runtime).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolprism.domains import ReferenceStep, Task
from toolprism.errors import ConfigError
from toolprism.interop._proxy_state import Message, parse_reply
from toolprism.perturb import SUBTYPES, CallContext, Injection, Perturbation, parse_perturbations
from toolprism.schema import Action, ActionSpace


def proxy_perturbations(specs: Sequence[str]) -> list[Perturbation]:
    """Parse ``--perturb`` terms for the proxy: tool-output (family C) subtypes only.

    Raises:
        ConfigError: every malformed term (see :func:`~toolprism.perturb.parse_perturbations`),
            every subtype outside family C, and ``C2:heavy``.
    """
    if not specs:
        return []
    terms = parse_perturbations(list(specs))
    problems = [
        f"{p.key}: the proxy injects tool-output perturbations (family C) only; {p.subtype} is family {p.subtype[0]}"
        for p in terms
        if p.subtype[0] != "C"
    ]
    problems += [
        f"{p.key}: needs the environment's own error string, which lives in the harness (use C2:light or C2:medium)"
        for p in terms
        if p.key == "C2:heavy"
    ]
    if problems:
        raise ConfigError(problems, what="proxy perturbation")
    return terms


@dataclass
class ReplyFaults:
    """Applies the proxy's C perturbations to one conversation's tool results, in order.

    Call it with each harness tool result as the history is rebuilt (it is a
    :data:`~toolprism.interop._proxy_state.PerturbReply`); :attr:`injections` records each change.

    Attributes:
        perturbations: the parsed terms (:func:`proxy_perturbations`).
        space: the request's native action space.
        seed: the proxy's seed.
    """

    perturbations: Sequence[Perturbation]
    space: ActionSpace
    seed: int = 0
    injections: list[Injection] = field(default_factory=list)
    _done: set[str] = field(default_factory=set)
    _index: int = 0

    def __call__(self, native_id: str, action: Action | None, message: Message) -> Message:
        index, self._index = self._index, self._index + 1
        reply = parse_reply(message.get("content"))
        if action is None or not isinstance(reply, dict) or not reply or "error" in reply:
            return message
        for p in self.perturbations:
            if p.key in self._done:
                continue
            subtype = SUBTYPES.get(p.subtype)
            task = Task(
                id=f"proxy/{native_id}",
                domain="proxy",
                query="",
                gold=(action,),
                reference=(ReferenceStep(action, reply),),
            )
            if subtype.applicable_at(task, self.space, p.severity) is not None:
                continue
            rng = random.Random(f"proxy/{p.key}/{native_id}/{self.seed}")
            instance = subtype.plan(task, self.space, p.severity, rng)
            call = CallContext(index, action, 0, None)  # type: ignore[arg-type]  # no environment here
            new, changes = subtype.after(instance, call, reply, rng)
            if changes:
                self._done.add(p.key)
                self.injections += [c.model_copy(update={"call": index}) for c in changes]
                reply = new
                message = {**message, "content": json.dumps(new, ensure_ascii=False)}  # keeps the subtype's key order
        return message
