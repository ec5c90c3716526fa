"""Schema IR: loaders, canonical actions, and errors that list every problem."""

from __future__ import annotations

import json

import pytest

from toolprism.errors import ConfigError, RejectedCall, RejectionKind
from toolprism.schema import ActionSpace

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Read an order.",
            "parameters": {
                "type": "object",
                "properties": {
                    "order_id": {"type": "string", "description": "the id"},
                    "verbose": {"type": "boolean", "default": False},
                },
                "required": ["order_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_count",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "integer"}}},
                "required": ["n"],
            },
        },
    },
]


def test_openai_catalog_loads_with_parameters_and_descriptions() -> None:
    space = ActionSpace.from_openai_tools(TOOLS, name="shop")
    op = space.get("get_order")
    assert [p.name for p in op.params] == ["order_id", "verbose"]
    assert op.params[0].required and not op.params[1].required
    assert op.params[0].description == "the id" and "description" not in op.params[0].schema
    assert space.tools()[0].openai()["function"]["parameters"]["required"] == ["order_id"]


def test_actions_are_canonical() -> None:
    space = ActionSpace.from_openai_tools(TOOLS)
    a = space.action("set_count", {"tags": [1.0, 2], "n": 3.0})
    b = space.action("set_count", {"n": 3, "tags": [1, 2]})
    assert a == b and hash(a) == hash(b)
    assert space.action("get_order", {"order_id": "x"}) == space.action(
        "get_order", {"order_id": "x", "verbose": False}
    )
    assert space.action("get_order", {"order_id": "x"}) != space.action("get_order", {"order_id": "y"})
    assert a.arguments == {"n": 3, "tags": [1, 2]}


def test_invalid_native_call_is_rejected() -> None:
    space = ActionSpace.from_openai_tools(TOOLS)
    with pytest.raises(RejectedCall) as info:
        space.action("set_count", {"n": "three", "extra": 1})
    assert info.value.kind is RejectionKind.INVALID_ARGUMENTS
    assert "'three' is not of type 'integer'" in info.value.reason and "extra" in info.value.reason
    with pytest.raises(RejectedCall) as info:
        space.action("nope", {})
    assert info.value.kind is RejectionKind.UNKNOWN_TOOL


def test_malformed_catalog_lists_every_problem() -> None:
    bad = [
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"description": "no name"}},
        {"type": "function", "function": {"name": "bad name!", "parameters": {"type": "object", "properties": {}}}},
        {
            "type": "function",
            "function": {
                "name": "t",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "strin"}, "b": {"type": "string", "minLength": "x"}},
                    "required": ["a", "ghost"],
                },
            },
        },
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object", "properties": {}}}},
        "not a tool",
    ]
    with pytest.raises(ConfigError) as info:
        ActionSpace.from_openai_tools(bad)
    problems = "\n".join(info.value.problems)
    for fragment in [
        "tool #1: missing 'name'",
        "'a': unknown type 'strin'",
        "'ghost': listed in 'required'",
        "'b': invalid JSON Schema",
        "'ok': defined twice",
        "tool #5",
    ]:
        assert fragment in problems, (fragment, problems)
    assert "bad name!" not in problems  # an invalid tool name is renamed, not refused (see test_bad_catalogs)


def test_mcp_tools_list_reply_loads() -> None:
    reply = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "tools": [
                {
                    "name": "read_file",
                    "description": "Read a file",
                    "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
                }
            ]
        },
    }
    space = ActionSpace.from_mcp_tools_list(reply, name="fs")
    assert space.get("read_file").params[0].required
    assert ActionSpace.from_mcp_tools_list(reply["result"]).operations == space.operations


def test_shared_catalogs_load(external) -> None:  # noqa: ANN001
    for path in sorted((external / "mcp").glob("*.tools_list.json")):
        space = ActionSpace.from_mcp_tools_list(json.loads(path.read_text()), name=path.stem)
        assert space.operations, path
    for path in sorted((external / "tau2").glob("*_tools.openai.json")):
        data = json.loads(path.read_text())
        space = ActionSpace.from_openai_tools(data if isinstance(data, list) else data["tools"], name=path.stem)
        assert len(space.operations) >= 1, path
