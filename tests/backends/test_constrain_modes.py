"""The ``constrain`` contract shared by every backend: which turns are constrained, the turn's
JSON Schema (a call of a listed tool with schema-valid arguments, or an answer), and the backends
that accept only ``none`` (oracle, scripted)."""

from __future__ import annotations

import jsonschema
import pytest

from toolprism.backends import CONSTRAIN_MODES, OracleBackend, ScriptedBackend, constrains_turn, create_backend
from toolprism.backends._constrain import call_schemas, template_style, turn_schema
from toolprism.errors import ConfigError

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "parameters": {
                "type": "object",
                "properties": {"room": {"enum": ["kitchen", "hall"]}, "on": {"type": "boolean"}},
                "required": ["room", "on"],
            },
        },
    },
    {"type": "function", "function": {"name": "list_rooms"}},  # no parameters: an empty parameter list
]
SYSTEM = {"role": "system", "content": "s"}
USER = {"role": "user", "content": "u"}
CALLED = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "c", "function": {"name": "x", "arguments": "{}"}}],
}
RESULT = {"role": "tool", "tool_call_id": "c", "content": "{}"}
UNREADABLE = {"role": "assistant", "content": None}  # an unreadable turn: no call was emitted


def test_which_turns_are_constrained():
    before, after = [SYSTEM, USER, UNREADABLE, USER], [SYSTEM, USER, CALLED, RESULT]
    assert [constrains_turn(m, before) for m in CONSTRAIN_MODES] == [False, True, True]
    assert [constrains_turn(m, after) for m in CONSTRAIN_MODES] == [False, False, True]


def test_turn_schema_admits_listed_calls_with_valid_arguments_and_answers_only():
    valid = jsonschema.Draft202012Validator(turn_schema(TOOLS))
    assert valid.is_valid({"name": "set_light", "arguments": {"room": "hall", "on": False}})
    assert valid.is_valid({"name": "list_rooms", "arguments": {}})
    assert not valid.is_valid({"name": "list_rooms", "arguments": {"room": "hall"}})  # no parameters: {} only
    assert valid.is_valid({"answer": "done"})
    for bad in (
        {"name": "set_light", "arguments": {"room": "attic", "on": False}},  # value outside the enum
        {"name": "set_light", "arguments": {"room": "hall"}},  # a required argument missing
        {"name": "set_light", "arguments": {"room": "hall", "on": "yes"}},  # wrong type
        {"name": "set_heater", "arguments": {}},  # not a listed tool
        {"name": "list_rooms", "arguments": {}, "extra": 1},  # nothing beside name and arguments
        {"answer": 3},
        {"answer": "x", "name": "list_rooms"},
    ):
        assert not valid.is_valid(bad), bad
    assert turn_schema([]) == {"oneOf": [turn_schema(TOOLS)["oneOf"][-1]]}  # no tools: only the answer
    assert call_schemas(TOOLS, arguments_key="parameters")[0]["required"] == ["name", "parameters"]


def test_template_style_reads_the_chat_templates_call_syntax():
    assert template_style("{{ '<tool_call>' }}") == "hermes"
    assert template_style("[TOOL_CALLS]") == "mistral"
    assert template_style("<|python_tag|>") == "llama"
    assert template_style(None) == "json"


@pytest.mark.parametrize("mode", ["first", "all"])
def test_scripted_agents_accept_only_none(mode):
    with pytest.raises(ConfigError, match="oracle decodes nothing"):
        create_backend("oracle", constrain=mode)
    with pytest.raises(ConfigError, match="given, not decoded"):
        ScriptedBackend([], constrain=mode)
    with pytest.raises(ConfigError, match="unknown constrain mode"):
        OracleBackend(constrain="sometimes")
    assert create_backend("oracle").settings()["constrain"] == "none"
    assert ScriptedBackend([]).settings()["constrain"] == "none"
