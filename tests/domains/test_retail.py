"""Tests of the retail domain: world, operations, policy rules and tasks."""

from __future__ import annotations

import datetime
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from toolprism.domains import DOMAINS
from toolprism.domains.retail import Retail, RetailState
from toolprism.domains.retail._state import Order, OrderStatus
from toolprism.domains.retail._tasks import drafts
from toolprism.domains.retail._world import generate
from toolprism.errors import DomainError
from toolprism.schema import canonical_json

SEEDS = (0, 1)
ADDRESS = dict(address1="1 Elm St", address2="Apt 2", city="Boston", state="MA", country="USA", zip="02110")


@pytest.fixture(scope="module")
def domain() -> Retail:
    return Retail()


@pytest.fixture(scope="module")
def tasks(domain: Retail) -> dict[int, list]:
    return {seed: domain.tasks(seed) for seed in SEEDS}


@pytest.fixture(scope="module")
def easy(tasks: dict) -> dict[int, list]:
    return {seed: [t for t in found if t.form == "easy"] for seed, found in tasks.items()}


def run(domain: Retail, op: str, seed: int = 0, env=None, **args):
    """Execute one native action; return (environment, reply)."""
    env = env or domain.environment(seed)
    return env, env.execute(domain.action_space().action(op, args))


def orders(state: RetailState, status: OrderStatus) -> list[Order]:
    return [o for o in state.orders.values() if o.status is status]


def paid_with(order: Order) -> str:
    return [t for t in order.payment_history if t.transaction_type == "payment"][-1].payment_method_id


def other_variant(state: RetailState, order: Order, *, available: bool = True) -> tuple[str, str]:
    """An item id of ``order`` and another variant of its product with the given availability."""
    for item in order.items:
        for new in state.products[item.product_id].variants.values():
            if new.item_id != item.item_id and new.available is available:
                return item.item_id, new.item_id
    pytest.skip("no such variant in this world")


def card_of(state: RetailState, order: Order) -> str:
    """A credit card of the order's owner (every user has one)."""
    return next(m for m in state.users[order.user_id].payment_methods if m.startswith("credit_card_"))


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    return []


# ---- registration, policy, world ------------------------------------------------------------


def test_registered_with_a_policy_that_names_the_required_reads() -> None:
    assert DOMAINS.get("retail") is Retail
    policy = Retail.policy
    assert len(policy) <= 3500
    for name in ("find_user_id_by_email", "find_user_id_by_name_zip", "get_order_details", "get_user_details"):
        assert name in policy, name
    assert "before changing that order" in policy and "exactly" in policy
    for status in OrderStatus:
        assert status.value in policy, status


def test_world_has_the_documented_shape_and_realistic_ids(domain: Retail) -> None:
    state = domain.initial_state(0)
    assert (len(state.users), len(state.products), len(state.orders)) == (30, 15, 60)
    assert set(Counter(o.status for o in state.orders.values())) == set(OrderStatus)
    assert all(re.fullmatch(r"#W\d{7}", oid) for oid in state.orders)
    assert all(re.fullmatch(r"[a-z]+_[a-z]+_\d{4}", uid) for uid in state.users)
    assert len({u.email for u in state.users.values()}) == len(state.users)
    assert len({(u.first_name, u.last_name, u.address.zip) for u in state.users.values()}) == len(state.users)
    for user in state.users.values():
        for pid, method in user.payment_methods.items():
            assert re.fullmatch(rf"{method.source}_\d{{7}}", pid)
            assert (method.balance is not None) == (method.source == "gift_card")
        cards = [m.brand for m in user.payment_methods.values() if m.source == "credit_card"]
        assert cards and len(set(cards)) == len(cards)  # a card is named by its brand
    for product in state.products.values():
        assert 5 <= len(product.variants) and sum(v.available for v in product.variants.values()) >= 4
        assert len({tuple(v.options.items()) for v in product.variants.values()}) == len(product.variants)
        assert all(round(v.price, 2) == v.price for v in product.variants.values())


def test_orders_are_consistent_with_their_status_and_owner(domain: Retail) -> None:
    state = domain.initial_state(0)
    today = datetime.date.fromisoformat(state.today)
    for order in state.orders.values():
        user = state.users[order.user_id]
        assert order.order_id in user.order_ids and paid_with(order) in user.payment_methods
        assert len({i.product_id for i in order.items}) == len(order.items)  # a product at most once
        history = order.status_history
        assert history[0].status is OrderStatus.PENDING and history[-1].status is order.status
        assert all(datetime.date.fromisoformat(e.date) <= today for e in history)
        assert [e.date for e in history] == sorted(e.date for e in history)
        shipped = order.status not in (OrderStatus.PENDING, OrderStatus.CANCELLED)
        assert bool(order.fulfillments) == shipped
        for fulfillment in order.fulfillments:
            assert (fulfillment.delivered_on is not None) == (order.status is not OrderStatus.PROCESSED)
        refunded = sum(t.amount for t in order.payment_history if t.transaction_type == "refund")
        assert (refunded > 0) == (order.status is OrderStatus.CANCELLED)


def test_world_is_deterministic_in_seed(domain: Retail) -> None:
    assert generate(3) == generate(3) == domain.initial_state(3)
    assert domain.environment(3).state_hash() == domain.environment(3).state_hash()
    assert domain.initial_state(3) == domain.initial_state(3)
    assert domain.environment(3).state_hash() != domain.environment(4).state_hash()


def test_fresh_worlds_are_independent(domain: Retail) -> None:
    first = domain.initial_state(0)
    first.orders[next(iter(first.orders))].status = OrderStatus.CANCELLED
    next(iter(first.users.values())).order_ids.clear()
    assert domain.initial_state(0) != first


def test_fast_deep_copy_is_equal_and_independent(domain: Retail) -> None:
    state = domain.initial_state(0)
    copy = state.model_copy(deep=True)
    assert copy == state
    assert canonical_json(copy.model_dump(mode="json")) == canonical_json(state.model_dump(mode="json"))
    order = copy.orders[orders(copy, OrderStatus.PENDING)[0].order_id]
    order.status = OrderStatus.CANCELLED
    order.payment_history.append(order.payment_history[0])
    user = next(u for u in copy.users.values() if any(m.source == "gift_card" for m in u.payment_methods.values()))
    next(m for m in user.payment_methods.values() if m.source == "gift_card").balance = -1.0
    user.order_ids.append("#W0000000")
    assert copy != state and state == domain.initial_state(0)


def test_shared_values_are_frozen(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = next(iter(state.orders.values()))
    with pytest.raises(ValidationError):
        order.address.city = "Nowhere"
    with pytest.raises(ValidationError):
        order.items[0].price = 0.0
    with pytest.raises(ValidationError):
        next(iter(state.products.values())).name = "Other"


# ---- operations -----------------------------------------------------------------------------


def test_sixteen_operations_seven_of_them_writes(domain: Retail) -> None:
    operations = domain.action_space().operations
    kinds = {op.name: op.kind for op in operations}
    assert len(kinds) == 16 and Counter(kinds.values()) == {"read": 9, "write": 7}
    assert {n for n, k in kinds.items() if k == "write"} == {
        "cancel_order",
        "modify_order_address",
        "modify_pending_order_payment",
        "modify_pending_order_items",
        "modify_user_address",
        "return_delivered_order_items",
        "exchange_delivered_order_items",
    }
    assert {"find_user_id_by_name_zip", "list_user_orders", "track_order", "calculate"} <= set(kinds)
    status = next(p for op in operations if op.name == "list_user_orders" for p in op.params if p.name == "status")
    assert not status.required and set(status.enum) == {"all", *(s.value for s in OrderStatus)}


def test_reads_answer_and_change_nothing(domain: Retail) -> None:
    env = domain.environment(0)
    before = env.state_hash()
    user = next(u for u in env.state.users.values() if len(u.order_ids) > 1)
    _, reply = run(domain, "find_user_id_by_email", env=env, email=user.email.upper())
    assert reply == {"user_id": user.user_id}
    lookup = dict(first_name=user.first_name.lower(), last_name=user.last_name, zip=user.address.zip)
    _, reply = run(domain, "find_user_id_by_name_zip", env=env, **lookup)
    assert reply == {"user_id": user.user_id}
    _, reply = run(domain, "get_user_details", env=env, user_id=user.user_id)
    assert reply["email"] == user.email and reply["order_ids"] == user.order_ids
    order = env.state.orders[user.order_ids[0]]
    _, reply = run(domain, "get_order_details", env=env, order_id=order.order_id)
    assert reply["status"] == order.status.value and reply["user_id"] == user.user_id
    assert reply["total"] == pytest.approx(sum(i.price for i in order.items))
    assert reply["payment_history"][0]["payment_method_id"] == paid_with(order)
    assert "status_history" not in reply
    _, reply = run(domain, "list_all_product_types", env=env)
    assert len(reply["products"]) == 15
    _, reply = run(domain, "get_product_details", env=env, product_id=reply["products"][0]["product_id"])
    assert reply["variants"]
    assert env.state_hash() == before


@pytest.mark.parametrize("status", ["all", *(s.value for s in OrderStatus)])
def test_list_user_orders_filters_by_status(domain: Retail, status: str) -> None:
    env = domain.environment(0)
    for user in env.state.users.values():
        _, reply = run(domain, "list_user_orders", env=env, user_id=user.user_id, status=status)
        expected = [o for o in user.order_ids if status == "all" or env.state.orders[o].status.value == status]
        assert [row["order_id"] for row in reply["orders"]] == expected
        for row in reply["orders"]:
            order = env.state.orders[row["order_id"]]
            assert row["item_names"] == [i.name for i in order.items] and row["status"] == order.status.value


def test_reply_values_name_the_order_statuses_only() -> None:
    """The fault arms draw a false status from these (Xu et al.'s Ns); 'all' is a filter, not a status."""
    statuses = Retail.reply_values["status"]
    assert set(statuses) == {s.value for s in OrderStatus} and "all" not in statuses


def test_list_user_orders_defaults_to_all(domain: Retail) -> None:
    action = domain.action_space().action("list_user_orders", {"user_id": "x"})
    assert action.arguments["status"] == "all"


def test_track_order_shows_carriers_and_dates(domain: Retail) -> None:
    env = domain.environment(0)
    state = env.state
    for order in orders(state, OrderStatus.DELIVERED) + orders(state, OrderStatus.PENDING):
        _, reply = run(domain, "track_order", env=env, order_id=order.order_id)
        assert [e["status"] for e in reply["status_history"]][-1] == order.status.value
        for shipment in reply["fulfillments"]:
            assert shipment["carrier"] and re.fullmatch(r"\d{12}", shipment["tracking_id"])
            assert shipment["shipped_on"] <= shipment["delivered_on"] <= state.today
        assert bool(reply["fulfillments"]) == (order.status is OrderStatus.DELIVERED)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    st.lists(st.integers(-999, 999), min_size=1, max_size=5),
    st.lists(st.sampled_from("+-*"), min_size=4, max_size=4),
)
def test_calculate_agrees_with_arithmetic(domain: Retail, numbers: list[int], signs: list[str]) -> None:
    expression = str(numbers[0]) + "".join(f" {s} ({n})" for s, n in zip(signs, numbers[1:], strict=False))
    _, reply = run(domain, "calculate", expression=expression)
    value = eval(expression, {"__builtins__": {}})  # only digits, signs and parentheses
    assert reply == {"expression": expression, "result": round(float(value), 2)}


@pytest.mark.parametrize(
    "expression", ["__import__('os')", "2 ** 10", "1 / 0", "abs(-1)", "1e308 * 10", "x + 1", "", "(" * 100 + "1"]
)
def test_calculate_refuses_anything_but_arithmetic(domain: Retail, expression: str) -> None:
    env = domain.environment(0)
    reply = env.execute(domain.action_space().action("calculate", {"expression": expression}))
    assert set(reply) == {"error"}


def test_cancel_order_refunds_the_method_it_was_paid_with(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.PENDING)[0]
    env, reply = run(domain, "cancel_order", order_id=order.order_id, reason="ordered by mistake")
    after = env.state.orders[order.order_id]
    assert reply["status"] == "cancelled" == after.status.value and after.cancel_reason == "ordered by mistake"
    refund = after.payment_history[-1]
    assert refund.transaction_type == "refund" and refund.payment_method_id == paid_with(order)
    assert refund.amount == pytest.approx(reply["total"])
    assert after.status_history[-1].model_dump(mode="json") == {"status": "cancelled", "date": state.today}


def test_modify_order_address_changes_only_that_order(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.PENDING)[0]
    env, reply = run(domain, "modify_order_address", order_id=order.order_id, **ADDRESS)
    assert reply["address"] == ADDRESS and env.state.orders[order.order_id].address.model_dump() == ADDRESS
    assert env.state.users[order.user_id].address == state.users[order.user_id].address
    others = [o for o in env.state.orders.values() if o.order_id != order.order_id]
    assert others == [o for o in state.orders.values() if o.order_id != order.order_id]


def test_modify_user_address_leaves_orders_alone(domain: Retail) -> None:
    state = domain.initial_state(0)
    user = next(iter(state.users.values()))
    env, reply = run(domain, "modify_user_address", user_id=user.user_id, **ADDRESS)
    assert reply["address"] == ADDRESS == env.state.users[user.user_id].address.model_dump()
    assert env.state.orders == state.orders


def test_modify_pending_order_payment_charges_new_and_refunds_old(domain: Retail) -> None:
    state = domain.initial_state(0)
    for order in orders(state, OrderStatus.PENDING):
        methods = state.users[order.user_id].payment_methods.values()
        target = next((m for m in methods if m.payment_method_id != paid_with(order) and m.source != "gift_card"), None)
        if target:
            break
    else:
        pytest.skip("no pending order with a second method that is not a gift card")
    args = dict(order_id=order.order_id, payment_method_id=target.payment_method_id)
    env, reply = run(domain, "modify_pending_order_payment", **args)
    after = env.state.orders[order.order_id]
    assert paid_with(after) == target.payment_method_id
    last = [(t.transaction_type, t.payment_method_id) for t in after.payment_history[-2:]]
    assert last == [("payment", target.payment_method_id), ("refund", paid_with(order))]
    _, again = run(domain, "modify_pending_order_payment", env=env, **args)
    assert "already paid" in again["error"]


def test_gift_card_pays_only_what_its_balance_covers(domain: Retail) -> None:
    state = domain.initial_state(0)
    for order in orders(state, OrderStatus.PENDING):
        cards = [
            m
            for m in state.users[order.user_id].payment_methods.values()
            if m.source == "gift_card" and m.payment_method_id != paid_with(order)
        ]
        if cards:
            card = cards[0]
            break
    else:
        pytest.skip("no pending order whose owner has another gift card")
    total = round(sum(i.price for i in order.items), 2)
    args = dict(order_id=order.order_id, payment_method_id=card.payment_method_id)
    env, reply = run(domain, "modify_pending_order_payment", **args)
    if card.balance >= total:
        balance = env.state.users[order.user_id].payment_methods[card.payment_method_id].balance
        assert balance == pytest.approx(card.balance - total)
    else:
        assert "insufficient balance" in reply["error"]


def test_modify_pending_order_items_once(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.PENDING)[0]
    old, new = other_variant(state, order)
    args = dict(order_id=order.order_id, item_ids=[old], new_item_ids=[new], payment_method_id=card_of(state, order))
    env, reply = run(domain, "modify_pending_order_items", **args)
    ids = [i["item_id"] for i in reply["items"]]
    assert new in ids and old not in ids and env.state.orders[order.order_id].items_modified
    prices = {v.item_id: v.price for p in state.products.values() for v in p.variants.values()}
    assert reply["total"] == pytest.approx(sum(prices[i] for i in ids))
    before = env.state_hash()
    _, again = run(domain, "modify_pending_order_items", env=env, **{**args, "item_ids": [new], "new_item_ids": [old]})
    assert "already modified" in again["error"] and env.state_hash() == before


def test_return_delivered_order_items(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.DELIVERED)[0]
    item = order.items[0]
    args = dict(order_id=order.order_id, item_ids=[item.item_id], payment_method_id=paid_with(order))
    env, reply = run(domain, "return_delivered_order_items", **args)
    after = env.state.orders[order.order_id]
    assert reply["status"] == "return requested" == after.status.value
    assert after.request.kind == "return" and after.request.item_ids == [item.item_id]
    assert after.request.amount == pytest.approx(item.price)
    _, again = run(domain, "return_delivered_order_items", env=env, **args)
    assert "return requested" in again["error"]  # once per order


def test_exchange_delivered_order_items(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.DELIVERED)[0]
    old, new = other_variant(state, order)
    args = dict(order_id=order.order_id, item_ids=[old], new_item_ids=[new], payment_method_id=card_of(state, order))
    env, reply = run(domain, "exchange_delivered_order_items", **args)
    after = env.state.orders[order.order_id]
    assert reply["status"] == "exchange requested" and after.request.new_item_ids == [new]
    prices = {v.item_id: v.price for p in state.products.values() for v in p.variants.values()}
    assert after.request.amount == pytest.approx(prices[new] - prices[old])


# ---- policy violations ----------------------------------------------------------------------


def _violations(state: RetailState) -> list[tuple[str, dict, str]]:
    pending = orders(state, OrderStatus.PENDING)[0]
    delivered = orders(state, OrderStatus.DELIVERED)[0]
    processed = orders(state, OrderStatus.PROCESSED)[0]
    cancelled = orders(state, OrderStatus.CANCELLED)[0]
    stranger = next(u for u in state.users.values() if u.user_id not in (pending.user_id, delivered.user_id))
    foreign = next(iter(stranger.payment_methods))
    old, _ = other_variant(state, delivered)
    product = delivered.items[0].product_id
    elsewhere = next(v for p in state.products.values() if p.product_id != product for v in p.variants)
    own = {"payment_method_id": paid_with(delivered)}
    back = {"order_id": delivered.order_id, "item_ids": [old]}
    swap = {**back, **own, "item_ids": [delivered.items[0].item_id]}
    reason = {"reason": "no longer needed"}
    found = [
        ("cancel_order", {"order_id": delivered.order_id, **reason}, "delivered"),
        ("cancel_order", {"order_id": processed.order_id, **reason}, "processed"),
        ("cancel_order", {"order_id": cancelled.order_id, **reason}, "cancelled"),
        ("cancel_order", {"order_id": "#W0000000", **reason}, "not found"),
        ("modify_order_address", {"order_id": processed.order_id, **ADDRESS}, "processed"),
        ("modify_order_address", {"order_id": pending.order_id, **pending.address.model_dump()}, "already ships"),
        ("modify_user_address", {"user_id": "nobody_1", **ADDRESS}, "not found"),
        ("return_delivered_order_items", {**swap, "order_id": pending.order_id}, "pending"),
        ("return_delivered_order_items", {**back, **own, "item_ids": ["123"]}, "not in order"),
        ("return_delivered_order_items", {**back, "payment_method_id": foreign}, "not found for user"),
        ("modify_pending_order_payment", {"order_id": pending.order_id, "payment_method_id": foreign}, "not found"),
        ("exchange_delivered_order_items", {**swap, "new_item_ids": [elsewhere]}, "same product"),
        ("exchange_delivered_order_items", {**swap, "new_item_ids": swap["item_ids"]}, "already in the order"),
        ("exchange_delivered_order_items", {**swap, "item_ids": [old, old], "new_item_ids": [old]}, "same length"),
        ("modify_pending_order_items", {**swap, "new_item_ids": [elsewhere]}, "delivered"),
        ("get_order_details", {"order_id": "W123"}, "not found"),
        ("track_order", {"order_id": "#W1"}, "not found"),
        ("find_user_id_by_email", {"email": "nobody@example.com"}, "no user"),
        ("find_user_id_by_name_zip", {"first_name": "Ann", "last_name": "Doe", "zip": "00000"}, "no user"),
        ("list_user_orders", {"user_id": "nobody_1"}, "not found"),
        ("get_product_details", {"product_id": "1"}, "not found"),
    ]
    methods = state.users[delivered.user_id].payment_methods.values()
    other = [m for m in methods if m.payment_method_id != paid_with(delivered) and m.source != "gift_card"]
    if other:
        refund = {**back, "payment_method_id": other[0].payment_method_id}
        found.append(("return_delivered_order_items", refund, "original payment method or a gift card"))
    return found


@pytest.mark.parametrize("seed", SEEDS)
def test_policy_violations_are_refused_without_change(domain: Retail, seed: int) -> None:
    env = domain.environment(seed)
    before = env.state_hash()
    for op, args, message in _violations(env.state):
        _, reply = run(domain, op, env=env, **args)
        assert set(reply) == {"error"} and message in reply["error"], (op, args, reply)
        assert env.state_hash() == before and env.log[-1].op == op


def test_unavailable_variant_cannot_be_swapped_in(domain: Retail) -> None:
    state = domain.initial_state(0)
    for order in orders(state, OrderStatus.PENDING):
        for item in order.items:
            variants = state.products[item.product_id].variants.values()
            gone = [v for v in variants if not v.available and v.item_id != item.item_id]
            if gone:
                args = dict(
                    order_id=order.order_id,
                    item_ids=[item.item_id],
                    new_item_ids=[gone[0].item_id],
                    payment_method_id=card_of(state, order),
                )
                _, reply = run(domain, "modify_pending_order_items", **args)
                assert "not available" in reply["error"]
                return
    pytest.skip("every variant is available in this world")


def test_domain_error_is_raised_by_the_function(domain: Retail) -> None:
    fn = domain.definitions()["cancel_order"].fn
    with pytest.raises(DomainError, match="not found"):
        fn(domain.initial_state(0), order_id="#W1", reason="no longer needed")


# ---- tasks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_task_mix(easy: dict, seed: int) -> None:
    found = easy[seed]
    kinds = Counter(t.kind for t in found)
    assert len(found) >= 100
    assert kinds["compositional"] > len(found) / 2 and kinds["compound"] >= 10 and 1 <= kinds["single"] <= 10
    assert all(2 <= len(t.gold) <= 6 for t in found if t.kind != "single")
    assert len({t.id.split("/")[1] for t in found}) >= 15


@pytest.mark.parametrize("seed", SEEDS)
def test_most_tasks_have_a_get_order_details_injection_site(easy: dict, seed: int) -> None:
    """Xu et al. inject at the first get_order_details at position two or later; its reply must
    matter: an id it shows (item, payment method, product) flows into a later call, or the
    order's status decides the write (the policy's status rules)."""
    sites, informative = 0, 0
    for task in easy[seed]:
        index = next((i for i, a in enumerate(task.gold) if a.op == "get_order_details" and i >= 1), None)
        if index is None:
            continue
        sites += 1
        shown = set(strings(task.reference[index].reply)) - {task.reference[index].action.arguments["order_id"]}
        later = [s for a in task.gold[index + 1 :] for s in strings(a.arguments)]
        if any(s in shown and s not in task.query for s in later):
            informative += 1
    assert sites >= 0.6 * len(easy[seed])
    assert informative >= 0.3 * sites


@pytest.mark.parametrize("seed", SEEDS)
def test_gold_follows_the_identification_rule(easy: dict, seed: int) -> None:
    for task in easy[seed]:
        lookups = [a for a in task.gold if a.op.startswith("find_user_id")]
        if task.id.split("/")[1].startswith("catalog"):
            assert not lookups, task.id
            continue
        assert len(lookups) == 1 and task.gold[0] == lookups[0], task.id
        expected = "find_user_id_by_email" if "@" in task.query else "find_user_id_by_name_zip"
        assert lookups[0].op == expected, task.id


@pytest.mark.parametrize("seed", SEEDS)
def test_gold_reads_each_order_once_before_changing_it(domain: Retail, easy: dict, seed: int) -> None:
    writes = {op.name for op in domain.action_space().operations if op.kind == "write"}
    for task in easy[seed]:
        read = Counter(a.arguments["order_id"] for a in task.gold if a.op == "get_order_details")
        assert all(count == 1 for count in read.values()), task.id
        for index, action in enumerate(task.gold):
            if action.op in writes and "order_id" in action.arguments:
                earlier = [a for a in task.gold[:index] if a.op == "get_order_details"]
                assert action.arguments["order_id"] in {a.arguments["order_id"] for a in earlier}, task.id


@pytest.mark.parametrize("seed", SEEDS)
def test_profile_and_product_reads_are_made_only_when_needed(easy: dict, seed: int) -> None:
    """get_user_details only when a later call needs a value that only its reply shows;
    get_product_details once per product whose item is swapped in."""
    for task in easy[seed]:
        for index, step in enumerate(task.reference):
            if step.action.op == "get_user_details":
                known = set(strings([s.reply for s in task.reference[:index]]))
                fresh = set(strings(step.reply)) - known
                later = [s for a in task.gold[index + 1 :] for s in strings(a.arguments)]
                assert any(s in fresh and s not in task.query for s in later), task.id
        products = [a.arguments["product_id"] for a in task.gold if a.op == "get_product_details"]
        assert len(products) == len(set(products)), task.id
        swapped = [s for a in task.gold if "new_item_ids" in a.arguments for s in a.arguments["new_item_ids"]]
        if swapped:
            assert len(products) == len(swapped), task.id


@pytest.mark.parametrize("seed", SEEDS)
def test_status_decides_the_write_in_conditional_tasks(easy: dict, seed: int) -> None:
    conditional = [t for t in easy[seed] if t.id.split("/")[1] in ("cancel_or_return", "swap_by_status")]
    assert len(conditional) >= 8
    outcomes = Counter()
    for task in conditional:
        status = next(s.reply["status"] for s in task.reference if s.action.op == "get_order_details")
        writes = [a.op for a in task.gold if a.op not in ("get_order_details", "get_product_details")][1:]
        if "cancel_or_return" in task.id:
            expected = {"pending": ["cancel_order"], "delivered": ["return_delivered_order_items"]}
        else:
            expected = {"pending": ["modify_pending_order_items"], "delivered": ["exchange_delivered_order_items"]}
        assert writes == expected.get(status, []), task.id
        outcomes[status] += 1
    assert outcomes["pending"] and outcomes["delivered"]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_write_changes_the_state(domain: Retail, easy: dict, seed: int) -> None:
    space = domain.action_space()
    for task in easy[seed][::5]:
        env = domain.environment(seed)
        for action in task.gold:
            before = env.state_hash()
            reply = env.execute(action)
            assert "error" not in reply, task.id
            assert (env.state_hash() != before) == (space.get(action.op).kind == "write"), (task.id, action.op)


def test_hard_forms_state_the_same_order_ids(tasks: dict) -> None:
    by_id = {t.id: t for t in tasks[0]}
    for task in tasks[0]:
        if task.form == "hard":
            twin = by_id[task.id.removesuffix("/hard")]
            assert set(re.findall(r"#W\d{7}", task.query)) == set(re.findall(r"#W\d{7}", twin.query))


def test_tasks_are_deterministic(domain: Retail, tasks: dict) -> None:
    again = Retail().tasks(0)
    assert [t.to_json() for t in again] == [t.to_json() for t in tasks[0]]
    assert [t.gold for t in tasks[0]] != [t.gold for t in tasks[1]]
    assert drafts(generate(0), 0) == domain.drafts(0)  # the cached world changes nothing


# ---- property: any call either succeeds or is refused cleanly --------------------------------


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_writes_never_crash_and_refusals_change_nothing(domain: Retail, data) -> None:
    env = domain.environment(0)
    state = env.state
    order_ids = [*state.orders, "#W0000000"]
    item_ids = [v for p in state.products.values() for v in p.variants][:30]
    methods = [m for u in state.users.values() for m in u.payment_methods][:15]
    writes = [o.name for o in domain.action_space().operations if o.kind == "write"]
    for _ in range(4):
        op = data.draw(st.sampled_from(writes))
        args: dict = {"order_id": data.draw(st.sampled_from(order_ids))}
        if op == "cancel_order":
            args["reason"] = data.draw(st.sampled_from(["no longer needed", "ordered by mistake"]))
        elif op in {"modify_order_address", "modify_user_address"}:
            if op == "modify_user_address":
                args = {"user_id": data.draw(st.sampled_from(list(state.users)))}
            args |= ADDRESS
        else:
            args["payment_method_id"] = data.draw(st.sampled_from(methods))
            if "items" in op:
                order = state.orders.get(args["order_id"])
                own = [i.item_id for i in order.items] if order else item_ids[:1]
                args["item_ids"] = [data.draw(st.sampled_from(own))]
                if op != "return_delivered_order_items":
                    args["new_item_ids"] = [data.draw(st.sampled_from(item_ids))]
        before = env.state_hash()
        _, reply = run(domain, op, env=env, **args)
        assert isinstance(reply, dict)
        assert ("error" in reply) == (env.state_hash() == before), (op, args, reply)
        state = env.state
