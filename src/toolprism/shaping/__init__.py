"""Operators, variants, the execution adapter and the encoder.

Build a variant with :meth:`Variant.build` from a suite name (:data:`VARIANTS`) or a spec string
such as ``"merge(by=full,args=flat)|rename(style=opaque)"``; open an :class:`AdapterSession` per
episode to decode model calls; use :meth:`Variant.plan` to encode native actions.
"""

from toolprism.shaping._adapter import AdapterSession, Decision
from toolprism.shaping._layer import (
    CONTROLS,
    Answer,
    Batch,
    Control,
    Decoded,
    Execute,
    Forward,
    Layer,
    NativeLayer,
    Operator,
    Plan,
)
from toolprism.shaping._pipeline import DEFAULT_VARIANTS, OPERATORS, VARIANTS, Variant, parse_spec, resolve

__all__ = [
    "CONTROLS",
    "DEFAULT_VARIANTS",
    "OPERATORS",
    "VARIANTS",
    "AdapterSession",
    "Answer",
    "Batch",
    "Control",
    "Decision",
    "Decoded",
    "Execute",
    "Forward",
    "Layer",
    "NativeLayer",
    "Operator",
    "Plan",
    "Variant",
    "parse_spec",
    "resolve",
]
