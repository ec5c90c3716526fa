"""The validator's typed report: counts per check kind, per (suite, variant) summaries, and each
failure with a minimal reproduction."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from toolprism.errors import RejectionKind

CheckKind = Literal[
    "build",  # the variant builds over the action space
    "plan",  # the encoder ran one reference action to completion
    "action_sequence",  # decoded native actions == reference actions, in order
    "action_multiset",  # ... as a multiset
    "rejection_free",  # no call of the encoded trace was rejected
    "reply",  # the native reply the encoder returns == the reference reply (per step)
    "step_state",  # state hash after each step == the native run's after that step
    "state_hash",  # final state hash == the native run's
    "negative",  # an invalid call is rejected (with the expected kind), executes nothing, changes nothing
    # (under the paper / loose controls: as those controls treat it, see toolprism.validate._core)
]
CHECK_KINDS: tuple[str, ...] = CheckKind.__args__  # type: ignore[attr-defined]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CallRecord(_Model):
    """One call of a reproduction, with what the adapter did with it."""

    name: str
    arguments: dict[str, Any]
    outcome: Literal["executed", "answered", "rejected", "not_run"]
    rejection: RejectionKind | None = None
    reply: Any = None


class Failure(_Model):
    """A failed check, with a minimal reproduction.

    Attributes:
        kind: the check that failed.
        suite: the domain or catalog name.
        variant: the variant's name; ``spec`` its canonical spec (rebuild with ``Variant.build``).
        task_id: the reference trace (for ``negative``: the negative case's id).
        message: what differed, in one line.
        calls: the variant-level calls issued, in order, with outcomes.
        expected_actions / decoded_actions: native actions (``{"op", "args"}``).
        state_path: the first JSON path where the two states differ (None when they do not).
        expected_at_path / actual_at_path: the values there (``"<absent>"`` when missing).
    """

    kind: str
    suite: str
    variant: str
    spec: str
    task_id: str
    world_seed: int = 0
    message: str
    calls: list[CallRecord] = Field(default_factory=list)
    expected_actions: list[dict[str, Any]] = Field(default_factory=list)
    decoded_actions: list[dict[str, Any]] = Field(default_factory=list)
    state_path: str | None = None
    expected_at_path: Any = None
    actual_at_path: Any = None


class VariantSummary(_Model):
    """Checks run on one variant over one suite, under one adapter control."""

    suite: str
    variant: str
    spec: str
    control: str = "strict"
    traces: int
    negatives: int
    checks: int
    failures: int
    seconds: float
    checks_by_kind: dict[str, int]


class VariantReport(_Model):
    """What :func:`~toolprism.validate.validate_variant` returns: the summary and the failures."""

    summary: VariantSummary
    failures: list[Failure]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failure_kinds(self) -> list[str]:
        """The kinds of check that failed, in :data:`CHECK_KINDS` order."""
        found = {f.kind for f in self.failures}
        return [k for k in CHECK_KINDS if k in found]


class Skipped(_Model):
    """A variant that does not apply to a catalog (its binding problems)."""

    suite: str
    variant: str
    reason: str


class ValidationReport(_Model):
    """The whole validation: every (suite, variant) summary, every failure, totals; ``control``:
    the adapter control the calls were handled under."""

    suites: list[str]
    variants: list[str]
    control: str = "strict"
    checks: int
    checks_by_kind: dict[str, int]
    seconds: float
    summaries: list[VariantSummary]
    failures: list[Failure]
    skipped: list[Skipped] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """What loading the catalog rewrote (renamed tools, normalised type names)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """At least one reference trace ran and no check failed (a validation that ran no trace,
        e.g. every variant skipped on a catalog, proves nothing and does not pass)."""
        return not self.failures and any(s.traces for s in self.summaries)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> str:
        """One line: why the validation passed or failed."""
        if self.failures:
            return f"{len(self.failures)} check(s) failed"
        if not any(s.traces for s in self.summaries):
            why = "every variant or operation was skipped" if self.skipped else "there was nothing to check"
            return f"no reference trace ran: {why} (see the skipped lines); nothing is proven equivalent"
        return "every check passed"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def checks_per_second(self) -> float:
        return round(self.checks / self.seconds, 1) if self.seconds else 0.0
