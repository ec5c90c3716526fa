"""tau2-bench's retail database and tools, as a typed state and native executors.

The state model has the field names, types and defaults of tau2-bench's ``RetailDB``
(``src/tau2/domains/retail/data_model.py`` at commit ``a2c0247``), so that its ``model_dump()`` is the
same document tau2 hashes; :func:`tau2_hash` is tau2's database hash (``get_dict_hash``: SHA-256 of
``json.dumps(db.model_dump(), sort_keys=True, default=str)``). Sub-models ignore unknown keys and the
database refuses them, as tau2's do.

Each executor follows the tool of the same name in tau2's ``RetailTools``
(``src/tau2/domains/retail/tools.py``): the same checks in the same order with the same messages, the
same writes and the same float arithmetic (where tau2 rounds and where it does not), including tau2's
quirks that change the database:

- ``modify_pending_order_items`` gives every modified item the price and options of the *last* new
  item of the call (tau2 reads the loop variable of its check loop);
- ``cancel_pending_order`` refunds every entry of the payment history, refunds included;
- ``modify_pending_order_payment`` and ``modify_pending_order_address`` accept ``pending (item
  modified)`` orders, ``cancel_pending_order`` and ``modify_pending_order_items`` only ``pending``.

Differences, none of which changes a database tau2 would reach: tau2 mutates before some checks
that only fail on an inconsistent database (a payment method of an order missing from its user);
here every check runs first, so a refused call changes nothing. Replies are JSON objects: a
model (order, user, product, item) is returned as its JSON dump, as tau2 shows it; a tool that returns
a string in tau2 (``find_user_id_*``, ``calculate``, ``transfer_to_human_agents``) returns
``{"result": <the string>}``, and ``list_all_product_types`` returns ``{"result": {name: id}}`` where
tau2 returns the same mapping as JSON text. A refusal raises :class:`DomainError` with tau2's message.
"""

from __future__ import annotations

import ast
import hashlib
import json
import operator
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolprism.errors import DomainError
from toolprism.schema import JSON

# ---------------------------------------------------------------------------------------------
# the database (tau2's RetailDB, field for field)


class Variant(BaseModel):
    """One item (a variant of a product)."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(BaseModel):
    """A product type and its items, by item id."""

    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(BaseModel):
    """A customer's first and last name."""

    first_name: str
    last_name: str


class UserAddress(BaseModel):
    """A postal address (users' and orders'; tau2 hashes the fields in this order)."""

    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class CreditCard(BaseModel):
    """A stored credit card: brand and last four digits (``source`` ``credit_card``)."""

    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class Paypal(BaseModel):
    """A PayPal account (``source`` ``paypal``)."""

    source: Literal["paypal"]
    id: str


class GiftCard(BaseModel):
    """A gift card and its balance in dollars (``source`` ``gift_card``; refunds credit it at once)."""

    source: Literal["gift_card"]
    id: str
    balance: float


PaymentMethod = Annotated[CreditCard | GiftCard | Paypal, Field(discriminator="source")]


class User(BaseModel):
    """A customer: name, address, email, payment methods by id, and order ids."""

    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class OrderFulfillment(BaseModel):
    """A shipment: its tracking ids and the item ids it carries."""

    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(BaseModel):
    """One ordered item: product, item id, price in dollars paid, options."""

    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class OrderPayment(BaseModel):
    """A payment-history entry: ``payment`` or ``refund`` of ``amount`` dollars by a payment method."""

    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


OrderStatus = Literal[
    "processed",
    "pending",
    "pending (item modified)",
    "delivered",
    "cancelled",
    "exchange requested",
    "return requested",
]


class Order(BaseModel):
    """An order as tau2 stores it: items, status, fulfillments, payment history, and the fields a
    cancellation, exchange or return request sets (None until then)."""

    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[OrderFulfillment]
    payment_history: list[OrderPayment]
    cancel_reason: Literal["no longer needed", "ordered by mistake"] | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(BaseModel):
    """tau2's retail database: products, users and orders by id (unknown top-level keys refused)."""

    model_config = ConfigDict(extra="forbid")

    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]


def tau2_hash(db: BaseModel) -> str:
    """tau2-bench's database hash (``ToolKitBase.get_db_hash``): SHA-256 (hex) of
    ``json.dumps(db.model_dump(), sort_keys=True, default=str)``."""
    return hashlib.sha256(json.dumps(db.model_dump(), sort_keys=True, default=str).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# look-ups (tau2's private helpers, with its messages)


def _order(db: RetailDB, order_id: str) -> Order:
    if order_id not in db.orders:
        raise DomainError("Order not found")
    return db.orders[order_id]


def _user(db: RetailDB, user_id: str) -> User:
    if user_id not in db.users:
        raise DomainError("User not found")
    return db.users[user_id]


def _product(db: RetailDB, product_id: str) -> Product:
    if product_id not in db.products:
        raise DomainError("Product not found")
    return db.products[product_id]


def _variant(db: RetailDB, product_id: str, item_id: str) -> Variant:
    product = _product(db, product_id)
    if item_id not in product.variants:
        raise DomainError("Variant not found")
    return product.variants[item_id]


def _payment_method(db: RetailDB, user_id: str, payment_method_id: str) -> CreditCard | GiftCard | Paypal:
    user = _user(db, user_id)
    if payment_method_id not in user.payment_methods:
        raise DomainError("Payment method not found")
    return user.payment_methods[payment_method_id]


def _check_counts(order: Order, item_ids: list[str], message: Callable[[str], str]) -> None:
    """Each item id occurs in the order at least as often as in ``item_ids`` (duplicates allowed)."""
    present = [item.item_id for item in order.items]
    for item_id in item_ids:
        if item_ids.count(item_id) > present.count(item_id):
            raise DomainError(message(item_id))


def _first_item(order: Order, item_id: str) -> OrderItem:
    item = next((item for item in order.items if item.item_id == item_id), None)
    if item is None:
        raise DomainError(f"Item {item_id} not found")
    return item


def _dump(model: BaseModel) -> JSON:
    return model.model_dump(mode="json")


# ---------------------------------------------------------------------------------------------
# reads and generic tools


def calculate(db: RetailDB, /, expression: str) -> JSON:
    """tau2's ``calculate``: digits, ``+ - * /``, parentheses, dots and spaces only; the value as
    ``str(round(float(value), 2))``. Evaluated on the parsed expression (numbers and arithmetic
    operators only), never by ``eval``."""
    if not all(char in "0123456789+-*/(). " for char in expression):
        raise DomainError("Invalid characters in expression")
    try:
        value = _arithmetic(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError) as e:
        raise DomainError(str(e) or type(e).__name__) from None
    return {"result": str(round(float(value), 2))}


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _arithmetic(node: ast.expr) -> int | float:
    """The value of an arithmetic expression tree (Python's semantics for ``+ - * / // ** %``)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_arithmetic(node.operand))
    raise ValueError("Invalid expression")


def find_user_id_by_name_zip(db: RetailDB, /, first_name: str, last_name: str, zip: str) -> JSON:  # noqa: A002
    """The first user (in database order) with that name (case-insensitive) and zip code."""
    for user_id, user in db.users.items():
        name = user.name
        if (
            name.first_name.lower() == first_name.lower()
            and name.last_name.lower() == last_name.lower()
            and user.address.zip == zip
        ):
            return {"result": user_id}
    raise DomainError("User not found")


def find_user_id_by_email(db: RetailDB, /, email: str) -> JSON:
    """The first user whose email equals ``email`` (case-insensitive)."""
    for user_id, user in db.users.items():
        if user.email.lower() == email.lower():
            return {"result": user_id}
    raise DomainError("User not found")


def get_order_details(db: RetailDB, /, order_id: str) -> JSON:
    """The order as stored. Raises DomainError ``Order not found`` (tau2's message)."""
    return _dump(_order(db, order_id))


def get_product_details(db: RetailDB, /, product_id: str) -> JSON:
    """The product and its items. Raises DomainError ``Product not found``."""
    return _dump(_product(db, product_id))


def get_item_details(db: RetailDB, /, item_id: str) -> JSON:
    """The item (a product variant) of any product. Raises DomainError ``Item not found``."""
    for product in db.products.values():
        if item_id in product.variants:
            return _dump(product.variants[item_id])
    raise DomainError("Item not found")


def get_user_details(db: RetailDB, /, user_id: str) -> JSON:
    """The user as stored. Raises DomainError ``User not found``."""
    return _dump(_user(db, user_id))


def list_all_product_types(db: RetailDB, /) -> JSON:
    """Product name → product id, sorted by name."""
    return {"result": dict(sorted((p.name, p.product_id) for p in db.products.values()))}


def transfer_to_human_agents(db: RetailDB, /, summary: str) -> JSON:
    """Always succeeds (tau2 ends the conversation there; here it is one more reply)."""
    return {"result": "Transfer successful"}


# ---------------------------------------------------------------------------------------------
# writes


def cancel_pending_order(db: RetailDB, /, order_id: str, reason: str) -> JSON:
    """Status ``cancelled``, the reason recorded, a refund per payment-history entry (gift cards
    credited at once, rounded to cents)."""
    order = _order(db, order_id)
    if order.status != "pending":
        raise DomainError("Non-pending order cannot be cancelled")
    if reason not in {"no longer needed", "ordered by mistake"}:
        raise DomainError("Invalid reason")
    methods = [_payment_method(db, order.user_id, p.payment_method_id) for p in order.payment_history]
    refunds = []
    for payment, method in zip(order.payment_history, methods, strict=True):
        refunds.append(
            OrderPayment(transaction_type="refund", amount=payment.amount, payment_method_id=payment.payment_method_id)
        )
        if isinstance(method, GiftCard):
            method.balance += payment.amount
            method.balance = round(method.balance, 2)
    order.status = "cancelled"
    order.cancel_reason = reason  # type: ignore[assignment]  # checked above
    order.payment_history.extend(refunds)
    return _dump(order)


def _price_difference(db: RetailDB, order: Order, item_ids: list[str], new_item_ids: list[str], *, same: bool) -> tuple:
    """Sum of (new price - old price) over the pairs, and the last new variant (tau2's loop)."""
    difference: int | float = 0
    variant = None
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
        if same and item_id == new_item_id:
            raise DomainError("The new item id should be different from the old item id")
        item = _first_item(order, item_id)
        variant = _variant(db, item.product_id, new_item_id)
        if not variant.available:
            raise DomainError(f"New item {new_item_id} not found or available")
        difference += variant.price - item.price
    return difference, variant


def exchange_delivered_order_items(
    db: RetailDB, /, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> JSON:
    """Status ``exchange requested`` with the (sorted) items, the payment method and the price
    difference rounded to cents; nothing is charged yet."""
    order = _order(db, order_id)
    if order.status != "delivered":
        raise DomainError("Non-delivered order cannot be exchanged")
    _check_counts(order, item_ids, lambda item_id: f"Number of {item_id} not found.")
    if len(item_ids) != len(new_item_ids):
        raise DomainError("The number of items to be exchanged should match.")
    difference, _ = _price_difference(db, order, item_ids, new_item_ids, same=False)
    difference = round(difference, 2)
    method = _payment_method(db, order.user_id, payment_method_id)
    if isinstance(method, GiftCard) and method.balance < difference:
        raise DomainError("Insufficient gift card balance to pay for the price difference")
    order.status = "exchange requested"
    order.exchange_items = sorted(item_ids)
    order.exchange_new_items = sorted(new_item_ids)
    order.exchange_payment_method_id = payment_method_id
    order.exchange_price_difference = difference
    return _dump(order)


def _set_address(
    target: Order | User,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,  # noqa: A002
) -> None:
    target.address = UserAddress(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)


def modify_pending_order_address(
    db: RetailDB,
    /,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,  # noqa: A002
) -> JSON:
    """The pending order's shipping address replaced. Raises DomainError ``Non-pending order cannot
    be modified``."""
    order = _order(db, order_id)
    if "pending" not in order.status:
        raise DomainError("Non-pending order cannot be modified")
    _set_address(order, address1, address2, city, state, country, zip)
    return _dump(order)


def modify_pending_order_items(
    db: RetailDB, /, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> JSON:
    """The items swapped for new ones of the same product, one payment or refund of the (unrounded)
    difference, gift cards charged or credited at once; status ``pending (item modified)``."""
    order = _order(db, order_id)
    if order.status != "pending":
        raise DomainError("Non-pending order cannot be modified")
    _check_counts(order, item_ids, lambda item_id: f"{item_id} not found")
    if len(item_ids) != len(new_item_ids):
        raise DomainError("The number of items to be exchanged should match")
    difference, variant = _price_difference(db, order, item_ids, new_item_ids, same=True)
    method = _payment_method(db, order.user_id, payment_method_id)
    if isinstance(method, GiftCard) and method.balance < difference:
        raise DomainError("Insufficient gift card balance to pay for the new item")
    kind = "payment" if difference > 0 else "refund"
    order.payment_history.append(
        OrderPayment(transaction_type=kind, amount=abs(difference), payment_method_id=payment_method_id)
    )
    if isinstance(method, GiftCard):
        method.balance -= difference
        method.balance = round(method.balance, 2)
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
        item = _first_item(order, item_id)
        item.item_id = new_item_id
        item.price = variant.price  # tau2: the last new item's price and options, for every item
        item.options = variant.options
    order.status = "pending (item modified)"
    return _dump(order)


def modify_pending_order_payment(db: RetailDB, /, order_id: str, payment_method_id: str) -> JSON:
    """The one payment moved to another method: a payment by the new one and a refund to the old
    one appended, gift cards charged or credited at once."""
    order = _order(db, order_id)
    if "pending" not in order.status:
        raise DomainError("Non-pending order cannot be modified")
    method = _payment_method(db, order.user_id, payment_method_id)
    history = order.payment_history
    if len(history) != 1 or history[0].transaction_type != "payment":
        raise DomainError("There should be exactly one payment for a pending order")
    old_id = history[0].payment_method_id
    if old_id == payment_method_id:
        raise DomainError("The new payment method should be different from the current one")
    amount = history[0].amount
    if isinstance(method, GiftCard) and method.balance < amount:
        raise DomainError("Insufficient gift card balance to pay for the order")
    old_method = _payment_method(db, order.user_id, old_id)
    history.extend(
        [
            OrderPayment(transaction_type="payment", amount=amount, payment_method_id=payment_method_id),
            OrderPayment(transaction_type="refund", amount=amount, payment_method_id=old_id),
        ]
    )
    if isinstance(method, GiftCard):
        method.balance -= amount
        method.balance = round(method.balance, 2)
    if isinstance(old_method, GiftCard):
        old_method.balance += amount
        old_method.balance = round(old_method.balance, 2)
    return _dump(order)


def modify_user_address(
    db: RetailDB,
    /,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,  # noqa: A002
) -> JSON:
    """The user's default address replaced. Raises DomainError ``User not found``."""
    user = _user(db, user_id)
    _set_address(user, address1, address2, city, state, country, zip)
    return _dump(user)


def return_delivered_order_items(db: RetailDB, /, order_id: str, item_ids: list[str], payment_method_id: str) -> JSON:
    """Status ``return requested`` with the (sorted) items and the refund's payment method (the
    original one or a gift card)."""
    order = _order(db, order_id)
    if order.status != "delivered":
        raise DomainError("Non-delivered order cannot be returned")
    user = _user(db, order.user_id)
    method = _payment_method(db, user.user_id, payment_method_id)
    if not isinstance(method, GiftCard) and payment_method_id != order.payment_history[0].payment_method_id:
        raise DomainError("Payment method should be the original payment method")
    _check_counts(order, item_ids, lambda _: "Some item not found")
    order.status = "return requested"
    order.return_items = sorted(item_ids)
    order.return_payment_method_id = payment_method_id
    return _dump(order)


Executor = Callable[..., JSON]

EXECUTORS: dict[str, tuple[Literal["read", "write"], Executor]] = {
    fn.__name__: (kind, fn)
    for kind, fns in (
        (
            "read",
            (
                calculate,
                find_user_id_by_name_zip,
                find_user_id_by_email,
                get_order_details,
                get_product_details,
                get_item_details,
                get_user_details,
                list_all_product_types,
                transfer_to_human_agents,
            ),
        ),
        (
            "write",
            (
                cancel_pending_order,
                exchange_delivered_order_items,
                modify_pending_order_address,
                modify_pending_order_items,
                modify_pending_order_payment,
                modify_user_address,
                return_delivered_order_items,
            ),
        ),
    )
    for fn in fns
}
"""tau2 retail tool name → (kind, executor). tau2 tags ``calculate`` and ``transfer_to_human_agents``
GENERIC (neither reads nor writes the database); here they are reads (they change nothing)."""
