"""The equivalence validator: every variant executes the same native actions, reaches the same
states and returns the same replies as the native schema on reference traces, and rejects invalid
calls without executing anything.

``validate(...)`` runs built-in domains (or a catalog) × variants and returns a typed
:class:`ValidationReport`; ``validate_variant(variant, suite)`` checks one (possibly hand-built)
variant over one :class:`Suite`.
"""

from toolprism.validate._core import validate, validate_variant
from toolprism.validate._negative import Negative, negatives
from toolprism.validate._report import (
    CHECK_KINDS,
    CallRecord,
    Failure,
    Skipped,
    ValidationReport,
    VariantReport,
    VariantSummary,
)
from toolprism.validate._suite import StubWorld, Suite

__all__ = [
    "CHECK_KINDS",
    "CallRecord",
    "Failure",
    "Negative",
    "Skipped",
    "StubWorld",
    "Suite",
    "ValidationReport",
    "VariantReport",
    "VariantSummary",
    "negatives",
    "validate",
    "validate_variant",
]
