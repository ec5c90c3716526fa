"""Adapter controls: ``strict`` (toolprism's), ``paper`` (the Action-Space Shaping paper's hard
control, ``toolschema/simenv.py``) and ``loose`` (its loose control), case by case, and the
scripted agent that keeps calling native names on a fully merged variant."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest

from toolprism import RunConfig, evaluate
from toolprism.backends import ScriptedBackend
from toolprism.domains import get_domain
from toolprism.errors import ConfigError, RejectionKind
from toolprism.run import EpisodeSpec, RunStore, run_episode
from toolprism.schema import Action, ToolCall
from toolprism.score import diagnose
from toolprism.shaping import CONTROLS, AdapterSession, Decision, Variant

DOMAIN = get_domain("smart_home")
SPACE = DOMAIN.action_space()
FULLY_MERGED = "merge(by=full)"  # the paper's "fully merged" arm: one dispatcher for every tool
OPAQUE_LOCK_DOOR = "fn_" + hashlib.sha1(b"smart_home:lock_door").hexdigest()[:6]  # the paper's opaque name


def _session(spec: str, control: str) -> tuple[AdapterSession, list[Action]]:
    ran: list[Action] = []
    return AdapterSession(Variant.build(spec, SPACE), lambda a: ran.append(a) or {"ran": str(a)}, control), ran


def _handle(spec: str, control: str, *calls: tuple[str, dict[str, Any]]) -> tuple[list[Decision], list[Action]]:
    session, ran = _session(spec, control)
    return [session.handle(ToolCall(name, args)) for name, args in calls], ran


def _action(op: str, **args: Any) -> Action:
    return Action.from_json({"op": op, "args": args})


def test_strict_is_the_default_and_an_unknown_control_is_a_config_error() -> None:
    assert CONTROLS == ("strict", "paper", "loose")
    assert AdapterSession(Variant.build("native", SPACE), lambda a: {}).control == "strict"
    with pytest.raises(ConfigError, match="unknown control 'hard'.*strict, paper, loose"):
        AdapterSession(Variant.build("native", SPACE), lambda a: {}, "hard")  # type: ignore[arg-type]


# --- names the variant does not show --------------------------------------------------------


@pytest.mark.parametrize("control", CONTROLS)
def test_a_name_that_is_no_tool_anywhere_is_rejected_under_every_control(control: str) -> None:
    (decision,), ran = _handle("native", control, ("teleport", {}))
    assert decision.outcome == "rejected" and decision.rejection is RejectionKind.UNKNOWN_TOOL and not ran
    if control == "strict":
        assert decision.reply["error"].startswith("call rejected: unknown tool 'teleport'; the available tools")
    else:
        assert decision.reply == {"error": "Unknown function `teleport`. Use only the provided tools."}


def test_a_native_name_on_a_merged_variant_runs_only_under_loose() -> None:
    call = ("lock_door", {"lock": "front_door"})
    (strict,), ran_strict = _handle(FULLY_MERGED, "strict", call)
    (paper,), ran_paper = _handle(FULLY_MERGED, "paper", call)
    (loose,), ran_loose = _handle(FULLY_MERGED, "loose", call)
    assert strict.outcome == paper.outcome == "rejected" and not ran_strict and not ran_paper
    assert "available tools are: execute" in strict.reply["error"]
    assert paper.reply == {"error": "Unknown function `lock_door`. Use only the provided tools."}
    assert loose.outcome == "executed" and ran_loose == [loose.action] == [_action("lock_door", lock="front_door")]
    assert [c.name for c in loose.path] == ["lock_door"] and loose.layer is None


# --- names that exist, values or argument names that are wrong --------------------------------


@pytest.mark.parametrize(
    ("spec", "call", "action"),
    [
        ("native", ("lock_door", {"lock": "window"}), _action("lock_door", lock="window")),
        ("native", ("lock_door", {"door": "front_door"}), _action("lock_door", door="front_door")),
        ("native", ("lock_door", {}), _action("lock_door")),
        ("rename(style=opaque)", (OPAQUE_LOCK_DOOR, {"lock": "window"}), _action("lock_door", lock="window")),
        ("nest", ("lock_door", {"arguments": {"lock": "window"}}), _action("lock_door", lock="window")),
        (
            "strip(what=all)",
            ("set_volume", {"room": "kitchen", "volume": 300}),
            _action("set_volume", room="kitchen", volume=300),
        ),
    ],
    ids=["bad-enum", "bad-argument-name", "missing-argument", "renamed", "nested", "stripped"],
)
def test_a_wrong_call_of_a_tool_that_exists_is_executed_as_a_wrong_action_under_paper_and_loose(
    spec: str, call: tuple[str, dict[str, Any]], action: Action
) -> None:
    (strict,), _ = _handle(spec, "strict", call)
    assert strict.outcome == "rejected" and strict.rejection is RejectionKind.INVALID_ARGUMENTS
    for control in ("paper", "loose"):
        env = DOMAIN.environment(0)
        before = env.state_hash()
        decision = AdapterSession(Variant.build(spec, SPACE), env.execute, control).handle(ToolCall(*call))
        assert decision.outcome == "executed" and decision.action == action, control
        assert set(decision.reply) == {"error"} and "invalid arguments for tool" in decision.reply["error"]
        assert env.state_hash() == before and env.log == []  # the environment refused it: nothing ran


def test_a_valid_call_runs_the_same_under_every_control() -> None:
    for spec, call in [
        ("native", ("lock_door", {"lock": "front_door"})),
        (FULLY_MERGED, ("execute", {"operation": "lock_door", "lock_door::lock": "front_door"})),
        ("nest", ("lock_door", {"arguments": {"lock": "front_door"}})),
    ]:
        outcomes = {c: _handle(spec, c, call) for c in CONTROLS}
        assert {(d[0].outcome, d[0].action, tuple(ran)) for d, ran in outcomes.values()} == {
            ("executed", _action("lock_door", lock="front_door"), (_action("lock_door", lock="front_door"),))
        }, spec


# --- what the paper's hard control still rejects ----------------------------------------------


def test_an_off_enum_operation_is_rejected_under_strict_and_paper() -> None:
    call = ("execute", {"operation": "teleport", "lock": "front_door"})
    for control in ("strict", "paper"):
        (decision,), ran = _handle(FULLY_MERGED, control, call)
        assert decision.outcome == "rejected" and decision.rejection is RejectionKind.INVALID_ARGUMENTS and not ran


def test_an_out_of_interval_call_is_rejected_under_paper_with_its_message_and_runs_under_loose() -> None:
    spec = "split(interval=brightness:50)"
    call = ("set_light_brightness__brightness_lt_50", {"room": "office", "brightness": 80})
    (strict,), _ = _handle(spec, "strict", call)
    (paper,), ran_paper = _handle(spec, "paper", call)
    (loose,), ran_loose = _handle(spec, "loose", call)
    assert strict.outcome == paper.outcome == "rejected" and not ran_paper
    assert paper.rejection is RejectionKind.INVALID_ARGUMENTS
    assert paper.reply == {
        "error": "`set_light_brightness__brightness_lt_50` only handles brightness in [-inf, 50); got 80. "
        "Call the right variant."
    }
    assert loose.outcome == "executed" and ran_loose == [_action("set_light_brightness", room="office", brightness=80)]
    # in the interval, as a numeric string (the paper reads it as its number): decoded, then refused natively
    (inside,), _ = _handle(spec, "paper", (call[0], {"room": "office", "brightness": "20"}))
    assert inside.outcome == "executed" and inside.action == _action(
        "set_light_brightness", room="office", brightness="20"
    )


def test_transaction_errors_are_rejected_under_paper_with_its_messages() -> None:
    decisions, ran = _handle(
        "transaction-shared",
        "paper",
        ("set_lock", {"txn_id": "txn_7", "value": "front_door"}),
        ("commit_lock_door", {"txn_id": "txn_7"}),
        ("begin_lock_door", {}),
        ("set_room", {"txn_id": "txn_1", "value": "kitchen"}),  # lock_door takes no room
        ("commit_unlock_door", {"txn_id": "txn_1"}),  # begun for lock_door
        ("commit_lock_door", {"txn_id": "txn_1"}),  # lock unset
        ("set_lock", {"txn_id": "txn_1", "value": "front_door"}),  # still open after the refused commit
        ("commit_lock_door", {"txn_id": "txn_1"}),
        ("commit_lock_door", {"txn_id": "txn_1"}),  # already committed
    )
    assert [d.outcome for d in decisions] == [
        "rejected", "rejected", "answered", "rejected", "rejected", "rejected", "answered", "executed", "rejected"
    ]  # fmt: skip
    assert [d.rejection for d in decisions if d.rejection] == [
        RejectionKind.UNKNOWN_TRANSACTION, RejectionKind.UNKNOWN_TRANSACTION, RejectionKind.UNKNOWN_TRANSACTION,
        RejectionKind.UNKNOWN_TRANSACTION, RejectionKind.INCOMPLETE_TRANSACTION, RejectionKind.UNKNOWN_TRANSACTION,
    ]  # fmt: skip
    assert decisions[0].reply == {"error": "set_lock(txn_7): begin a transaction first and use its txn_id"}
    assert decisions[1].reply == {"error": "commit_lock_door(txn_7)"}
    assert decisions[5].reply == {"error": "cannot commit: missing required arguments ['lock']"}
    assert ran == [_action("lock_door", lock="front_door")]


def test_a_transaction_stores_a_wrong_value_under_paper_and_loose_commits_what_paper_refuses() -> None:
    wrong, ran = _handle(
        "transaction-shared", "paper",
        ("begin_lock_door", {}), ("set_lock", {"txn_id": "txn_1", "value": 3}),
        ("commit_lock_door", {"txn_id": "txn_1"}),
    )  # fmt: skip
    assert [d.outcome for d in wrong] == ["answered", "answered", "executed"] and not ran
    assert wrong[-1].action == _action("lock_door", lock=3) and "error" in wrong[-1].reply
    (_, commit), ran = _handle(
        "transaction-shared", "loose", ("begin_lock_door", {}), ("commit_lock_door", {"txn_id": "txn_1"})
    )
    assert commit.outcome == "executed" and commit.action == _action("lock_door") and not ran
    (_, strict), _ = _handle(
        "transaction-shared", "strict", ("begin_lock_door", {}), ("set_lock", {"txn_id": "txn_1", "value": 3})
    )
    assert strict.outcome == "rejected"


def test_a_bad_handle_runs_as_an_unresolved_value_under_paper() -> None:
    decisions, ran = _handle(
        "reference", "paper",
        ("resolve_room", {"value": "kitchen"}),  # h_1 stands for a room, not a lock
        ("lock_door", {"lock_handle": "h_1"}), ("lock_door", {"lock_handle": "h_9"}),
    )  # fmt: skip
    assert [d.outcome for d in decisions] == ["answered", "executed", "executed"] and not ran
    assert [d.action for d in decisions[1:]] == [
        _action("lock_door", lock="<UNRESOLVED:h_1>"), _action("lock_door", lock="<UNRESOLVED:h_9>")
    ]  # fmt: skip
    (strict,), _ = _handle("reference", "strict", ("lock_door", {"lock_handle": "h_9"}))
    assert strict.outcome == "rejected" and strict.rejection is RejectionKind.UNKNOWN_HANDLE


def test_invoke_is_not_gated_on_list_methods_under_paper() -> None:
    invoke = ("invoke", {"class": "locks", "method": "lock_door", "arguments": {"lock": "front_door"}})
    (strict,), _ = _handle("discovery", "strict", invoke)
    assert strict.rejection is RejectionKind.UNDISCOVERED
    (paper,), ran = _handle("discovery", "paper", invoke)
    assert paper.outcome == "executed" and ran == [_action("lock_door", lock="front_door")]
    wrong_class = ("invoke", {"class": "lights", "method": "lock_door", "arguments": {"lock": "front_door"}})
    (paper,), ran = _handle("discovery", "paper", wrong_class)
    assert paper.rejection is RejectionKind.UNKNOWN_TOOL and not ran
    assert paper.reply["error"].startswith("class `lights` has no method 'lock_door'; call list_methods first.")
    (loose,), ran = _handle("discovery", "loose", wrong_class)  # a native action can be decoded: it runs
    assert loose.outcome == "executed" and ran == [_action("lock_door", lock="front_door")]
    (unknown,), _ = _handle("discovery", "paper", ("list_methods", {"class": "spaceships"}))
    assert (
        unknown.rejection is RejectionKind.INVALID_ARGUMENTS and "unknown class 'spaceships'" in unknown.reply["error"]
    )


def test_a_rejection_under_paper_restores_the_protocol_state() -> None:
    session, _ = _session("transaction-shared", "paper")
    session.handle(ToolCall("begin_lock_door", {}))
    session.handle(ToolCall("commit_lock_door", {"txn_id": "txn_1"}))  # rejected: lock unset
    assert session.handle(ToolCall("set_lock", {"txn_id": "txn_1", "value": "back_door"})).outcome == "answered"


# --- the rejection ablation: an agent that keeps calling native names --------------------------


def test_the_native_names_agent_is_rejected_and_stuck_under_strict_and_paper_and_succeeds_under_loose(
    tmp_path,  # noqa: ANN001
) -> None:
    rates = {}
    for control in CONTROLS:
        config = RunConfig(domains=["smart_home"], variants=[FULLY_MERGED], tasks=4, control=control)
        summary = evaluate(config, run_dir=tmp_path / control, backend=ScriptedBackend.native_names())
        rates[control] = summary.variants[0].success_rate
        store = RunStore.open(tmp_path / control)
        try:
            assert store.header.config.control == control
            for result in store.results():
                trace = store.trace(result.episode_id)
                assert trace.control == control
                if control == "loose":
                    assert result.success and trace.rejected_calls == 0
                    assert [a.to_action() for a in trace.actions] == list(trace.task.to_task().gold)
                else:
                    assert not result.success and not trace.actions and trace.end == "answered"
                    assert trace.rejected_calls == len(trace.calls) == 3  # keeps calling native names, then gives up
                    assert {c.rejection for c in trace.calls} == {RejectionKind.UNKNOWN_TOOL}
                    assert diagnose(trace, DOMAIN).mode == "rejected_stuck"
        finally:
            store.close()
    assert rates == {"strict": 0.0, "paper": 0.0, "loose": 1.0}


def test_the_native_names_agent_succeeds_on_native_under_every_control() -> None:
    task = DOMAIN.tasks(0)[0]
    for control in CONTROLS:
        spec = EpisodeSpec(DOMAIN, task, Variant.build("native", SPACE), 0, control=control)
        trace = asyncio.run(run_episode(spec, ScriptedBackend.native_names()))
        assert [a.to_action() for a in trace.actions] == list(task.gold) and trace.control == control


# --- the paper's merge encodings under its controls (merge_encodings.py: decode_merged, validate_merged) ---


def test_a_flat_dispatcher_under_paper_drops_empties_keeps_bare_keys_and_refuses_off_enum_operations() -> None:
    calls = [
        ("execute", {"operation": "lock_door", "lock_door::lock": "front_door", "unlock_door::lock": ""}),
        ("execute", {"operation": "lock_door", "lock": "front_door"}),  # un-namespaced: kept, as the paper does
        ("execute", {"operation": "open_portal", "lock_door::lock": "front_door"}),
    ]
    strict, _ = _handle(FULLY_MERGED, "strict", *calls)
    paper, ran = _handle(FULLY_MERGED, "paper", *calls)
    assert [d.outcome for d in strict] == ["rejected"] * 3  # "" is off its enum; a bare key off the schema
    assert [d.outcome for d in paper] == ["executed", "executed", "rejected"]
    assert ran == [_action("lock_door", lock="front_door")] * 2
    assert paper[2].reply["error"].startswith("operation must be one of [")


def test_a_wrong_value_in_a_flat_dispatcher_runs_as_a_wrong_action_under_paper() -> None:
    (strict,), _ = _handle(FULLY_MERGED, "strict", ("execute", {"operation": "lock_door", "lock_door::lock": "moat"}))
    (paper,), ran = _handle(FULLY_MERGED, "paper", ("execute", {"operation": "lock_door", "lock_door::lock": "moat"}))
    assert strict.outcome == "rejected" and paper.outcome == "executed" and not ran  # refused by the environment
    assert paper.action.op == "lock_door" and "error" in paper.reply


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "expected exactly one operation object; got none"),
        ({"lock_door": {"lock": "front_door"}, "unlock_door": {"lock": "front_door"}}, "expected exactly one"),
        ({"lock_door": {"lock": "front_door"}, "bogus": 3}, "unknown union keys ['bogus']"),
        ({"lock_door": {"bolt": "front_door"}}, "arguments ['bolt'] do not belong to `lock_door`"),
    ],
)
def test_a_union_dispatcher_under_paper_rejects_what_validate_merged_rejects(args: dict, message: str) -> None:
    (decision,), ran = _handle("merge(by=full,args=union)", "paper", ("execute", args))
    assert decision.outcome == "rejected" and message in decision.reply["error"] and not ran


def test_a_nested_dispatcher_under_loose_runs_what_decodes() -> None:
    call = ("execute", {"operation": "lock_door", "arguments": {"lock": "front_door"}, "junk": 1})
    (paper,), _ = _handle("merge(by=full,args=nested)", "paper", call)
    (loose,), ran = _handle("merge(by=full,args=nested)", "loose", call)
    assert paper.outcome == "rejected" and "unexpected top-level keys ['junk']" in paper.reply["error"]
    assert loose.outcome == "executed" and ran == [_action("lock_door", lock="front_door")]
