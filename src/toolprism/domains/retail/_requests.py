"""What a retail user asks for: one :class:`~toolprism.domains._phrasing.Request` per wish.

Each builder reads the fresh world, phrases one wish directly and indirectly, and lists the gold
actions the policy (:data:`toolprism.domains.retail._policy.POLICY`) calls for, reads included:
``get_order_details`` before any change to an order, ``get_user_details`` only for a payment
method or address the user does not spell out, ``get_product_details`` once per product whose
items are swapped. Values the user cannot know (item ids, payment method ids, the user id) come
from those replies; everything else is stated in the text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains.retail._rules import paid_with
from toolprism.domains.retail._state import Address, Item, Order, OrderItem, OrderStatus, PaymentMethod, RetailState
from toolprism.schema import JSON

Action = tuple[str, dict[str, JSON]]

REASONS: dict[str, str] = {
    "no longer needed": "it is {}",
    "ordered by mistake": "it was {}",
}
"""Cancellation reason → a clause that states it (``{}``: the reason)."""


def because(reason: str, stated: bool = True) -> str:
    """The clause of ``reason``, the reason a slot unless ``stated`` is false (not a gold value)."""
    return REASONS[reason].format(slot(reason) if stated else reason)


# ---- wording helpers --------------------------------------------------------------------------

_BRANDS = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "American Express card"}


def address_text(a: Address) -> str:
    """An address in one line, every field a slot."""
    f = {k: slot(v) for k, v in a.model_dump().items()}
    return f"{f['address1']}, {f['address2']}, {f['city']}, {f['state']} {f['zip']}, {f['country']}"


def options_text(options: dict[str, str]) -> str:
    """``{"color": "red", "size": "M"}`` → ``"color red and size M"``."""
    parts = [f"{k} {v}" for k, v in options.items()]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def method_text(method: PaymentMethod) -> str:
    """How a user names one of their payment methods (unique per user: one card per brand)."""
    if method.source == "credit_card":
        return f"my {_BRANDS.get(method.brand or '', 'credit card')} ending in {method.last_four}"
    return "my PayPal account" if method.source == "paypal" else "my gift card"


def _names(items: Sequence[OrderItem]) -> str:
    names = [f"the {i.name}" for i in items]
    return " and ".join(names)


def _order(order_id: str, *, told: bool = True) -> Action:
    return ("get_order_details", {"order_id": order_id if told else replied(order_id)})


def _profile(user_id: str) -> Action:
    return ("get_user_details", {"user_id": replied(user_id)})


def _listed(user_id: str, status: str) -> Action:
    return ("list_user_orders", {"user_id": replied(user_id), "status": status})


# ---- order changes ----------------------------------------------------------------------------


def cancel(order: Order, reason: str) -> Request:
    """Cancel a pending order for ``reason``."""
    oid, why = slot(order.order_id), because(reason)
    return request(
        [f"cancel order {oid} because {why}", f"cancel my order {oid} as {why}"],
        [f"make sure order {oid} never ships, since {why}", f"call off order {oid} for me, as {why}"],
        _order(order.order_id),
        ("cancel_order", {"order_id": order.order_id, "reason": reason}),
    )


def order_address(order: Order, new: Address) -> Request:
    """Ship a pending order to an address the user spells out."""
    oid, where = slot(order.order_id), address_text(new)
    return request(
        [f"change the shipping address of order {oid} to {where}", f"update order {oid} to ship to {where}"],
        [f"have order {oid} delivered to {where} instead", f"redirect order {oid} so it arrives at {where}"],
        _order(order.order_id),
        ("modify_order_address", {"order_id": order.order_id, **new.model_dump()}),
    )


def order_to_default(state: RetailState, order: Order) -> Request:
    """Ship a pending order to the user's default address (read from the profile)."""
    oid, home = slot(order.order_id), state.users[order.user_id].address
    return request(
        [f"change the shipping address of order {oid} to my default address on file"],
        [f"send order {oid} to the default address in my profile rather than where it is headed now"],
        _profile(order.user_id),
        _order(order.order_id),
        ("modify_order_address", {"order_id": order.order_id, **{k: replied(v) for k, v in home.model_dump().items()}}),
    )


def payment(order: Order, method: PaymentMethod) -> Request:
    """Pay a pending order with another of the user's methods, named by kind (id from the profile)."""
    oid, how = slot(order.order_id), method_text(method)
    return request(
        [f"pay for order {oid} with {how} instead", f"switch the payment method of order {oid} to {how}"],
        [f"move the charge for order {oid} over to {how}", f"settle order {oid} with {how} rather than how I paid"],
        _order(order.order_id),
        _profile(order.user_id),
        (
            "modify_pending_order_payment",
            {"order_id": order.order_id, "payment_method_id": replied(method.payment_method_id)},
        ),
    )


def return_items(order: Order, items: Sequence[OrderItem], gift_card: PaymentMethod | None) -> Request:
    """Return items of a delivered order, refunded to the original method or a gift card."""
    oid, what = slot(order.order_id), _names(items)
    where = "my gift card" if gift_card else "the original payment method"
    method = gift_card.payment_method_id if gift_card else paid_with(order)
    reads = [_order(order.order_id), *([_profile(order.user_id)] if gift_card else [])]
    item_ids = replied([i.item_id for i in items])
    args = {"order_id": order.order_id, "item_ids": item_ids, "payment_method_id": replied(method)}
    return request(
        [f"return {what} from order {oid} with the refund going to {where}"],
        [f"send back {what} I got in order {oid} and put the money on {where}"],
        *reads,
        ("return_delivered_order_items", args),
    )


def _swap_gold(
    order: Order, swaps: Sequence[tuple[OrderItem, Item]], method: PaymentMethod | None, op: str
) -> list[Action]:
    reads: list[Action] = [_order(order.order_id)]
    reads += [("get_product_details", {"product_id": replied(old.product_id)}) for old, _ in swaps]
    if method is not None:
        reads.append(_profile(order.user_id))
    args = {
        "order_id": order.order_id,
        "item_ids": replied([old.item_id for old, _ in swaps]),
        "new_item_ids": replied([new.item_id for _, new in swaps]),
        "payment_method_id": replied(method.payment_method_id if method else paid_with(order)),
    }
    return [*reads, (op, args)]


def _swap_text(swaps: Sequence[tuple[OrderItem, Item]]) -> str:
    return " and ".join(f"the {old.name} for the one with {options_text(new.options)}" for old, new in swaps)


def _payer_text(method: PaymentMethod | None) -> str:
    return method_text(method) if method else "the payment method I used for the order"


def swap_items(order: Order, swaps: Sequence[tuple[OrderItem, Item]], method: PaymentMethod | None) -> Request:
    """Swap items of a pending order (or exchange those of a delivered one) for other variants.

    ``method`` pays the difference; ``None`` means the method the order was paid with.
    """
    oid, what, payer = slot(order.order_id), _swap_text(swaps), _payer_text(method)
    if order.status is OrderStatus.PENDING:
        direct = f"in order {oid}, change {what}, with any price difference on {payer}"
        indirect = f"replace {what} in order {oid} before it ships, settling the difference with {payer}"
        op = "modify_pending_order_items"
    else:
        direct = f"exchange {what} from order {oid}, with any price difference on {payer}"
        indirect = f"trade in {what} I received in order {oid}, settling the difference with {payer}"
        op = "exchange_delivered_order_items"
    return request(direct, indirect, *_swap_gold(order, swaps, method, op))


def swap_by_status(order: Order, swaps: Sequence[tuple[OrderItem, Item]]) -> Request:
    """Swap if still pending, else exchange: the status in the order reply picks the write."""
    oid, what = slot(order.order_id), _swap_text(swaps)
    clause = (
        f"swap {what}, as a change to the order if it is still pending or as an exchange if it has "
        "been delivered, with any price difference on the payment method I used"
    )
    op = "modify_pending_order_items" if order.status is OrderStatus.PENDING else "exchange_delivered_order_items"
    return request(
        f"look up order {oid}: {clause}",
        f"check where order {oid} stands, then {clause}",
        *_swap_gold(order, swaps, None, op),
    )


def cancel_or_return(order: Order, item: OrderItem) -> Request:
    """Cancel if pending, return ``item`` if delivered, nothing otherwise (decided by the status)."""
    oid = slot(order.order_id)
    why = because("no longer needed", order.status is OrderStatus.PENDING)
    clause = (
        f"if it is still pending cancel it because {why}, and if it has "
        f"already been delivered return the {item.name} for a refund to the original payment method"
    )
    gold: list[Action] = [_order(order.order_id)]
    if order.status is OrderStatus.PENDING:
        gold.append(("cancel_order", {"order_id": order.order_id, "reason": "no longer needed"}))
    elif order.status is OrderStatus.DELIVERED:
        paid = replied(paid_with(order))
        args = {"order_id": order.order_id, "item_ids": replied([item.item_id]), "payment_method_id": paid}
        gold.append(("return_delivered_order_items", args))
    return request(f"check order {oid}: {clause}", f"find out how far along order {oid} is, then {clause}", *gold)


# ---- account-level wishes ---------------------------------------------------------------------


def user_address(user_id: str, new: Address) -> Request:
    """Change the default address."""
    where = address_text(new)
    return request(
        [f"update my default address to {where}", f"change the default address on my account to {where}"],
        [f"make {where} the address on my account from now on, as I have moved"],
        ("modify_user_address", {"user_id": replied(user_id), **new.model_dump()}),
    )


def cancel_all(state: RetailState, user_id: str, reason: str) -> Request:
    """Cancel every pending order of the user (ids from ``list_user_orders``)."""
    pending = [o for o in state.users[user_id].order_ids if state.orders[o].status is OrderStatus.PENDING]
    gold: list[Action] = [_listed(user_id, "pending")]
    for oid in pending:
        gold += [_order(oid, told=False), ("cancel_order", {"order_id": replied(oid), "reason": reason})]
    why = because(reason).replace("it is", "they are").replace("it was", "they were")
    p = slot("pending")
    return request(
        f"cancel all of my {p} orders because {why}",
        f"call off everything of mine that is still {p}, since {why}",
        *gold,
    )


def cancel_described(order: Order, product: str, reason: str) -> Request:
    """Cancel the one pending order holding ``product``, found with ``list_user_orders``."""
    why, p = because(reason), slot("pending")
    return request(
        f"cancel my {p} order with the {product} in it because {why}",
        f"stop my {p} order that includes the {product} from going out, since {why}",
        _listed(order.user_id, "pending"),
        _order(order.order_id, told=False),
        ("cancel_order", {"order_id": replied(order.order_id), "reason": reason}),
    )


def move_pending(state: RetailState, user_id: str, new: Address) -> Request:
    """New default address, and the same for the user's (single) pending order."""
    (oid,) = [o for o in state.users[user_id].order_ids if state.orders[o].status is OrderStatus.PENDING]
    where, fields, p = address_text(new), new.model_dump(), slot("pending")
    return request(
        f"update my default address to {where} and ship my {p} orders there too",
        f"make {where} my address from now on, and redirect whatever I have {p} to it as well",
        ("modify_user_address", {"user_id": replied(user_id), **fields}),
        _listed(user_id, "pending"),
        _order(oid, told=False),
        ("modify_order_address", {"order_id": replied(oid), **fields}),
    )


# ---- questions --------------------------------------------------------------------------------


def order_status(order: Order) -> Request:
    """Ask for an order's status."""
    oid = slot(order.order_id)
    return request(
        [f"tell me the status of order {oid}", f"look up the current status of my order {oid}"],
        [f"let me know where things stand with order {oid}"],
        _order(order.order_id),
    )


def tracking(order: Order) -> Request:
    """Ask which carrier has a shipped order and its tracking number."""
    oid = slot(order.order_id)
    return request(
        f"tell me the carrier and tracking number of order {oid}",
        f"let me know who is shipping order {oid} and how I can follow the parcel",
        ("track_order", {"order_id": order.order_id}),
    )


def orders_with_status(user_id: str, status: str) -> Request:
    """Ask which of the user's orders have ``status``."""
    said = slot(status)
    return request(
        f"list my orders that are {said}",
        f"let me know which of my orders are {said} at the moment",
        _listed(user_id, status),
    )


def variants(product_id: str, name: str, *, with_id: bool) -> Request:
    """Ask which variants of a product are available (looking the id up when not given)."""
    if with_id:
        said = slot(product_id)
        return request(
            f"tell me which variants of the {name} with product id {said} are available",
            f"let me know what versions of product {said}, the {name}, I can still buy",
            ("get_product_details", {"product_id": product_id}),
        )
    return request(
        f"tell me which variants of the {name} you have available",
        f"let me know what versions of your {name} I could order right now",
        ("list_all_product_types", {}),
        ("get_product_details", {"product_id": replied(product_id)}),
    )


def product_types() -> Request:
    """Ask which product types the store sells."""
    return request(
        "list all the product types you sell",
        "give me an overview of every kind of product in your store",
        ("list_all_product_types", {}),
    )


# ---- choices the templates share --------------------------------------------------------------


def replacement(rng: random.Random, state: RetailState, item: OrderItem) -> Item | None:
    """An available variant of ``item``'s product other than ``item`` (None if there is none)."""
    choices = [
        v for v in state.products[item.product_id].variants.values() if v.available and v.item_id != item.item_id
    ]
    return rng.choice(choices) if choices else None


def swaps_for(rng: random.Random, state: RetailState, order: Order, count: int) -> list[tuple[OrderItem, Item]]:
    """Up to ``count`` (item in ``order``, replacement variant) pairs, in order of the items."""
    chosen = sorted(rng.sample(range(len(order.items)), min(count, len(order.items))))
    pairs = [(order.items[i], replacement(rng, state, order.items[i])) for i in chosen]
    return [(old, new) for old, new in pairs if new is not None]


def other_payer(rng: random.Random, state: RetailState, order: Order, amount: float) -> PaymentMethod | None:
    """A payment method of the order's user other than the one it was paid with, able to pay
    ``amount`` USD (gift cards need the balance); None if there is none."""
    methods = [
        m
        for m in state.users[order.user_id].payment_methods.values()
        if m.payment_method_id != paid_with(order) and (m.source != "gift_card" or (m.balance or 0) >= amount)
    ]
    return rng.choice(methods) if methods else None


def can_pay(state: RetailState, order: Order, method_id: str, amount: float) -> bool:
    """Whether ``method_id`` of the order's user can be charged ``amount`` USD."""
    method = state.users[order.user_id].payment_methods[method_id]
    return method.source != "gift_card" or amount <= 0 or (method.balance or 0) >= amount
