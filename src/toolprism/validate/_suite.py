"""What the validator runs traces on: a suite is an action space, reference traces, and a factory
of fresh worlds (a domain's environments, or a stub environment for a catalog without tasks)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from toolprism.domains import Domain, Environment, ReferenceStep, Task
from toolprism.schema import JSON, Action, ActionSpace, canonical_json, synthesize_arguments


class World(Protocol):
    """What a trace runs against: executes native actions, logs them, hashes its state."""

    log: list[Any]

    def execute(self, action: Action) -> JSON: ...

    def state_hash(self) -> str: ...


class StubWorld:
    """The environment of a catalog without tasks: every action answers ``{"ok": true, "op": ...}``
    and is appended to :attr:`log`, which is its state."""

    def __init__(self) -> None:
        self.log: list[Action] = []

    def execute(self, action: Action) -> JSON:
        self.log.append(action)
        return stub_reply(action)

    def snapshot(self) -> JSON:
        return {"log": [a.to_json() for a in self.log]}

    def state_hash(self) -> str:
        return hashlib.sha256(canonical_json(self.snapshot()).encode()).hexdigest()


def stub_reply(action: Action) -> JSON:
    """The stub environment's reply to ``action``."""
    return {"ok": True, "op": action.op}


def snapshot(world: World) -> JSON:
    """The world's state as JSON (to find where two states differ)."""
    if isinstance(world, Environment):
        return world.state.model_dump(mode="json")
    return world.snapshot()  # type: ignore[attr-defined]


@dataclass
class Suite:
    """Reference traces over one action space.

    Attributes:
        name: the domain or catalog name.
        space: the native action space the variants are built over.
        tasks: the reference traces (``Task.reference``).
        world: world seed → a fresh world.
        builtin: a domain (every suite variant must apply) rather than an external catalog.
        problems: operations a catalog suite could not synthesize a call for.
    """

    name: str
    space: ActionSpace
    tasks: list[Task]
    world: Callable[[int], World]
    builtin: bool = True
    problems: list[str] = field(default_factory=list)
    _native: dict[tuple[str, int], list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_domain(cls, domain: Domain, seeds: Sequence[int] = (0,), limit: int | None = None) -> Suite:
        """Every distinct reference trace of ``domain`` for each world seed (the first ``limit`` per
        seed). A hard-form task shares its easy twin's reference trace, so only easy forms are kept."""
        tasks = [t for s in seeds for t in [t for t in domain.tasks(s) if t.form == "easy"][:limit]]
        return cls(domain.name, domain.action_space(), tasks, domain.environment)

    @classmethod
    def from_catalog(cls, space: ActionSpace, seed: int = 0) -> Suite:
        """One synthesized valid call per operation, each a one-step reference trace on a stub world."""
        tasks, problems = [], []
        for op in space.operations:
            rng = random.Random(f"validate/{seed}/{space.name}/{op.name}")
            try:
                action = space.action(op.name, synthesize_arguments(op.parameters_schema(), rng))
            except Exception as e:  # noqa: BLE001 - ValueError from synthesis, RejectedCall from normalising
                problems.append(f"tool {op.name!r}: cannot synthesize a valid call: {e}")
                continue
            step = ReferenceStep(action, stub_reply(action))
            tasks.append(Task(f"{space.name}/synth/{op.name}", space.name, "", (action,), (step,), seed))
        return cls(space.name, space, tasks, lambda _seed: StubWorld(), builtin=False, problems=problems)

    def native_hashes(self, task: Task) -> list[str]:
        """State hashes of the reference run natively: initial, then after each step (cached)."""
        key = (task.id, task.world_seed)
        if key not in self._native:
            world = self.world(task.world_seed)
            hashes = [world.state_hash()]
            for step in task.reference:
                world.execute(step.action)
                hashes.append(world.state_hash())
            self._native[key] = hashes
        return self._native[key]

    def native_world(self, task: Task, steps: int) -> World:
        """A fresh world with the first ``steps`` reference actions run natively."""
        world = self.world(task.world_seed)
        for step in task.reference[:steps]:
            world.execute(step.action)
        return world
