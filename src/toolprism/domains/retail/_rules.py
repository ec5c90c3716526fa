"""Lookups, policy checks and money movements shared by the retail operations.

Every check raises :class:`~toolprism.errors.DomainError` before anything is changed; the hard
rules of the policy (:data:`toolprism.domains.retail._policy.POLICY`) live here.
"""

from __future__ import annotations

from collections import Counter

from toolprism.domains.retail._state import (
    Item,
    Order,
    OrderStatus,
    PaymentMethod,
    RetailState,
    StatusEvent,
    Transaction,
    User,
)
from toolprism.errors import DomainError
from toolprism.schema import JSON


def get_user(db: RetailState, user_id: str) -> User:
    """The user ``user_id``; DomainError if unknown."""
    if user_id not in db.users:
        raise DomainError(f"user {user_id!r} not found")
    return db.users[user_id]


def get_order(db: RetailState, order_id: str, *allowed: OrderStatus) -> Order:
    """The order ``order_id``, whose status must be one of ``allowed`` (if given)."""
    if order_id not in db.orders:
        raise DomainError(f"order {order_id!r} not found")
    order = db.orders[order_id]
    if allowed and order.status not in allowed:
        wanted = " or ".join(s.value for s in allowed)
        raise DomainError(f"order {order_id} is {order.status.value}; this action needs a {wanted} order")
    return order


def get_item(db: RetailState, item_id: str) -> Item:
    """The catalog variant ``item_id``; DomainError if unknown."""
    for product in db.products.values():
        if item_id in product.variants:
            return product.variants[item_id]
    raise DomainError(f"item {item_id!r} not found")


def get_method(user: User, payment_method_id: str) -> PaymentMethod:
    """The user's payment method ``payment_method_id``; DomainError if it is not theirs."""
    if payment_method_id not in user.payment_methods:
        raise DomainError(f"payment method {payment_method_id!r} not found for user {user.user_id}")
    return user.payment_methods[payment_method_id]


def paid_with(order: Order) -> str:
    """Id of the payment method the order is currently paid with (its latest payment)."""
    return next(t.payment_method_id for t in reversed(order.payment_history) if t.transaction_type == "payment")


def total(order: Order) -> float:
    """The order's total price in USD."""
    return round(sum(i.price for i in order.items), 2)


def order_json(order: Order) -> JSON:
    """An order as a JSON reply: status, address, items, payment history, shipments (tracking id
    and item ids; carriers and dates are :func:`tracking_json`'s), ``total`` (USD) and any
    modification, cancellation, return or exchange on record."""
    data = order.model_dump(mode="json", exclude={"status_history", "fulfillments"})
    data["fulfillments"] = [{"tracking_id": f.tracking_id, "item_ids": f.item_ids} for f in order.fulfillments]
    return {**data, "total": total(order)}


def tracking_json(order: Order) -> JSON:
    """An order's shipping record: status, dated status history and shipments with carriers."""
    return {
        "order_id": order.order_id,
        "status": order.status.value,
        "placed_on": order.placed_on,
        "status_history": [e.model_dump(mode="json") for e in order.status_history],
        "fulfillments": [f.model_dump(mode="json") for f in order.fulfillments],
    }


def set_status(db: RetailState, order: Order, status: OrderStatus) -> None:
    """Move ``order`` to ``status`` and record the change, dated ``db.today``."""
    order.status = status
    order.status_history.append(StatusEvent(status=status, date=db.today))


def check_balance(method: PaymentMethod, amount: float) -> None:
    """Refuse charging ``amount`` (USD) to a gift card whose balance is too low."""
    if method.source == "gift_card" and amount > 0 and (method.balance or 0) < amount:
        raise DomainError(
            f"gift card {method.payment_method_id} has insufficient balance ({method.balance:.2f} < {amount:.2f})"
        )


def move_money(order: Order, method: PaymentMethod, amount: float) -> None:
    """Charge ``amount`` USD (refund if negative) to ``method`` and record it on ``order``."""
    if method.source == "gift_card":
        method.balance = round((method.balance or 0) - amount, 2)
    if amount:
        kind = "payment" if amount > 0 else "refund"
        order.payment_history.append(
            Transaction(transaction_type=kind, amount=round(abs(amount), 2), payment_method_id=method.payment_method_id)
        )


def check_in_order(order: Order, item_ids: list[str]) -> None:
    """Refuse item ids the order does not hold (as many times as listed)."""
    missing = Counter(item_ids) - Counter(i.item_id for i in order.items)
    if missing:
        raise DomainError(f"items not in order {order.order_id}: {sorted(missing)}")


def swap(db: RetailState, order: Order, item_ids: list[str], new_item_ids: list[str]) -> list[Item]:
    """Check swapping ``item_ids`` of ``order`` for ``new_item_ids``; return the new variants.

    Raises:
        DomainError: lengths differ, an item is not in the order, a new item is unknown, the
            same as the old one, another product's, or unavailable.
    """
    if len(item_ids) != len(new_item_ids):
        raise DomainError("item_ids and new_item_ids must have the same length")
    check_in_order(order, item_ids)
    new_items = []
    for old_id, new_id in zip(item_ids, new_item_ids, strict=True):
        old, new = get_item(db, old_id), get_item(db, new_id)
        if new_id == old_id:
            raise DomainError(f"item {new_id} is the item already in the order")
        if new.product_id != old.product_id:
            raise DomainError(f"item {new_id} is not the same product as item {old_id}")
        if not new.available:
            raise DomainError(f"item {new_id} is not available")
        new_items.append(new)
    return new_items


def price_difference(order: Order, item_ids: list[str], new_items: list[Item]) -> float:
    """Price of ``new_items`` minus that of the replaced ``item_ids``, USD (positive: user pays)."""
    prices = {i.item_id: i.price for i in order.items}
    return round(sum(i.price for i in new_items) - sum(prices[i] for i in item_ids), 2)
