"""Property tests over generated action spaces and generated pipelines.

For random native catalogs (1-6 operations, 0-4 parameters each: strings, integers, booleans,
string enums, nested objects; random groups) and random pipelines of 1-3 registered operators:
every shown tool is a valid JSON Schema object with a valid name, the spec round-trips, and every
operation, called with arguments generated from its schema, is encoded by ``Variant.plan`` into
calls that the adapter decodes back to exactly the same native action, with no rejection.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolprism.errors import ConfigError
from toolprism.schema import JSON, Action, ActionSpace, Operation, Param
from toolprism.shaping import OPERATORS, AdapterSession, Batch, Variant

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

KNOWN: dict[str, list[str]] = {
    "rename": ["rename(style=opaque)", "rename(style=namespaced)"],
    "merge": [
        "merge(by=full)",
        "merge(by=class)",
        "merge(args=nested)",
        "merge(args=union)",
        "merge(args=shared)",
        "merge(args=prose)",
        "merge(args=prefixed)",
        "merge(by=random,k=2,seed=1)",
        "merge(by=semantic,args=union)",
        "merge(by=shuffled,k=2,seed=3,args=nested)",
    ],
    "split": ["split", "split(on=all)", "split(style=paper)", "split(style=paper,on=all)"],
    "ladder": ["ladder(k=0)", "ladder(k=3)", "ladder(k=7)", "ladder(k=9)"],
    "reference": ["reference", "reference(style=paper)", "reference(style=paper,min_values=2)"],
    "discovery": ["discovery"],
    "transaction": ["transaction", "transaction(setters=tool)"],
    "nest": ["nest", "nest(param=args)", "nest(param=options,keep=1)", "nest(param=args,keep=0)"],
    "flatten": ["flatten"],
    "strip": ["strip", "strip(what=tools)", "strip(what=params)"],
    "reorder": ["reorder", "reorder(seed=3,catalog=true)", "reorder(seed=13,style=paper)"],
    "interval": ["interval"],
    "compose": ["compose", "compose(min_values=2)", "compose(args=nested)"],
}
"""Operators whose parameter sets this file knows; others that register later are not drawn."""
TERMS = [term for name in OPERATORS.names() for term in KNOWN.get(name, [])]

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# names that collide with what operators introduce, so compositions meet them
TRICKY = ["operation", "arguments", "args", "description", "type", "properties", "txn_id", "value", "tool"]
identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
param_names = st.one_of(st.sampled_from(TRICKY), identifiers)
tool_names = st.one_of(st.sampled_from(["begin", "write", "commit", "execute", "a", "b", "lights"]), identifiers)
descriptions = st.one_of(st.just(""), st.text(max_size=12))


def leaf_schemas() -> st.SearchStrategy[dict[str, Any]]:
    enums = st.lists(st.text(alphabet="abxyZ _-", min_size=1, max_size=4), min_size=1, max_size=4, unique=True)
    return st.one_of(
        st.just({"type": "string"}),
        st.just({"type": "integer"}),
        st.just({"type": "boolean"}),
        enums.map(lambda values: {"type": "string", "enum": values}),
    )


@st.composite
def object_schemas(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(param_names, min_size=1, max_size=3, unique=True))
    props = {n: draw(leaf_schemas()) for n in names}
    required = [n for n in names if draw(st.booleans())]
    schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


@st.composite
def operations(draw: st.DrawFn, name: str) -> Operation:
    pnames = draw(st.lists(param_names, max_size=4, unique=True))
    params = tuple(
        Param(
            p,
            draw(st.one_of(leaf_schemas(), object_schemas())),
            required=draw(st.booleans()),
            description=draw(descriptions),
        )
        for p in pnames
    )
    group = draw(st.sampled_from(["", "a", "b", "lights"]))
    return Operation(name, draw(descriptions), params, draw(st.sampled_from(["read", "write"])), group)


@st.composite
def action_spaces(draw: st.DrawFn) -> ActionSpace:
    names = draw(st.lists(tool_names, min_size=1, max_size=6, unique=True))
    return ActionSpace("gen", tuple(draw(operations(n)) for n in names))


def values(schema: dict[str, Any]) -> st.SearchStrategy[JSON]:
    """Valid values of a generated schema."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if schema["type"] == "object":
        props, required = schema["properties"], schema.get("required", [])
        return st.fixed_dictionaries(
            {k: values(v) for k, v in props.items() if k in required},
            optional={k: values(v) for k, v in props.items() if k not in required},
        )
    return {"string": st.text(max_size=6), "integer": st.integers(-50, 50), "boolean": st.booleans()}[schema["type"]]


pipelines = st.lists(st.sampled_from(TERMS), min_size=1, max_size=3).map("|".join)


def drive(variant: Variant, action: Action) -> None:
    """Run ``action``'s plan through a fresh adapter session; assert it decodes back exactly."""
    executed: list[Action] = []

    def execute(decoded: Action) -> JSON:
        executed.append(decoded)
        return {"ok": True, "op": decoded.op}

    session = AdapterSession(variant, execute)

    def handle(call: Any) -> JSON:
        decision = session.handle(call)
        assert decision.outcome != "rejected", (variant.spec, action, call, decision.reply)
        return decision.reply

    plan = variant.plan(action)
    try:
        item = next(plan)
        while True:
            reply = [handle(c) for c in item.calls] if isinstance(item, Batch) else handle(item)
            item = plan.send(reply)
    except StopIteration as stop:
        assert stop.value == {"ok": True, "op": action.op}
    assert executed == [action], (variant.spec, executed, action)


def check_tools(variant: Variant, space: ActionSpace) -> None:
    for tool in variant.tools():
        assert TOOL_NAME.match(tool.name), tool.name
        jsonschema.Draft202012Validator.check_schema(tool.openai()["function"]["parameters"])
    assert Variant.build(variant.spec, space).spec == variant.spec


def test_the_known_operators_are_drawn() -> None:
    drawn = {t.split("(")[0] for t in TERMS}
    assert {"rename", "merge", "split", "transaction", "nest", "flatten", "strip", "reorder"} <= drawn


def test_generated_pipelines_decode_every_generated_call_back_to_its_action() -> None:
    stats: Counter[str] = Counter()

    @SETTINGS
    @given(space=action_spaces(), spec=pipelines, data=st.data())
    def run(space: ActionSpace, spec: str, data: st.DataObject) -> None:
        try:
            variant = Variant.build(spec, space)
        except ConfigError:
            stats["config_error"] += 1
            return
        stats["built"] += 1
        check_tools(variant, space)
        for op in space.operations:
            arguments = data.draw(values(op.parameters_schema()), label=op.name)
            drive(variant, space.action(op.name, arguments))

    run()
    assert stats["built"] >= 0.8 * (stats["built"] + stats["config_error"]), stats


@SETTINGS
@given(space=action_spaces(), data=st.data())
def test_native_and_nest_flatten_agree_on_generated_spaces(space: ActionSpace, data: st.DataObject) -> None:
    assert Variant.build("nest|flatten", space).tools() == space.tools()
    native = Variant.build("native", space)
    check_tools(native, space)
    for op in space.operations:
        drive(native, space.action(op.name, data.draw(values(op.parameters_schema()), label=op.name)))
