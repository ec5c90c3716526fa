"""Operators, variants, the execution adapter and the encoder.

Build a variant with :meth:`Variant.build` from a suite name (:data:`VARIANTS`) or a spec string
such as ``"merge(by=full,args=flat)|rename(style=opaque)"``; open an :class:`AdapterSession` per
episode to decode model calls; use :meth:`Variant.plan` to encode native actions.
"""

from toolprism.shaping._adapter import MAX_ARGUMENT_DEPTH, AdapterSession, Decision, read_arguments, reply_text
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
from toolprism.shaping._paper import CATALOG_DOMAIN, PAPER_INSTRUCTION, PAPER_MAX_TURNS, PAPER_VARIANTS, PaperVariant
from toolprism.shaping._pipeline import (
    DEFAULT_VARIANTS,
    OPERATORS,
    PAPER,
    SUITES,
    VARIANTS,
    Variant,
    parse_spec,
    resolve,
    variant_scope,
)
from toolprism.shaping._upgrade import upgrade_spec
from toolprism.shaping.operators import (
    ANTI_SEEDS,
    GROUPINGS,
    RANDOM_SEEDS,
    anti_partition,
    class_method,
    class_partition,
    classes,
    grouping_spec,
    groups_spec,
    qualified_name,
    random_partition,
)

__all__ = [
    "CATALOG_DOMAIN",
    "CONTROLS",
    "Control",
    "DEFAULT_VARIANTS",
    "OPERATORS",
    "PAPER",
    "PAPER_INSTRUCTION",
    "PAPER_MAX_TURNS",
    "PAPER_VARIANTS",
    "SUITES",
    "VARIANTS",
    "AdapterSession",
    "MAX_ARGUMENT_DEPTH",
    "read_arguments",
    "reply_text",
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
    "PaperVariant",
    "Plan",
    "Variant",
    "parse_spec",
    "resolve",
    "variant_scope",
    "ANTI_SEEDS",
    "RANDOM_SEEDS",
    "anti_partition",
    "class_method",
    "class_partition",
    "classes",
    "GROUPINGS",
    "grouping_spec",
    "groups_spec",
    "qualified_name",
    "random_partition",
    "upgrade_spec",
]
