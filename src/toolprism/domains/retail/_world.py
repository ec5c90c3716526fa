"""Deterministic generation of the retail world from a seed (``random.Random`` only, no clock).

A world has :data:`N_USERS` users, one product per :data:`CATALOG` entry (5-8 variants each) and
:data:`N_ORDERS` orders with a fixed status mix, dated backwards from the world's ``today``.
"""

from __future__ import annotations

import datetime
import itertools
import random

from toolprism.domains.retail._state import (
    Address,
    Fulfillment,
    Item,
    Order,
    OrderItem,
    OrderStatus,
    PaymentMethod,
    Product,
    RetailState,
    StatusEvent,
    Transaction,
    User,
)

CATALOG: dict[str, tuple[float, dict[str, tuple[str, ...]]]] = {
    "T-Shirt": (24.0, {"color": ("red", "blue", "black", "white"), "size": ("S", "M", "L", "XL")}),
    "Running Shoes": (95.0, {"color": ("black", "grey", "red"), "size": ("8", "9", "10", "11")}),
    "Backpack": (60.0, {"color": ("green", "navy", "black"), "capacity": ("20L", "30L", "40L")}),
    "Desk Lamp": (38.0, {"color": ("white", "black", "silver"), "bulb": ("LED", "halogen", "fluorescent")}),
    "Water Bottle": (18.0, {"capacity": ("500ml", "750ml", "1000ml"), "material": ("plastic", "glass", "steel")}),
    "Headphones": (140.0, {"type": ("over-ear", "on-ear", "in-ear"), "connectivity": ("wired", "wireless")}),
    "Coffee Maker": (85.0, {"capacity": ("4 cups", "8 cups", "12 cups"), "type": ("drip", "espresso")}),
    "Office Chair": (210.0, {"material": ("mesh", "leather", "fabric"), "color": ("black", "grey", "blue")}),
    "Mechanical Keyboard": (110.0, {"switch": ("linear", "tactile", "clicky"), "layout": ("full", "TKL")}),
    "Smart Watch": (230.0, {"color": ("black", "gold", "silver"), "band": ("leather", "silicone", "metal")}),
    "Yoga Mat": (32.0, {"thickness": ("4mm", "6mm", "8mm"), "color": ("purple", "green", "black")}),
    "Electric Kettle": (45.0, {"capacity": ("1L", "1.5L", "2L"), "material": ("glass", "steel", "plastic")}),
    "Bluetooth Speaker": (75.0, {"color": ("black", "blue", "red"), "waterproof": ("yes", "no")}),
    "Tea Kettle": (40.0, {"material": ("stainless steel", "ceramic", "glass"), "stovetop": ("gas", "induction")}),
    "Jigsaw Puzzle": (22.0, {"pieces": ("500", "1000", "2000"), "theme": ("animals", "art", "landscape")}),
}
"""Product name → (base price in USD, option name → values)."""

N_USERS, N_ORDERS = 30, 60
STATUS_MIX: dict[OrderStatus, int] = {
    OrderStatus.PENDING: 22,
    OrderStatus.PROCESSED: 9,
    OrderStatus.DELIVERED: 20,
    OrderStatus.CANCELLED: 4,
    OrderStatus.RETURN_REQUESTED: 3,
    OrderStatus.EXCHANGE_REQUESTED: 2,
}
"""How many orders of each status a world has (sums to :data:`N_ORDERS`)."""

_FIRST = (
    "Ava Liam Noah Emma Mia Lucas Yusuf Sofia Ethan Aisha Mei Omar Chloe Ivan Lena Mateo Nora Ravi Zoe Hugo "
    "Amelia Fatima Daiki Olivia Raj Isabella Mason Harper Lucas Evelyn"
).split()
_LAST = "Garcia Smith Kim Nguyen Patel Rossi Silva Meyer Kowalski Haddad Brown Lopez Ito Santos Dubois".split()
_STREETS = "Oak St|Maple Ave|Cedar Ln|Pine Rd|Elm St|Lake Dr|Hill Rd|River Way|Park Blvd|Main St|Broadway".split("|")
_CITIES = (
    ("Austin", "TX", "787"),
    ("Denver", "CO", "802"),
    ("Seattle", "WA", "981"),
    ("Boston", "MA", "021"),
    ("Chicago", "IL", "606"),
    ("Phoenix", "AZ", "850"),
    ("Portland", "OR", "972"),
    ("Atlanta", "GA", "303"),
    ("Columbus", "OH", "432"),
    ("San Diego", "CA", "921"),
)
_BRANDS = ("visa", "mastercard", "amex")
_CARRIERS = ("UPS", "FedEx", "USPS", "DHL")


def random_address(rng: random.Random) -> Address:
    """A plausible US address drawn from ``rng`` (second line always present)."""
    city, state, zip_prefix = rng.choice(_CITIES)
    return Address(
        address1=f"{rng.randint(10, 999)} {rng.choice(_STREETS)}",
        address2=rng.choice(["Apt", "Suite", "Unit"]) + f" {rng.randint(1, 400)}",
        city=city,
        state=state,
        country="USA",
        zip=f"{zip_prefix}{rng.randint(10, 99)}",
    )


def _fresh_id(rng: random.Random, used: set[str], prefix: str, digits: int) -> str:
    while True:
        candidate = prefix + str(rng.randint(10 ** (digits - 1), 10**digits - 1))
        if candidate not in used:
            used.add(candidate)
            return candidate


def _products(rng: random.Random, used: set[str]) -> dict[str, Product]:
    products = {}
    for name, (base, axes) in CATALOG.items():
        product_id = _fresh_id(rng, used, "", 10)
        combos = list(itertools.product(*axes.values()))
        variants = {}
        for i, combo in enumerate(rng.sample(combos, rng.randint(5, min(8, len(combos))))):
            item_id = _fresh_id(rng, used, "", 10)
            variants[item_id] = Item(
                item_id=item_id,
                product_id=product_id,
                options=dict(zip(axes, combo, strict=True)),
                price=round(base * rng.uniform(0.8, 1.3), 2),
                available=i < 4 or rng.random() < 0.6,
            )
        products[product_id] = Product(product_id=product_id, name=name, variants=variants)
    return products


def _methods(rng: random.Random, used: set[str]) -> list[PaymentMethod]:
    brands = rng.sample(_BRANDS, rng.choice([1, 1, 2]))
    methods = [
        PaymentMethod(
            payment_method_id=_fresh_id(rng, used, "credit_card_", 7),
            source="credit_card",
            brand=brand,
            last_four=str(rng.randint(1000, 9999)),
        )
        for brand in brands
    ]
    if rng.random() < 0.5:
        methods.append(PaymentMethod(payment_method_id=_fresh_id(rng, used, "paypal_", 7), source="paypal"))
    if rng.random() < 0.6:
        balance = round(rng.uniform(5, 400), 2)
        methods.append(
            PaymentMethod(payment_method_id=_fresh_id(rng, used, "gift_card_", 7), source="gift_card", balance=balance)
        )
    rng.shuffle(methods)
    return methods


def _user(rng: random.Random, used: set[str], first: str, last: str) -> User:
    user_id = _fresh_id(rng, used, f"{first}_{last}_".lower(), 4)
    return User(
        user_id=user_id,
        first_name=first,
        last_name=last,
        email=f"{first}.{last}{rng.randint(1000, 9999)}@example.com".lower(),
        address=random_address(rng),
        payment_methods={m.payment_method_id: m for m in _methods(rng, used)},
    )


def _day(today: datetime.date, days_ago: int) -> str:
    return (today - datetime.timedelta(days=days_ago)).isoformat()


def _history(
    rng: random.Random, status: OrderStatus, today: datetime.date
) -> tuple[list[StatusEvent], datetime.date | None, datetime.date | None]:
    """Status events ending in ``status``, plus the shipping and delivery days (if any)."""
    age = {OrderStatus.PENDING: 2, OrderStatus.CANCELLED: 3, OrderStatus.PROCESSED: 8}.get(status, 60)
    placed = rng.randint(0, age) if status is OrderStatus.PENDING else rng.randint(max(3, age // 4), age)
    events = [StatusEvent(status=OrderStatus.PENDING, date=_day(today, placed))]
    if status is OrderStatus.CANCELLED:
        events.append(StatusEvent(status=status, date=_day(today, rng.randint(0, placed))))
        return events, None, None
    if status is OrderStatus.PENDING:
        return events, None, None
    shipped = placed - 1
    events.append(StatusEvent(status=OrderStatus.PROCESSED, date=_day(today, shipped)))
    if status is OrderStatus.PROCESSED:
        return events, today - datetime.timedelta(days=shipped), None
    delivered = max(0, shipped - rng.randint(2, 5))
    events.append(StatusEvent(status=OrderStatus.DELIVERED, date=_day(today, delivered)))
    if status is not OrderStatus.DELIVERED:
        events.append(StatusEvent(status=status, date=_day(today, rng.randint(0, delivered))))
    return (
        events,
        today - datetime.timedelta(days=shipped),
        today - datetime.timedelta(days=delivered),
    )


def _order_items(rng: random.Random, products: list[Product]) -> list[OrderItem]:
    items = []
    for product in rng.sample(products, rng.choice([1, 1, 2, 2, 3, 4])):
        item = rng.choice(list(product.variants.values()))
        items.append(
            OrderItem(
                item_id=item.item_id,
                product_id=product.product_id,
                name=product.name,
                options=dict(item.options),
                price=item.price,
            )
        )
    return items


def _order(
    rng: random.Random,
    used: set[str],
    user: User,
    status: OrderStatus,
    products: list[Product],
    today: datetime.date,
) -> Order:
    items = _order_items(rng, products)
    method = rng.choice(list(user.payment_methods))
    total = round(sum(i.price for i in items), 2)
    events, shipped, delivered = _history(rng, status, today)
    order = Order(
        order_id=_fresh_id(rng, used, "#W", 7),
        user_id=user.user_id,
        placed_on=events[0].date,
        status=status,
        address=user.address if rng.random() < 0.65 else random_address(rng),
        items=items,
        payment_history=[Transaction(transaction_type="payment", amount=total, payment_method_id=method)],
        status_history=events,
    )
    if shipped is not None:
        order.fulfillments.append(
            Fulfillment(
                carrier=rng.choice(_CARRIERS),
                tracking_id=str(rng.randint(10**11, 10**12 - 1)),
                item_ids=[i.item_id for i in items],
                shipped_on=shipped.isoformat(),
                delivered_on=delivered.isoformat() if delivered else None,
            )
        )
    if status is OrderStatus.CANCELLED:
        order.cancel_reason = rng.choice(["no longer needed", "ordered by mistake"])
        order.payment_history.append(Transaction(transaction_type="refund", amount=total, payment_method_id=method))
    user.order_ids.append(order.order_id)
    return order


def generate(world_seed: int) -> RetailState:
    """The retail world of ``world_seed``: 30 users, 15 products, 60 orders; deterministic.

    ``today`` is a day of 2024 drawn from the seed; every date of the world precedes it.
    """
    rng = random.Random(f"retail/world/{world_seed}")
    used: set[str] = set()
    today = datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randint(60, 330))
    products = _products(rng, used)
    names = rng.sample(sorted({(f, last) for f in _FIRST for last in _LAST}), N_USERS)
    users = [_user(rng, used, first, last) for first, last in names]
    statuses = [status for status, count in STATUS_MIX.items() for _ in range(count)]
    rng.shuffle(statuses)
    owners = users + [rng.choice(users) for _ in range(N_ORDERS - N_USERS)]
    catalog = list(products.values())
    orders = [_order(rng, used, owner, status, catalog, today) for owner, status in zip(owners, statuses, strict=True)]
    orders.sort(key=lambda o: (o.user_id, o.placed_on))
    for user in users:
        user.order_ids.sort(key=lambda oid: next(o.placed_on for o in orders if o.order_id == oid))
    return RetailState(
        today=today.isoformat(),
        users={u.user_id: u for u in users},
        products=products,
        orders={o.order_id: o for o in orders},
    )
