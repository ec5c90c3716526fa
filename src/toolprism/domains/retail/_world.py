"""Deterministic generation of the retail world from a seed (``random.Random`` only)."""

from __future__ import annotations

import itertools
import random

from toolprism.domains.retail._state import (
    Address,
    Item,
    Order,
    OrderItem,
    OrderStatus,
    PaymentMethod,
    Product,
    RetailState,
    Transaction,
    User,
)

_CATALOG: dict[str, tuple[float, dict[str, list[str]]]] = {
    "T-Shirt": (24.0, {"color": ["red", "blue", "black", "white"], "size": ["S", "M", "L", "XL"]}),
    "Running Shoes": (95.0, {"color": ["black", "grey", "red"], "size": ["8", "9", "10", "11"]}),
    "Backpack": (60.0, {"color": ["green", "navy", "black"], "capacity": ["20L", "30L", "40L"]}),
    "Desk Lamp": (38.0, {"color": ["white", "black", "silver"], "bulb": ["LED", "halogen"]}),
    "Water Bottle": (
        18.0,
        {"capacity": ["500ml", "750ml", "1000ml"], "material": ["plastic", "glass", "steel"]},
    ),
    "Headphones": (
        140.0,
        {"type": "over-ear on-ear in-ear".split(), "connectivity": ["wired", "wireless"]},
    ),
    "Coffee Maker": (
        85.0,
        {"capacity": ["4 cups", "8 cups", "12 cups"], "type": ["drip", "espresso"]},
    ),
    "Office Chair": (
        210.0,
        {"material": ["mesh", "leather", "fabric"], "color": ["black", "grey"]},
    ),
    "Mechanical Keyboard": (
        110.0,
        {"switch": ["linear", "tactile", "clicky"], "layout": ["full", "TKL"]},
    ),
    "Smart Watch": (
        230.0,
        {"color": ["black", "gold", "silver"], "band": ["leather", "silicone", "metal"]},
    ),
}
_FIRST = (
    "Ava Liam Noah Emma Mia Lucas Yusuf Sofia Ethan Aisha Mei Omar Chloe Ivan Lena Mateo Nora Ravi Zoe Hugo"
).split()
_LAST = ("Garcia Smith Kim Nguyen Patel Rossi Silva Meyer Kowalski Haddad Brown Lopez Ito Santos Dubois").split()
_STREETS = "Oak St|Maple Ave|Cedar Ln|Pine Rd|Elm St|Lake Dr|Hill Rd|River Way|Park Blvd|Main St".split("|")
_CITIES = [
    ("Austin", "TX", "787"),
    ("Denver", "CO", "802"),
    ("Seattle", "WA", "981"),
    ("Boston", "MA", "021"),
    ("Chicago", "IL", "606"),
    ("Phoenix", "AZ", "850"),
    ("Portland", "OR", "972"),
    ("Atlanta", "GA", "303"),
]
N_USERS, N_ORDERS = 20, 40
_STATUSES = (
    [OrderStatus.PENDING] * 14
    + [OrderStatus.DELIVERED] * 14
    + [OrderStatus.PROCESSED] * 7
    + [OrderStatus.CANCELLED] * 5
)


def random_address(rng: random.Random) -> Address:
    """A plausible US address drawn from ``rng``."""
    city, state, zip_prefix = rng.choice(_CITIES)
    return Address(
        address1=f"{rng.randint(10, 999)} {rng.choice(_STREETS)}",
        address2=rng.choice(["Apt", "Suite", "Unit"]) + f" {rng.randint(1, 40)}",
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
    for name, (base, axes) in _CATALOG.items():
        product_id = _fresh_id(rng, used, "", 10)
        combos = list(itertools.product(*axes.values()))
        chosen = rng.sample(combos, rng.randint(4, min(7, len(combos))))
        items = {}
        for i, combo in enumerate(chosen):
            item_id = _fresh_id(rng, used, "", 10)
            price = round(base * rng.uniform(0.85, 1.25), 2)
            items[item_id] = Item(
                item_id=item_id,
                product_id=product_id,
                options=dict(zip(axes, combo, strict=True)),
                price=price,
                available=i < 3 or rng.random() < 0.7,
            )
        products[product_id] = Product(product_id=product_id, name=name, items=items)
    return products


def _user(rng: random.Random, used: set[str], first: str, last: str) -> User:
    number = rng.randint(1000, 9999)
    methods = [
        PaymentMethod(
            payment_method_id=_fresh_id(rng, used, "credit_card_", 7),
            kind="credit_card",
            last_four=str(rng.randint(1000, 9999)),
        )
    ]
    if rng.random() < 0.5:
        methods.append(PaymentMethod(payment_method_id=_fresh_id(rng, used, "paypal_", 7), kind="paypal"))
    if rng.random() < 0.5:
        methods.append(
            PaymentMethod(
                payment_method_id=_fresh_id(rng, used, "gift_card_", 7),
                kind="gift_card",
                balance=float(rng.randint(0, 400)),
            )
        )
    return User(
        user_id=f"{first}_{last}_{number}".lower(),
        first_name=first,
        last_name=last,
        email=f"{first}.{last}{number % 100}@example.com".lower(),
        address=random_address(rng),
        payment_methods={m.payment_method_id: m for m in methods},
    )


def _order(rng: random.Random, used: set[str], user: User, status: OrderStatus, products: list[Product]) -> Order:
    items = []
    for product in rng.sample(products, rng.randint(1, 4)):
        item = rng.choice(list(product.items.values()))
        items.append(
            OrderItem(
                item_id=item.item_id,
                product_id=product.product_id,
                name=product.name,
                options=dict(item.options),
                price=item.price,
            )
        )
    method = rng.choice(list(user.payment_methods))
    total = round(sum(i.price for i in items), 2)
    order = Order(
        order_id=_fresh_id(rng, used, "#W", 7),
        user_id=user.user_id,
        items=items,
        status=status,
        address=user.address.model_copy(),
        payment_method_id=method,
        transactions=[Transaction(kind="payment", amount=total, payment_method_id=method)],
    )
    if status is OrderStatus.CANCELLED:
        order.cancel_reason = rng.choice(["no longer needed", "ordered by mistake"])
        order.transactions.append(Transaction(kind="refund", amount=total, payment_method_id=method))
    user.order_ids.append(order.order_id)
    return order


def generate(world_seed: int) -> RetailState:
    """The retail world of ``world_seed``: 20 users, 10 products, 40 orders; deterministic."""
    rng = random.Random(world_seed)
    used: set[str] = set()
    products = _products(rng, used)
    names = rng.sample([(f, last) for f in _FIRST for last in _LAST], N_USERS)
    users = [_user(rng, used, first, last) for first, last in names]
    statuses = list(_STATUSES)
    rng.shuffle(statuses)
    owners = users + [rng.choice(users) for _ in range(N_ORDERS - N_USERS)]
    orders = [
        _order(rng, used, owner, status, list(products.values()))
        for owner, status in zip(owners, statuses, strict=True)
    ]
    return RetailState(
        users={u.user_id: u for u in users},
        products=products,
        orders={o.order_id: o for o in orders},
    )
