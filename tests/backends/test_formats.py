"""Tests of the prompt-based tool-call formats: rendering, history conversion and parsing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprism.backends import RawCall
from toolprism.backends._formats import (
    PARSE_STYLES,
    PROMPT_FORMATS,
    ParsedOutput,
    parse_output,
    render_tools_prompt,
    to_text_messages,
)
from toolprism.errors import ConfigError

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "description": "Turn a light on or off.",
            "parameters": {"type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]},
        },
    },
    {"type": "function", "function": {"name": "list_rooms", "description": "All rooms.", "parameters": {}}},
]


def calls(parsed: ParsedOutput) -> list[tuple[str, object]]:
    return [(c.name, json.loads(c.arguments)) for c in parsed.calls]


# --- parsing, per convention ---------------------------------------------------------------------


def test_hermes_several_calls_and_content():
    text = (
        'Let me check.\n<tool_call>\n{"name": "set_light", "arguments": {"room": "kitchen"}}\n</tool_call>\n'
        '<tool_call>{"name": "list_rooms"}</tool_call>'
    )
    parsed = parse_output(text, "hermes")
    assert parsed.error is None
    assert parsed.content == "Let me check."
    assert calls(parsed) == [("set_light", {"room": "kitchen"}), ("list_rooms", {})]
    assert [c.id for c in parsed.calls] == ["call_0", "call_1"]


def test_hermes_unclosed_last_block_and_string_arguments():
    parsed = parse_output('<tool_call>{"name": "set_light", "arguments": "{\\"room\\": \\"hall\\"}"}', "hermes")
    assert parsed.calls == (RawCall("call_0", "set_light", '{"room": "hall"}'),)


def test_hermes_plain_answer():
    assert parse_output("  The light is on.  ", "hermes") == ParsedOutput("The light is on.")


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "set_light", "arguments": {"room": </tool_call>',
        "<tool_call>set_light(room='x')</tool_call>",
        '<tool_call>{"arguments": {}}</tool_call>',
        '<tool_call>{"name": 3}</tool_call>',
        '<tool_call>{"name": "a"} {"name": "b"}</tool_call>',
        '<tool_call>{"name": "ok"}</tool_call><tool_call>{bad</tool_call>',  # all or nothing
    ],
)
def test_hermes_malformed_is_an_error(text):
    parsed = parse_output(text, "hermes")
    assert parsed.calls == ()
    assert parsed.error and parsed.error.startswith("unreadable tool call")


def test_json_object_list_fence_and_answers():
    assert calls(parse_output('{"name": "set_light", "arguments": {"room": "a"}}', "json")) == [
        ("set_light", {"room": "a"})
    ]
    listed = parse_output('[{"name": "list_rooms", "arguments": null}, {"name": "set_light", "arguments": {}}]', "json")
    assert calls(listed) == [("list_rooms", {}), ("set_light", {})]
    fenced = parse_output('```json\n{"name": "list_rooms"}\n```', "json")
    assert calls(fenced) == [("list_rooms", {})]
    assert parse_output("Done: the kitchen light is on.", "json") == ParsedOutput("Done: the kitchen light is on.")
    assert parse_output('{"answer": "done"}', "json").calls == ()
    assert parse_output('{"name": "set_light", "arguments": {', "json").error is not None
    assert parse_output("", "json") == ParsedOutput(None)
    prose = parse_output('I will list them.\n```json\n{"name": "list_rooms", "arguments": {}}\n```\nOK?', "json")
    assert calls(prose) == [("list_rooms", {})] and prose.content == "I will list them.\n\nOK?"
    snippet = 'Use this format:\n```json\n{"rooms": [1, 2]}\n```'
    assert parse_output(snippet, "json") == ParsedOutput(snippet)


def test_llama_python_tag_and_parameters():
    text = '<|python_tag|>{"name": "set_light", "parameters": {"room": "hall"}}<|eom_id|>'
    assert calls(parse_output(text, "llama")) == [("set_light", {"room": "hall"})]
    two = '{"name": "set_light", "parameters": {"room": "a"}}; {"name": "list_rooms", "parameters": {}}'
    bare = parse_output(two, "llama")
    assert calls(bare) == [("set_light", {"room": "a"}), ("list_rooms", {})]
    assert parse_output("<|python_tag|>set_light(room='a')", "llama").error is not None
    assert parse_output("The hall light is on.<|eot_id|>", "llama").content == "The hall light is on."


def test_mistral_v3_list_and_v11_form():
    v3 = parse_output('[TOOL_CALLS] [{"name": "set_light", "arguments": {"room": "a"}, "id": "abcdefghi"}]', "mistral")
    assert calls(v3) == [("set_light", {"room": "a"})]
    v11 = parse_output('[TOOL_CALLS]set_light[ARGS]{"room": "b"}[TOOL_CALLS]list_rooms[ARGS]{}</s>', "mistral")
    assert calls(v11) == [("set_light", {"room": "b"}), ("list_rooms", {})]
    assert [c.id for c in v11.calls] == ["call_0", "call_1"]
    v13 = parse_output('[TOOL_CALLS]set_light[CALL_ID]abc123XYZ[ARGS]{"room": "c"}', "mistral")
    assert calls(v13) == [("set_light", {"room": "c"})]
    assert parse_output("[TOOL_CALLS] set_light room=a", "mistral").error is not None
    assert parse_output('[TOOL_CALLS]set_light[ARGS]{"room": ', "mistral").error is not None
    assert parse_output("No tools needed.", "mistral") == ParsedOutput("No tools needed.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<tool_call>{"name": "list_rooms"}</tool_call>', [("list_rooms", {})]),
        ('[TOOL_CALLS]list_rooms[ARGS]{"x": 1}', [("list_rooms", {"x": 1})]),
        ('<|python_tag|>{"name": "list_rooms", "parameters": {}}', [("list_rooms", {})]),
        ('{"name": "list_rooms", "arguments": {}}', [("list_rooms", {})]),
        ("just text", []),
    ],
)
def test_auto_reads_every_convention(text, expected):
    parsed = parse_output(text, "auto")
    assert parsed.error is None
    assert calls(parsed) == expected


def test_id_prefix_and_unknown_style():
    assert parse_output('{"name": "a"}', "json", id_prefix="call_3").calls[0].id == "call_3_0"
    with pytest.raises(ConfigError, match="unknown tool format"):
        parse_output("x", "native")


def test_deep_nesting_is_an_error_not_a_crash():
    parsed = parse_output('{"name": "a", "arguments": ' + "[" * 100_000 + "]" * 100_000 + "}", "json")
    assert parsed.calls == ()
    assert parsed.error == "unreadable tool call: nested too deeply"
    hundred = parse_output('{"name": "a", "arguments": ' + '{"a":' * 100 + "1" + "}" * 100 + "}", "json")
    assert hundred.error is None and hundred.calls[0].arguments.startswith('{"a": {"a": ')


@settings(max_examples=300, deadline=None)
@given(text=st.text(), style=st.sampled_from(PARSE_STYLES))
def test_fuzz_arbitrary_text_never_raises(text, style):
    parsed = parse_output(text, style)
    assert isinstance(parsed, ParsedOutput)
    assert not (parsed.error and parsed.calls)
    for call in parsed.calls:
        assert call.name and isinstance(call.arguments, str)


_MARKERS = st.sampled_from(
    ["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "<|python_tag|>", "{", "}", "[", "]",
     '"name"', '"arguments"', '"parameters"', ":", ",", '"x"', "null", "1", " ", "\n", "```"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(parts=st.lists(_MARKERS, max_size=30), style=st.sampled_from(PARSE_STYLES))
def test_fuzz_marker_soup_never_raises(parts, style):
    parsed = parse_output("".join(parts), style)
    assert not (parsed.error and parsed.calls)


# --- rendering and history -----------------------------------------------------------------------


@pytest.mark.parametrize("style", PROMPT_FORMATS)
def test_rendered_calls_parse_back(style):
    """What to_text_messages writes for an assistant's calls is what parse_output reads."""
    history = [
        {"role": "system", "content": "Policy."},
        {"role": "user", "content": "Light the kitchen."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "set_light", "arguments": '{"room": "kitchen"}'}},
                {"id": "c2", "type": "function", "function": {"name": "list_rooms", "arguments": None}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        {"role": "tool", "tool_call_id": "c2", "content": '["kitchen"]'},
        {"role": "user", "content": "Thanks."},
    ]
    before = json.dumps(history)
    out = to_text_messages(history, TOOLS, style)
    assert json.dumps(history) == before  # input untouched
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert all(isinstance(m["content"], str) for m in out)
    assert out[0]["content"].startswith("Policy.\n\n")
    assert "set_light" in out[0]["content"] and "list_rooms" in out[0]["content"]
    assert calls(parse_output(out[2]["content"], style)) == [("set_light", {"room": "kitchen"}), ("list_rooms", {})]
    assert calls(parse_output(out[2]["content"], "auto")) == [("set_light", {"room": "kitchen"}), ("list_rooms", {})]
    assert '{"ok": true}' in out[3]["content"] and out[3]["content"].endswith("Thanks.")
    assert "tool_calls" not in out[2]


def test_system_message_added_and_rendering_deterministic():
    out = to_text_messages([{"role": "user", "content": "hi"}], TOOLS, "hermes")
    assert out[0]["role"] == "system" and "<tools>" in out[0]["content"]
    assert render_tools_prompt(TOOLS, "llama") == render_tools_prompt(TOOLS, "llama")
    with pytest.raises(ConfigError):
        render_tools_prompt(TOOLS, "native")
