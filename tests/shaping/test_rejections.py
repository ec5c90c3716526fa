"""Every rejection kind, produced by a scripted bad agent, leaves the state unchanged."""

from __future__ import annotations

import asyncio

import pytest

from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.errors import RejectionKind
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import Variant

T = ScriptedTurns()

REASONS = {
    "unknown tool": "unknown tool 'teleport'",
    "bad enum value": "'window' is not one of",
    "missing argument": "'lock' is a required property",
    "unknown opaque name": "unknown tool 't_000000'",
    "malformed json": "not valid JSON",
    "arguments not an object": "must be a JSON object",
    "merge: foreign argument": "takes no argument(s) 'room'",
    "merge: native name": "unknown tool 'lock_door'",
    "split: old argument": "Additional properties are not allowed",
    "transaction: wrong id": "'txn_7' is not open (never begun)",
    "transaction: dangling id": "'txn_1' is not open (already committed)",
    "transaction: id of another operation": "'txn_1' was begun for lock_door, not unlock_door",
    "transaction: commit with missing writes": "needs argument(s) lock; set them first with set_lock",
    "transaction: invalid written value": "invalid arguments for tool 'set_lock': value: 3 is not one of",
    "transaction: unknown argument": "lock_door (transaction 'txn_1') has no argument 'room'",
    "transaction: value the operation refuses": "invalid value for 'operation' of locks: 'set_blinds' is not one of",
}

CASES = {
    "unknown tool": ("native", [T.call("teleport", {})], [RejectionKind.UNKNOWN_TOOL]),
    "bad enum value": ("native", [T.call("lock_door", {"lock": "window"})], [RejectionKind.INVALID_ARGUMENTS]),
    "missing argument": ("native", [T.call("lock_door", {})], [RejectionKind.INVALID_ARGUMENTS]),
    "unknown opaque name": ("rename(style=opaque)", [T.call("t_000000", {})], [RejectionKind.UNKNOWN_TOOL]),
    "malformed json": ("native", [T.call("lock_door", "{door: front")], [RejectionKind.MALFORMED_CALL]),
    "arguments not an object": ("native", [T.call("lock_door", "[1, 2]")], [RejectionKind.MALFORMED_CALL]),
    "merge: foreign argument": (
        "merge",
        [T.call("execute", {"operation": "lock_door", "lock": "front_door", "room": "kitchen"})],
        [RejectionKind.INVALID_ARGUMENTS],
    ),
    "merge: native name": ("merge", [T.call("lock_door", {"lock": "front_door"})], [RejectionKind.UNKNOWN_TOOL]),
    "split: old argument": (
        "split",
        [T.call("lock_door__front_door", {"lock": "front_door"})],
        [RejectionKind.INVALID_ARGUMENTS],
    ),
    "transaction: wrong id": (
        "transaction-shared",
        [T.call("commit_lock_door", {"txn_id": "txn_7"})],
        [RejectionKind.UNKNOWN_TRANSACTION],
    ),
    "transaction: dangling id": (
        "transaction-shared",
        [
            T.call("begin_list_scenes", {}),
            T.call("commit_list_scenes", {"txn_id": "txn_1"}),
            T.call("set_lock", {"txn_id": "txn_1", "value": "front_door"}),
            T.call("commit_list_scenes", {"txn_id": "txn_1"}),
        ],
        [RejectionKind.UNKNOWN_TRANSACTION, RejectionKind.UNKNOWN_TRANSACTION],
    ),
    "transaction: id of another operation": (
        "transaction-shared",
        [
            T.call("begin_lock_door", {}),
            T.call("set_lock", {"txn_id": "txn_1", "value": "front_door"}),
            T.call("commit_unlock_door", {"txn_id": "txn_1"}),
        ],
        [RejectionKind.UNKNOWN_TRANSACTION],
    ),
    "transaction: commit with missing writes": (
        "transaction-shared",
        [T.call("begin_lock_door", {}), T.call("commit_lock_door", {"txn_id": "txn_1"})],
        [RejectionKind.INCOMPLETE_TRANSACTION],
    ),
    "transaction: invalid written value": (
        "transaction-shared",
        [T.call("begin_lock_door", {}), T.call("set_lock", {"txn_id": "txn_1", "value": 3})],
        [RejectionKind.INVALID_ARGUMENTS],
    ),
    "transaction: unknown argument": (
        "transaction-shared",
        [
            T.call("begin_lock_door", {}),
            T.call("set_room", {"txn_id": "txn_1", "value": "kitchen"}),
        ],
        [RejectionKind.INVALID_ARGUMENTS],
    ),
    "transaction: value the operation refuses": (  # set_operation takes anyOf the dispatchers' enums
        "merge(by=class)|transaction",
        [
            T.call("begin_locks", {}),
            T.call("set_operation", {"txn_id": "txn_1", "value": "set_blinds"}),
        ],
        [RejectionKind.INVALID_ARGUMENTS],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rejection_is_shown_recorded_and_executes_nothing(case: str) -> None:
    variant_name, turns, expected = CASES[case]
    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build(variant_name, domain.action_space())
    before = domain.environment(task.world_seed).state_hash()
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend(turns)))
    rejected = [c for t in trace.turns for c in t.calls if c.outcome == "rejected"]
    assert [RejectionKind(c.rejection) for c in rejected] == expected
    # only the dangling-id case runs one call (a read) before its rejections
    assert [a.op for a in trace.actions] == (["list_scenes"] if case == "transaction: dangling id" else [])
    for call in rejected:
        assert call.reply["error"].startswith("call rejected: ")
        assert REASONS[case] in call.reply["error"], call.reply
        shown = [m for m in trace.messages if m.get("tool_call_id") == call.id]
        assert len(shown) == 1 and "call rejected" in shown[0]["content"]
    assert trace.final_state_hash == before


def test_rejected_commit_keeps_the_transaction_open() -> None:
    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build("transaction-shared", domain.action_space())
    world = domain.initial_state(task.world_seed)
    door = next((d for d, state in world.locks.items() if state == "unlocked"), None)
    if door is None:
        pytest.skip("no unlocked door in world 0")
    turns = [
        T.call("begin_lock_door", {}),
        T.call("commit_lock_door", {"txn_id": "txn_1"}),
        T.call("set_lock", {"txn_id": "txn_1", "value": door}),
        T.call("commit_lock_door", {"txn_id": "txn_1"}),
    ]
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend(turns)))
    outcomes = [c.outcome for t in trace.turns for c in t.calls]
    assert outcomes == ["answered", "rejected", "answered", "executed"]
    assert [a.model_dump() for a in trace.actions] == [{"op": "lock_door", "args": {"lock": door}}]


def test_unreadable_output_is_shown_to_the_model_and_the_episode_goes_on() -> None:
    from toolprism.backends import ModelTurn
    from toolprism.run._episode import UNREADABLE

    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build("native", domain.action_space())
    turns = [ModelTurn(raw='{"name": "lock_do', error="output truncated at max_tokens"), T.answer("ok")]
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend(turns)))
    assert [t.error for t in trace.turns] == ["output truncated at max_tokens", None]
    assert trace.messages[3] == {"role": "user", "content": f"{UNREADABLE} (output truncated at max_tokens)"}
    assert trace.end == "answered" and trace.turns[1].prompt_messages == 4


def test_a_turn_with_no_output_at_all_ends_the_episode() -> None:
    from toolprism.backends import ModelTurn

    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build("native", domain.action_space())
    turns = [ModelTurn(raw="", error="prompt of 9000 tokens exceeds n_ctx 8192"), T.answer("never reached")]
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend(turns)))
    assert trace.end == "no_output" and len(trace.turns) == 1
