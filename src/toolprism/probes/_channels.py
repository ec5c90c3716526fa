"""Xu et al.'s two channels at one decision point (section II.B): the surprisal of a tool return
under the schema alone and under the whole prefix, and the distribution over legal next actions.

Surprisal (nats per token, :class:`Surprisal`):

- ``S0``: mean per-token surprisal of the return ``r`` given only the tool's schema and the call
  (the backend's rendering of ``[call, return]`` with that one tool, no policy, no user turn);
- ``S1``: the same given the whole prefix (policy, user turns, earlier calls and returns);
- ``G = S1 - S0``; ``*_first`` are the same quantities on the first scored token only.

Legal-action distribution (:class:`ActionDistribution`), computed exactly, not sampled, from
the tool-name continuations ``opener + t + name_end`` (:func:`toolprism.probes.call_syntax`):

- the call mass ``P(call)`` is the probability of the opener's tokens that every tool's
  continuation starts with (tokens where the opener merges with a name are left to the names);
- ``P(reply) = 1 - P(call)``, the "reply remainder" (every continuation that does not start a
  tool call);
- each tool ``t`` gets the call mass in proportion to the joint probability of its continuation,
  so the n + 1 probabilities sum to 1. ``name_mass`` records how much of the call mass the legal
  names' continuations carry (the rest, renormalised away, is on names no tool has).

Deviation: Xu et al. read the call mass off one next-token distribution (a single call token);
an opener of several tokens (``{"name": "``) generalises it to the product of their
probabilities. When no opener token is shared (an empty opener), ``P(call)`` is the sum of the
joints.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from toolprism.backends import Message
from toolprism.probes._scorer import LogprobScorer, ProbeError, TokenLogprobs, call_syntax, common_prefix, turn_span
from toolprism.schema import JSON

REPLY = "reply"
"""The legal action "reply to the user" (Xu et al.'s V), next to the tool names."""


class Surprisal(NamedTuple):
    """The surprisal channels of one tool return (nats per token; ``*_first``: nats).

    Attributes:
        s0, s1, g: mean per-token surprisal under the schema alone, under the whole prefix, and
            ``s1 - s0``.
        s0_first, s1_first, g_first: the same on the first scored token.
        n_tokens: scored tokens under the whole prefix.
    """

    s0: float
    s1: float
    g: float
    s0_first: float
    s1_first: float
    g_first: float
    n_tokens: int

    @classmethod
    def of(cls, s0: TokenLogprobs, s1: TokenLogprobs) -> Surprisal:
        """The channels from the return's scored tokens under the schema alone (``s0``) and under
        the whole prefix (``s1``)."""
        return cls(
            s0=s0.mean_surprisal,
            s1=s1.mean_surprisal,
            g=s1.mean_surprisal - s0.mean_surprisal,
            s0_first=s0.first_surprisal,
            s1_first=s1.first_surprisal,
            g_first=s1.first_surprisal - s0.first_surprisal,
            n_tokens=len(s1.logprobs),
        )


def _tool_schema(tools: Sequence[JSON], name: str) -> JSON:
    for tool in tools:
        if isinstance(tool, dict) and tool.get("function", {}).get("name") == name:
            return tool
    raise ProbeError(f"no tool named {name!r} among the tools")


def schema_only_messages(messages: Sequence[Message], index: int) -> list[Message]:
    """The S0 conditioning of the tool return ``messages[index]``: the one assistant call it
    answers and the return itself.

    Raises:
        ProbeError: ``messages[index]`` is not a tool message answering a call of the message
            before it.
    """
    message = messages[index]
    call_id = message.get("tool_call_id")
    calls = messages[index - 1].get("tool_calls") or [] if index else []
    call = next((c for c in calls if c.get("id") == call_id), None)
    if message.get("role") != "tool" or call is None:
        raise ProbeError(f"message {index} is not a tool return answering the call before it")
    return [{"role": "assistant", "content": None, "tool_calls": [call]}, dict(message)]


def schema_only(scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON], index: int) -> TokenLogprobs:
    """The scored tokens of the tool return ``messages[index]`` under its schema alone (S0's
    conditioning: :func:`schema_only_messages` with only that tool).

    Raises:
        ProbeError: see :func:`schema_only_messages` and :func:`toolprism.probes.turn_span`.
    """
    text = messages[index]["content"]
    s0_messages = schema_only_messages(messages, index)
    name = s0_messages[0]["tool_calls"][0]["function"]["name"]
    (s0,) = scorer.score(turn_span(scorer, s0_messages, [_tool_schema(tools, name)], 1, text)[0], [text])
    return s0


def surprisal(scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON], index: int) -> Surprisal:
    """S0, S1 and G of the tool return ``messages[index]`` (its ``content`` string).

    Raises:
        ProbeError: see :func:`schema_only_messages` and :func:`toolprism.probes.turn_span`.
    """
    text = messages[index]["content"]
    (s1,) = scorer.score(turn_span(scorer, messages[: index + 1], tools, index, text)[0], [text])
    return Surprisal.of(schema_only(scorer, messages, tools, index), s1)


class ActionDistribution(BaseModel):
    """The distribution over legal next actions at one decision point.

    Attributes:
        probs: action → probability, for every tool name and :data:`REPLY`; sums to 1.
        opener_prob: the call mass ``P(call)`` (module docstring), ``1 - probs[REPLY]``.
        name_mass: share of the call mass on legal tool names (before renormalising).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    probs: dict[str, float]
    opener_prob: float
    name_mass: float

    @property
    def entropy(self) -> float:
        """Shannon entropy in nats; at most ``log(len(probs))``."""
        return -math.fsum(p * math.log(p) for p in self.probs.values() if p > 0)

    @property
    def leader(self) -> str:
        """The most probable action (ties: the first in ``probs`` order)."""
        return max(self.probs, key=lambda a: self.probs[a])

    def mass(self, actions: Iterable[str]) -> float:
        """Total probability of ``actions`` (names not in ``probs`` count 0)."""
        return math.fsum(self.probs.get(a, 0.0) for a in actions)


def action_distribution(
    scorer: LogprobScorer, messages: Sequence[Message], tools: Sequence[JSON]
) -> ActionDistribution:
    """The legal-action distribution after ``messages`` (module docstring for the definition).

    Cost: one scoring call with 1 + n short continuations of one context (prefix reuse).

    Raises:
        ProbeError: no tools, or the call opener cannot be found (:func:`toolprism.probes.call_syntax`).
    """
    names = [t["function"]["name"] for t in tools]
    if not names:
        raise ProbeError("the legal-action distribution needs at least one tool")
    syntax = call_syntax(scorer, messages, tools)
    context = scorer.render(messages, tools, generation_prompt=True)
    continuations = [syntax.opener] + [syntax.opener + n + syntax.name_end for n in names]
    opener, *joint = scorer.score(context, continuations)
    shared = min(common_prefix(opener.token_ids, j.token_ids) for j in joint)
    # log-sum-exp over the joint log-probabilities, then each tool's share of the call mass
    top = max(j.total for j in joint)
    log_z = top + math.log(math.fsum(math.exp(j.total - top) for j in joint))
    log_call = math.fsum(opener.logprobs[:shared]) if shared else log_z
    p_call = math.exp(log_call)
    probs = {n: p_call * math.exp(j.total - log_z) for n, j in zip(names, joint, strict=True)}
    probs[REPLY] = 1.0 - p_call
    return ActionDistribution(probs=probs, opener_prob=p_call, name_mass=min(1.0, math.exp(log_z - log_call)))
