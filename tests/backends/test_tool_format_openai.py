"""The ``openai`` backend under prompt-based tool formats, and native calls without arguments."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.backends._base import ModelTurn, RawCall
from toolprism.backends._openai import OpenAIBackend
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.run import EpisodeSpec, run_episode
from toolprism.run._episode import UNREADABLE
from toolprism.shaping import Variant

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "description": "Turn a light on or off.",
            "parameters": {"type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]},
        },
    }
]
MESSAGES = [{"role": "system", "content": "You control a smart home."}, {"role": "user", "content": "Light on."}]


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


def reply(message):
    return httpx.Response(200, json={"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})


def scripted_server(messages):
    """A mock endpoint answering ``messages`` in order; it records each request body."""
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return reply(messages[min(len(seen), len(messages)) - 1])

    return handler, seen


def make(handler, **kw):
    return OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", transport=httpx.MockTransport(handler), **kw)


def smart_home_spec():
    domain = get_domain("smart_home")
    return EpisodeSpec(domain, domain.tasks(0)[0], Variant.build("native", domain.action_space()), 0)


@pytest.mark.parametrize("style", ["hermes", "json", "llama", "mistral"])
def test_prompt_format_sends_no_tools_and_parses_the_reply(style):
    text = {
        "hermes": '<tool_call>{"name": "set_light", "arguments": {"room": "hall"}}</tool_call>',
        "json": '{"name": "set_light", "arguments": {"room": "hall"}}',
        "llama": '<|python_tag|>{"name": "set_light", "parameters": {"room": "hall"}}',
        "mistral": '[TOOL_CALLS] [{"name": "set_light", "arguments": {"room": "hall"}}]',
    }[style]
    handler, seen = scripted_server([{"role": "assistant", "content": text}])
    backend = make(handler, tool_format=style)
    turn = asyncio.run(backend.agent(Ctx(3)).respond(MESSAGES, TOOLS))
    body = seen[0]
    assert "tools" not in body and "tool_choice" not in body
    assert body["messages"][0]["content"].startswith("You control a smart home.\n\n")
    assert "set_light" in body["messages"][0]["content"]
    assert body["messages"][1] == MESSAGES[1]
    assert turn.raw == text
    assert turn.calls == (RawCall("call_1_0", "set_light", '{"room": "hall"}'),)
    assert turn.error is None and turn.content is None
    assert backend.settings()["tool_format"] == style


def test_native_settings_unchanged_and_unknown_format_refused():
    assert "tool_format" not in make(lambda r: reply({})).settings()
    with pytest.raises(ConfigError, match="unknown tool format 'xml'"):
        make(lambda r: reply({}), tool_format="xml")


def test_prompt_format_malformed_reply_is_an_error_not_a_crash():
    handler, _ = scripted_server([{"role": "assistant", "content": '<tool_call>{"name": "set_light", </tool_call>'}])
    turn = asyncio.run(make(handler, tool_format="hermes").agent(Ctx(0)).respond(MESSAGES, TOOLS))
    assert turn.calls == () and turn.error.startswith("unreadable tool call")


@pytest.mark.parametrize("function", [{"name": "list_scenes"}, {"name": "list_scenes", "arguments": None}])
def test_native_absent_or_null_arguments_are_an_empty_object(function):
    tool_calls = [{"id": "c", "type": "function", "function": function}]
    handler, _ = scripted_server([{"role": "assistant", "content": None, "tool_calls": tool_calls}])
    turn = asyncio.run(make(handler).agent(Ctx(0)).respond(MESSAGES, TOOLS))
    assert turn.calls == (RawCall("c", "list_scenes", "{}"),)


@pytest.mark.parametrize("tool_calls", [["oops"], [{"id": "x", "function": "list_scenes"}], {"bad": 1}])
def test_native_garbage_tool_calls_are_an_error(tool_calls):
    handler, _ = scripted_server([{"role": "assistant", "content": None, "tool_calls": tool_calls}])
    turn = asyncio.run(make(handler).agent(Ctx(0)).respond(MESSAGES, TOOLS))
    assert turn.calls == () and "not a function call object" in turn.error


@pytest.mark.parametrize("function", [{"name": "list_scenes"}, {"name": "list_scenes", "arguments": None}])
def test_episode_runs_a_parameterless_tool_called_without_arguments(function):
    tool_calls = [{"id": "c1", "type": "function", "function": function}]
    call = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    handler, seen = scripted_server([call, {"role": "assistant", "content": "Here are the scenes."}])
    trace = asyncio.run(run_episode(smart_home_spec(), make(handler)))
    assert trace.end == "answered"
    [record] = trace.turns[0].calls
    assert record.outcome == "executed" and record.arguments == {}
    assert [a.op for a in trace.actions] == ["list_scenes"]
    assert seen[1]["messages"][-1]["role"] == "tool" and "tools" in seen[1]


def test_episode_loop_reads_null_argument_text_as_empty_object():
    turns = [ModelTurn(raw="x", calls=(RawCall("c1", "list_scenes", "null"),)), ScriptedTurns.answer("ok")]
    trace = asyncio.run(run_episode(smart_home_spec(), ScriptedBackend(turns)))
    assert trace.turns[0].calls[0].outcome == "executed"
    assert [a.op for a in trace.actions] == ["list_scenes"]


def test_episode_under_hermes_shows_results_as_text_and_rejects_unreadable_replies():
    replies = [
        {"role": "assistant", "content": 'Checking.\n<tool_call>\n{"name": "list_scenes"}\n</tool_call>'},
        {"role": "assistant", "content": "<tool_call>{not json}</tool_call>"},
        {"role": "assistant", "content": "All done."},
    ]
    handler, seen = scripted_server(replies)
    trace = asyncio.run(run_episode(smart_home_spec(), make(handler, tool_format="hermes")))
    assert trace.end == "answered"
    assert [len(t.calls) for t in trace.turns] == [1, 0, 0]
    assert trace.turns[0].calls[0].outcome == "executed"
    assert trace.turns[1].error.startswith("unreadable tool call")
    assert trace.turns[1].raw == replies[1]["content"]
    assert trace.model["tool_format"] == "hermes"
    for body in seen:
        assert "tools" not in body
        assert all(isinstance(m["content"], str) and m["role"] != "tool" for m in body["messages"])
    second, third = seen[1]["messages"], seen[2]["messages"]
    rendered = 'Checking.\n<tool_call>\n{"name": "list_scenes", "arguments": {}}\n</tool_call>'
    assert second[-2] == {"role": "assistant", "content": rendered}
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith("<tool_response>")
    assert third[-1]["role"] == "user" and third[-1]["content"].startswith(UNREADABLE)


def test_null_content_of_an_assistant_tool_call_message_is_sent_empty():
    history = [
        *MESSAGES,
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {}}]},
        {"role": "tool", "tool_call_id": "c", "content": "{}"},
        {"role": "assistant", "content": None},
    ]
    body = make(lambda r: reply({})).request_body(history, TOOLS, seed=None)
    assert body["messages"][2]["content"] == "" and body["messages"][2]["tool_calls"]
    assert body["messages"][:2] == MESSAGES and body["messages"][3:] == history[3:]
    assert history[2]["content"] is None  # the caller's history is untouched


def test_create_backend_passes_the_tool_format_and_refuses_it_where_it_does_not_apply():
    from toolprism.backends import create_backend

    backend = create_backend("openai:m", base_url="http://127.0.0.1:1/v1", tool_format="mistral")
    assert backend.tool_format == "mistral"
    with pytest.raises(ConfigError, match="OpenAI-compatible endpoints only"):
        create_backend("oracle", tool_format="hermes")


def test_run_config_tool_format_is_a_closed_choice():
    from pydantic import ValidationError

    from toolprism.evaluation import RunConfig

    assert RunConfig().tool_format == "native"
    assert RunConfig(tool_format="llama").tool_format == "llama"
    with pytest.raises(ValidationError):
        RunConfig(tool_format="xml")
