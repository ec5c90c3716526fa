"""Tests of the retail domain: world, operations, policy rules and tasks."""

from __future__ import annotations

import re
from collections import Counter

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolprism.domains import DOMAINS
from toolprism.domains.retail import Retail, RetailState
from toolprism.domains.retail._state import Order, OrderStatus
from toolprism.errors import DomainError

SEEDS = (0, 1)


@pytest.fixture(scope="module")
def domain() -> Retail:
    return Retail()


@pytest.fixture(scope="module")
def tasks(domain: Retail) -> dict[int, list]:
    return {seed: domain.tasks(seed) for seed in SEEDS}


def run(domain: Retail, op: str, seed: int = 0, env=None, **args):
    """Execute one native action; return (environment, reply)."""
    env = env or domain.environment(seed)
    return env, env.execute(domain.action_space().action(op, args))


def orders(state: RetailState, status: OrderStatus) -> list[Order]:
    return [o for o in state.orders.values() if o.status is status]


def other_variant(state: RetailState, order: Order, *, available: bool = True) -> tuple[str, str]:
    """An item id of ``order`` and another variant of its product with the given availability."""
    for item in order.items:
        for new in state.products[item.product_id].items.values():
            if new.item_id != item.item_id and new.available is available:
                return item.item_id, new.item_id
    pytest.skip("no such variant in this world")


def credit_card(state: RetailState, order: Order) -> str:
    user = state.users[order.user_id]
    return next(m for m in user.payment_methods if m.startswith("credit_card_"))


# ---- registration, world, schemas -----------------------------------------------------------


def test_registered_under_retail() -> None:
    assert DOMAINS.get("retail") is Retail
    assert Retail.name == "retail" and "pending" in Retail.policy and "authenticate" in Retail.policy


def test_world_has_expected_shape(domain: Retail) -> None:
    state = domain.initial_state(0)
    assert (len(state.users), len(state.products), len(state.orders)) == (20, 10, 40)
    assert all(re.fullmatch(r"#W\d{7}", oid) for oid in state.orders)
    for order in state.orders.values():
        assert order.order_id in state.users[order.user_id].order_ids
        assert order.payment_method_id in state.users[order.user_id].payment_methods
    statuses = Counter(o.status for o in state.orders.values())
    assert statuses[OrderStatus.PENDING] >= 10 and statuses[OrderStatus.DELIVERED] >= 10
    for product in state.products.values():
        assert sum(i.available for i in product.items.values()) >= 3


def test_world_is_deterministic_in_seed(domain: Retail) -> None:
    assert domain.environment(3).state_hash() == domain.environment(3).state_hash()
    assert domain.initial_state(3) == domain.initial_state(3)
    assert domain.environment(3).state_hash() != domain.environment(4).state_hash()


def test_every_tool_schema_is_valid(domain: Retail) -> None:
    tools = domain.action_space().tools()
    assert 10 <= len(tools) <= 13
    for tool in tools:
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        props = tool.parameters["properties"]
        assert tool.description and not tool.description.endswith(" ")
        assert sorted(tool.parameters["required"]) == sorted(props), tool.name
        assert all(p.get("description") for p in props.values()), tool.name
    spec = {t.name: t for t in tools}
    reason = spec["cancel_order"].parameters["properties"]["reason"]
    assert reason["enum"] == ["no longer needed", "ordered by mistake"]
    assert spec["return_delivered_order_items"].parameters["properties"]["item_ids"]["type"] == "array"


def test_operations_are_classified(domain: Retail) -> None:
    kinds = {op.name: op.kind for op in domain.action_space().operations}
    assert {n for n, k in kinds.items() if k == "read"} >= {
        "find_user_id_by_email",
        "get_user_details",
        "get_order_details",
        "get_product_details",
    }
    assert {"cancel_order", "modify_order_address", "return_delivered_order_items"} <= {
        n for n, k in kinds.items() if k == "write"
    }
    assert all(op.group in {"users", "orders", "products"} for op in domain.action_space().operations)


# ---- reads ----------------------------------------------------------------------------------


def test_reads_answer_and_change_nothing(domain: Retail) -> None:
    env = domain.environment(0)
    before = env.state_hash()
    user = next(iter(env.state.users.values()))
    _, reply = run(domain, "find_user_id_by_email", env=env, email=user.email.upper())
    assert reply == {"user_id": user.user_id}
    _, reply = run(domain, "get_user_details", env=env, user_id=user.user_id)
    assert reply["email"] == user.email and reply["order_ids"] == user.order_ids
    order = env.state.orders[user.order_ids[0]]
    _, reply = run(domain, "get_order_details", env=env, order_id=order.order_id)
    assert reply["status"] == order.status.value
    assert reply["total"] == pytest.approx(sum(i.price for i in order.items))
    _, reply = run(domain, "list_all_product_types", env=env)
    assert len(reply["products"]) == 10
    _, reply = run(domain, "get_product_details", env=env, product_id=reply["products"][0]["product_id"])
    assert reply["items"]
    assert env.state_hash() == before


# ---- writes ---------------------------------------------------------------------------------


def test_cancel_order_refunds_and_cancels(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.PENDING)[0]
    env, reply = run(domain, "cancel_order", order_id=order.order_id, reason="ordered by mistake")
    after = env.state.orders[order.order_id]
    assert reply["status"] == "cancelled" == after.status.value
    assert after.cancel_reason == "ordered by mistake"
    assert after.transactions[-1].kind == "refund"
    assert after.transactions[-1].amount == pytest.approx(reply["total"])


def test_modify_order_address_changes_only_that_order(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.PENDING)[0]
    new = dict(address1="1 Elm St", address2="Apt 2", city="Boston", state="MA", country="USA", zip="02110")
    env, reply = run(domain, "modify_order_address", order_id=order.order_id, **new)
    assert reply["address"] == new and env.state.orders[order.order_id].address.model_dump() == new
    assert env.state.users[order.user_id].address == state.users[order.user_id].address
    others = [o for o in env.state.orders.values() if o.order_id != order.order_id]
    assert others == [o for o in state.orders.values() if o.order_id != order.order_id]


def test_modify_user_address(domain: Retail) -> None:
    user = next(iter(domain.initial_state(0).users.values()))
    new = dict(
        address1="9 Oak St",
        address2="Unit 1",
        city="Austin",
        state="TX",
        country="USA",
        zip="78701",
    )
    env, reply = run(domain, "modify_user_address", user_id=user.user_id, **new)
    assert reply["address"] == new == env.state.users[user.user_id].address.model_dump()


def test_modify_pending_order_payment(domain: Retail) -> None:
    state = domain.initial_state(0)
    for order in orders(state, OrderStatus.PENDING):
        methods = state.users[order.user_id].payment_methods
        target = next(
            (m for m in methods.values() if m.payment_method_id != order.payment_method_id and m.kind != "gift_card"),
            None,
        )
        if target:
            break
    else:
        pytest.skip("no pending order with a second non-gift-card method")
    args = dict(order_id=order.order_id, payment_method_id=target.payment_method_id)
    env, reply = run(domain, "modify_pending_order_payment", **args)
    after = env.state.orders[order.order_id]
    assert after.payment_method_id == target.payment_method_id == reply["payment_method_id"]
    assert [t.kind for t in after.transactions[-2:]] == ["payment", "refund"]
    _, again = run(domain, "modify_pending_order_payment", env=env, **args)
    assert "error" in again


def test_modify_pending_order_items_once(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.PENDING)[0]
    old, new = other_variant(state, order)
    args = dict(
        order_id=order.order_id,
        item_ids=[old],
        new_item_ids=[new],
        payment_method_id=credit_card(state, order),
    )
    env, reply = run(domain, "modify_pending_order_items", **args)
    ids = [i["item_id"] for i in reply["items"]]
    assert new in ids and old not in ids and env.state.orders[order.order_id].items_modified
    before = env.state_hash()
    _, again = run(
        domain,
        "modify_pending_order_items",
        env=env,
        **{**args, "item_ids": [new], "new_item_ids": [old]},
    )
    assert "already modified" in again["error"] and env.state_hash() == before


def test_return_delivered_order_items(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.DELIVERED)[0]
    item = order.items[0]
    args = dict(order_id=order.order_id, item_ids=[item.item_id], payment_method_id=order.payment_method_id)
    env, reply = run(domain, "return_delivered_order_items", **args)
    after = env.state.orders[order.order_id]
    assert reply["status"] == "return requested" == after.status.value
    assert after.request.item_ids == [item.item_id] and after.request.amount == pytest.approx(item.price)


def test_exchange_delivered_order_items(domain: Retail) -> None:
    state = domain.initial_state(0)
    order = orders(state, OrderStatus.DELIVERED)[0]
    old, new = other_variant(state, order)
    card = credit_card(state, order)
    args = dict(order_id=order.order_id, item_ids=[old], new_item_ids=[new], payment_method_id=card)
    env, reply = run(domain, "exchange_delivered_order_items", **args)
    after = env.state.orders[order.order_id]
    assert reply["status"] == "exchange requested" and after.request.new_item_ids == [new]
    prices = {i.item_id: i.price for product in state.products.values() for i in product.items.values()}
    assert after.request.amount == pytest.approx(prices[new] - prices[old])


# ---- policy violations ----------------------------------------------------------------------


def _violations(state: RetailState) -> list[tuple[str, dict, str]]:
    pending = orders(state, OrderStatus.PENDING)[0]
    delivered = orders(state, OrderStatus.DELIVERED)[0]
    processed = orders(state, OrderStatus.PROCESSED)[0]
    stranger = next(u for u in state.users.values() if u.user_id != pending.user_id)
    address = dict(address1="1 A St", address2="B", city="C", state="D", country="USA", zip="00000")
    old, _ = other_variant(state, delivered)
    foreign = next(
        i.item_id
        for p in state.products.values()
        for i in p.items.values()
        if p.product_id != delivered.items[0].product_id
    )
    return [
        (
            "cancel_order",
            {"order_id": delivered.order_id, "reason": "no longer needed"},
            "delivered",
        ),
        ("cancel_order", {"order_id": "#W0000000", "reason": "no longer needed"}, "not found"),
        ("modify_order_address", {"order_id": processed.order_id, **address}, "processed"),
        ("modify_user_address", {"user_id": "nobody_1", **address}, "not found"),
        (
            "return_delivered_order_items",
            {
                "order_id": pending.order_id,
                "item_ids": [pending.items[0].item_id],
                "payment_method_id": pending.payment_method_id,
            },
            "pending",
        ),
        (
            "return_delivered_order_items",
            {
                "order_id": delivered.order_id,
                "item_ids": ["123"],
                "payment_method_id": delivered.payment_method_id,
            },
            "not in order",
        ),
        (
            "modify_pending_order_payment",
            {
                "order_id": pending.order_id,
                "payment_method_id": next(iter(stranger.payment_methods)),
            },
            "not found",
        ),
        (
            "exchange_delivered_order_items",
            {
                "order_id": delivered.order_id,
                "item_ids": [delivered.items[0].item_id],
                "new_item_ids": [foreign],
                "payment_method_id": delivered.payment_method_id,
            },
            "same product",
        ),
        (
            "exchange_delivered_order_items",
            {
                "order_id": delivered.order_id,
                "item_ids": [old, old],
                "new_item_ids": [old],
                "payment_method_id": delivered.payment_method_id,
            },
            "same length",
        ),
        ("get_order_details", {"order_id": "W123"}, "not found"),
        ("find_user_id_by_email", {"email": "nobody@example.com"}, "no user"),
    ]


@pytest.mark.parametrize("index", range(11))
def test_policy_violation_is_refused_without_change(domain: Retail, index: int) -> None:
    env = domain.environment(0)
    op, args, message = _violations(env.state)[index]
    before = env.state_hash()
    _, reply = run(domain, op, env=env, **args)
    assert set(reply) == {"error"} and message in reply["error"]
    assert env.state_hash() == before
    assert env.log[-1].op == op


def test_unavailable_variant_cannot_be_ordered(domain: Retail) -> None:
    state = domain.initial_state(0)
    for order in orders(state, OrderStatus.PENDING):
        try:
            old, new = other_variant(state, order, available=False)
        except pytest.skip.Exception:
            continue
        env, reply = run(
            domain,
            "modify_pending_order_items",
            order_id=order.order_id,
            item_ids=[old],
            new_item_ids=[new],
            payment_method_id=credit_card(state, order),
        )
        assert "not available" in reply["error"]
        return
    pytest.skip("every variant is available in this world")


def test_domain_error_is_raised_by_the_function(domain: Retail) -> None:
    fn = domain.definitions()["cancel_order"].fn
    with pytest.raises(DomainError, match="not found"):
        fn(domain.initial_state(0), order_id="#W1", reason="no longer needed")


# ---- tasks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_enough_well_formed_tasks(tasks: dict, seed: int) -> None:
    found = tasks[seed]
    assert len(found) >= 40
    assert len({t.id for t in found}) == len(found)
    assert len({t.id.split("/")[1] for t in found}) >= 8
    assert all(1 <= len(t.gold) <= 3 for t in found)
    assert any(len(t.gold) > 1 for t in found)


@pytest.mark.parametrize("seed", SEEDS)
def test_gold_is_writes_or_one_read(domain: Retail, tasks: dict, seed: int) -> None:
    kinds = {op.name: op.kind for op in domain.action_space().operations}
    for task in tasks[seed]:
        ops = [kinds[a.op] for a in task.gold]
        assert ops == ["read"] or set(ops) == {"write"}, task.id


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize("seed", SEEDS)
def test_every_gold_argument_is_stated_in_the_query(tasks: dict, seed: int) -> None:
    for task in tasks[seed]:
        for action in task.gold:
            for value in _strings(list(action.arguments.values())):
                assert value in task.query, (task.id, value)


def test_tasks_are_deterministic(domain: Retail, tasks: dict) -> None:
    again = domain.tasks(0)
    assert [t.to_json() for t in again] == [t.to_json() for t in tasks[0]]
    assert {t.query for t in tasks[0]}.isdisjoint({t.query for t in tasks[1]})
    assert [t.gold for t in tasks[0]] != [t.gold for t in tasks[1]]
    assert domain.tasks(0, limit=5) == tasks[0][:5]


@pytest.mark.parametrize("seed", SEEDS)
def test_replaying_gold_reproduces_reference(domain: Retail, tasks: dict, seed: int) -> None:
    space = domain.action_space()
    for task in tasks[seed]:
        hashes = []
        for _ in range(2):
            env = domain.environment(seed)
            replies = [env.execute(space.action(a.op, a.arguments)) for a in task.gold]
            assert replies == [s.reply for s in task.reference], task.id
            assert not any("error" in r for r in replies), task.id
            hashes.append(env.state_hash())
        assert hashes[0] == hashes[1]
        changed = hashes[0] != domain.environment(seed).state_hash()
        assert changed == any(space.get(a.op).kind == "write" for a in task.gold), task.id


# ---- property: any call either succeeds or is refused cleanly --------------------------------


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_calls_never_crash_and_refusals_change_nothing(domain: Retail, data) -> None:
    env = domain.environment(0)
    state = env.state
    order_ids = [*state.orders, "#W0000000"]
    item_ids = [i for p in state.products.values() for i in p.items][:20]
    methods = [m for u in state.users.values() for m in u.payment_methods][:10]
    for _ in range(4):
        op = data.draw(st.sampled_from([o.name for o in domain.action_space().operations if o.kind == "write"]))
        args: dict = {"order_id": data.draw(st.sampled_from(order_ids))}
        if op == "cancel_order":
            args["reason"] = data.draw(st.sampled_from(["no longer needed", "ordered by mistake"]))
        elif op in {"modify_order_address", "modify_user_address"}:
            if op == "modify_user_address":
                args = {"user_id": data.draw(st.sampled_from(list(state.users)))}
            args |= dict(address1="1 A St", address2="B", city="C", state="D", country="E", zip="1")
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
        if "error" in reply:
            assert env.state_hash() == before
        elif "address" not in op:  # re-setting the same address is a no-op
            assert env.state_hash() != before
        state = env.state
