"""Native operations of the retail domain: reads and policy-checked writes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains.retail._rules import (
    check_balance,
    check_in_order,
    get_method,
    get_order,
    get_user,
    move_money,
    order_json,
    price_difference,
    swap,
    total,
)
from toolprism.domains.retail._state import Address, OrderItem, OrderStatus, Request, RetailState
from toolprism.errors import DomainError
from toolprism.schema import JSON

OrderId = Annotated[str, Field(description="The order id, starting with '#W', e.g. '#W0000000'.")]
UserId = Annotated[str, Field(description="The user id, e.g. 'ava_kim_1234'.")]
ItemIds = Annotated[list[str], Field(description="Ids of the items in the order to act on.", min_length=1)]
NewItemIds = Annotated[
    list[str],
    Field(
        description="Ids of the replacement items: one per item id, same product, same order.",
        min_length=1,
    ),
]
PaymentMethodId = Annotated[str, Field(description="A payment method id of the user, e.g. 'credit_card_0000000'.")]
Address1 = Annotated[str, Field(description="Street line, e.g. '123 Main St'.")]
Address2 = Annotated[str, Field(description="Second address line, e.g. 'Apt 1'.")]
City = Annotated[str, Field(description="City name.")]
StateCode = Annotated[str, Field(description="State, e.g. 'TX'.")]
Country = Annotated[str, Field(description="Country, e.g. 'USA'.")]
Zip = Annotated[str, Field(description="Postal code, e.g. '78701'.")]


# ---- reads ----------------------------------------------------------------------------------


@operation(kind="read", group="users")
def find_user_id_by_email(db: RetailState, email: Annotated[str, Field(description="The user's email.")]) -> JSON:
    """Find a user's id by their email address."""
    for user in db.users.values():
        if user.email == email.strip().lower():
            return {"user_id": user.user_id}
    raise DomainError(f"no user with email {email!r}")


@operation(kind="read", group="users")
def get_user_details(db: RetailState, user_id: UserId) -> JSON:
    """Get a user's profile: name, email, default address, payment methods and order ids."""
    return get_user(db, user_id).model_dump(mode="json")


@operation(kind="read", group="orders")
def get_order_details(db: RetailState, order_id: OrderId) -> JSON:
    """Get the status, items, address, payment and total of an order."""
    return order_json(get_order(db, order_id))


@operation(kind="read", group="products")
def get_product_details(
    db: RetailState,
    product_id: Annotated[str, Field(description="The product id, e.g. '6086499569'.")],
) -> JSON:
    """Get a product's variants (items) with their options, prices and availability."""
    if product_id not in db.products:
        raise DomainError(f"product {product_id!r} not found")
    return db.products[product_id].model_dump(mode="json")


@operation(kind="read", group="products")
def list_all_product_types(db: RetailState) -> JSON:
    """List every product type with its name and product id."""
    return {"products": [{"name": p.name, "product_id": p.product_id} for p in db.products.values()]}


# ---- writes ---------------------------------------------------------------------------------


@operation(kind="write", group="orders")
def cancel_order(
    db: RetailState,
    order_id: OrderId,
    reason: Annotated[
        Literal["no longer needed", "ordered by mistake"],
        Field(description="Why the user cancels."),
    ],
) -> JSON:
    """Cancel a pending order and refund it to the original payment method."""
    order = get_order(db, order_id, OrderStatus.PENDING)
    method = get_method(get_user(db, order.user_id), order.payment_method_id)
    order.status, order.cancel_reason = OrderStatus.CANCELLED, reason
    move_money(order, method, -total(order))
    return order_json(order)


@operation(kind="write", group="orders")
def modify_order_address(
    db: RetailState,
    order_id: OrderId,
    address1: Address1,
    address2: Address2,
    city: City,
    state: StateCode,
    country: Country,
    zip: Zip,
) -> JSON:
    """Change the shipping address of a pending order."""
    order = get_order(db, order_id, OrderStatus.PENDING)
    order.address = Address(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)
    return order_json(order)


@operation(kind="write", group="orders")
def modify_pending_order_payment(db: RetailState, order_id: OrderId, payment_method_id: PaymentMethodId) -> JSON:
    """Pay a pending order with another of the user's payment methods; the old one is refunded."""
    order = get_order(db, order_id, OrderStatus.PENDING)
    user = get_user(db, order.user_id)
    new, old = get_method(user, payment_method_id), get_method(user, order.payment_method_id)
    if new.payment_method_id == old.payment_method_id:
        raise DomainError(f"order {order_id} is already paid with {payment_method_id}")
    check_balance(new, total(order))
    move_money(order, new, total(order))
    move_money(order, old, -total(order))
    order.payment_method_id = payment_method_id
    return order_json(order)


@operation(kind="write", group="orders")
def modify_pending_order_items(
    db: RetailState,
    order_id: OrderId,
    item_ids: ItemIds,
    new_item_ids: NewItemIds,
    payment_method_id: PaymentMethodId,
) -> JSON:
    """Swap items of a pending order for other variants of the same product (once per order).

    The price difference is charged to, or refunded to, ``payment_method_id``.
    """
    order = get_order(db, order_id, OrderStatus.PENDING)
    if order.items_modified:
        raise DomainError(f"the items of order {order_id} were already modified once")
    new_items = swap(db, order, item_ids, new_item_ids)
    method = get_method(get_user(db, order.user_id), payment_method_id)
    difference = price_difference(order, item_ids, new_items)
    check_balance(method, difference)
    for old_id, new in zip(item_ids, new_items, strict=True):
        index = next(i for i, item in enumerate(order.items) if item.item_id == old_id)
        product = db.products[new.product_id]
        order.items[index] = OrderItem(
            item_id=new.item_id,
            product_id=new.product_id,
            name=product.name,
            options=dict(new.options),
            price=new.price,
        )
    move_money(order, method, difference)
    order.items_modified = True
    return order_json(order)


@operation(kind="write", group="users")
def modify_user_address(
    db: RetailState,
    user_id: UserId,
    address1: Address1,
    address2: Address2,
    city: City,
    state: StateCode,
    country: Country,
    zip: Zip,
) -> JSON:
    """Change a user's default address (existing orders keep theirs)."""
    user = get_user(db, user_id)
    user.address = Address(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)
    return user.model_dump(mode="json")


@operation(kind="write", group="orders")
def return_delivered_order_items(
    db: RetailState, order_id: OrderId, item_ids: ItemIds, payment_method_id: PaymentMethodId
) -> JSON:
    """Request a return of delivered items, refunded to the original method or a gift card."""
    order = get_order(db, order_id, OrderStatus.DELIVERED)
    check_in_order(order, item_ids)
    method = get_method(get_user(db, order.user_id), payment_method_id)
    if payment_method_id != order.payment_method_id and method.kind != "gift_card":
        raise DomainError("refunds go to the original payment method or a gift card")
    prices = {i.item_id: i.price for i in order.items}
    amount = round(sum(prices[i] for i in item_ids), 2)
    order.status = OrderStatus.RETURN_REQUESTED
    order.request = Request(item_ids=item_ids, new_item_ids=[], payment_method_id=payment_method_id, amount=amount)
    return order_json(order)


@operation(kind="write", group="orders")
def exchange_delivered_order_items(
    db: RetailState,
    order_id: OrderId,
    item_ids: ItemIds,
    new_item_ids: NewItemIds,
    payment_method_id: PaymentMethodId,
) -> JSON:
    """Request an exchange of items of a delivered order for other variants of the same product.

    The price difference is charged to, or refunded to, ``payment_method_id``.
    """
    order = get_order(db, order_id, OrderStatus.DELIVERED)
    new_items = swap(db, order, item_ids, new_item_ids)
    method = get_method(get_user(db, order.user_id), payment_method_id)
    difference = price_difference(order, item_ids, new_items)
    check_balance(method, difference)
    order.status = OrderStatus.EXCHANGE_REQUESTED
    order.request = Request(
        item_ids=item_ids,
        new_item_ids=new_item_ids,
        payment_method_id=payment_method_id,
        amount=difference,
    )
    return order_json(order)


OPERATIONS = (
    find_user_id_by_email,
    get_user_details,
    get_order_details,
    get_product_details,
    list_all_product_types,
    cancel_order,
    modify_order_address,
    modify_pending_order_payment,
    modify_pending_order_items,
    modify_user_address,
    return_delivered_order_items,
    exchange_delivered_order_items,
)
