"""Conditions: parse ``--perturb`` specs, plan instances for a task, and apply them to an episode.

A perturbation spec is ``<subtype>:<severity>`` (``C2:medium``); several, comma-separated, make a
mixed condition (ToolRobustBench, section 6), allowed only across families and when
:func:`mixing_problem` finds nothing wrong. Everything is deterministic in (task, seed).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolprism.domains import Environment, Task
from toolprism.errors import ConfigError, ToolFault
from toolprism.perturb._model import SEVERITIES, Injection, Instance, Skip
from toolprism.perturb._subtype import SUBTYPES, CallContext, Subtype
from toolprism.schema import JSON, Action, ActionSpace
from toolprism.shaping import Variant

PAPER_MIXED_PAIRS: tuple[tuple[str, str], ...] = (
    ("A3", "C4"),
    ("B4", "C4"),
    ("A2", "B3"),
    ("B2", "D2"),
)
"""The four mixed-family pairs the seed names (ToolRobustBench, section 6: A3+C4 and B4+C4 interact
most negatively; A2+B3 at heavy and B2+D2 at medium show floor or salience effects). The paper
evaluates five pairs; the seed does not name the fifth."""

TOOLPRISM_MIXED_PAIR: tuple[str, str] = ("A2", "D2")
"""toolprism's choice of the fifth pair, not the paper's: A2 distractors + D2 variability.

Why this pair (toolprism's reading of section 6, which says the five pairs "cover distinct stage
interactions" and exclude "degenerate mixtures and incompatible C–D combinations"): the four named
pairs cover the family pairings A–B, A–C, B–C and B–D; C–D is the pairing the paper excludes (some
of its mixtures lack an observation target, section 9), so A–D is the one stage interaction left.
Within A–D, A2+D2 is interpretable: a transient runtime failure of the gold tool (D2: 429s or
timeouts, then the call works) tempts the agent onto one of A2's near-duplicate distractors (one
fails as deprecated, one claims success and does nothing), so a failure is a selection error (S1)
provoked by runtime feedback (S4). It is not degenerate: D2 always recovers on retry and A2 leaves
the real tool listed, so a correct agent succeeds (the oracle does). toolprism used A1+C1 here
before: a second A–C pair, with no source."""

MIXED_PAIRS: tuple[tuple[str, str], ...] = (*PAPER_MIXED_PAIRS, TOOLPRISM_MIXED_PAIR)
"""The five representative mixed-family pairs: the seed's four (:data:`PAPER_MIXED_PAIRS`) and
toolprism's fifth (:data:`TOOLPRISM_MIXED_PAIR`). Each is run at medium and heavy severity, with
its single-family constituents at the same severities (``--perturb-suite mixed``)."""


@dataclass(frozen=True)
class Perturbation:
    """One ``<subtype>:<severity>`` term of a condition."""

    subtype: str
    severity: str

    @property
    def key(self) -> str:
        """``C2:medium``."""
        return f"{self.subtype}:{self.severity}"


def condition_cell(condition: str) -> tuple[str, str]:
    """The (subtype, severity) cell of a condition key: ``("C2", "medium")`` for ``C2:medium``,
    ``("A3+C4", "medium")`` for ``A3:medium+C4:medium``, ``("A3+C4", "light+heavy")`` when the
    severities differ, and ``("", "")`` for the clean condition ``""``."""
    if not condition:
        return "", ""
    terms = [term.partition(":") for term in condition.split("+")]
    return "+".join(sub for sub, _, _ in terms), "+".join(dict.fromkeys(sev for _, _, sev in terms))


def parse_perturbations(text: str | Sequence[str]) -> list[Perturbation]:
    """Parse ``"C2:medium,D2:light"`` (or a list of such strings) into terms, in order.

    A term is ``<subtype>:<severity>``; case does not matter, and a bare ``C2`` (or ``C2:``)
    means ``C2:medium``.

    Raises:
        ConfigError: every malformed term, unknown subtype or severity, repeated subtype, and
            mixing problem (see :func:`mixing_problem`).
    """
    parts = [text] if isinstance(text, str) else list(text)
    if bad := [p for p in parts if not isinstance(p, str)]:
        raise ConfigError([f"{p!r} is not a string like 'C2:medium'" for p in bad], what="perturbation spec")
    terms = [t.strip() for part in parts for t in part.split(",") if t.strip()]
    problems: list[str] = []
    out: list[Perturbation] = []
    for term in terms:
        subtype, _, severity = term.partition(":")
        subtype, severity = subtype.strip().upper(), (severity.strip().lower() or "medium")
        if subtype not in SUBTYPES:
            problems.append(f"{term!r}: unknown subtype {subtype!r} (known: {', '.join(sorted(SUBTYPES.names()))})")
        elif severity not in SEVERITIES:
            problems.append(f"{term!r}: unknown severity {severity!r} (known: {', '.join(SEVERITIES)})")
        else:
            out.append(Perturbation(subtype, severity))
    subtypes = [p.subtype for p in out]
    problems += [f"{sub} is given more than once" for sub in dict.fromkeys(subtypes) if subtypes.count(sub) > 1]
    if not problems and (reason := mixing_problem(subtypes)):
        problems.append(reason)
    if problems:
        raise ConfigError(problems, what="perturbation spec")
    return out


def mixing_problem(subtypes: Sequence[str]) -> str | None:
    """Why these subtypes cannot form one condition, or None.

    Rules: at most two subtypes; from different families; a permanently unavailable tool (D1)
    leaves no returned evidence for a tool-output subtype (C) to act on, and an attributable
    C+D mixture needs the evidence to arrive (ToolRobustBench, section 9: "some C–D mixtures lack a
    well-defined observation target").
    """
    if len(subtypes) <= 1:
        return None
    if len(subtypes) > 2:
        return f"a mixed condition combines two subtypes, got {len(subtypes)}: {', '.join(subtypes)}"
    a, b = subtypes
    if a[0] == b[0]:
        return f"{a}+{b}: a mixed condition combines two families (both are family {a[0]})"
    if {a[0], b[0]} == {"C", "D"} and "D1" in (a, b):
        return f"{a}+{b}: an unavailable tool (D1) returns no evidence for a tool-output subtype to change"
    return None


def suite() -> list[Perturbation]:
    """Every subtype at every severity, ``A1:light`` … ``D3:heavy`` (42 terms; the mixed pairs are
    :data:`MIXED_PAIRS`)."""
    return [Perturbation(s, v) for s in sorted(SUBTYPES.names()) for v in SEVERITIES]


def plan(
    task: Task,
    space: ActionSpace,
    perturbations: Sequence[Perturbation],
    seed: int,
    variant: Variant | None = None,
) -> tuple[list[Instance], list[Skip]]:
    """Instances of ``perturbations`` for ``task`` (deterministic in task and seed), and a
    :class:`Skip` with the reason for each one that cannot apply. With ``variant``, a tool-
    interface subtype that finds nothing to change among the variant's tools is skipped too."""
    instances, skips = [], []
    for p in perturbations:
        subtype = SUBTYPES.get(p.subtype)
        reason = subtype.applicable_at(task, space, p.severity)
        if reason is None:
            instance = subtype.plan(task, space, p.severity, _rng("plan", p, task, seed))
            if variant is not None and subtype.family == "A" and subtype.layer(instance, variant.top) is None:
                reason = f"no tool shown by variant {variant.name!r} carries what {p.subtype} changes"
                reason += f" ({instance.target})"
            else:
                instances.append(instance)
                continue
        skips.append(Skip(subtype=p.subtype, severity=p.severity, reason=reason))
    return instances, skips


def expected_gold(gold: Sequence[Action], instances: Sequence[Instance]) -> list[Action]:
    """The actions a correct agent executes under ``instances``: ``gold``, intersected (as
    multisets) with each instance's expected gold, since a perturbation may only remove actions
    (an unavailable tool, a value the request no longer gives)."""
    counts = Counter(gold)
    for instance in instances:
        counts &= Counter(a.to_action() for a in instance.expected_gold)
    kept = []
    for action in gold:  # in gold order
        if counts[action] > 0:
            counts[action] -= 1
            kept.append(action)
    return kept


def rereads(instances: Sequence[Instance]) -> frozenset[str]:
    """Operations whose extra calls are tolerated under ``instances`` (see ``Instance.rereads``)."""
    return frozenset(op for instance in instances for op in instance.rereads)


def _rng(purpose: str, p: Perturbation | Instance, task: Task, seed: int) -> random.Random:
    return random.Random(f"perturb/{purpose}/{p.subtype}/{p.severity}/{task.id}/{seed}")


@dataclass
class Perturber:
    """Applies planned instances to one episode and records every change as data.

    Use :meth:`query` for the user message, :meth:`variant` for the tools, and :meth:`execute`
    around the environment. :attr:`injections` lists what was changed, in order.
    """

    task: Task
    instances: Sequence[Instance]
    seed: int
    injections: list[Injection] = field(default_factory=list)
    _calls: int = 0
    _attempts: dict[str, int] = field(default_factory=dict)

    def _each(self) -> list[tuple[Subtype, Instance]]:
        return [(SUBTYPES.get(i.subtype), i) for i in self.instances]

    def query(self, text: str) -> str:
        """The user request after every family-B instance (in condition order)."""
        for subtype, instance in self._each():
            text, changes = subtype.query(instance, text, _rng("query", instance, self.task, self.seed))
            self.injections += changes
        return text

    def variant(self, variant: Variant) -> Variant:
        """``variant`` with each family-A instance's layer on top (the tools the model sees)."""
        layers = list(variant.layers)
        for subtype, instance in self._each():
            if subtype.family != "A":
                continue
            layer = subtype.layer(instance, layers[-1])
            if layer is None:
                change = f"not applied: no shown tool of {variant.name!r} carries the target"
                self.injections.append(subtype.injection(instance, "tools", instance.target, change))
                continue
            layers.append(layer)
            before = [t.name for t in layers[-2].tools()]
            after = [t.name for t in layer.tools()]
            self.injections.append(
                subtype.injection(
                    instance, "tools", instance.target, layer_change(layer), original=before, replacement=after
                )
            )
        if len(layers) == len(variant.layers):
            return variant
        return Variant(variant.name, variant.spec, tuple(layers))

    def execute(self, environment: Environment) -> Callable[[Action], JSON]:
        """``environment.execute`` with family-D failures before and family-C changes after.

        A runtime failure raises :class:`~toolprism.errors.ToolFault` (nothing runs; the adapter
        records the call as ``failed``)."""

        def run(action: Action) -> JSON:
            call = CallContext(self._calls, action, self._attempts.get(action.op, 0), environment)
            self._calls += 1
            self._attempts[action.op] = call.attempt + 1
            for subtype, instance in self._each():
                if (failure := subtype.before(instance, call)) is not None:
                    reply, changes = failure
                    self.injections += [c.model_copy(update={"call": call.index}) for c in changes]
                    raise ToolFault(reply)
            reply = environment.execute(action)
            for subtype, instance in self._each():
                rng = random.Random(f"perturb/after/{instance.key}/{self.task.id}/{self.seed}/{call.index}")
                reply, changes = subtype.after(instance, call, reply, rng)
                self.injections += [c.model_copy(update={"call": call.index}) for c in changes]
            return reply

        return run


def layer_change(layer: object) -> str:
    """A one-line description of a family-A layer (its class docstring's first sentence)."""
    doc = (type(layer).__doc__ or type(layer).__name__).strip().split("\n")[0]
    return doc.rstrip(".")
