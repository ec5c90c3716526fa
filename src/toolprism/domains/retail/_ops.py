"""Native operations of the retail domain: nine reads and seven policy-checked writes.

Names and arguments follow tau2-bench's retail toolkit where they overlap; every refusal is a
:class:`~toolprism.errors.DomainError` raised before the state changes.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Annotated, Literal

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import refuse_if, switch
from toolprism.domains.retail._rules import (
    check_balance,
    check_in_order,
    get_method,
    get_order,
    get_user,
    move_money,
    order_json,
    paid_with,
    price_difference,
    set_status,
    swap,
    total,
    tracking_json,
)
from toolprism.domains.retail._state import Address, OrderItem, OrderStatus, Request, RetailState
from toolprism.errors import DomainError
from toolprism.schema import JSON

OrderId = Annotated[str, Field(description="The order id, starting with '#W', e.g. '#W2378156'.")]
UserId = Annotated[str, Field(description="The user id, e.g. 'sara_doe_1234'.")]
ItemIds = Annotated[list[str], Field(description="Ids of the items in the order to act on.", min_length=1)]
NewItemIds = Annotated[
    list[str],
    Field(description="Ids of the replacement items: one per item id, same product, same order.", min_length=1),
]
PaymentMethodId = Annotated[
    str, Field(description="A payment method id of the user, e.g. 'credit_card_7815826' or 'gift_card_1234567'.")
]
Address1 = Annotated[str, Field(description="Street line, e.g. '123 Main St'.")]
Address2 = Annotated[str, Field(description="Second address line, e.g. 'Apt 1'.")]
City = Annotated[str, Field(description="City name.")]
StateCode = Annotated[str, Field(description="State, e.g. 'TX'.")]
Country = Annotated[str, Field(description="Country, e.g. 'USA'.")]
Zip = Annotated[str, Field(description="Postal code, e.g. '78701'.")]
StatusFilter = Literal[
    "all", "pending", "processed", "delivered", "cancelled", "return requested", "exchange requested"
]


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
    """Get an order: owner, status, address, items, payment history, shipments and total."""
    return order_json(get_order(db, order_id))


@operation(kind="read", group="products")
def get_product_details(
    db: RetailState,
    product_id: Annotated[str, Field(description="The product id, e.g. '6086499569'.")],
) -> JSON:
    """Get a product's variants (items) with their options, prices and availability."""
    refuse_if(product_id not in db.products, f"product {product_id!r} not found")
    return db.products[product_id].model_dump(mode="json")


@operation(kind="read", group="products")
def list_all_product_types(db: RetailState) -> JSON:
    """List every product type with its name and product id."""
    return {"products": [{"name": p.name, "product_id": p.product_id} for p in db.products.values()]}


@operation(kind="read", group="users")
def find_user_id_by_name_zip(
    db: RetailState,
    first_name: Annotated[str, Field(description="The user's first name, e.g. 'Sara'.")],
    last_name: Annotated[str, Field(description="The user's last name, e.g. 'Doe'.")],
    zip: Annotated[str, Field(description="The zip code of the user's default address, e.g. '78701'.")],
) -> JSON:
    """Find a user's id by first name, last name and the zip code of their default address."""
    wanted = (first_name.strip().lower(), last_name.strip().lower(), zip.strip())
    for user in db.users.values():
        if (user.first_name.lower(), user.last_name.lower(), user.address.zip) == wanted:
            return {"user_id": user.user_id}
    raise DomainError(f"no user named {first_name} {last_name} with zip code {zip!r}")


@operation(kind="read", group="orders")
def list_user_orders(
    db: RetailState,
    user_id: UserId,
    status: Annotated[StatusFilter, Field(description="Only orders with this status; 'all' for every order.")] = "all",
) -> JSON:
    """List a user's orders (id, status, date, item names, total), optionally only those with one status."""
    user = get_user(db, user_id)
    orders = [db.orders[o] for o in user.order_ids]
    rows = [
        {
            "order_id": o.order_id,
            "status": o.status.value,
            "placed_on": o.placed_on,
            "item_names": [i.name for i in o.items],
            "total": total(o),
        }
        for o in orders
        if status == "all" or o.status.value == status
    ]
    return {"user_id": user_id, "status": status, "orders": rows}


@operation(kind="read", group="orders")
def track_order(db: RetailState, order_id: OrderId) -> JSON:
    """Get an order's shipping record: dated status history, carriers, tracking ids, ship and delivery dates."""
    return tracking_json(get_order(db, order_id))


_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _evaluate(node: ast.AST) -> float:
    match node:
        case ast.Expression(body=body):
            return _evaluate(body)
        case ast.Constant(value=value) if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _ARITHMETIC:
            return _ARITHMETIC[type(op)](_evaluate(left), _evaluate(right))
        case ast.UnaryOp(op=op, operand=operand) if type(op) in _ARITHMETIC:
            return _ARITHMETIC[type(op)](_evaluate(operand))
    raise DomainError("only numbers, + - * / and parentheses are allowed")


@operation(kind="read", group="utilities")
def calculate(
    db: RetailState,
    expression: Annotated[
        str, Field(description="An arithmetic expression, e.g. '(53.27 + 12.1) * 2'.", max_length=200)
    ],
) -> JSON:
    """Evaluate an arithmetic expression (numbers, + - * / and parentheses); the result is rounded to cents."""
    try:
        value = _evaluate(ast.parse(expression.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError) as e:
        raise DomainError(f"cannot parse expression {expression!r}") from e
    except (ZeroDivisionError, OverflowError) as e:
        raise DomainError(f"cannot evaluate expression {expression!r}: {e}") from e
    refuse_if(not math.isfinite(value), f"expression {expression!r} has no finite value")
    return {"expression": expression, "result": round(value, 2)}


# ---- writes ---------------------------------------------------------------------------------


@operation(kind="write", group="orders")
def cancel_order(
    db: RetailState,
    order_id: OrderId,
    reason: Annotated[Literal["no longer needed", "ordered by mistake"], Field(description="Why the user cancels.")],
) -> JSON:
    """Cancel a pending order; the full amount is refunded to the payment method it was paid with."""
    order = get_order(db, order_id, OrderStatus.PENDING)
    method = get_method(get_user(db, order.user_id), paid_with(order))
    order.cancel_reason = reason
    set_status(db, order, OrderStatus.CANCELLED)
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
    new = Address(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)
    switch(order, "address", new, f"order {order_id} already ships to this address")
    return order_json(order)


@operation(kind="write", group="orders")
def modify_pending_order_payment(db: RetailState, order_id: OrderId, payment_method_id: PaymentMethodId) -> JSON:
    """Pay a pending order with another of the user's payment methods; the old one is refunded.

    A gift card must cover the order total.
    """
    order = get_order(db, order_id, OrderStatus.PENDING)
    user = get_user(db, order.user_id)
    new, old = get_method(user, payment_method_id), get_method(user, paid_with(order))
    refuse_if(
        new.payment_method_id == old.payment_method_id, f"order {order_id} is already paid with {payment_method_id}"
    )
    check_balance(new, total(order))
    move_money(order, new, total(order))
    move_money(order, old, -total(order))
    return order_json(order)


@operation(kind="write", group="orders")
def modify_pending_order_items(
    db: RetailState,
    order_id: OrderId,
    item_ids: ItemIds,
    new_item_ids: NewItemIds,
    payment_method_id: PaymentMethodId,
) -> JSON:
    """Swap items of a pending order for other available variants of the same product (once per order).

    The price difference is charged to, or refunded to, ``payment_method_id``.
    """
    order = get_order(db, order_id, OrderStatus.PENDING)
    refuse_if(order.items_modified, f"the items of order {order_id} were already modified once")
    new_items = swap(db, order, item_ids, new_item_ids)
    method = get_method(get_user(db, order.user_id), payment_method_id)
    difference = price_difference(order, item_ids, new_items)
    check_balance(method, difference)
    for old_id, new in zip(item_ids, new_items, strict=True):
        index = next(i for i, item in enumerate(order.items) if item.item_id == old_id)
        order.items[index] = OrderItem(
            item_id=new.item_id,
            product_id=new.product_id,
            name=db.products[new.product_id].name,
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
    """Change a user's default address (existing orders keep theirs); the reply is the user id and
    the new address."""
    user = get_user(db, user_id)
    new = Address(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)
    switch(user, "address", new, f"this is already the default address of {user_id}")
    return {"user_id": user_id, "address": new.model_dump(mode="json")}


@operation(kind="write", group="orders")
def return_delivered_order_items(
    db: RetailState, order_id: OrderId, item_ids: ItemIds, payment_method_id: PaymentMethodId
) -> JSON:
    """Request a return of items of a delivered order (once per order), refunded to the original
    payment method or to a gift card of the user."""
    order = get_order(db, order_id, OrderStatus.DELIVERED)
    check_in_order(order, item_ids)
    method = get_method(get_user(db, order.user_id), payment_method_id)
    original = payment_method_id == paid_with(order)
    refuse_if(not original and method.source != "gift_card", "refunds go to the original payment method or a gift card")
    prices = {i.item_id: i.price for i in order.items}
    amount = round(sum(prices[i] for i in item_ids), 2)
    set_status(db, order, OrderStatus.RETURN_REQUESTED)
    order.request = Request(
        kind="return", item_ids=item_ids, new_item_ids=[], payment_method_id=payment_method_id, amount=amount
    )
    return order_json(order)


@operation(kind="write", group="orders")
def exchange_delivered_order_items(
    db: RetailState,
    order_id: OrderId,
    item_ids: ItemIds,
    new_item_ids: NewItemIds,
    payment_method_id: PaymentMethodId,
) -> JSON:
    """Request an exchange of items of a delivered order for available variants of the same product
    (once per order).

    The price difference is charged to, or refunded to, ``payment_method_id``.
    """
    order = get_order(db, order_id, OrderStatus.DELIVERED)
    new_items = swap(db, order, item_ids, new_item_ids)
    method = get_method(get_user(db, order.user_id), payment_method_id)
    difference = price_difference(order, item_ids, new_items)
    check_balance(method, difference)
    set_status(db, order, OrderStatus.EXCHANGE_REQUESTED)
    order.request = Request(
        kind="exchange",
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
    find_user_id_by_name_zip,
    list_user_orders,
    track_order,
    calculate,
    cancel_order,
    modify_order_address,
    modify_pending_order_payment,
    modify_pending_order_items,
    modify_user_address,
    return_delivered_order_items,
    exchange_delivered_order_items,
)
"""The sixteen operations, reads first; Xu et al.'s retail environment has sixteen tools, seven
of them writes."""
