"""The subtype contract: one short class per perturbation subtype (A1 … D3), in a registry.

A subtype says whether it applies to a task, plans an :class:`Instance` for a task at a severity
(deterministic from an RNG), and acts through up to four hooks, one per entry point of ToolRobustBench's
pipeline: the user request (:meth:`Subtype.query`), the tool list (:meth:`Subtype.layer`), the
runtime's answer to a call (:meth:`Subtype.before`) and the returned payload
(:meth:`Subtype.after`). Hooks return the changes they made as :class:`Injection` data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from toolprism.domains import Environment, Task
from toolprism.perturb._model import Injection, Instance, RuntimeLabels, Severity, Stage
from toolprism.registry import Registry
from toolprism.schema import JSON, Action, ActionRecord, ActionSpace
from toolprism.shaping import Layer


@dataclass(frozen=True)
class CallContext:
    """A native call about to run (or just run) in a perturbed episode.

    Attributes:
        index: 0-based index of this native call among the episode's calls (attempts included).
        action: the decoded native action.
        attempt: how many earlier calls of the same operation this episode made (0 = first).
        environment: the episode's environment (read it; never change it in a hook).
    """

    index: int
    action: Action
    attempt: int
    environment: Environment


class Subtype:
    """Base of every subtype. Subclasses set the class attributes and override what they need.

    Class attributes:
        id: ``A1`` … ``D3`` (the family is the letter); ``name``: short name.
        primary: the stage the subtype targets; ``spillover``: stages a failure may also show in.
        strength: intrinsic strength per severity, strictly increasing light < medium < heavy: the
            sum of the level's constituent operations, a weak one (one dropped field, one
            chatter sentence, one decoy) weighing 1, a strong one (a misleading name, an error
            string for a payload, a second blocked tool) 2, a typo or a repeat 0.5 (ToolRobustBench,
            "intrinsic operator-strength scores and additive constituent scores").
        levels: what each severity does, in words (shown by ``toolprism perturbations``).
    """

    id: ClassVar[str]
    name: ClassVar[str]
    primary: ClassVar[Stage]
    spillover: ClassVar[tuple[Stage, ...]] = ()
    strength: ClassVar[dict[str, float]]
    levels: ClassVar[dict[str, str]]

    @property
    def family(self) -> str:
        """The family letter (A tool interface, B user intent, C tool output, D runtime)."""
        return self.id[0]

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        """``None`` when the subtype can act on ``task``; otherwise the reason it cannot."""
        return None

    def applicable_at(self, task: Task, space: ActionSpace, severity: Severity) -> str | None:
        """Like :meth:`applicable`, for one severity (a level may need more of the task than the
        others); the default is :meth:`applicable`."""
        return self.applicable(task, space)

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        """The instance for ``task`` at ``severity``; call only when :meth:`applicable` is None."""
        return self.instance(task, severity, target={"A": "tools", "B": "query"}.get(self.family, ""))

    def instance(
        self,
        task: Task,
        severity: Severity,
        *,
        target: str,
        params: dict[str, Any] | None = None,
        expected_gold: list[Action] | None = None,
        labels: RuntimeLabels | None = None,
        rereads: list[str] | None = None,
    ) -> Instance:
        """Helper for :meth:`plan`: an :class:`Instance` with this subtype's fixed fields."""
        gold = task.gold if expected_gold is None else expected_gold
        return Instance(
            subtype=self.id,
            family=self.family,
            severity=severity,
            strength=self.strength[severity],
            target=target,
            params=params or {},
            expected_gold=[ActionRecord.of(a) for a in gold],
            labels=labels or RuntimeLabels(),
            rereads=rereads or [],
            primary_stage=self.primary,
            spillover=list(self.spillover),
        )

    # --- hooks (defaults change nothing) ------------------------------------------------------

    def query(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, list[Injection]]:
        """Rewrite the user request (family B)."""
        return text, []

    def layer(self, instance: Instance, below: Layer) -> Layer | None:
        """A layer over the variant's top layer that changes the tools shown (family A)."""
        return None

    def before(self, instance: Instance, call: CallContext) -> tuple[JSON, list[Injection]] | None:
        """A failure reply instead of running ``call`` (family D); None lets it run."""
        return None

    def after(
        self, instance: Instance, call: CallContext, reply: JSON, rng: random.Random
    ) -> tuple[JSON, list[Injection]]:
        """The payload the model sees for ``call`` that returned ``reply`` (family C)."""
        return reply, []

    def injection(self, instance: Instance, site: str, target: str, change: str, **values: Any) -> Injection:
        """Helper for hooks: an :class:`Injection` stamped with this instance."""
        return Injection(subtype=self.id, severity=instance.severity, site=site, target=target, change=change, **values)


SUBTYPES: Registry[Subtype] = Registry("perturbation subtype")
"""Subtype id → subtype object (``A1`` … ``D3``)."""


def register(cls: type[Subtype]) -> type[Subtype]:
    """Class decorator: register one instance of ``cls`` under its id."""
    SUBTYPES.add(cls.id, cls())
    return cls
