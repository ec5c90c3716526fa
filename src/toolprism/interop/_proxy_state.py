"""The schema proxy's translation core, free of HTTP: the variant of a request's tools, the
conversation history in variant vocabulary, and the decoding of a model turn into native calls.

The proxy keeps, per harness-visible assistant message it issued, the **segment** of variant-level
messages the model really exchanged to produce it (its protocol calls, their replies, rejections)
and the adapter's protocol state after it. Segments are keyed deterministically: a tool-call turn by
each native ``tool_call`` id the proxy issued, a text turn by the hash of its text and the
conversation it ends (:func:`text_key`). A later request's history is rebuilt from them
(:meth:`Translator.history`); an assistant message the proxy never issued (a harness's few-shot
example, a proxy restart) is re-encoded by the variant's encoder (:meth:`Variant.plan`), its protocol
calls answered by a fresh adapter session, so the model always sees variant vocabulary.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolprism.errors import ConfigError, RejectedCall, ToolprismError
from toolprism.schema import JSON, Action, ActionSpace, ToolCall, canonical_json
from toolprism.shaping import AdapterSession, Batch, Control, Decision, Variant, read_arguments

Message = dict[str, Any]
"""One OpenAI chat message (``role``, ``content``, ``tool_calls``, ``tool_call_id``)."""

MAX_REMEMBERED = 65536
"""Segments (and variants) the proxy remembers, least recently used dropped first."""


def digest(value: JSON) -> str:
    """The first 24 hex digits of the SHA-256 of ``value``'s canonical JSON."""
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()[:24]


class _Lru(OrderedDict):
    """An ordered dict that drops its oldest entries beyond ``limit``."""

    def __init__(self, limit: int = MAX_REMEMBERED) -> None:
        super().__init__()
        self.limit = limit

    def remember(self, key: str, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)

    def recall(self, key: str) -> Any:
        if key in self:
            self.move_to_end(key)
            return self[key]
        return None


class VariantCache:
    """The variant of each distinct ``tools`` list, built once (keyed by the list's hash).

    Args:
        spec: a suite name or a pipeline spec (:meth:`Variant.build`).
    """

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._built: _Lru = _Lru(1024)

    def variant(self, tools: Sequence[Mapping[str, JSON]]) -> Variant:
        """The variant over the action space of ``tools`` (an OpenAI ``tools`` list).

        Raises:
            ConfigError: the tools do not load, or the variant does not apply to them (every
                problem listed; the same error again for the same tools, from the cache).
        """
        key = digest(list(tools))
        built = self._built.recall(key)
        if built is None:
            try:
                space = ActionSpace.from_openai_tools(tools)  # named "catalog", as any loaded catalog
                built = Variant.build(self.spec, space)
            except ConfigError as e:
                built = e
            self._built.remember(key, built)
        if isinstance(built, ConfigError):
            raise built
        return built


@dataclass
class Segment:
    """What the model exchanged to produce one harness-visible assistant message.

    Attributes:
        messages: the variant-level messages, in order: the model's assistant messages and the
            proxy's replies to its protocol-only and rejected calls (the replies of the calls that
            became native calls come later, from the harness).
        variant_ids: native ``tool_call`` id issued to the harness → the id of the model's call it
            decodes (the harness's tool result is shown to the model under that id).
        actions: native ``tool_call`` id → the native action it carries.
        states: the adapter's protocol state after the turn (a copy; restored by later requests).
    """

    messages: list[Message]
    variant_ids: dict[str, str]
    actions: dict[str, Action]
    states: list[Any]


@dataclass(frozen=True)
class NativeCall:
    """A model call that decoded to a native action: what the harness gets.

    Attributes:
        id: the native ``tool_call`` id the proxy issues.
        variant_id: the id of the model's call.
        name: the native tool name, as the harness spelled it in its ``tools``.
        action: the decoded native action; its arguments are normalised as the native schema
            normalises them (declared defaults filled in, ``12.0`` written ``12``), so the harness
            may get a default it would have applied itself.
    """

    id: str
    variant_id: str
    name: str
    action: Action

    def wire(self) -> Message:
        """This call in the OpenAI ``tool_calls`` format."""
        arguments = json.dumps(self.action.arguments, ensure_ascii=False)
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": arguments}}


@dataclass
class TurnDecoding:
    """One model message decoded by the adapter.

    Attributes:
        natives: the calls that became native calls, for the harness.
        replies: the proxy's tool messages for the other calls (answered or rejected), in call order.
        decisions: the adapter's decision for every call, in call order.
    """

    natives: list[NativeCall] = field(default_factory=list)
    replies: list[Message] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)


def text_key(anchor: str, content: JSON) -> str:
    """The key of a text turn: its text and the conversation's anchor (see :meth:`Translator.anchor`).

    Two text turns with the same text after the same anchor share a key (the later one's segment
    wins); the paper's proxy keys text turns by their text alone."""
    return "text:" + digest([anchor, content])


def content_text(content: JSON) -> str | None:
    """A message's content as text: a string as it is, a list of ``text`` parts joined, else None."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def parse_reply(content: JSON) -> JSON:
    """A tool message's content as JSON when it is JSON text, else the text itself."""
    text = content_text(content)
    if text is None:
        return content
    try:
        return json.loads(text)
    except ValueError:
        return text


PerturbReply = Callable[[str, Action | None, Message], Message]
"""``(native call id, its action or None, harness tool message) -> tool message shown to the model``."""


@dataclass
class Translator:
    """Translation between one harness's native vocabulary and one variant, for one request.

    Args:
        variant: the variant of the request's tools.
        control: the adapter control (``strict``, ``paper``, ``loose``).
        segments: the proxy-wide memory of segments (shared across requests).
        perturb: rewrites a harness tool message on its way to the model (identity by default).
    """

    variant: Variant
    control: Control
    segments: _Lru
    perturb: PerturbReply | None = None
    session: AdapterSession = field(init=False)
    _executed: list[Action] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.session = AdapterSession(self.variant, self._execute, self.control)

    def _execute(self, action: Action) -> JSON:
        """The adapter's runtime: the harness runs native actions, later; record it and defer."""
        self._executed.append(action)
        return None

    @property
    def space(self) -> ActionSpace:
        """The request's native action space."""
        return self.variant.layers[0].space  # type: ignore[attr-defined]

    @staticmethod
    def anchor(messages: Sequence[Message]) -> str:
        """What ties a text turn to its conversation: the last native tool-call id before it, or
        (none yet) the hash of the conversation's system and first user messages."""
        for message in reversed(messages):
            calls = (message.get("tool_calls") or []) if message.get("role") == "assistant" else []
            if calls and isinstance(calls[-1], dict) and calls[-1].get("id"):
                return str(calls[-1]["id"])
        opening = [m.get("content") for m in messages if m.get("role") in ("system", "user")][:2]
        return digest(opening)

    # --- history --------------------------------------------------------------------------

    def history(self, messages: Sequence[Message]) -> list[Message]:
        """The harness's conversation in variant vocabulary; leaves :attr:`session` in the protocol
        state the conversation reached.

        Assistant messages the proxy issued are replaced by their segments; a harness tool result
        keeps its place under the id of the model's call; other assistant tool calls are re-encoded
        (:meth:`_encode`); system, user and text messages pass unchanged.
        """
        results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
        consumed: set[str] = set()
        variant_ids: dict[str, str] = {}
        actions: dict[str, Action] = {}
        out: list[Message] = []
        for index, message in enumerate(messages):
            role = message.get("role")
            if role == "tool":
                native_id = str(message.get("tool_call_id"))
                if native_id in consumed:
                    continue
                shown_id = variant_ids.get(native_id, native_id)
                out.append(self._result(native_id, shown_id, actions.get(native_id), message))
                continue
            if role != "assistant":
                out.append(message)
                continue
            segment = self._segment_of(message, messages[:index])
            if segment is not None:
                out += copy.deepcopy(segment.messages)
                variant_ids.update(segment.variant_ids)
                actions.update(segment.actions)
                self.session.states = copy.deepcopy(segment.states)
            elif message.get("tool_calls"):
                out += self._encode(message, results, consumed)
            else:
                out.append(message)
        return out

    def _segment_of(self, message: Message, before: Sequence[Message]) -> Segment | None:
        calls = message.get("tool_calls") or []
        if calls:
            first = calls[0] if isinstance(calls[0], dict) else {}
            return self.segments.recall(str(first.get("id")))
        return self.segments.recall(text_key(self.anchor(before), message.get("content")))

    def _result(self, native_id: str, variant_id: str, action: Action | None, message: Message) -> Message:
        shown = {"role": "tool", "tool_call_id": variant_id, "content": message.get("content")}
        return self.perturb(native_id, action, shown) if self.perturb else shown

    def _encode(self, message: Message, results: Mapping[str, Message], consumed: set[str]) -> list[Message]:
        """A native assistant message the proxy did not issue, as the encoder's variant-level calls.

        Each native call's plan runs step by step through :attr:`session`: protocol calls get the
        adapter's replies, the executing call gets the harness's own result (moved up to it). A
        call that is no valid native action of the request's tools is kept as it is.
        """
        out: list[Message] = []
        content = message.get("content")
        for raw in message.get("tool_calls") or []:
            native_id, name, arguments = _wire_call(raw)
            result = results.get(native_id)
            try:
                action = self.space.action(name, read_arguments(arguments))
            except (RejectedCall, ToolprismError):
                out.append({"role": "assistant", "content": content, "tool_calls": [raw]})
                content = None
                continue
            plan = self.variant.plan(action)
            step, number = next(plan), 0
            while True:
                calls = step.calls if isinstance(step, Batch) else (step,)
                ids = [f"{native_id}.{number + i}" for i in range(len(calls))]
                number += len(calls)
                out.append({"role": "assistant", "content": content, "tool_calls": _wire_calls(calls, ids)})
                content = None
                replies: list[JSON] = []
                for call, call_id in zip(calls, ids, strict=True):
                    before = len(self._executed)
                    decision = self.session.handle(call)
                    if len(self._executed) > before and result is not None:
                        out.append(self._result(native_id, call_id, action, result))
                        consumed.add(native_id)
                        replies.append(parse_reply(result.get("content")))
                    else:
                        out.append({"role": "tool", "tool_call_id": call_id, "content": decision.content})
                        replies.append(decision.reply)
                try:
                    step = plan.send(replies if isinstance(step, Batch) else replies[0])
                except StopIteration:
                    break
        return out

    # --- a model turn ---------------------------------------------------------------------

    def decode(self, calls: Sequence[Message], ids: Sequence[str]) -> TurnDecoding:
        """Decode a model message's ``tool_calls`` (OpenAI format) through the adapter.

        Args:
            calls: the message's tool calls, each with an ``id``.
            ids: a fresh native ``tool_call`` id per call (used for those that become native calls).

        Returns:
            The native calls for the harness, the proxy's replies to the others (protocol-only
            calls it answers, rejections shown to the model), and every decision.
        """
        turn = TurnDecoding()
        for raw, native_id in zip(calls, ids, strict=True):
            variant_id, name, arguments = _wire_call(raw)
            try:
                call = ToolCall(name, read_arguments(arguments), variant_id)
                before = len(self._executed)
                decision = self.session.handle(call)
            except RejectedCall as e:
                decision = self.session.reject_malformed(name, e.reason)
                before = len(self._executed)
            turn.decisions.append(decision)
            if len(self._executed) > before:
                action = self._executed[-1]
                native = self.space.source_call(action).name
                turn.natives.append(NativeCall(native_id, variant_id, native, action))
            else:
                turn.replies.append({"role": "tool", "tool_call_id": variant_id, "content": decision.content})
        return turn

    def remember(self, keys: Sequence[str], messages: Sequence[Message], natives: Sequence[NativeCall] = ()) -> None:
        """Store a segment under each of ``keys``, with the session's protocol state now."""
        segment = Segment(
            copy.deepcopy(list(messages)),
            {n.id: n.variant_id for n in natives},
            {n.id: n.action for n in natives},
            copy.deepcopy(self.session.states),
        )
        for key in keys:
            self.segments.remember(key, segment)


def _wire_call(raw: JSON) -> tuple[str, str, str]:
    """``(id, name, arguments text)`` of an OpenAI ``tool_calls`` entry (absent parts empty)."""
    raw = raw if isinstance(raw, dict) else {}
    fn = raw.get("function") if isinstance(raw.get("function"), dict) else {}
    arguments = fn.get("arguments")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return str(raw.get("id") or ""), str(fn.get("name") or ""), arguments


def _wire_calls(calls: Sequence[ToolCall], ids: Sequence[str]) -> list[Message]:
    return [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments), ensure_ascii=False)},
        }
        for c, call_id in zip(calls, ids, strict=True)
    ]


def new_segments() -> _Lru:
    """An empty segment memory of :data:`MAX_REMEMBERED` entries."""
    return _Lru()
