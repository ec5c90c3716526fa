"""Teacher-forced scoring: the one capability every log-probability probe reads.

A :class:`LogprobScorer` renders a turn exactly as its backend would (same chat template, same
tool rendering) and returns the per-token log-probabilities of given continuations after a
given context. Every probe (Xu et al.'s surprisal channels and legal-action distribution,
Action-Space Shaping's sequence log-likelihood) is built from these two methods.

Which tokens a continuation has: ``context + continuation`` is tokenised as a whole, the way the
backend tokenises a prompt, and the scored tokens are those after the longest common prefix
with the tokenisation of ``context`` alone. When the boundary merges (a context ending in a space
before ``{``), the merged token is scored as part of the continuation. This rule is the same for
every backend and every arm, so paired contrasts compare like with like.

Spans inside a rendered conversation are found by rendering it twice (:func:`turn_span`): a
tool return's text is located in the rendered tool turn, an assistant turn is the rendered
conversation minus the rendered generation prompt. A template that rewrites the text (escapes
it, reorders history) makes the span unfindable, which raises :class:`ProbeError`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from toolprism.backends import Message
from toolprism.errors import ToolprismError
from toolprism.schema import JSON

SENTINEL = "toolprismsentinel7f3a"
"""A tool name no template rewrites and no tokenizer treats specially, used to find the call opener."""


class ProbeError(ToolprismError):
    """A probe cannot be computed as defined: the backend cannot score, a template rewrites the
    text it must find, or a prompt does not fit. The message says which and why."""


class TokenLogprobs(NamedTuple):
    """Per-token log-probabilities of one continuation.

    Attributes:
        token_ids: the scored tokens (length n, n >= 0).
        logprobs: ``log p(token_i | context, token_<i)`` in nats (natural log), length n.
    """

    token_ids: tuple[int, ...]
    logprobs: tuple[float, ...]

    @property
    def total(self) -> float:
        """Sum of the log-probabilities (nats); 0.0 for an empty continuation."""
        return math.fsum(self.logprobs)

    @property
    def mean_surprisal(self) -> float:
        """Mean per-token surprisal ``-total / n`` (nats per token); NaN when n = 0."""
        return -self.total / len(self.logprobs) if self.logprobs else math.nan

    @property
    def first_surprisal(self) -> float:
        """Surprisal of the first scored token (nats); NaN when n = 0."""
        return -self.logprobs[0] if self.logprobs else math.nan


@runtime_checkable
class LogprobScorer(Protocol):
    """Teacher-forced scoring on a backend's exact rendering.

    Implementations: ``toolprism.probes._llama.LlamaScorer`` (the embedded GGUF model),
    ``toolprism.probes._hf.HFScorer`` (a local transformers model),
    ``toolprism.probes._server.ServerScorer`` (an OpenAI-compatible server returning prompt
    log-probabilities, e.g. vLLM). Build one with :func:`toolprism.probes.create_scorer`.
    """

    name: str
    """The model as runs record it (``embedded:smollm2``, ``hf:/path``, ``openai:<model>``)."""

    def settings(self) -> dict[str, JSON]:
        """What identifies the scoring model (id, file, hash, dtype): stored with every result."""
        ...

    def render(self, messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
        """The exact prompt text the backend renders for ``messages`` (OpenAI format) with
        ``tools`` (OpenAI function tools), with the open assistant turn when
        ``generation_prompt`` is true.

        Raises:
            ProbeError: the template cannot render these messages.
        """
        ...

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` tokenised as a whole, as :meth:`score` tokenises (special tokens
        parsed, none added): what the byte-identical-prefix check compares."""
        ...

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        """Log-probabilities of each continuation after ``context`` (module docstring: which tokens).

        The context is evaluated once and reused for every continuation (prefix reuse);
        implementations also reuse the longest common prefix with the previous call.

        Returns:
            One :class:`TokenLogprobs` per continuation, in order.

        Raises:
            ProbeError: context plus a continuation exceed the model's context window, or the
                backend cannot return log-probabilities.
        """
        ...


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def scored_tokens(context_ids: Sequence[int], full_ids: Sequence[int]) -> int:
    """Index in ``full_ids`` of the first scored token: the length of the longest common prefix
    of the two tokenisations (module docstring). Raises ProbeError when it is 0 (nothing of the
    context survives, so nothing conditions the continuation)."""
    n = common_prefix(context_ids, full_ids)
    if n == 0 and context_ids:
        raise ProbeError("the context and the continuation tokenise with no common prefix")
    return n


def turn_span(
    scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON], index: int, text: str
) -> tuple[str, str]:
    """``(context, continuation)`` for the string ``text`` inside message ``index``.

    The context is the rendered conversation up to where ``text`` starts in message ``index``
    (its last occurrence in that message's rendered turn); the continuation is ``text``. Used
    for a tool return (S0, S1) and for an assistant call (the sequence log-likelihood).

    Raises:
        ProbeError: rendering ``messages[:index]`` is not a prefix of rendering
            ``messages[:index + 1]`` (without generation prompts), or ``text`` does not appear
            verbatim in the rendered turn.
    """
    before = scorer.render(messages[:index], tools, generation_prompt=False) if index else ""
    upto = scorer.render(messages[: index + 1], tools, generation_prompt=False)
    if not upto.startswith(before):
        raise ProbeError(f"the template re-renders earlier turns when message {index} is added")
    at = upto.rfind(text, len(before))
    if at < 0:
        raise ProbeError(f"message {index}'s text does not appear verbatim in its rendered turn")
    return upto[:at], text


def assistant_text(scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON]) -> tuple[str, str]:
    """``(context, continuation)`` for the last message, an assistant turn: the context is the
    rendered conversation before it with the generation prompt, the continuation the rest of
    the rendering (the turn as the model would write it, end-of-turn marker included).

    Raises:
        ProbeError: the rendering with the turn does not extend the rendering with the
            generation prompt (a template that rewrites history, e.g. drops reasoning).
    """
    context = scorer.render(messages[:-1], tools, generation_prompt=True)
    full = scorer.render(messages, tools, generation_prompt=False)
    if not full.startswith(context):
        raise ProbeError("the rendered assistant turn does not extend the generation prompt")
    return context, full[len(context) :]


class CallSyntax(NamedTuple):
    """How the backend writes the start of a tool call.

    Attributes:
        opener: the text from the start of the assistant turn to the tool name
            (``{"name": "`` for the embedded format, ``<tool_call>\\n{"name": "`` for Hermes).
        name_end: the fixed text after the name, up to the arguments, trailing spaces left off
            (``", "arguments":``): it ends the name (so ``get_order`` is not a prefix of
            ``get_order_details``) at a natural token boundary (GPT-2-style tokenizers write
            ``",`` as one token, so a lone ``"`` would be an improbable token the model never
            writes there). When the arguments are not found after the name, the one character
            after it.
    """

    opener: str
    name_end: str


def call_syntax(scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON]) -> CallSyntax:
    """Find the call opener by rendering an assistant call of a sentinel tool (arguments ``{}``)
    after ``messages``.

    Raises:
        ProbeError: the rendered call does not extend the generation prompt, or the sentinel
            name is not in it.
    """
    context = scorer.render(messages, tools, generation_prompt=True)
    call: Message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": SENTINEL, "arguments": "{}"}}],
    }
    full = scorer.render([*messages, call], tools, generation_prompt=False)
    if not full.startswith(context):
        raise ProbeError("the rendered tool call does not extend the generation prompt")
    tail = full[len(context) :]
    at = tail.find(SENTINEL)
    end = at + len(SENTINEL)
    if at < 0 or end >= len(tail):
        raise ProbeError("the template does not write the tool name into the call")
    arguments = tail.find("{}", end)
    name_end = tail[end:arguments].rstrip() if arguments > end else ""
    return CallSyntax(tail[:at], name_end or tail[end])
