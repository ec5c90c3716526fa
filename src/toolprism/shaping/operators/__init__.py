"""The operators, one short module each. Registered in :data:`toolprism.shaping.OPERATORS`."""

from toolprism.shaping.operators._merge import Merge
from toolprism.shaping.operators._rename import Rename
from toolprism.shaping.operators._split import Split
from toolprism.shaping.operators._transaction import Transaction, TransactionState

__all__ = ["Merge", "Rename", "Split", "Transaction", "TransactionState"]
