"""Constrained decoding: what a constrained turn may output (see :data:`~toolprism.backends.Constrain`).

One rule for every variant and every backend: the output is a call of a tool the turn shows whose
arguments satisfy that tool's ``parameters`` JSON Schema, or a final answer; one call per turn.
Written as a JSON Schema (:func:`turn_schema`), a ``oneOf`` over one object per listed tool,
``{"name": <its name>, "arguments": <its parameters schema>}``, and the answer object
``{"answer": <string>}``, it is what

- the ``embedded`` backend converts to a llama.cpp GBNF grammar (``_embedded.schema_grammar``);
- the ``openai`` backend sends as ``response_format`` (structured outputs) under the ``json`` tool
  format;
- the ``hf`` backend wraps in its tool format's call syntax (:data:`CALL_SYNTAX`) next to a plain-text
  answer and compiles with xgrammar for the model's tokenizer (:class:`TextTurnGrammar`).

Source: Action-Space Shaping's "Training repairs what it sees" (constrained decoding of the first
call, built from the variant's tool schemas); applying it to every turn is toolprism's extension.
"""

from __future__ import annotations

import importlib.metadata
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolprism.backends._formats import _signature
from toolprism.errors import ConfigError
from toolprism.schema import JSON

XGRAMMAR_HINT = 'pip install -e ".[hf,constrain]"'

ANSWER_SCHEMA: JSON = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}
"""A final answer as a JSON object (the embedded backend's and the ``json`` structured output's)."""


NO_PARAMETERS: JSON = {"type": "object", "properties": {}, "additionalProperties": False}
"""The arguments of a tool that declares no parameters: the empty object only."""


def call_schemas(tools: Sequence[JSON], *, arguments_key: str = "arguments") -> list[JSON]:
    """One JSON Schema per tool in ``tools`` (OpenAI format), in order: an object with ``name``
    fixed to the tool's name and ``arguments_key`` (``arguments``; ``parameters`` for Llama's
    convention) holding the tool's ``parameters`` schema, nothing else. A tool without
    ``parameters`` (or with ``{}``) takes none: its arguments are ``{}`` (:data:`NO_PARAMETERS`;
    the OpenAI API reads an omitted ``parameters`` as an empty parameter list). Deterministic."""
    return [
        {
            "type": "object",
            "properties": {
                "name": {"const": str(_signature(tool).get("name", ""))},
                arguments_key: _signature(tool).get("parameters") or NO_PARAMETERS,
            },
            "required": ["name", arguments_key],
            "additionalProperties": False,
        }
        for tool in tools
    ]


def turn_schema(tools: Sequence[JSON], *, arguments_key: str = "arguments") -> JSON:
    """The JSON Schema of a constrained turn's output: ``{"oneOf": [<call of each tool>...,
    <answer>]}`` (:func:`call_schemas`, :data:`ANSWER_SCHEMA`). With no tools, only the answer."""
    return {"oneOf": [*call_schemas(tools, arguments_key=arguments_key), ANSWER_SCHEMA]}


# --- text formats (the hf backend) ---------------------------------------------------------------


@dataclass(frozen=True)
class CallSyntax:
    """How one call is written under a prompt-based tool format (``_formats``'s conventions).

    Attributes:
        prefix / suffix: the text around the call's JSON object.
        arguments_key: the key holding the arguments (``arguments``, or ``parameters``).
    """

    prefix: str
    suffix: str
    arguments_key: str = "arguments"


CALL_SYNTAX: dict[str, CallSyntax] = {
    "hermes": CallSyntax("<tool_call>\n", "\n</tool_call>"),
    "json": CallSyntax("", ""),
    "llama": CallSyntax("", "", "parameters"),
    "mistral": CallSyntax("[TOOL_CALLS] [", "]"),
}
"""The call syntax a constrained turn uses under each prompt-based format (one call per turn)."""

ANSWER_EXCLUDED = "{[<"
"""Characters a constrained plain-text answer never holds: they open a call in some convention the
parser reads (``{`` JSON, ``[`` ``[TOOL_CALLS]``, ``<`` ``<tool_call>`` and ``<|python_tag|>``), so
an answer can never be read as a call, nor as a malformed one. It is at least one character long
and starts with no whitespace."""

_ANSWER_EBNF = r"root ::= [^{\[<\0-\x20] [^{\[<]*"


def template_style(chat_template: str | None) -> str:
    """The prompt-based format a chat template writes earlier calls in: ``hermes`` when it holds
    ``<tool_call>``, ``mistral`` for ``[TOOL_CALLS]``, ``llama`` for ``<|python_tag|>``, else
    ``json``. A guess from the template's text (the ``hf`` backend's ``tool_format`` overrides it)."""
    text = chat_template or ""
    if "<tool_call>" in text:
        return "hermes"
    if "[TOOL_CALLS]" in text:
        return "mistral"
    if "<|python_tag|>" in text:
        return "llama"
    return "json"


def import_xgrammar() -> Any:
    """xgrammar, or a ConfigError with the install hint.

    Raises:
        ConfigError: xgrammar is not installed.
    """
    try:
        import xgrammar
    except ImportError as exc:
        raise ConfigError(
            f"constrained decoding on the hf backend needs xgrammar ({exc}): {XGRAMMAR_HINT}", what="hf backend"
        ) from None
    return xgrammar


def text_turn_grammar(tools: Sequence[JSON], style: str) -> Any:
    """The xgrammar ``Grammar`` of a constrained turn under ``style`` (a key of :data:`CALL_SYNTAX`):
    ``prefix <one of call_schemas(tools)> suffix`` (compact JSON, ``", "`` and ``": "`` separators)
    or a plain-text answer (:data:`ANSWER_EXCLUDED`). Deterministic.

    Raises:
        ConfigError: unknown ``style``, or xgrammar missing.
    """
    if style not in CALL_SYNTAX:
        raise ConfigError(f"no constrained call syntax for tool format {style!r}; use one of {', '.join(CALL_SYNTAX)}")
    xgr = import_xgrammar()
    syntax = CALL_SYNTAX[style]
    answer = xgr.Grammar.from_ebnf(_ANSWER_EBNF)
    calls = call_schemas(tools, arguments_key=syntax.arguments_key)
    if not calls:
        return answer
    call = xgr.Grammar.from_json_schema(json.dumps({"oneOf": calls}), any_whitespace=False)
    prefix, suffix = (xgr.Grammar.from_ebnf(f"root ::= {json.dumps(text)}") for text in (syntax.prefix, syntax.suffix))
    if syntax.prefix or syntax.suffix:
        call = xgr.Grammar.concat(*([prefix] if syntax.prefix else []), call, *([suffix] if syntax.suffix else []))
    return xgr.Grammar.union(call, answer)


class TextTurnGrammar:
    """Compiles :func:`text_turn_grammar` for one tokenizer and hands out transformers logits
    processors (xgrammar's ``contrib.hf.LogitsProcessor``, one per generation).

    Args:
        tokenizer: the model's transformers tokenizer.
        vocab_size: the model's logits width (may exceed the tokenizer's vocabulary).
        stop_token_ids: the end-of-sequence tokens (allowed once the output is complete).
        style: the call syntax (a key of :data:`CALL_SYNTAX`).

    Raises:
        ConfigError: xgrammar missing, or an unknown ``style``.
    """

    def __init__(self, tokenizer: Any, *, vocab_size: int, stop_token_ids: Sequence[int], style: str) -> None:
        if style not in CALL_SYNTAX:
            raise ConfigError(f"no constrained call syntax for tool format {style!r}", what="hf backend")
        xgr = import_xgrammar()
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size, stop_token_ids=list(stop_token_ids))
        self.style = style
        self.version = importlib.metadata.version("xgrammar")
        self._compiler = xgr.GrammarCompiler(info, max_threads=1)
        self._compiled: dict[str, Any] = {}
        self._lock = threading.Lock()

    def compiled(self, tools: Sequence[JSON]) -> Any:
        """The compiled grammar for ``tools`` (compiled once per tool list)."""
        key = json.dumps(list(tools), sort_keys=True)
        with self._lock:
            if key not in self._compiled:
                self._compiled[key] = self._compiler.compile_grammar(text_turn_grammar(tools, self.style))
            return self._compiled[key]

    def processor(self, tools: Sequence[JSON]) -> Any:
        """A fresh logits processor that masks every token leaving the grammar for ``tools``."""
        import xgrammar.contrib.hf as xgr_hf

        return xgr_hf.LogitsProcessor(self.compiled(tools))


__all__ = [
    "ANSWER_EXCLUDED",
    "ANSWER_SCHEMA",
    "CALL_SYNTAX",
    "CallSyntax",
    "NO_PARAMETERS",
    "TextTurnGrammar",
    "call_schemas",
    "import_xgrammar",
    "template_style",
    "text_turn_grammar",
    "turn_schema",
]
