"""Xu et al.'s fault arms at one injection site: clean ``C``, failed return ``F``, inconsistent
status ``Ns`` and inconsistent identifier ``Nm``.

The injection site is the first call of a chosen read tool at position 2 or later of a task's
reference trace (Xu et al. 2026, section C: "the first get_order_details call at position two or
later"). The prefix before it is replayed from the reference actions against the real
environment, so it is byte-identical across arms; only the site's payload differs, and the
database is never touched by the substitution. Arms enter independently: ``Ns`` needs a status
field with another legal value, ``Nm`` an identifier field: the domain's
:attr:`~toolprism.domains.Domain.identifier_field` where it names one (retail: the order's
``user_id``, an identifier the context may already carry verbatim), else one drawn by seed.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from toolprism.domains import Domain, ReferenceStep, Task
from toolprism.errors import ConfigError, DomainError
from toolprism.perturb._output import _fields, _is_id, _other_id, _set, environment_error, legal_values
from toolprism.perturb._subtype import CallContext
from toolprism.schema import JSON, canonical_json

ARMS: tuple[str, ...] = ("C", "F", "Ns", "Nm")
Arm = Literal["C", "F", "Ns", "Nm"]


class FaultArm(BaseModel):
    """One arm's payload at the site.

    Attributes:
        arm: ``C``, ``F``, ``Ns`` or ``Nm``.
        payload: what the model is shown as the site's return.
        field: the falsified field's path (``Ns``/``Nm``), else None.
        true / false: the field's true and substituted values (``Ns``/``Nm``).
        verbatim_in_prefix: ``Nm``: whether the true identifier already appears verbatim in the
            prefix (the query or an earlier return).
        policy_only: ``Ns``: whether the contradiction is visible only through the domain policy
            (the true status does not appear verbatim in the prefix).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    arm: Arm
    payload: Any
    field: str | None = None
    true: Any = None
    false: Any = None
    verbatim_in_prefix: bool | None = None
    policy_only: bool | None = None


class InjectionSite(BaseModel):
    """A task's injection site with its shared prefix and every eligible arm.

    Attributes:
        task_id: the task.
        tool: the read tool the site is a call of.
        position: 0-based index of the site in the reference trace (at least 1).
        prefix: the replayed steps before the site, ``{"action", "reply"}`` each (identical for
            every arm).
        call: the site's action, ``{"op", "args"}``.
        arms: arm name → :class:`FaultArm`, for the arms this site is eligible for (``C``
            always; ``F`` when the environment has an error string for the call).
        state_hash: the environment's state hash after the site call (the same for every arm:
            substitutions change only what the model is shown).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    tool: str
    position: int
    prefix: list[dict[str, Any]]
    call: dict[str, Any]
    arms: dict[str, FaultArm]
    state_hash: str


def site_position(task: Task, tool: str) -> int | None:
    """Index of the first call of ``tool`` at position 2 or later (index ≥ 1), or None."""
    return next((i for i, s in enumerate(task.reference) if s.action.op == tool and i >= 1), None)


def fault_arms(domain: Domain, task: Task, tool: str) -> InjectionSite | None:
    """Replay ``task``'s reference up to its injection site and build every eligible arm.

    Returns None when the task has no call of ``tool`` at position 2 or later.

    Raises:
        ConfigError: ``tool`` is not a read operation of ``domain``.
        DomainError: the replayed prefix differs from the reference trace (a non-deterministic
            domain), which would break the byte-identical-prefix control.
    """
    reads = [op.name for op in domain.action_space().operations if op.kind == "read"]
    if tool not in reads:
        raise ConfigError(
            f"{tool!r} is not a read operation of {domain.name} (its reads: {', '.join(reads)})", what="tool"
        )
    position = site_position(task, tool)
    if position is None:
        return None
    env = domain.environment(task.world_seed)
    prefix: list[ReferenceStep] = []
    for step in task.reference[:position]:
        reply = env.execute(step.action)
        if canonical_json(reply) != canonical_json(step.reply):
            raise DomainError(f"{task.id}: the replayed prefix differs from the reference at {step.action}")
        prefix.append(ReferenceStep(step.action, reply))
    action = task.reference[position].action
    payload = env.execute(action)
    state_hash = env.state_hash()
    arms: dict[str, FaultArm] = {"C": FaultArm(arm="C", payload=payload)}
    failed = environment_error(env, CallContext(position, action, 0, env))
    if failed is not None:
        arms["F"] = FaultArm(arm="F", payload=failed)
    rng = random.Random(f"perturb/arms/{task.id}/{tool}")
    text = task.query + " " + " ".join(canonical_json(s.reply) for s in prefix)
    legal = legal_values(domain.action_space(), dict(getattr(domain, "reply_values", {})))
    fields = _fields(payload)
    status = next(((p, k, v) for p, k, v in fields if k == "status" and v in legal.get("status", ())), None)
    if status is not None:
        path, key, true = status
        false = rng.choice([v for v in legal[key] if v != true])
        arms["Ns"] = FaultArm(
            arm="Ns",
            payload=_set(payload, path, false),
            field=path,
            true=true,
            false=false,
            policy_only=not _verbatim(true, text),
        )
    named = [(p, k, v) for p, k, v in fields if (k == "id" or k.endswith("_id")) and _is_id(k, v) and _other_id(v) != v]
    if domain.identifier_field is not None:  # the domain's documented Nm field, when the payload has it
        named = [(p, k, v) for p, k, v in named if p == domain.identifier_field]
    if named:
        path, _, true = rng.choice(named)
        arms["Nm"] = FaultArm(
            arm="Nm",
            payload=_set(payload, path, _other_id(true)),
            field=path,
            true=true,
            false=_other_id(true),
            verbatim_in_prefix=_verbatim(true, text),
        )
    return InjectionSite(
        task_id=task.id,
        tool=tool,
        position=position,
        prefix=[{"action": s.action.to_json(), "reply": s.reply} for s in prefix],
        call=action.to_json(),
        arms=arms,
        state_hash=state_hash,
    )


def _verbatim(value: JSON, text: str) -> bool:
    return str(value) in text
