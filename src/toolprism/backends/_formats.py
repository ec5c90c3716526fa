"""Tool-call formats for servers and models without native ``tools``/``tool_calls`` support.

A *prompt-based* format puts the tools and the calling convention in the system message, shows
the history's tool calls and tool results as plain text, and reads the model's tool calls back out
of its text reply. The conventions (each as its model family documents it):

- ``hermes``: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, one block per call,
  results in ``<tool_response>`` blocks (NousResearch Hermes 2 Pro function calling; Qwen2.5's chat
  template uses the same tags);
- ``json``: the whole reply is one JSON object ``{"name": ..., "arguments": {...}}`` or a list of
  them (a fenced ```json block among prose counts too); any other reply is the answer;
- ``llama``: Llama 3.1/3.2's JSON tool calling, ``{"name": ..., "parameters": {...}}``, optionally
  after ``<|python_tag|>`` (Meta's llama-models prompt format documentation);
- ``mistral``: ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}]`` (tokenizer v3) or
  ``[TOOL_CALLS]name[ARGS]{...}`` (v11, repeated per call; an optional ``[CALL_ID]id`` before
  ``[ARGS]`` as v13 writes it) (mistral-common's tokenizer templates).

``native`` sends the tools in the request and reads ``tool_calls`` from the response: nothing here.

Parsing never raises on model output: :func:`parse_output` returns a :class:`ParsedOutput` whose
``error`` describes a reply that tried to call a tool and could not be read (the episode loop
records it and shows it to the model). A reply that holds one malformed call yields no calls at
all (all or nothing, so the model is asked to repeat the whole reply).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolprism.backends._base import Message, RawCall
from toolprism.errors import ConfigError
from toolprism.schema import JSON

ToolFormat = Literal["native", "hermes", "json", "llama", "mistral"]
TOOL_FORMATS: tuple[str, ...] = ("native", "hermes", "json", "llama", "mistral")
"""Every tool-call format a run can use (``--tool-format``); all but ``native`` are prompt-based."""
PROMPT_FORMATS: tuple[str, ...] = TOOL_FORMATS[1:]
PARSE_STYLES: tuple[str, ...] = (*PROMPT_FORMATS, "auto")
"""The styles :func:`parse_output` understands; ``auto`` recognises every one of them."""

_HERMES_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"\A```(?:json)?\s*(.*?)\s*```\Z", re.DOTALL)
_INNER_FENCE = re.compile(r"```(?:json)?\s*([\[{].*?)\s*```", re.DOTALL)
_MISTRAL_V11 = re.compile(r"\A([^\s\[\]{}]+)\s*(?:\[CALL_ID\]\s*(\S*?)\s*)?\[ARGS\](.*)\Z", re.DOTALL)
_LLAMA_TAIL = ("<|eom_id|>", "<|eot_id|>")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedOutput:
    """A model's text reply read under one tool-call convention.

    Attributes:
        content: the text that is not a tool call (stripped), None when there is none.
        calls: the tool calls in order, ids ``<id_prefix>_<index>``, arguments as JSON text
            (``"{}"`` when absent or null).
        error: why the reply could not be read (then ``calls`` is empty), else None.
    """

    content: str | None
    calls: tuple[RawCall, ...] = ()
    error: str | None = None


class _Unreadable(ValueError):
    """One call that cannot be read; its message is the reason shown to the model."""


# --- rendering -----------------------------------------------------------------------------------


def _check_style(style: str, allowed: tuple[str, ...]) -> None:
    if style not in allowed:
        raise ConfigError(f"unknown tool format {style!r} (known: {', '.join(allowed)})", what="tool format")


def _signature(tool: JSON) -> JSON:
    """The function object of an OpenAI tool (``{"name", "description", "parameters"}``)."""
    return tool.get("function", tool) if isinstance(tool, dict) else tool


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_tools_prompt(tools: Sequence[JSON], style: str) -> str:
    """The system-message section that lists ``tools`` (OpenAI format) and explains how to call
    them under ``style`` (a prompt-based format). Deterministic: same tools, same text.

    Raises:
        ConfigError: ``style`` is not a prompt-based format.
    """
    _check_style(style, PROMPT_FORMATS)
    signatures = [_signature(t) for t in tools]
    if style == "hermes":
        listing = "\n".join(_dumps({"type": "function", "function": s}) for s in signatures)
        return (
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n"
            f"<tools>\n{listing}\n</tools>\n\n"
            "For each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n"
            '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\n'
            "Function results are given to you within <tool_response></tool_response> XML tags. "
            "When you do not call a function, reply in plain text."
        )
    listing = "\n\n".join(_dumps(s) for s in signatures)
    if style == "json":
        return (
            f"You have access to the following functions:\n\n{listing}\n\n"
            'To call a function, reply with only a JSON object {"name": <function name>, "arguments": '
            "<object of argument names and values>}, or a JSON list of such objects to call several, and "
            "nothing else. Function results are given to you as messages starting with 'Result of'. "
            "To answer the user, reply in plain text."
        )
    if style == "llama":
        return (
            "Given the following functions, please respond with a JSON for a function call with its proper "
            "arguments that best answers the given prompt.\n\n"
            'Respond in the format {"name": function name, "parameters": dictionary of argument name and its '
            "value}. Do not use variables.\n\n"
            f"{listing}\n\n"
            "Function results are given to you as messages starting with 'Result of'. "
            "When you do not call a function, reply in plain text."
        )
    return (  # mistral
        f"[AVAILABLE_TOOLS] {_dumps([{'type': 'function', 'function': s} for s in signatures])}[/AVAILABLE_TOOLS]\n\n"
        'To call functions, reply with [TOOL_CALLS] followed by a JSON list [{"name": <function name>, '
        '"arguments": <object of argument names and values>}, ...]. Function results are given to you '
        "within [TOOL_RESULTS] [/TOOL_RESULTS]. When you do not call a function, reply in plain text."
    )


def _json_or_text(text: Any) -> Any:
    """JSON text as its value (``{}`` when absent or blank; the text itself when it is not JSON)."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return {}
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def _render_calls(calls: Sequence[JSON], style: str) -> str:
    """Assistant tool calls (OpenAI ``tool_calls`` entries) as the text the model would write."""
    key = "parameters" if style == "llama" else "arguments"
    objects = []
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        fn = fn if isinstance(fn, dict) else {}
        objects.append({"name": fn.get("name", ""), key: _json_or_text(fn.get("arguments"))})
    if style == "hermes":
        return "\n".join(f"<tool_call>\n{_dumps(o)}\n</tool_call>" for o in objects)
    if style == "mistral":
        return f"[TOOL_CALLS] {_dumps(objects)}"
    if style == "json":
        return _dumps(objects[0] if len(objects) == 1 else objects)
    return "\n".join(_dumps(o) for o in objects)  # llama: one object per line


def _render_result(name: str, content: Any, style: str) -> str:
    text = content if isinstance(content, str) else _dumps(content)
    if style == "hermes":
        return f"<tool_response>\n{text}\n</tool_response>"
    if style == "mistral":
        return f"[TOOL_RESULTS] {_dumps({'name': name, 'content': _json_or_text(text)})}[/TOOL_RESULTS]"
    return f"Result of {name}: {text}"


def to_text_messages(messages: Sequence[Message], tools: Sequence[JSON], style: str) -> list[Message]:
    """The conversation for a server without native tools: system, user and assistant messages
    with string content only.

    The tools and the calling convention (:func:`render_tools_prompt`) are appended to the first
    system message (one is added when there is none); assistant tool calls become text in the
    style's own syntax; tool results become user messages (``<tool_response>`` blocks for
    ``hermes``, ``[TOOL_RESULTS]`` for ``mistral``, ``Result of <name>: ...`` otherwise); consecutive
    user messages are joined with a blank line (chat templates that require alternation accept it).
    The input is not modified. Deterministic.

    Raises:
        ConfigError: ``style`` is not a prompt-based format.
    """
    _check_style(style, PROMPT_FORMATS)
    section = render_tools_prompt(tools, style)
    names: dict[str, str] = {}
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else ("" if content is None else _dumps(content))
        if role == "assistant":
            calls = message.get("tool_calls") or []
            for call in calls:
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    names[str(call.get("id"))] = str(call["function"].get("name", ""))
            rendered = _render_calls(calls, style) if calls else ""
            out.append({"role": "assistant", "content": "\n".join(t for t in (text, rendered) if t)})
            continue
        if role == "tool":
            role, text = "user", _render_result(names.get(str(message.get("tool_call_id")), "the tool"), content, style)
        if role == "user" and out and out[-1]["role"] == "user":
            out[-1] = {"role": "user", "content": f"{out[-1]['content']}\n\n{text}"}
        else:
            out.append({"role": role, "content": text})
    systems = [i for i, m in enumerate(out) if m["role"] == "system"]
    if systems:
        first = out[systems[0]]
        out[systems[0]] = {"role": "system", "content": f"{first['content']}\n\n{section}".lstrip()}
    else:
        out.insert(0, {"role": "system", "content": section})
    return out


# --- parsing -------------------------------------------------------------------------------------


def _call_of(value: Any, index: int, id_prefix: str) -> RawCall:
    """One decoded call object (``name`` + ``arguments`` or ``parameters``) as a :class:`RawCall`.

    Raises:
        _Unreadable: not an object, no string name, or arguments that are neither an object,
            JSON text nor absent/null.
    """
    if not isinstance(value, dict):
        raise _Unreadable(f"tool call {index + 1} is not a JSON object")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise _Unreadable(f'tool call {index + 1} has no "name" string')
    arguments = value.get("arguments", value.get("parameters"))
    if arguments is None:
        text = "{}"
    elif isinstance(arguments, str):
        text = arguments  # JSON text inside a string, as the OpenAI wire format has it
    else:
        text = _dumps(arguments)  # a non-object is kept: the episode loop rejects it, visibly
    return RawCall(id=f"{id_prefix}_{index}", name=name, arguments=text)


def _decode_all(text: str) -> list[Any]:
    """Every JSON value in ``text``, one after another (separated by whitespace, ``;`` or ``,``).

    Raises:
        _Unreadable: ``text`` is not a sequence of JSON values.
    """
    values, pos = [], 0
    while True:
        while pos < len(text) and (text[pos].isspace() or text[pos] in ";,"):
            pos += 1
        if pos >= len(text):
            return values
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except ValueError as exc:  # JSONDecodeError, and RecursionError-free: json is iterative enough
            raise _Unreadable(f"not valid JSON ({getattr(exc, 'msg', exc)} at character {pos})") from None
        values.append(value)


def _calls_of_values(values: list[Any], id_prefix: str, start: int = 0) -> list[RawCall]:
    objects = [o for v in values for o in (v if isinstance(v, list) else [v])]
    return [_call_of(o, start + i, id_prefix) for i, o in enumerate(objects)]


def _content(text: str) -> str | None:
    text = text.strip()
    return text or None


def _parse_hermes(text: str, id_prefix: str) -> ParsedOutput:
    blocks = _HERMES_BLOCK.findall(text)
    if not blocks:
        return ParsedOutput(_content(text))
    content = _content(_HERMES_BLOCK.sub("", text))
    calls: list[RawCall] = []
    for body in blocks:
        try:
            values = _decode_all(body)
        except _Unreadable as exc:
            raise _Unreadable(f"<tool_call> block {len(calls) + 1}: {exc}") from None
        if len(values) != 1:
            raise _Unreadable(f"<tool_call> block {len(calls) + 1} must hold one JSON object")
        calls += _calls_of_values(values, id_prefix, start=len(calls))
    return ParsedOutput(content, tuple(calls))


def _parse_json(text: str, id_prefix: str) -> ParsedOutput:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    if not body.startswith(("{", "[")):
        inner = _INNER_FENCE.search(body)  # prose around one fenced JSON block: the block is the call
        if inner is None:
            return ParsedOutput(_content(text))
        try:
            values = _decode_all(inner.group(1))
        except _Unreadable:
            return ParsedOutput(_content(text))  # a fenced snippet in an answer, not a call attempt
        if not any(isinstance(v, dict) and isinstance(v.get("name"), str) for v in values):
            return ParsedOutput(_content(text))
        calls = _calls_of_values(values, id_prefix)
        return ParsedOutput(_content(body[: inner.start()] + body[inner.end() :]), tuple(calls))
    values = _decode_all(body)
    if all(isinstance(v, dict) and "name" not in v and not ({"arguments", "parameters"} & v.keys()) for v in values):
        return ParsedOutput(_content(text))  # a JSON answer, not a call
    return ParsedOutput(None, tuple(_calls_of_values(values, id_prefix)))


def _parse_llama(text: str, id_prefix: str) -> ParsedOutput:
    body = text.strip()
    for tail in _LLAMA_TAIL:
        body = body.removesuffix(tail).rstrip()
    head, tag, after = body.partition("<|python_tag|>")
    if not tag:
        return _parse_json(body, id_prefix)
    after = after.strip()
    if not after.startswith(("{", "[")):
        raise _Unreadable('after <|python_tag|> expected a JSON call {"name": ..., "parameters": {...}}')
    return ParsedOutput(_content(head), tuple(_calls_of_values(_decode_all(after), id_prefix)))


def _parse_mistral(text: str, id_prefix: str) -> ParsedOutput:
    head, *segments = text.split("[TOOL_CALLS]")
    if not segments:
        return ParsedOutput(_content(text))
    calls: list[RawCall] = []
    for segment in segments:
        segment = segment.strip().removesuffix("</s>").rstrip()
        if segment.startswith(("{", "[")):
            calls += _calls_of_values(_decode_all(segment), id_prefix, start=len(calls))
            continue
        match = _MISTRAL_V11.match(segment)
        if match is None:
            raise _Unreadable('after [TOOL_CALLS] expected a JSON list or "name[ARGS]{...}"')
        name, _, arguments = match.groups()
        values = _decode_all(arguments)
        if len(values) != 1:
            raise _Unreadable(f"[ARGS] of {name!r} must be one JSON object")
        calls.append(_call_of({"name": name, "arguments": values[0]}, len(calls), id_prefix))
    return ParsedOutput(_content(head), tuple(calls))


_PARSERS = {"hermes": _parse_hermes, "json": _parse_json, "llama": _parse_llama, "mistral": _parse_mistral}


def _auto_style(text: str) -> str:
    if "<tool_call>" in text:
        return "hermes"
    if "[TOOL_CALLS]" in text:
        return "mistral"
    return "llama"  # also reads json's {"name", "arguments"} and a bare list


def parse_output(text: str, style: str, *, id_prefix: str = "call") -> ParsedOutput:
    """Read the tool calls out of a model's text reply.

    Args:
        text: the reply as generated.
        style: a prompt-based format (``hermes``, ``json``, ``llama``, ``mistral``) or ``auto``
            (the convention whose marker the text holds: ``<tool_call>`` -> hermes,
            ``[TOOL_CALLS]`` -> mistral, else llama/json, which read ``arguments`` and
            ``parameters`` alike).
        id_prefix: call ids are ``<id_prefix>_<index>`` (index from 0, in reply order).

    Returns:
        The text outside the calls, the calls, and an error for a reply that tried to call a tool
        and could not be read (no calls then). Never raises on ``text``; deterministic.

    Raises:
        ConfigError: unknown ``style`` (a caller's mistake, not the model's).
    """
    _check_style(style, PARSE_STYLES)
    parser = _PARSERS[_auto_style(text) if style == "auto" else style]
    try:
        return parser(text, id_prefix)
    except (_Unreadable, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return ParsedOutput(_content(text), (), f"unreadable tool call: {reason}")


__all__ = [
    "PARSE_STYLES",
    "PROMPT_FORMATS",
    "TOOL_FORMATS",
    "ParsedOutput",
    "ToolFormat",
    "parse_output",
    "render_tools_prompt",
    "to_text_messages",
]
