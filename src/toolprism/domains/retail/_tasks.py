"""Task templates of the retail domain: multi-step customer-service conversations in one message.

A task is one user who introduces themselves (email, or name and zip code) and asks for one or
more things (:mod:`toolprism.domains.retail._requests`). The gold is the whole reference trace the
policy calls for: the identification lookup, the reads, then the writes. Most tasks are
``compositional`` (later arguments come from earlier replies: the user id, item ids, payment
method ids; or the order's status decides the write), some ``compound`` (two independent changes
by one user) and a few ``single`` catalog questions. Xu et al.'s fault-arm study injects at the
first ``get_order_details`` at position two or later; most templates put one there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from toolprism.domains._base import TaskDraft
from toolprism.domains._grammar import slot
from toolprism.domains._phrasing import Request, draft, introduced
from toolprism.domains.retail import _requests as ask
from toolprism.domains.retail._rules import paid_with, price_difference, total
from toolprism.domains.retail._state import Order, OrderStatus, RetailState, User
from toolprism.domains.retail._world import random_address

MAX_GOLD = 6
"""Most gold calls per task: under the ``transaction`` variant each call takes three turns, so
six calls plus the answer (19 turns) fit the episode's default limit of twenty."""

Template = Callable[[random.Random, RetailState], Iterator[TaskDraft]]
TEMPLATES: dict[str, tuple[Template, int]] = {}
"""Template name → (generator, most drafts kept), in task order."""


def _template(count: int) -> Callable[[Template], Template]:
    def register(fn: Template) -> Template:
        TEMPLATES[fn.__name__] = (fn, count)
        return fn

    return register


def drafts(state: RetailState, world_seed: int) -> list[TaskDraft]:
    """Every task posed on the fresh world ``state`` of ``world_seed``, in template order.

    Deterministic: one RNG seeded ``"retail/tasks/<seed>"``, apart from the world's own stream.
    """
    rng = random.Random(f"retail/tasks/{world_seed}")
    out: list[TaskDraft] = []
    for fn, count in TEMPLATES.values():
        out.extend(list(fn(rng, state))[:count])
    return out


# ---- helpers --------------------------------------------------------------------------------


def _introduce(rng: random.Random, user: User) -> tuple[str, str, tuple[str, dict]]:
    """Easy and hard self-introductions and the lookup the policy calls for (email or name+zip)."""
    if rng.random() < 0.7:
        email = slot(user.email)
        easy = rng.choice([f"Hi, I'm {user.name} ({email}).", f"Hello, this is {user.name}, email {email}."])
        hard = rng.choice(
            [f"Hey there, {user.name} writing, you'll find me under {email}.", f"Hi! My email is {email}."]
        )
        return easy, hard, ("find_user_id_by_email", {"email": user.email})
    zip_code, name = slot(user.address.zip), f"{slot(user.first_name)} {slot(user.last_name)}"
    easy = f"Hi, I'm {name} and my zip code is {zip_code}."
    hard = rng.choice([f"Hello, {name} here, from zip code {zip_code}.", f"It's {name}, zip {zip_code}, checking in."])
    zip_code = user.address.zip
    lookup = {"first_name": user.first_name, "last_name": user.last_name, "zip": zip_code}
    return easy, hard, ("find_user_id_by_name_zip", lookup)


def _conversation(
    rng: random.Random, template: str, user: User, requests: list[Request], kind: str = "compositional"
) -> TaskDraft:
    """A draft for ``user``'s ``requests``, introduced first and identified first in the gold.

    Raises:
        ValueError: the gold would have more than :data:`MAX_GOLD` calls (a template bug).
    """
    body = draft(rng, template, requests, kind=kind)  # type: ignore[arg-type]
    if len(body.gold) + 1 > MAX_GOLD:
        raise ValueError(f"{template}: {len(body.gold) + 1} gold calls, at most {MAX_GOLD}")
    return introduced(body, *_introduce(rng, user))


def _orders(state: RetailState, *statuses: OrderStatus) -> list[Order]:
    return [o for o in state.orders.values() if o.status in statuses]


def _pick(rng: random.Random, pool: list, count: int) -> list:
    return rng.sample(pool, min(count, len(pool)))


def _user_orders(state: RetailState, user: User, status: OrderStatus) -> list[Order]:
    return [state.orders[o] for o in user.order_ids if state.orders[o].status is status]


def _pairs(state: RetailState, first: OrderStatus, second: OrderStatus) -> list[tuple[Order, Order]]:
    """Pairs of different orders of one user, with the given statuses."""
    return [
        (a, b)
        for user in state.users.values()
        for a in _user_orders(state, user, first)
        for b in _user_orders(state, user, second)
        if a.order_id != b.order_id
    ]


# ---- one change to one order ------------------------------------------------------------------


@_template(7)
def cancel(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel a pending order for a stated reason."""
    for order in _pick(rng, _orders(state, OrderStatus.PENDING), 7):
        request = ask.cancel(order, rng.choice(sorted(ask.REASONS)))
        yield _conversation(rng, "cancel", state.users[order.user_id], [request])


@_template(6)
def order_address(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ship a pending order to a new address stated in full."""
    for order in _pick(rng, _orders(state, OrderStatus.PENDING), 6):
        request = ask.order_address(order, random_address(rng))
        yield _conversation(rng, "order_address", state.users[order.user_id], [request])


@_template(4)
def order_to_default(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ship a pending order that goes elsewhere to the default address (read from the profile)."""
    pool = [o for o in _orders(state, OrderStatus.PENDING) if o.address != state.users[o.user_id].address]
    for order in _pick(rng, pool, 4):
        yield _conversation(rng, "order_to_default", state.users[order.user_id], [ask.order_to_default(state, order)])


@_template(7)
def payment(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Pay a pending order with another saved method, named by kind."""
    for order in rng.sample(_orders(state, OrderStatus.PENDING), len(_orders(state, OrderStatus.PENDING))):
        method = ask.other_payer(rng, state, order, total(order))
        if method is not None:
            yield _conversation(rng, "payment", state.users[order.user_id], [ask.payment(order, method)])


def _return_request(rng: random.Random, state: RetailState, order: Order) -> Request:
    items = sorted(rng.sample(order.items, min(len(order.items), rng.choice([1, 1, 2]))), key=order.items.index)
    user = state.users[order.user_id]
    cards = [
        m for m in user.payment_methods.values() if m.source == "gift_card" and m.payment_method_id != paid_with(order)
    ]
    gift_card = cards[0] if cards and rng.random() < 0.4 else None
    return ask.return_items(order, items, gift_card)


@_template(8)
def return_items(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Return one or two items of a delivered order (refund to the original method or a gift card)."""
    for order in _pick(rng, _orders(state, OrderStatus.DELIVERED), 8):
        yield _conversation(rng, "return_items", state.users[order.user_id], [_return_request(rng, state, order)])


def _swap_request(rng: random.Random, state: RetailState, order: Order, count: int) -> Request | None:
    swaps = ask.swaps_for(rng, state, order, count)
    if not swaps:
        return None
    difference = price_difference(order, [old.item_id for old, _ in swaps], [new for _, new in swaps])
    method = ask.other_payer(rng, state, order, difference) if rng.random() < 0.4 else None
    if method is None and not ask.can_pay(state, order, paid_with(order), difference):
        return None
    return ask.swap_items(order, swaps, method)


def _swaps(rng: random.Random, state: RetailState, status: OrderStatus, template: str) -> Iterator[TaskDraft]:
    for order in rng.sample(_orders(state, status), len(_orders(state, status))):
        request = _swap_request(rng, state, order, rng.choice([1, 1, 2]))
        if request is not None:
            yield _conversation(rng, template, state.users[order.user_id], [request])


@_template(8)
def modify_items(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Swap one or two items of a pending order for other variants (once per order)."""
    yield from _swaps(rng, state, OrderStatus.PENDING, "modify_items")


@_template(8)
def exchange(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Exchange one or two items of a delivered order for other variants."""
    yield from _swaps(rng, state, OrderStatus.DELIVERED, "exchange")


# ---- the order's status decides -----------------------------------------------------------------


@_template(8)
def cancel_or_return(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel if pending, return an item if delivered; a processed order gets neither."""
    pending, delivered = _orders(state, OrderStatus.PENDING), _orders(state, OrderStatus.DELIVERED)
    orders = _pick(rng, pending, 3) + _pick(rng, delivered, 3) + _pick(rng, _orders(state, OrderStatus.PROCESSED), 2)
    for order in rng.sample(orders, len(orders)):
        request = ask.cancel_or_return(order, rng.choice(order.items))
        yield _conversation(rng, "cancel_or_return", state.users[order.user_id], [request])


@_template(5)
def swap_by_status(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Swap if still pending, exchange if delivered, paid with the order's own method."""
    orders = _orders(state, OrderStatus.PENDING, OrderStatus.DELIVERED)
    for order in rng.sample(orders, len(orders)):
        swaps = ask.swaps_for(rng, state, order, 1)
        difference = price_difference(order, [old.item_id for old, _ in swaps], [new for _, new in swaps])
        if swaps and ask.can_pay(state, order, paid_with(order), difference):
            yield _conversation(rng, "swap_by_status", state.users[order.user_id], [ask.swap_by_status(order, swaps)])


# ---- orders found through list_user_orders ------------------------------------------------------


@_template(4)
def cancel_all_pending(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel every pending order of a user with one or two (the ids come from the order list)."""
    users = [u for u in state.users.values() if 1 <= len(_user_orders(state, u, OrderStatus.PENDING)) <= 2]
    for user in _pick(rng, users, 4):
        request = ask.cancel_all(state, user.user_id, rng.choice(sorted(ask.REASONS)))
        yield _conversation(rng, "cancel_all_pending", user, [request])


@_template(4)
def cancel_described(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel the pending order that holds a named product (the only pending one that does)."""
    pool = []
    for user in state.users.values():
        pending = _user_orders(state, user, OrderStatus.PENDING)
        for order in pending:
            unique = [i.name for i in order.items if sum(i.name in [j.name for j in o.items] for o in pending) == 1]
            pool += [(order, name) for name in unique]
    for order, product in _pick(rng, pool, 4):
        request = ask.cancel_described(order, product, rng.choice(sorted(ask.REASONS)))
        yield _conversation(rng, "cancel_described", state.users[order.user_id], [request])


@_template(3)
def move_pending(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """New default address, also for the user's one pending order."""
    users = [u for u in state.users.values() if len(_user_orders(state, u, OrderStatus.PENDING)) == 1]
    for user in _pick(rng, users, 3):
        yield _conversation(rng, "move_pending", user, [ask.move_pending(state, user.user_id, random_address(rng))])


# ---- account and questions ----------------------------------------------------------------------


@_template(4)
def user_address(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Change the default address."""
    for user in _pick(rng, list(state.users.values()), 4):
        yield _conversation(rng, "user_address", user, [ask.user_address(user.user_id, random_address(rng))])


@_template(5)
def order_status(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ask for the status of an order."""
    for order in _pick(rng, list(state.orders.values()), 5):
        yield _conversation(rng, "order_status", state.users[order.user_id], [ask.order_status(order)])


@_template(4)
def tracking(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ask for the carrier and tracking number of a shipped order."""
    for order in _pick(rng, _orders(state, OrderStatus.PROCESSED, OrderStatus.DELIVERED), 4):
        yield _conversation(rng, "tracking", state.users[order.user_id], [ask.tracking(order)])


@_template(4)
def orders_with_status(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Ask which of one's orders have a given status."""
    statuses = ["pending", "processed", "delivered", "cancelled"]
    for user in _pick(rng, list(state.users.values()), 4):
        request = ask.orders_with_status(user.user_id, rng.choice(statuses))
        yield _conversation(rng, "orders_with_status", user, [request])


@_template(4)
def catalog(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Catalog questions with one call each: the product types, or one product's variants by id."""
    yield draft(rng, "catalog", [ask.product_types()], kind="single")
    for product in _pick(rng, list(state.products.values()), 3):
        yield draft(rng, "catalog", [ask.variants(product.product_id, product.name, with_id=True)], kind="single")


@_template(3)
def catalog_lookup(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Which variants of a product, named only: the id comes from the product list."""
    for product in _pick(rng, list(state.products.values()), 3):
        request = ask.variants(product.product_id, product.name, with_id=False)
        yield draft(rng, "catalog_lookup", [request], kind="compositional")


# ---- two independent changes --------------------------------------------------------------------


@_template(5)
def cancel_and_return(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Cancel a pending order and return items of a delivered one."""
    for pending, delivered in _pick(rng, _pairs(state, OrderStatus.PENDING, OrderStatus.DELIVERED), 5):
        requests = [
            ask.cancel(pending, rng.choice(sorted(ask.REASONS))),
            _return_request(rng, state, delivered),
        ]
        yield _conversation(rng, "cancel_and_return", state.users[pending.user_id], requests, "compound")


@_template(4)
def move_and_pay(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Change the default address and pay a pending order with a different method."""
    orders = _orders(state, OrderStatus.PENDING)
    for order in rng.sample(orders, len(orders)):
        method = ask.other_payer(rng, state, order, total(order))
        if method is not None:
            requests = [ask.user_address(order.user_id, random_address(rng)), ask.payment(order, method)]
            yield _conversation(rng, "move_and_pay", state.users[order.user_id], requests, "compound")


@_template(3)
def move_and_cancel(rng: random.Random, state: RetailState) -> Iterator[TaskDraft]:
    """Change the default address and cancel a pending order."""
    for order in _pick(rng, _orders(state, OrderStatus.PENDING), 3):
        requests = [
            ask.user_address(order.user_id, random_address(rng)),
            ask.cancel(order, rng.choice(sorted(ask.REASONS))),
        ]
        yield _conversation(rng, "move_and_cancel", state.users[order.user_id], requests, "compound")
