"""Typed state of the retail domain: users, a product catalog with variants, and orders.

Field names follow tau2-bench's retail database where they overlap (``payment_history``,
``fulfillments``, ``variants``); amounts are US dollars with cents, dates ISO ``YYYY-MM-DD``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict

_ATOMS = frozenset({str, int, float, bool, type(None)})


def _tree_copy(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [_tree_copy(v) for v in value]
    if kind is dict:
        return {k: _tree_copy(v) for k, v in value.items()}
    if isinstance(value, BaseModel):
        return value.__deepcopy__()
    return value  # str, int, float, bool, None, enum members: immutable


class _Model(BaseModel):
    """Base of the state's models: no extra fields, and a fast deep copy.

    :meth:`toolprism.domains._base.Environment.execute` deep-copies the whole state before every
    operation, which dominates the time of replaying tasks. The state is a tree (no object is
    shared between two places, and no private attributes), so the copy needs no memo; values
    that are replaced but never changed in place are frozen (:class:`_Frozen`) and shared by
    every copy. Together several times faster than pydantic's generic copy; the copy is equal.
    """

    model_config = ConfigDict(extra="forbid")

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        cls = type(self)
        copied = cls.__new__(cls)
        object.__setattr__(copied, "__dict__", {k: _tree_copy(v) for k, v in self.__dict__.items()})
        object.__setattr__(copied, "__pydantic_extra__", None)
        object.__setattr__(copied, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        object.__setattr__(copied, "__pydantic_private__", None)
        return copied


class _Frozen(_Model):
    """Base of values that operations replace but never change in place (addresses, order
    lines, transactions, the catalog): frozen, so every copy of the state shares them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        return self


class Address(_Frozen):
    """A postal address."""

    address1: str
    address2: str
    city: str
    state: str
    country: str
    zip: str


class PaymentMethod(_Model):
    """A saved payment method. Credit cards carry a brand and last four digits; gift cards a
    balance in USD."""

    payment_method_id: str
    source: Literal["credit_card", "paypal", "gift_card"]
    brand: str | None = None
    last_four: str | None = None
    balance: float | None = None


class User(_Model):
    """A customer account."""

    user_id: str
    first_name: str
    last_name: str
    email: str
    address: Address
    payment_methods: dict[str, PaymentMethod]
    order_ids: list[str] = []

    @property
    def name(self) -> str:
        """The full name."""
        return f"{self.first_name} {self.last_name}"


class Item(_Frozen):
    """One purchasable variant of a product; ``price`` in USD."""

    item_id: str
    product_id: str
    options: dict[str, str]
    price: float
    available: bool


class Product(_Frozen):
    """A product type and its variants, keyed by item id."""

    product_id: str
    name: str
    variants: dict[str, Item]


class OrderStatus(StrEnum):
    """Life cycle of an order: pending → processed → delivered, or cancelled while pending;
    a delivered order may move on to return requested or exchange requested."""

    PENDING = "pending"
    PROCESSED = "processed"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    RETURN_REQUESTED = "return requested"
    EXCHANGE_REQUESTED = "exchange requested"


class OrderItem(_Frozen):
    """An item as bought in an order (price at purchase time, USD)."""

    item_id: str
    product_id: str
    name: str
    options: dict[str, str]
    price: float


class Transaction(_Frozen):
    """A payment or refund on an order (USD)."""

    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Fulfillment(_Frozen):
    """A shipment of some items of an order."""

    carrier: str
    tracking_id: str
    item_ids: list[str]
    shipped_on: str
    delivered_on: str | None = None


class StatusEvent(_Frozen):
    """A status change of an order and the day it happened."""

    status: OrderStatus
    date: str


class Request(_Frozen):
    """A return or exchange requested on a delivered order; ``amount`` in USD is the refund
    (return) or the price difference (exchange; positive: the user pays)."""

    kind: Literal["return", "exchange"]
    item_ids: list[str]
    new_item_ids: list[str]
    payment_method_id: str
    amount: float


class Order(_Model):
    """A customer order."""

    order_id: str
    user_id: str
    placed_on: str
    status: OrderStatus
    address: Address
    items: list[OrderItem]
    payment_history: list[Transaction]
    fulfillments: list[Fulfillment] = []
    status_history: list[StatusEvent] = []
    items_modified: bool = False
    cancel_reason: str | None = None
    request: Request | None = None


class RetailState(_Model):
    """The whole retail world; ``today`` dates every change an operation makes."""

    today: str
    users: dict[str, User]
    products: dict[str, Product]
    orders: dict[str, Order]
