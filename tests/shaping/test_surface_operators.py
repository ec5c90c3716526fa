"""Proof obligations for the per-tool surface operators: ``nest``, ``flatten``, ``strip``, ``reorder``.

(1) the oracle succeeds on every task of both domains (a sample of each template by default, all of
them under ``-m slow``), alone and composed, with no rejection;
(2) each rejection the operators can produce is recorded with its kind and changes nothing;
(3) every shown tool is a valid JSON Schema object with a valid name; (4) specs round-trip.
"""

from __future__ import annotations

import asyncio
import json

import jsonschema
import pytest

from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.errors import ConfigError, RejectionKind
from toolprism.run import EpisodeSpec, run_episode
from toolprism.schema import Action, ActionSpace, Operation, Param, ToolCall
from toolprism.schema._model import TOOL_NAME
from toolprism.shaping import AdapterSession, Batch, Variant

SINGLE = [
    "nest",
    "nest(param=args)",
    "flatten",
    "nest|flatten",
    "strip",
    "strip(what=tools)",
    "strip(what=params)",
    "reorder",
    "reorder(seed=7,catalog=true)",
]
COMPOSED = [
    "nest|merge",
    "split|nest|rename(style=opaque)",
    "nest|transaction",
    "transaction|nest(param=payload)",
    "merge(by=class)|nest|flatten|strip",
    "strip|merge|reorder(seed=3)",
    "reorder(seed=1,catalog=true)|split|strip(what=params)",
    "nest|reorder|transaction|strip",
    "nest|nest|flatten|flatten",
]


def _tools(domain_name: str) -> ActionSpace:
    return get_domain(domain_name).action_space()


# (1) the oracle, end to end ------------------------------------------------------------------


@pytest.mark.parametrize("domain_name", ["smart_home", "retail"])
@pytest.mark.parametrize("spec", SINGLE + COMPOSED)
def test_oracle_scores_every_task(domain_name: str, spec: str, task_sample, oracle_scores_every_task) -> None:  # noqa: ANN001
    oracle_scores_every_task(domain_name, spec, 16 if spec in SINGLE else 64, sample=task_sample)


# (2) rejections -------------------------------------------------------------------------------

T = ScriptedTurns()
CASES = {
    "nest: flat arguments": ("nest", [T.call("lock_door", {"lock": "front_door"})], "'arguments' is a required"),
    "nest: bad nested value": ("nest", [T.call("lock_door", {"arguments": {"lock": "window"}})], "'window' is not one"),
    "nest: missing nested argument": ("nest", [T.call("lock_door", {"arguments": {}})], "'lock' is a required"),
    "nest: empty object required": ("nest", [T.call("list_scenes", {})], "'arguments' is a required"),
    "nest: renamed wrapper": ("nest(param=args)", [T.call("lock_door", {"arguments": {}})], "'args' is a required"),
    "flatten: nested arguments": (
        "nest(param=args)|flatten",
        [T.call("lock_door", {"args": {"lock": "front_door"}})],
        "Additional properties are not allowed",
    ),
    "strip: bad value": ("strip", [T.call("lock_door", {"lock": "window"})], "'window' is not one of"),
    "reorder: missing argument": ("reorder(seed=5)", [T.call("set_blinds", {"room": "kitchen"})], "'position'"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rejection_is_recorded_and_executes_nothing(case: str) -> None:
    spec, turns, reason = CASES[case]
    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build(spec, domain.action_space())
    before = domain.environment(task.world_seed).state_hash()
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend(turns)))
    rejected = [c for t in trace.turns for c in t.calls if c.outcome == "rejected"]
    assert [RejectionKind(c.rejection) for c in rejected] == [RejectionKind.INVALID_ARGUMENTS]
    assert reason in rejected[0].reply["error"], rejected[0].reply
    assert trace.actions == []
    assert trace.final_state_hash == before


# (3) shown tools, (4) specs ------------------------------------------------------------------


@pytest.mark.parametrize("domain_name", ["smart_home", "retail"])
@pytest.mark.parametrize("spec", SINGLE + COMPOSED)
def test_shown_tools_are_valid_and_specs_round_trip(domain_name: str, spec: str) -> None:
    space = _tools(domain_name)
    variant = Variant.build(spec, space)
    for tool in variant.tools():
        assert TOOL_NAME.match(tool.name), tool.name
        jsonschema.Draft202012Validator.check_schema(tool.openai()["function"]["parameters"])
        assert tool.parameters["type"] == "object"
    assert Variant.build(variant.spec, space).spec == variant.spec


def test_canonical_specs_spell_out_every_parameter() -> None:
    space = _tools("smart_home")
    assert Variant.build("nest", space).spec == "nest(param=arguments)"
    assert Variant.build("flatten", space).spec == "flatten"
    assert Variant.build("flatten(param=args)", space).spec == "flatten(param=args)"
    assert Variant.build("strip", space).spec == "strip(what=all)"
    assert Variant.build("reorder", space).spec == "reorder(seed=0,catalog=false)"


def test_conventions() -> None:
    space = _tools("smart_home")
    assert (
        Variant.build("nest", space).convention()
        == "Pass all of a tool's arguments inside its single 'arguments' object."
    )
    assert "'args'" in Variant.build("nest(param=args)", space).convention()
    assert Variant.build("reorder", space).convention() == ""
    assert Variant.build("flatten", space).convention() == ""
    assert Variant.build("strip(what=tools)", space).convention().startswith("Tools come without descriptions")


# nest and flatten ----------------------------------------------------------------------------


@pytest.mark.parametrize("domain_name", ["smart_home", "retail"])
@pytest.mark.parametrize("param", ["arguments", "args"])
def test_flatten_over_nest_gives_back_the_native_tools_exactly(domain_name: str, param: str) -> None:
    space = _tools(domain_name)
    nested = Variant.build(f"nest(param={param})", space).tools()
    flat = Variant.build(f"nest(param={param})|flatten", space).tools()
    assert flat == space.tools()
    assert [json.dumps(t.parameters) for t in flat] == [json.dumps(t.parameters) for t in space.tools()]
    for tool, native in zip(nested, space.tools(), strict=True):
        assert tool.name == native.name and tool.description == native.description
        assert tool.parameters["properties"] == {param: native.parameters}
        assert tool.parameters["required"] == [param]


def test_nest_keeps_parameterless_tools_on_an_empty_object() -> None:
    tool = Variant.build("nest", _tools("smart_home")).top.tool("list_scenes")
    assert tool.parameters["properties"]["arguments"]["properties"] == {}
    assert tool.parameters["required"] == ["arguments"]


def test_nest_rejects_a_bad_parameter_name() -> None:
    with pytest.raises(ConfigError, match="must be an identifier"):
        Variant.build("nest(param=1x)", _tools("smart_home"))


OBJECT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "zip": {"type": "integer", "description": "postal code"}},
    "required": ["city"],
    "additionalProperties": False,
}
NESTED_CATALOG = ActionSpace(
    "nested",
    (
        Operation("ship", "Ship it.", (Param("payload", OBJECT, description="the call"),)),
        Operation("optional", "Optional wrapper.", (Param("payload", OBJECT, required=False),)),
        Operation("two", "Two params.", (Param("payload", OBJECT), Param("note", {"type": "string"}))),
        Operation("scalar", "One scalar.", (Param("n", {"type": "integer"}),)),
        Operation("other", "Other wrapper name.", (Param("body", OBJECT),)),
    ),
)


def test_flatten_lifts_only_single_required_object_parameters() -> None:
    variant = Variant.build("flatten", NESTED_CATALOG)
    shown = {t.name: t for t in variant.tools()}
    native = {t.name: t for t in NESTED_CATALOG.tools()}
    assert shown["ship"].parameters == {**OBJECT, "description": "the call"}  # lifted as it is
    assert shown["other"].parameters == OBJECT
    for name in ("optional", "two", "scalar"):
        assert shown[name] == native[name]
    only = {t.name: t for t in Variant.build("flatten(param=body)", NESTED_CATALOG).tools()}
    assert only["ship"] == native["ship"] and only["other"].parameters == OBJECT


def test_flatten_decodes_and_encodes_through_the_wrapper() -> None:
    variant = Variant.build("flatten", NESTED_CATALOG)
    action = NESTED_CATALOG.action("ship", {"payload": {"city": "Oslo", "zip": 150}})
    plan = variant.plan(action)
    call = next(plan)
    assert call == ToolCall("ship", {"city": "Oslo", "zip": 150})
    executed: list[Action] = []
    session = AdapterSession(variant, lambda a: executed.append(a) or {"ok": True})
    assert session.handle(call).outcome == "executed"
    assert executed == [action]
    bad = session.handle(ToolCall("ship", {"payload": {"city": "Oslo"}}))
    assert bad.outcome == "rejected" and bad.rejection == RejectionKind.INVALID_ARGUMENTS


# strip ---------------------------------------------------------------------------------------

DEEP = ActionSpace(
    "deep",
    (
        Operation(
            "post",
            "Post a thing.",
            (
                Param("description", {"type": "string", "description": "a property called description"}),
                Param(
                    "meta",
                    {
                        "type": "object",
                        "description": "metadata",
                        "properties": {
                            "tags": {"type": "array", "items": {"type": "string", "description": "one tag"}},
                            "kind": {"anyOf": [{"const": "a", "description": "A"}, {"enum": ["description"]}]},
                        },
                    },
                    description="metadata",
                ),
            ),
        ),
    ),
)


def test_strip_removes_descriptions_at_every_depth_and_nothing_else() -> None:
    tool = Variant.build("strip", DEEP).tools()[0]
    assert tool.description == ""
    text = json.dumps(tool.parameters)
    assert '"description": {"type": "string"}' in text  # the property named description stays
    assert '"enum": ["description"]' in text  # so do enum values
    assert text.count("description") == 3  # the property, its required entry, the enum value
    assert tool.parameters["properties"]["meta"]["properties"]["tags"]["items"] == {"type": "string"}
    native = DEEP.tools()[0]
    assert "metadata" in json.dumps(native.parameters)  # the input is untouched


@pytest.mark.parametrize("domain_name", ["smart_home", "retail"])
def test_strip_what_selects_tools_or_params(domain_name: str) -> None:
    space = _tools(domain_name)
    native = space.tools()
    tools_only = Variant.build("strip(what=tools)", space).tools()
    params_only = Variant.build("strip(what=params)", space).tools()
    both = Variant.build("strip", space).tools()
    assert all(t.description == "" for t in tools_only + both)
    assert [t.parameters for t in tools_only] == [t.parameters for t in native]
    assert [t.description for t in params_only] == [t.description for t in native]
    assert all('"description"' not in json.dumps(t.parameters) for t in params_only + both)


# reorder -------------------------------------------------------------------------------------


def test_reorder_is_seeded_and_independent_of_the_incoming_order() -> None:
    params = [Param(n, {"type": "string"}, required=n != "e") for n in "abcdefg"]
    forward = ActionSpace("s", (Operation("op", params=tuple(params)),))
    backward = ActionSpace("s", (Operation("op", params=tuple(reversed(params))),))
    shown = [Variant.build("reorder(seed=4)", s).tools()[0].parameters for s in (forward, backward)]
    assert list(shown[0]["properties"]) == list(shown[1]["properties"])
    assert shown[0]["required"] == shown[1]["required"]
    orders = {tuple(Variant.build(f"reorder(seed={s})", forward).tools()[0].parameters["properties"]) for s in range(8)}
    assert len(orders) > 1  # the seed matters
    again = Variant.build("reorder(seed=4)", forward).tools()[0].parameters
    assert list(again["properties"]) == list(shown[0]["properties"])
    assert sorted(again["required"]) == sorted(p.name for p in params if p.required)


def test_reorder_catalog_flag_shuffles_the_tool_list() -> None:
    space = _tools("smart_home")
    assert [t.name for t in Variant.build("reorder", space).tools()] == [t.name for t in space.tools()]
    shuffled = [t.name for t in Variant.build("reorder(catalog=true)", space).tools()]
    assert shuffled != [t.name for t in space.tools()] and sorted(shuffled) == sorted(t.name for t in space.tools())


@pytest.mark.parametrize("spec", ["reorder(seed=2)", "nest|reorder(seed=2)"])
def test_reorder_encodes_in_the_shown_order_and_decodes_to_the_same_action(spec: str) -> None:
    space = _tools("retail")
    variant = Variant.build(spec, space)
    args = {
        "user_id": "u",
        "address1": "1 Main St",
        "address2": "",
        "city": "Oslo",
        "state": "OS",
        "country": "NO",
        "zip": "0150",
    }
    action = space.action("modify_user_address", args)
    plan = variant.plan(action)
    call = next(plan)
    assert not isinstance(call, Batch)
    shown = variant.top.tool(call.name).parameters
    if spec.startswith("nest"):
        shown, sent = shown["properties"]["arguments"], call.arguments["arguments"]
    else:
        sent = call.arguments
    assert list(sent) == list(shown["properties"]) != list(args)
    executed: list[Action] = []
    decision = AdapterSession(variant, lambda a: executed.append(a) or {"ok": True}).handle(call)
    assert decision.outcome == "executed" and executed == [action]
    assert [c.name for c in decision.path] == ["modify_user_address"] * len(decision.path)
    assert len(decision.path) == len(variant.layers)  # the call went through every layer
