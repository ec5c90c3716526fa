"""The operators, one short module each. Registered in :data:`toolprism.shaping.OPERATORS`."""

from toolprism.shaping.operators._classes import (
    ANTI_SEEDS,
    GROUPINGS,
    RANDOM_SEEDS,
    anti_partition,
    class_method,
    class_partition,
    classes,
    grouping_spec,
    groups_spec,
    is_class_qualified,
    method_names,
    neutral_lengths,
    pad_description,
    qualified_name,
    random_partition,
)
from toolprism.shaping.operators._compose import Compose
from toolprism.shaping.operators._discovery import Discovery, DiscoveryState
from toolprism.shaping.operators._flatten import Flatten
from toolprism.shaping.operators._interval import Interval
from toolprism.shaping.operators._ladder import Ladder
from toolprism.shaping.operators._merge import Merge
from toolprism.shaping.operators._nest import Nest
from toolprism.shaping.operators._reference import Reference, ReferenceState
from toolprism.shaping.operators._rename import Rename
from toolprism.shaping.operators._reorder import Reorder
from toolprism.shaping.operators._split import Split
from toolprism.shaping.operators._strip import Strip
from toolprism.shaping.operators._transaction import Transaction, TransactionState

__all__ = [
    "Compose",
    "ANTI_SEEDS",
    "RANDOM_SEEDS",
    "anti_partition",
    "class_method",
    "class_partition",
    "classes",
    "GROUPINGS",
    "grouping_spec",
    "groups_spec",
    "is_class_qualified",
    "method_names",
    "neutral_lengths",
    "pad_description",
    "qualified_name",
    "random_partition",
    "Discovery",
    "DiscoveryState",
    "Flatten",
    "Interval",
    "Ladder",
    "Merge",
    "Nest",
    "Reference",
    "ReferenceState",
    "Rename",
    "Reorder",
    "Split",
    "Strip",
    "Transaction",
    "TransactionState",
]
