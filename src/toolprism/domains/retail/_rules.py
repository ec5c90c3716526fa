"""Lookups, policy checks and money movements shared by the retail operations.

Every check raises :class:`~toolprism.errors.DomainError` before anything is changed.
"""

from __future__ import annotations

from collections import Counter

from toolprism.domains.retail._state import (
    Item,
    Order,
    OrderStatus,
    PaymentMethod,
    RetailState,
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
    """The catalog item ``item_id``; DomainError if unknown."""
    for product in db.products.values():
        if item_id in product.items:
            return product.items[item_id]
    raise DomainError(f"item {item_id!r} not found")


def get_method(user: User, payment_method_id: str) -> PaymentMethod:
    """The user's payment method ``payment_method_id``; DomainError if not theirs."""
    if payment_method_id not in user.payment_methods:
        raise DomainError(f"payment method {payment_method_id!r} not found for user {user.user_id}")
    return user.payment_methods[payment_method_id]


def total(order: Order) -> float:
    """The order's total price."""
    return round(sum(i.price for i in order.items), 2)


def order_json(order: Order) -> JSON:
    """An order as a JSON reply, with its total."""
    return {**order.model_dump(mode="json"), "total": total(order)}


def check_balance(method: PaymentMethod, amount: float) -> None:
    """Refuse charging ``amount`` to a gift card whose balance is too low."""
    if method.kind == "gift_card" and amount > 0 and (method.balance or 0) < amount:
        raise DomainError(f"gift card {method.payment_method_id} has insufficient balance ({method.balance})")


def move_money(order: Order, method: PaymentMethod, amount: float) -> None:
    """Charge ``amount`` (refund if negative) to ``method`` and record it on ``order``."""
    if method.kind == "gift_card":
        method.balance = round((method.balance or 0) - amount, 2)
    if amount:
        kind = "payment" if amount > 0 else "refund"
        order.transactions.append(
            Transaction(kind=kind, amount=abs(amount), payment_method_id=method.payment_method_id)
        )


def swap(db: RetailState, order: Order, item_ids: list[str], new_item_ids: list[str]) -> list[Item]:
    """Check swapping ``item_ids`` of ``order`` for ``new_item_ids``; return the new items."""
    if len(item_ids) != len(new_item_ids):
        raise DomainError("item_ids and new_item_ids must have the same length")
    check_in_order(order, item_ids)
    new_items = []
    for old_id, new_id in zip(item_ids, new_item_ids, strict=True):
        old, new = get_item(db, old_id), get_item(db, new_id)
        if new.product_id != old.product_id:
            raise DomainError(f"item {new_id} is not the same product as item {old_id}")
        if new_id == old_id:
            raise DomainError(f"item {new_id} is the same as the item it replaces")
        if not new.available:
            raise DomainError(f"item {new_id} is not available")
        new_items.append(new)
    return new_items


def check_in_order(order: Order, item_ids: list[str]) -> None:
    """Refuse item ids the order does not hold (as many times as listed)."""
    missing = Counter(item_ids) - Counter(i.item_id for i in order.items)
    if missing:
        raise DomainError(f"items not in order {order.order_id}: {sorted(missing)}")


def price_difference(order: Order, item_ids: list[str], new_items: list[Item]) -> float:
    """Price of ``new_items`` minus that of the replaced ``item_ids`` (positive: user pays)."""
    prices = {i.item_id: i.price for i in order.items}
    return round(sum(i.price for i in new_items) - sum(prices[i] for i in item_ids), 2)
