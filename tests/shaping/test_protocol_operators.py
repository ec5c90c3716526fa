"""Proof obligations for the cross-call protocol operators: ``transaction``, ``reference``, ``discovery``.

(1) the oracle succeeds on every task of both domains (a sample of each template by default, all of
them under ``-m slow``), alone and composed, with no rejection;
(2) each rejection the operators can produce is recorded with its kind and changes nothing;
(3) every shown tool is a valid JSON Schema object with a valid name; (4) specs round-trip.
"""

from __future__ import annotations

import asyncio
import hashlib

import jsonschema
import pytest

from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.errors import ConfigError, RejectionKind
from toolprism.run import MAX_TURNS, EpisodeSpec, run_episode
from toolprism.schema import Action, ActionSpace, Operation, Param, ToolCall
from toolprism.schema._model import TOOL_NAME
from toolprism.shaping import AdapterSession, Batch, Variant

SINGLE = {
    "smart_home": ["transaction-shared", "reference", "reference(args=room+zone)", "discovery"],
    "retail": ["transaction-shared", "reference", "reference(args=order_id+item_ids)", "discovery"],
}
COMPOSED = [
    "transaction|merge",
    "split|transaction|rename(style=opaque)",
    "merge(by=class)|transaction",
    "transaction|transaction",
    "reference|merge",
    "split|reference|rename(style=opaque)",
    "reference|reference",
    "transaction|reference",
    "reference|transaction",
    "merge(by=class)|reference(args=operation)",
    "discovery|merge",
    "split|discovery|rename(style=opaque)",
    "merge(by=class)|discovery",
    "discovery|discovery",
    "discovery|transaction",
    "reference|discovery|transaction|rename(style=opaque)",
]
ALL = [(d, s) for d, specs in SINGLE.items() for s in specs] + [(d, s) for d in SINGLE for s in COMPOSED]

# (1) the oracle, end to end ------------------------------------------------------------------


@pytest.mark.parametrize(("domain_name", "spec"), ALL)
def test_oracle_scores_every_task(domain_name: str, spec: str, task_sample, oracle_scores_every_task) -> None:  # noqa: ANN001
    # a stack of three protocols takes up to twelve turns per call: six gold calls need 73
    oracle_scores_every_task(domain_name, spec, MAX_TURNS if spec in SINGLE[domain_name] else 80, sample=task_sample)


# (2) rejections -------------------------------------------------------------------------------

T = ScriptedTurns()
K = RejectionKind
SET_LOCK = {"txn_id": "txn_1", "value": "front_door"}
CASES = {
    # transaction (smart_home)
    "transaction: unknown id": (
        "transaction-shared",
        [T.call("commit_lock_door", {"txn_id": "txn_7"})],
        [K.UNKNOWN_TRANSACTION],
        "'txn_7' is not open (never begun)",
    ),
    "transaction: set on unknown id": (
        "transaction-shared",
        [T.call("set_lock", SET_LOCK)],
        [K.UNKNOWN_TRANSACTION],
        "'txn_1' is not open (never begun)",
    ),
    "transaction: id of another operation": (
        "transaction-shared",
        [
            T.call("begin_lock_door", {}),
            T.call("set_lock", SET_LOCK),
            T.call("commit_unlock_door", {"txn_id": "txn_1"}),
        ],
        [K.UNKNOWN_TRANSACTION],
        "'txn_1' was begun for lock_door, not unlock_door; commit it with commit_lock_door",
    ),
    "transaction: committed twice": (
        "transaction-shared",
        [
            T.call("begin_list_scenes", {}),
            T.call("commit_list_scenes", {"txn_id": "txn_1"}),
            T.call("commit_list_scenes", {"txn_id": "txn_1"}),
        ],
        [K.UNKNOWN_TRANSACTION],
        "'txn_1' is not open (already committed)",
    ),
    "transaction: argument the operation does not take": (
        "transaction-shared",
        [T.call("begin_lock_door", {}), T.call("set_room", {"txn_id": "txn_1", "value": "kitchen"})],
        [K.INVALID_ARGUMENTS],
        "lock_door (transaction 'txn_1') has no argument 'room'; its arguments are: lock",
    ),
    "transaction: value the schema refuses": (
        "transaction-shared",
        [T.call("begin_lock_door", {}), T.call("set_lock", {"txn_id": "txn_1", "value": "window"})],
        [K.INVALID_ARGUMENTS],
        "invalid arguments for tool 'set_lock': value: 'window' is not one of",
    ),
    "transaction: value only another operation accepts": (
        "merge(by=class)|transaction",
        [T.call("begin_locks", {}), T.call("set_operation", {"txn_id": "txn_1", "value": "set_blinds"})],
        [K.INVALID_ARGUMENTS],
        "invalid value for 'operation' of locks: 'set_blinds' is not one of",
    ),
    "transaction: commit with arguments unset": (
        "transaction-shared",
        [T.call("begin_lock_door", {}), T.call("commit_lock_door", {"txn_id": "txn_1"})],
        [K.INCOMPLETE_TRANSACTION],
        "cannot commit 'txn_1': lock_door needs argument(s) lock; set them first with set_lock",
    ),
    "transaction: native name": (
        "transaction-shared",
        [T.call("lock_door", {"lock": "front_door"})],
        [K.UNKNOWN_TOOL],
        "unknown tool 'lock_door'",
    ),
    # reference (smart_home with explicit args; merge(by=class) for a value only another dispatcher accepts)
    "reference: unknown handle": (
        "reference(args=room+lock)",
        [T.call("lock_door", {"lock_handle": "h_9"})],
        [K.UNKNOWN_HANDLE],
        "unknown handle 'h_9' for lock_handle; get one with resolve_lock(value)",
    ),
    "reference: handle of another argument": (
        "reference(args=room+lock)",
        [T.call("resolve_room", {"value": "kitchen"}), T.call("lock_door", {"lock_handle": "h_1"})],
        [K.UNKNOWN_HANDLE],
        "handle 'h_1' was issued for room, not lock; get one with resolve_lock(value)",
    ),
    "reference: raw value instead of a handle": (
        "reference(args=room+lock)",
        [T.call("lock_door", {"lock": "front_door"})],
        [K.INVALID_ARGUMENTS],
        "'lock_handle' is a required property",
    ),
    "reference: value the resolver refuses": (
        "reference(args=room+lock)",
        [T.call("resolve_lock", {"value": "window"})],
        [K.INVALID_ARGUMENTS],
        "invalid arguments for tool 'resolve_lock': value: 'window' is not one of",
    ),
    "reference: value only another operation accepts": (
        "merge(by=class,args=shared)|reference(args=operation)",
        [
            T.call("resolve_operation", {"value": "set_blinds"}),
            T.call("locks", {"operation_handle": "h_1", "lock": "front_door"}),
        ],
        [K.INVALID_ARGUMENTS],
        "the value behind handle 'h_1' is invalid for 'operation' of locks: 'set_blinds' is not one of",
    ),
    # discovery (smart_home)
    "discovery: class never listed": (
        "discovery(style=gated)",
        [T.call("invoke", {"class": "locks", "method": "lock_door", "arguments": {"lock": "front_door"}})],
        [K.UNDISCOVERED],
        "class 'locks' has not been listed yet; call list_methods(class='locks') first",
    ),
    "discovery: another class listed": (
        "discovery(style=gated)",
        [
            T.call("list_methods", {"class": "lights"}),
            T.call("invoke", {"class": "locks", "method": "lock_door", "arguments": {"lock": "front_door"}}),
        ],
        [K.UNDISCOVERED],
        "class 'locks' has not been listed yet",
    ),
    "discovery: unknown method": (
        "discovery",
        [
            T.call("list_methods", {"class": "locks"}),
            T.call("invoke", {"class": "locks", "method": "teleport", "arguments": {}}),
        ],
        [K.UNKNOWN_TOOL],
        "class 'locks' has no method 'teleport'; its methods are: get_lock_status, lock_door, unlock_door",
    ),
    "discovery: method of another class": (
        "discovery",
        [
            T.call("list_methods", {"class": "locks"}),
            T.call(
                "invoke",
                {"class": "locks", "method": "set_blinds", "arguments": {"room": "kitchen", "position": "open"}},
            ),
        ],
        [K.UNKNOWN_TOOL],
        "class 'locks' has no method 'set_blinds'; 'set_blinds' is a method of class 'blinds'",
    ),
    "discovery: arguments the method refuses": (
        "discovery",
        [
            T.call("list_methods", {"class": "locks"}),
            T.call("invoke", {"class": "locks", "method": "lock_door", "arguments": {"lock": "window"}}),
        ],
        [K.INVALID_ARGUMENTS],
        "invalid arguments for method 'lock_door' of class 'locks': lock: 'window' is not one of",
    ),
    "discovery: arguments left out": (
        "discovery(style=gated)",
        [T.call("list_methods", {"class": "locks"}), T.call("invoke", {"class": "locks", "method": "lock_door"})],
        [K.INVALID_ARGUMENTS],
        "invalid arguments for method 'lock_door' of class 'locks': 'lock' is a required property",
    ),
    "discovery: unknown class": (
        "discovery",
        [T.call("list_methods", {"class": "garden"})],
        [K.INVALID_ARGUMENTS],
        "'garden' is not one of",
    ),
    "discovery: native name": (
        "discovery",
        [T.call("lock_door", {"lock": "front_door"})],
        [K.UNKNOWN_TOOL],
        "unknown tool 'lock_door'",
    ),
}
READS = {"transaction: committed twice": ["list_scenes"]}


@pytest.mark.parametrize("case", list(CASES))
def test_rejection_is_recorded_and_executes_nothing(case: str) -> None:
    spec, turns, expected, reason = CASES[case]
    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build(spec, domain.action_space())
    before = domain.environment(task.world_seed).state_hash()
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend(turns)))
    rejected = [c for t in trace.turns for c in t.calls if c.outcome == "rejected"]
    assert [RejectionKind(c.rejection) for c in rejected] == expected
    assert [a.op for a in trace.actions] == READS.get(case, [])
    for call in rejected:
        assert call.reply["error"].startswith("call rejected: ")
        assert reason in call.reply["error"], call.reply
    assert trace.final_state_hash == before


def test_every_new_rejection_kind_is_covered() -> None:
    kinds = {k for _, _, expected, _ in CASES.values() for k in expected}
    assert {K.UNKNOWN_TRANSACTION, K.INCOMPLETE_TRANSACTION, K.UNKNOWN_HANDLE, K.UNDISCOVERED} <= kinds


def _call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(name, arguments)


def _session(spec: str, space: ActionSpace | None = None) -> AdapterSession:
    space = space or get_domain("smart_home").action_space()
    return AdapterSession(Variant.build(spec, space), lambda action: {"ran": str(action)})


def _drive(session: AdapterSession, action: Action) -> list:
    """Run the encoder's plan for ``action`` through ``session``; every decision, in order."""
    plan, decisions = session.variant.plan(action), []
    item = next(plan)
    try:
        while True:
            calls = item.calls if isinstance(item, Batch) else (item,)
            batch = [session.handle(c) for c in calls]
            decisions += batch
            item = plan.send([d.reply for d in batch] if isinstance(item, Batch) else batch[0].reply)
    except StopIteration:
        return decisions


def test_a_rejected_commit_keeps_the_transaction_open() -> None:
    session = _session("transaction-shared")
    assert session.handle(_call("begin_lock_door")).reply == {"txn_id": "txn_1"}
    assert session.handle(_call("commit_lock_door", txn_id="txn_1")).rejection == K.INCOMPLETE_TRANSACTION
    assert session.handle(_call("set_lock", txn_id="txn_1", value="back_door")).outcome == "answered"
    done = session.handle(_call("commit_lock_door", txn_id="txn_1"))
    assert done.outcome == "executed" and str(done.action) == 'lock_door(lock="back_door")'


def test_handles_are_numbered_per_episode_and_reusable() -> None:
    session = _session("reference(args=room+lock)")
    assert [session.handle(_call("resolve_room", value=r)).reply for r in ("kitchen", "office")] == [
        {"handle": "h_1"},
        {"handle": "h_2"},
    ]
    assert session.handle(_call("resolve_room", value="attic")).outcome == "rejected"  # issues nothing
    assert session.handle(_call("resolve_lock", value="back_door")).reply == {"handle": "h_3"}
    for _ in range(2):
        done = session.handle(_call("stop_music", room_handle="h_2"))
        assert done.outcome == "executed" and str(done.action) == 'stop_music(room="office")'
    assert _session("reference(args=room+lock)").handle(_call("stop_music", room_handle="h_1")).rejection == (
        K.UNKNOWN_HANDLE
    )


def test_listing_is_remembered_and_answers_the_methods() -> None:
    session = _session("discovery")
    native = {t.name: t for t in get_domain("smart_home").action_space().tools()}
    listing = session.handle(_call("list_methods", **{"class": "locks"}))
    assert listing.reply["class"] == "locks"
    assert [m["name"] for m in listing.reply["methods"]] == ["get_lock_status", "lock_door", "unlock_door"]
    for method in listing.reply["methods"]:
        assert method["parameters"] == native[method["name"]].parameters
        assert method["description"] == native[method["name"]].description
    call = _call("invoke", **{"class": "locks", "method": "get_lock_status", "arguments": {"lock": "back_door"}})
    assert [session.handle(call).outcome for _ in range(2)] == ["executed", "executed"]


# shapes, names and binding problems -------------------------------------------------------------


def test_tool_counts_and_pass_through() -> None:
    home, retail = get_domain("smart_home").action_space(), get_domain("retail").action_space()
    assert len(Variant.build("transaction-shared", home).tools()) == 17 * 2 + 13
    assert len(Variant.build("transaction-shared", retail).tools()) == 16 * 2 + 18
    # no free-string arguments in smart_home: the enumerated ones are referenced instead
    home_shown = Variant.build("reference", home).tools()
    assert len(home_shown) == 17 + 10 and home_shown[0].parameters["properties"].keys() == {"room_handle"}
    assert Variant.build("reference", home).convention() != ""
    shown = Variant.build("reference", retail).tools()
    assert len(shown) == 16 + 14 and "item_ids" in shown[12].parameters["properties"]
    assert shown[0].parameters["properties"].keys() == {"email_handle"}
    assert [t.name for t in Variant.build("discovery(style=paper)", home).tools()] == ["list_methods", "invoke"]
    assert Variant.build("discovery(style=gated)", home).tools()[0].parameters["properties"]["class"]["enum"] == [
        "rooms", "climate", "locks", "scenes", "lights", "blinds", "fans", "media",
    ]  # fmt: skip
    assert Variant.build("discovery(style=paper)", home).tools()[0].parameters["properties"]["class"]["enum"] == [
        "blinds", "climate", "fans", "lights", "locks", "media", "rooms", "scenes",
    ]  # fmt: skip


def test_an_argument_shared_with_different_schemas_takes_any_of_them() -> None:
    variant = Variant.build("merge(by=class)|transaction", get_domain("smart_home").action_space())
    value = variant.top.tool("set_operation").parameters["properties"]["value"]
    assert len(value["anyOf"]) == 8


def test_ungrouped_operations_form_a_class_named_after_the_space() -> None:
    space = ActionSpace(
        "garage",
        (Operation("open_gate", "Open the gate."), Operation("ping", "Ping.", kind="read", group="net")),
    )
    session = _session("discovery(style=gated)", space)  # the gated encoder lists before it invokes
    assert session.variant.tools()[0].parameters["properties"]["class"]["enum"] == ["garage", "net"]
    decisions = _drive(session, space.action("open_gate"))
    assert [d.outcome for d in decisions] == ["answered", "executed"]
    assert decisions[0].reply["methods"][0]["name"] == "open_gate"


def _space(*ops: tuple[str, tuple[str, ...]]) -> ActionSpace:
    return ActionSpace(
        "custom",
        tuple(Operation(name, "", tuple(Param(p, {"type": "string"}) for p in params)) for name, params in ops),
    )


def test_long_names_are_shortened_deterministically() -> None:
    long_op, long_arg = "o" * 60, "a" * 62
    space = _space((long_op, (long_arg, "b")), ("short", ("b",)))
    variant = Variant.build("transaction-shared", space)
    names = [t.name for t in variant.tools()]
    assert len(set(names)) == len(names) and all(TOOL_NAME.match(n) for n in names)
    digest = hashlib.sha256(f"begin_{long_op}".encode()).hexdigest()[:6]
    assert f"begin_{long_op}"[:57] + "_" + digest in names and "set_b" in names
    assert names == [t.name for t in Variant.build("transaction-shared", space).tools()]
    decisions = _drive(_session("transaction-shared", space), space.action(long_op, {long_arg: "x", "b": "y"}))
    assert [d.outcome for d in decisions] == ["answered", "answered", "answered", "executed"]
    assert Variant.build("transaction|transaction|transaction", space).tools()


def test_name_collisions_are_config_errors() -> None:
    odd = "a b"  # not a valid tool-name character: set_<odd> is shortened with a hash...
    clash = f"a_b_{hashlib.sha256(f'set_{odd}'.encode()).hexdigest()[:6]}"  # ...that this name spells out
    with pytest.raises(ConfigError, match="is already taken"):
        Variant.build("transaction-shared", _space(("x", (odd,)), ("y", (clash,))))
    space = _space(("resolve_email", ()), ("find", ("email",)), ("both", ("name", "name_handle")))
    with pytest.raises(ConfigError) as error:
        Variant.build("reference(args=email+name+nothing)", space)
    assert len(error.value.problems) == 3, error.value.problems
    text = str(error.value)
    assert "no tool takes an argument 'nothing'" in text
    assert "resolver name 'resolve_email' is already taken" in text
    assert "tool 'both', argument 'name': it already takes an argument 'name_handle'" in text
    with pytest.raises(ConfigError, match="no tool takes an argument 'order_id'"):
        Variant.build("reference(args=order_id)", get_domain("smart_home").action_space())


@pytest.mark.parametrize(("domain_name", "spec"), ALL)
def test_shown_tools_are_valid_and_specs_round_trip(domain_name: str, spec: str) -> None:
    space = get_domain(domain_name).action_space()
    variant = Variant.build(spec, space)
    tools = variant.tools()
    assert len({t.name for t in tools}) == len(tools)
    for tool in tools:
        assert TOOL_NAME.match(tool.name), tool.name
        jsonschema.Draft202012Validator.check_schema(tool.openai()["function"]["parameters"])
        assert tool.parameters["type"] == "object"
    assert Variant.build(variant.spec, space).spec == variant.spec
    assert variant.convention() or tools == space.tools()  # only a pass-through says nothing


def test_conventions_name_the_protocol() -> None:
    retail = get_domain("retail").action_space()
    assert "begin_<operation>()" in Variant.build("transaction-shared", retail).convention()
    assert "resolve_<argument>(value)" in Variant.build("reference", retail).convention()
    assert "list_methods(class)" in Variant.build("discovery", retail).convention()
