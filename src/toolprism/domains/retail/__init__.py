"""The ``retail`` domain: an online store's customer-service desk in the style of tau2-bench.

Thirty users, fifteen products with variants and sixty orders whose life cycle (pending,
processed, delivered, cancelled, return or exchange requested) constrains what an agent may do.
Sixteen operations (nine reads, seven writes) as in Xu et al.'s retail environment; the policy
text says which reads each request calls for, and the operations enforce its hard rules with
:class:`~toolprism.errors.DomainError` before changing anything. Tasks are multi-step: the gold
is the whole reference trace, identification and reads included.
"""

from __future__ import annotations

import functools
from typing import ClassVar

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.retail._ops import OPERATIONS
from toolprism.domains.retail._policy import POLICY
from toolprism.domains.retail._state import OrderStatus, RetailState
from toolprism.domains.retail._tasks import drafts
from toolprism.domains.retail._world import generate


@functools.lru_cache(maxsize=8)
def _master(world_seed: int) -> RetailState:
    """The generated world of ``world_seed``, kept so that each fresh world is one (fast) copy."""
    return generate(world_seed)


@DOMAINS.register("retail")
class Retail(Domain):
    """An online store's service desk: identify users, read orders and products, change orders."""

    name = "retail"
    policy = POLICY
    operations = OPERATIONS
    reply_values: ClassVar[dict[str, tuple[str, ...]]] = {"status": tuple(s.value for s in OrderStatus)}
    """Legal values of reply fields: an order's ``status`` (the ``status`` filter of
    ``list_user_orders`` also takes ``all``, which no order has); Xu et al.'s ``Ns`` arm draws
    the false status from these."""
    rereading_tools: ClassVar[tuple[str, ...]] = ("get_order_details", "get_user_details")
    """Xu et al.'s two state-rereading tools: the reads that fetch again the current state of the
    order and of the user a request is about (status, items, payments; the user's orders, address
    and payment methods). The other reads look identifiers up (``find_user_id_*``), list the
    catalogue or one product, list orders by filter, track a shipment or calculate: none re-reads
    what a falsified order record would contradict."""
    identifier_field: ClassVar[str | None] = "user_id"
    """Xu et al.'s ``Nm`` field: the order record's ``user_id``, the identifier the conversation
    establishes before the site (the identification step returns it verbatim), so the context
    may carry its true value verbatim; ``verbatim_in_prefix`` records whether it does."""

    def initial_state(self, world_seed: int) -> RetailState:
        """The world of ``world_seed``: 30 users, 15 products, 60 orders (deterministic)."""
        return _master(world_seed).model_copy(deep=True)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The retail tasks posed on the world of ``world_seed`` (easy and hard forms)."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Retail", "RetailState"]
