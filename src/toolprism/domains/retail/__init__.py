"""The ``retail`` domain: a deterministic customer-service simulator in the style of tau2-bench.

Users, products with variants, and orders whose life cycle (pending, processed, delivered,
cancelled, return/exchange requested) constrains what an agent may do. Policy rules are enforced
by the operations themselves, which raise :class:`~toolprism.errors.DomainError` before changing
anything.
"""

from __future__ import annotations

from toolprism.domains import DOMAINS
from toolprism.domains._base import Domain, TaskDraft
from toolprism.domains.retail._ops import OPERATIONS
from toolprism.domains.retail._state import RetailState
from toolprism.domains.retail._tasks import drafts
from toolprism.domains.retail._world import generate


@DOMAINS.register("retail")
class Retail(Domain):
    """An online store's service desk: look up users, orders and products; change orders."""

    name = "retail"
    policy = (
        "You are a customer-service agent for an online retail store. The user you are talking to "
        "has already been authenticated and has confirmed their request, so act on it directly "
        "with the ids they give; do only what they ask, and help only that one user. Only pending "
        "orders can be cancelled (reason: 'no longer needed' or 'ordered by mistake') or modified "
        "(shipping address, payment method, or items swapped once for other variants of the same "
        "product); processed orders can no longer be changed. Delivered orders can have items "
        "returned (refund to the original payment method or a gift card) or exchanged for "
        "available variants of the same product. Never make up ids or information."
    )
    operations = OPERATIONS

    def initial_state(self, world_seed: int) -> RetailState:
        """The world of ``world_seed``: ~20 users, 10 products, 40 orders."""
        return generate(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The retail tasks posed on the world of ``world_seed``."""
        return drafts(self.initial_state(world_seed), world_seed)


__all__ = ["Retail", "RetailState"]
