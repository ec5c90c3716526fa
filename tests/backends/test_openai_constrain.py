"""Constrained decoding on the ``openai`` backend, against :class:`toolprism.testing.MockOpenAIServer`
(a real HTTP server on 127.0.0.1) whose script records every request body: ``first`` with native
tools sends ``tool_choice`` (the named function for one tool, ``required`` for several) until the
first call, then ``auto``; the ``json`` format sends ``response_format`` with the turn's JSON Schema
on constrained turns and reads ``{"answer": ...}`` as the answer; what cannot be asked for is a
ConfigError."""

from __future__ import annotations

import asyncio
import json

import jsonschema
import pytest

from toolprism.backends import create_backend
from toolprism.backends._openai import OpenAIBackend
from toolprism.errors import ConfigError
from toolprism.testing import MockOpenAIServer

LIGHT = {
    "type": "function",
    "function": {
        "name": "set_light",
        "parameters": {
            "type": "object",
            "properties": {"room": {"type": "string", "enum": ["kitchen", "hall"]}, "on": {"type": "boolean"}},
            "required": ["room", "on"],
        },
    },
}
FAN = {
    "type": "function",
    "function": {
        "name": "set_fan",
        "parameters": {"type": "object", "properties": {"speed": {"type": "integer"}}, "required": ["speed"]},
    },
}
MESSAGES = [{"role": "system", "content": "You control a house."}, {"role": "user", "content": "Kitchen light on."}]
CALL = {"name": "set_light", "arguments": {"room": "kitchen", "on": True}}


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


class Recorder:
    """A mock script that records each request body and answers as a server honouring the
    constraint would: a call while ``tool_choice`` is not ``auto`` (native) or while no tool
    result is in (json), else an answer (``{"answer": ...}`` when ``response_format`` asks for JSON)."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []

    def __call__(self, body: dict) -> dict:
        self.bodies.append(body)
        answered = body["messages"][-1]["role"] != "user" or "Result of" in body["messages"][-1]["content"]
        if "tools" in body:
            if body["tool_choice"] == "auto":
                return {"role": "assistant", "content": "Done."}
            call = {
                "id": "c1",
                "type": "function",
                "function": {"name": "set_light", "arguments": json.dumps(CALL["arguments"])},
            }
            return {"role": "assistant", "content": None, "tool_calls": [call]}
        if "response_format" in body:
            text = json.dumps({"answer": "Done."} if answered else CALL)
            jsonschema.validate(json.loads(text), body["response_format"]["json_schema"]["schema"])
            return {"role": "assistant", "content": text}
        return {"role": "assistant", "content": "Done." if answered else json.dumps(CALL)}


def _episode(backend: OpenAIBackend, tools: list, turns: int = 3) -> list:
    """Drive ``turns`` turns by hand (a call gets a tool result, an answer ends), as the episode loop does."""
    agent, messages, out = backend.agent(Ctx(seed=0)), list(MESSAGES), []
    for _ in range(turns):
        turn = asyncio.run(agent.respond(messages, tools))
        out.append(turn)
        if not turn.calls:
            break
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in turn.calls
        ]
        messages += [{"role": "assistant", "content": turn.content, "tool_calls": calls}]
        messages += [{"role": "tool", "tool_call_id": c.id, "content": '{"ok": true}'} for c in turn.calls]
    return out


def _backend(mock: MockOpenAIServer, **kw) -> OpenAIBackend:
    return OpenAIBackend("m", base_url=mock.base_url, backoff_s=0, **kw)


@pytest.mark.parametrize(
    ("tools", "first_choice"),
    [([LIGHT], {"type": "function", "function": {"name": "set_light"}}), ([LIGHT, FAN], "required")],
)
def test_first_sends_tool_choice_until_the_first_call(tools, first_choice):
    recorder = Recorder()
    with MockOpenAIServer(script=recorder) as mock:
        turns = _episode(_backend(mock, constrain="first"), tools)
    assert [t.calls[0].name if t.calls else t.content for t in turns] == ["set_light", "Done."]
    assert [b["tool_choice"] for b in recorder.bodies] == [first_choice, "auto"]
    assert all("response_format" not in b for b in recorder.bodies)


def test_none_sends_auto_and_no_schema():
    recorder = Recorder()
    with MockOpenAIServer(script=recorder) as mock:
        _episode(_backend(mock), [LIGHT])
    assert [b["tool_choice"] for b in recorder.bodies] == ["auto"]  # the mock answers at once under auto


@pytest.mark.parametrize(
    ("mode", "constrained"), [("all", [True, True]), ("first", [True, False]), ("none", [False, False])]
)
def test_json_format_sends_the_turn_schema_on_constrained_turns(mode, constrained):
    recorder = Recorder()
    with MockOpenAIServer(script=recorder) as mock:
        turns = _episode(_backend(mock, tool_format="json", constrain=mode), [LIGHT, FAN])
    assert [t.calls[0].name if t.calls else t.content for t in turns] == ["set_light", "Done."]  # the answer unwrapped
    assert ["response_format" in b for b in recorder.bodies] == constrained
    assert all("tools" not in b and "tool_choice" not in b for b in recorder.bodies)
    if mode != "none":
        schema = recorder.bodies[0]["response_format"]["json_schema"]["schema"]
        valid = jsonschema.Draft202012Validator(schema)
        assert valid.is_valid(CALL) and valid.is_valid({"answer": "x"})
        assert not valid.is_valid({"name": "set_light", "arguments": {"room": "attic", "on": True}})  # not in the enum
        assert not valid.is_valid({"name": "set_heater", "arguments": {}})  # no such tool
        assert not valid.is_valid({"name": "set_fan", "arguments": {"speed": "fast"}})  # wrong type


def test_settings_record_what_is_asked(monkeypatch):
    monkeypatch.delenv("TOOLPRISM_BASE_URL", raising=False)
    url = "http://localhost:1/v1"
    cases = {("none", "native"): "none", ("first", "native"): "tool_choice", ("all", "json"): "json-schema"}
    for (mode, fmt), constraint in cases.items():
        settings = OpenAIBackend("m", base_url=url, tool_format=fmt, constrain=mode).settings()
        assert (settings["constrain"], settings["constraint"]) == (mode, constraint)
    assert create_backend("openai:m", base_url=url, constrain="first").settings()["constrain"] == "first"


@pytest.mark.parametrize(
    ("fmt", "mode", "says"),
    [
        ("native", "all", "tool_choice 'required' forbids the final answer"),
        ("hermes", "first", "use --tool-format json"),
        ("mistral", "all", "use --tool-format json"),
        ("native", "always", "unknown constrain mode 'always'"),
    ],
)
def test_what_cannot_be_asked_for_is_a_config_error(fmt, mode, says):
    with pytest.raises(ConfigError, match=says):
        OpenAIBackend("m", base_url="http://localhost:1/v1", tool_format=fmt, constrain=mode)
