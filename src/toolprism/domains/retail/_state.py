"""Typed state of the retail domain and its deterministic generator."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Address(_Model):
    """A postal address."""

    address1: str
    address2: str
    city: str
    state: str
    country: str
    zip: str


class PaymentMethod(_Model):
    """A saved payment method; gift cards carry a balance."""

    payment_method_id: str
    kind: Literal["credit_card", "paypal", "gift_card"]
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


class Item(_Model):
    """One purchasable variant of a product."""

    item_id: str
    product_id: str
    options: dict[str, str]
    price: float
    available: bool


class Product(_Model):
    """A product type and its variants, keyed by item id."""

    product_id: str
    name: str
    items: dict[str, Item]


class OrderStatus(StrEnum):
    """Life cycle of an order."""

    PENDING = "pending"
    PROCESSED = "processed"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    RETURN_REQUESTED = "return requested"
    EXCHANGE_REQUESTED = "exchange requested"


class OrderItem(_Model):
    """An item as bought in an order (price at purchase time)."""

    item_id: str
    product_id: str
    name: str
    options: dict[str, str]
    price: float


class Transaction(_Model):
    """A payment or refund on an order."""

    kind: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Request(_Model):
    """A return or exchange requested on a delivered order."""

    item_ids: list[str]
    new_item_ids: list[str]
    payment_method_id: str
    amount: float


class Order(_Model):
    """A customer order."""

    order_id: str
    user_id: str
    items: list[OrderItem]
    status: OrderStatus
    address: Address
    payment_method_id: str
    transactions: list[Transaction]
    items_modified: bool = False
    cancel_reason: str | None = None
    request: Request | None = None


class RetailState(_Model):
    """The whole retail world."""

    users: dict[str, User]
    products: dict[str, Product]
    orders: dict[str, Order]
