"""Deterministic task generation for the retail domain: first-person queries with gold actions."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from toolprism.domains._base import TaskDraft
from toolprism.domains.retail._rules import total
from toolprism.domains.retail._state import Address, Order, OrderStatus, RetailState, User
from toolprism.domains.retail._world import random_address

Gold = list[tuple[str, dict]]
Template = Callable[[random.Random, RetailState], Iterator[TaskDraft]]
_TEMPLATES: list[tuple[Template, int]] = []


def _template(count: int) -> Callable[[Template], Template]:
    """Register a template that yields up to ``count`` drafts."""

    def register(fn: Template) -> Template:
        _TEMPLATES.append((fn, count))
        return fn

    return register


def drafts(state: RetailState, world_seed: int) -> list[TaskDraft]:
    """Every task posed on ``state`` (the world of ``world_seed``), deterministically."""
    rng = random.Random(world_seed)
    out: list[TaskDraft] = []
    for template, count in _TEMPLATES:
        out.extend(list(template(rng, state))[:count])
    return out


# ---- helpers --------------------------------------------------------------------------------


def _hello(rng: random.Random, user: User, *, by_id: bool = False) -> str:
    who = f"user id {user.user_id}" if by_id else user.email
    return rng.choice([f"Hi, I'm {user.name} ({who}).", f"Hello, this is {user.name}, {who}."])


def _pick(rng: random.Random, pool: list, count: int) -> list:
    return rng.sample(pool, min(count, len(pool)))


def _orders(state: RetailState, status: OrderStatus) -> list[Order]:
    return [o for o in state.orders.values() if o.status is status]


def _address_text(a: Address) -> str:
    return f"{a.address1}, {a.address2}, {a.city}, {a.state}, {a.country}, {a.zip}"


def _options(options: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in options.items())


def _replacement(rng: random.Random, state: RetailState, order: Order) -> tuple[str, str, str]:
    """An item of ``order`` and an available other variant: (old id, new id, description)."""
    item = rng.choice(order.items)
    choices = [i for i in state.products[item.product_id].items.values() if i.available and i.item_id != item.item_id]
    new = rng.choice(choices)
    old = f"the {item.name} ({_options(item.options)}, item {item.item_id})"
    text = f"{old} for item {new.item_id} ({_options(new.options)})"
    return item.item_id, new.item_id, text


def _plain_method(user: User) -> str:
    return next(m for m in user.payment_methods.values() if m.kind == "credit_card").payment_method_id


# ---- single-action writes -------------------------------------------------------------------


@_template(6)
def cancel(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel a pending order for a stated reason."""
    reasons = {
        "no longer needed": "it is no longer needed.",
        "ordered by mistake": "it was ordered by mistake.",
    }
    for order in _pick(rng, _orders(state, OrderStatus.PENDING), 6):
        reason = rng.choice(sorted(reasons))
        hello = _hello(rng, state.users[order.user_id])
        query = f"{hello} Please cancel my order {order.order_id}; {reasons[reason]}"
        yield TaskDraft("cancel", query, [("cancel_order", {"order_id": order.order_id, "reason": reason})])


def _address_args(address: Address) -> dict:
    return address.model_dump()


@_template(6)
def order_address(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ship a pending order to a new address."""
    for order in _pick(rng, _orders(state, OrderStatus.PENDING), 6):
        new = random_address(rng)
        query = (
            f"{_hello(rng, state.users[order.user_id])} Please change the shipping address of "
            f"order {order.order_id} to {_address_text(new)}."
        )
        gold = [("modify_order_address", {"order_id": order.order_id, **_address_args(new)})]
        yield TaskDraft("order_address", query, gold)


@_template(5)
def default_address(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Change a user's default address."""
    for user in _pick(rng, list(state.users.values()), 5):
        new = random_address(rng)
        hello = _hello(rng, user, by_id=True)
        query = f"{hello} I moved; please update my default address to {_address_text(new)}."
        yield TaskDraft(
            "default_address",
            query,
            [("modify_user_address", {"user_id": user.user_id, **_address_args(new)})],
        )


@_template(5)
def payment(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Pay a pending order with another saved method."""
    pool = []
    for order in _orders(state, OrderStatus.PENDING):
        methods = state.users[order.user_id].payment_methods.values()
        pool += [
            (order, m)
            for m in methods
            if m.payment_method_id != order.payment_method_id
            and (m.kind != "gift_card" or (m.balance or 0) >= total(order))
        ]
    for order, method in _pick(rng, pool, 5):
        query = (
            f"{_hello(rng, state.users[order.user_id])} For order {order.order_id}, please "
            f"charge my {method.kind.replace('_', ' ')} {method.payment_method_id} instead of the "
            "current payment method."
        )
        args = {"order_id": order.order_id, "payment_method_id": method.payment_method_id}
        yield TaskDraft("payment", query, [("modify_pending_order_payment", args)])


def _return(rng: random.Random, state: RetailState, order: Order) -> tuple[str, dict]:
    items = _pick(rng, order.items, rng.randint(1, 2))
    user = state.users[order.user_id]
    cards = [m.payment_method_id for m in user.payment_methods.values() if m.kind == "gift_card"]
    method = rng.choice([order.payment_method_id, *cards])
    where = "the original payment method" if method == order.payment_method_id else "my gift card"
    names = " and ".join(f"the {i.name} (item {i.item_id})" for i in items)
    text = f"return {names} from order {order.order_id}, refunded to {where} {method}"
    args = {
        "order_id": order.order_id,
        "item_ids": [i.item_id for i in items],
        "payment_method_id": method,
    }
    return text, args


@_template(6)
def return_items(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Return one or two items of a delivered order."""
    for order in _pick(rng, _orders(state, OrderStatus.DELIVERED), 6):
        text, args = _return(rng, state, order)
        query = f"{_hello(rng, state.users[order.user_id])} I'd like to {text}."
        yield TaskDraft("return_items", query, [("return_delivered_order_items", args)])


@_template(5)
def exchange(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Exchange an item of a delivered order for another variant."""
    for order in _pick(rng, _orders(state, OrderStatus.DELIVERED), 5):
        user = state.users[order.user_id]
        old, new, text = _replacement(rng, state, order)
        method = _plain_method(user)
        query = (
            f"{_hello(rng, user)} In order {order.order_id}, I want to exchange {text}. "
            f"Use {method} for any price difference."
        )
        args = {
            "order_id": order.order_id,
            "item_ids": [old],
            "new_item_ids": [new],
            "payment_method_id": method,
        }
        yield TaskDraft("exchange", query, [("exchange_delivered_order_items", args)])


@_template(5)
def modify_items(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Swap an item of a pending order for another variant before it ships."""
    for order in _pick(rng, _orders(state, OrderStatus.PENDING), 5):
        user = state.users[order.user_id]
        old, new, text = _replacement(rng, state, order)
        method = _plain_method(user)
        query = (
            f"{_hello(rng, user)} Before order {order.order_id} ships, please change {text}. "
            f"Settle the price difference with {method}."
        )
        args = {
            "order_id": order.order_id,
            "item_ids": [old],
            "new_item_ids": [new],
            "payment_method_id": method,
        }
        yield TaskDraft("modify_items", query, [("modify_pending_order_items", args)])


# ---- questions (gold: the one read that answers) --------------------------------------------


@_template(5)
def order_status(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ask for the status of an order."""
    for order in _pick(rng, list(state.orders.values()), 5):
        hello = _hello(rng, state.users[order.user_id])
        query = f"{hello} What is the status of my order {order.order_id}?"
        yield TaskDraft("order_status", query, [("get_order_details", {"order_id": order.order_id})])


@_template(4)
def availability(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ask which variants of a product are in stock."""
    for product in _pick(rng, list(state.products.values()), 4):
        user = rng.choice(list(state.users.values()))
        query = (
            f"{_hello(rng, user)} Which variants of the {product.name} (product id {product.product_id}) are in stock?"
        )
        yield TaskDraft("availability", query, [("get_product_details", {"product_id": product.product_id})])


@_template(3)
def profile(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ask which default address is on file."""
    for user in _pick(rng, list(state.users.values()), 3):
        hello = _hello(rng, user, by_id=True)
        query = f"{hello} Which default shipping address do you have on file for me?"
        yield TaskDraft("profile", query, [("get_user_details", {"user_id": user.user_id})])


# ---- multi-action ---------------------------------------------------------------------------


@_template(4)
def move_everything(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Change the default address and the address of every pending order (2-3 actions)."""
    users = [u for u in state.users.values() if any(state.orders[o].status is OrderStatus.PENDING for o in u.order_ids)]
    for user in _pick(rng, users, 4):
        pending = [o for o in user.order_ids if state.orders[o].status is OrderStatus.PENDING][:2]
        new = random_address(rng)
        query = (
            f"{_hello(rng, user, by_id=True)} I moved to {_address_text(new)}. Please update my "
            "default address and the shipping address of my pending order(s) "
            f"{' and '.join(pending)}."
        )
        gold: Gold = [("modify_user_address", {"user_id": user.user_id, **_address_args(new)})]
        gold += [("modify_order_address", {"order_id": o, **_address_args(new)}) for o in pending]
        yield TaskDraft("move_everything", query, gold)


@_template(4)
def cancel_and_return(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel a pending order and return items of a delivered one (2 actions)."""
    pairs = []
    for user in state.users.values():
        orders = [state.orders[o] for o in user.order_ids]
        pending = [o for o in orders if o.status is OrderStatus.PENDING]
        delivered = [o for o in orders if o.status is OrderStatus.DELIVERED]
        pairs += [(p, d) for p in pending for d in delivered]
    for pending, delivered in _pick(rng, pairs, 4):
        text, args = _return(rng, state, delivered)
        query = (
            f"{_hello(rng, state.users[pending.user_id])} Two things: cancel order "
            f"{pending.order_id} because it was ordered by mistake, and {text}."
        )
        gold: Gold = [
            ("cancel_order", {"order_id": pending.order_id, "reason": "ordered by mistake"}),
            ("return_delivered_order_items", args),
        ]
        yield TaskDraft("cancel_and_return", query, gold)
