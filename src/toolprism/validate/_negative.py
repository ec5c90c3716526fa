"""Negative cases: invalid calls derived generically from a variant's shown tools (and, for the
reference protocol, from its own encoding of the reference traces). Each must be rejected with the
expected kind, execute nothing, and leave the state unchanged.

Per shown tool: every required argument left out, every enumerated argument given a value outside
its enum, every typed argument given a value of another type (nested object arguments too), plus
one call of a tool that does not exist. Protocol cases, when the variant shows the protocol's tools:
``transaction`` (``begin_<x>``/``commit_<x>``/``set_<arg>``): a commit and a set on a transaction
never begun, and a commit with no writes of an operation with required arguments; ``discovery``
(``list_methods``/``invoke``, gated style only: the paper's discovery does not gate): an invoke of
each class before it is listed; ``reference`` (calls
with ``*_handle`` arguments): a call whose handles were issued in another episode (stale).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from toolprism.errors import RejectionKind
from toolprism.schema import JSON, ToolCall, ToolSpec, synthesize_arguments
from toolprism.shaping import AdapterSession, Batch, Variant
from toolprism.validate._suite import Suite

BAD_ENUM = "__not_a_valid_value__"
WRONG_TYPE: dict[str, JSON] = {
    "string": 12345,
    "integer": "not-an-integer",
    "number": "not-a-number",
    "boolean": "not-a-boolean",
    "object": "not-an-object",
    "array": "not-an-array",
    "null": "not-null",
}
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Negative:
    """One negative case.

    Attributes:
        id: what is wrong, e.g. ``missing_required:set_mode:room``.
        call: the invalid call, given the replies of ``setup``.
        expected: the rejection kind it must get.
        setup: valid calls issued first in the same episode; each must be answered by a layer.
    """

    id: str
    call: Callable[[list[JSON]], ToolCall]
    expected: RejectionKind
    setup: tuple[ToolCall, ...] = ()


def _fixed(call: ToolCall) -> Callable[[list[JSON]], ToolCall]:
    return lambda _replies: call


def negatives(variant: Variant, suite: Suite, encodings: Mapping[str, list[ToolCall]] | None = None) -> list[Negative]:
    """Every negative case of ``variant`` (deterministic).

    ``encodings`` (native operation → the calls that encoded it in a trace run) saves re-encoding
    the reference actions for the stale-handle cases.
    """
    tools = variant.tools()
    index = {t.name: t for t in tools}
    unknown = "no_such_tool"
    while unknown in index:
        unknown += "_x"
    cases = [Negative(f"unknown_tool:{unknown}", _fixed(ToolCall(unknown, {})), RejectionKind.UNKNOWN_TOOL)]
    for tool in tools:
        cases += _schema_cases(tool)
    cases += _transaction_cases(variant, index)
    cases += _discovery_cases(variant, suite, index)
    cases += _stale_handle_cases(variant, suite, encodings)
    return cases


def _base(tool: ToolSpec) -> dict[str, JSON]:
    """Valid arguments with required properties only (``{}`` when none can be synthesized)."""
    try:
        value = synthesize_arguments(tool.parameters, random.Random(f"negative/{tool.name}"), optional=0.0)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _schema_cases(tool: ToolSpec) -> Iterator[Negative]:
    base = _base(tool)
    for path, schema, required in _leaves(tool.parameters, (), 0):
        where = ".".join(path)
        if required and _has(base, path):
            yield _case(f"missing_required:{tool.name}:{where}", tool.name, _without(base, path))
        if not _has(base, path[:-1]):
            continue
        enum = schema.get("enum")
        if isinstance(enum, list) and BAD_ENUM not in enum:
            yield _case(f"wrong_enum:{tool.name}:{where}", tool.name, _with(base, path, BAD_ENUM))
        kind = schema.get("type")
        if isinstance(kind, str) and kind in WRONG_TYPE:
            yield _case(f"wrong_type:{tool.name}:{where}", tool.name, _with(base, path, WRONG_TYPE[kind]))


def _case(case_id: str, name: str, arguments: dict[str, JSON]) -> Negative:
    return Negative(case_id, _fixed(ToolCall(name, arguments)), RejectionKind.INVALID_ARGUMENTS)


def _leaves(schema: Mapping, prefix: tuple[str, ...], depth: int) -> Iterator[tuple[tuple[str, ...], Mapping, bool]]:
    """(path, schema, required) of every property, nested objects' properties included."""
    required = set(schema.get("required", []))
    for name, sub in schema.get("properties", {}).items():
        if not isinstance(sub, Mapping):
            continue
        path = (*prefix, name)
        yield path, sub, name in required
        if depth < _MAX_DEPTH and isinstance(sub.get("properties"), Mapping):
            yield from _leaves(sub, path, depth + 1)


def _has(value: JSON, path: tuple[str, ...]) -> bool:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False
        value = value[key]
    return True


def _with(base: dict[str, JSON], path: tuple[str, ...], value: JSON) -> dict[str, JSON]:
    out = copy.deepcopy(base)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _without(base: dict[str, JSON], path: tuple[str, ...]) -> dict[str, JSON]:
    out = copy.deepcopy(base)
    node = out
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return out


def _transaction_cases(variant: Variant, index: dict[str, ToolSpec]) -> Iterator[Negative]:
    below = variant.layers[-2].tool_index if len(variant.layers) > 1 else {}
    for name, tool in index.items():
        props = set(tool.parameters.get("properties", {}))
        if name.startswith("commit_") and f"begin_{name[7:]}" in index and props == {"txn_id"}:
            begin, target = f"begin_{name[7:]}", name[7:]
            yield Negative(
                f"unknown_transaction:{name}",
                _fixed(ToolCall(name, {"txn_id": "txn_999"})),
                RejectionKind.UNKNOWN_TRANSACTION,
            )
            if target in below and below[target].parameters.get("required"):
                yield Negative(
                    f"commit_without_writes:{name}",
                    lambda replies, name=name: ToolCall(name, {"txn_id": replies[0]["txn_id"]}),
                    RejectionKind.INCOMPLETE_TRANSACTION,
                    (ToolCall(begin, {}),),
                )
        if name.startswith("set_") and props == {"txn_id", "value"}:
            value = _base(tool).get("value")
            yield Negative(
                f"unknown_transaction:{name}",
                _fixed(ToolCall(name, {"txn_id": "txn_999", "value": value})),
                RejectionKind.UNKNOWN_TRANSACTION,
            )


def _discovery_cases(variant: Variant, suite: Suite, index: dict[str, ToolSpec]) -> Iterator[Negative]:
    if "invoke" not in index or "list_methods" not in index:
        return
    if not any(getattr(layer, "name", "") == "discovery" and layer.style == "gated" for layer in variant.layers):
        return  # the paper's discovery invokes without a prior listing
    classes = index["invoke"].parameters.get("properties", {}).get("class", {}).get("enum", [])
    scratch = AdapterSession(variant, suite.world(0).execute)
    for cls in classes:
        listed = scratch.handle(ToolCall("list_methods", {"class": cls}))
        methods = listed.reply.get("methods", []) if isinstance(listed.reply, dict) else []
        if listed.outcome != "answered" or not methods:
            continue
        method = methods[0]
        try:  # valid arguments, so that only the missing discovery is wrong
            arguments = synthesize_arguments(method["parameters"], random.Random(f"negative/{cls}"), optional=0.0)
        except ValueError:
            arguments = {}
        call = ToolCall("invoke", {"class": cls, "method": method["name"], "arguments": arguments})
        yield Negative(f"invoke_before_discovery:{cls}", _fixed(call), RejectionKind.UNDISCOVERED)


def _handles(value: JSON) -> bool:
    if isinstance(value, Mapping):
        return any(str(k).endswith("_handle") or _handles(v) for k, v in value.items())
    return False


def _stale_handle_cases(
    variant: Variant, suite: Suite, encodings: Mapping[str, list[ToolCall]] | None
) -> Iterator[Negative]:
    """For each native operation of the traces (first occurrence): its encoded call that passes
    handles, replayed in a fresh episode, where those handles were never issued."""
    seen: set[str] = set()
    for task in suite.tasks:
        for step in task.reference:
            if step.action.op in seen:
                continue
            seen.add(step.action.op)
            if encodings is not None and step.action.op in encodings:
                calls = encodings[step.action.op]
            else:
                calls = _encoded_calls(variant, suite, task.world_seed, step.action)
            stale = [c for c in calls if _handles(c.arguments)]
            if stale:
                yield Negative(
                    f"stale_handle:{step.action.op}:{stale[-1].name}", _fixed(stale[-1]), RejectionKind.UNKNOWN_HANDLE
                )


def _encoded_calls(variant: Variant, suite: Suite, world_seed: int, action) -> list[ToolCall]:  # noqa: ANN001
    """The calls ``variant`` encodes ``action`` into, run in a scratch episode ([] if it fails)."""
    session = AdapterSession(variant, suite.world(world_seed).execute)
    calls: list[ToolCall] = []

    def run(call: ToolCall) -> JSON:
        calls.append(call)
        return json.loads(session.handle(call).content)

    plan = variant.plan(action)
    try:
        item = next(plan)
        while len(calls) < 1000:
            reply = [run(c) for c in item.calls] if isinstance(item, Batch) else run(item)
            item = plan.send(reply)
    except StopIteration:
        return calls
    except Exception:  # noqa: BLE001 - a broken encoder is reported by the trace checks, not here
        return []
    return []  # a runaway encoding: reported by the trace checks
