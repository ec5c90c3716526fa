"""A deterministic character-level :class:`~toolprism.probes.LogprobScorer` for probe tests.

Tokens are characters (printable ASCII, newline, and one token for anything else). The next-token
distribution at a position is a softmax over the vocabulary of logits read from a fixed table
indexed by a CRC of the last three characters, plus a copy bonus for every character that would
complete a 4-gram already seen in the text (a crude induction head: text the context already
carries verbatim becomes more probable). Rendering is the embedded backend's ``render_prompt``.
Same inputs, same numbers, on every machine.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from toolprism.backends._embedded import render_prompt
from toolprism.probes import TokenLogprobs, scored_tokens

VOCAB = [chr(c) for c in range(32, 127)] + ["\n"]
UNK = len(VOCAB)
INDEX = {c: i for i, c in enumerate(VOCAB)}
SIZE = len(VOCAB) + 1
TABLE = np.random.default_rng(20260).normal(0.0, 2.0, size=(4096, SIZE))
COPY_BONUS = 3.0


class CharScorer:
    """A fake LogprobScorer; ``calls`` counts :meth:`score` calls, ``scored`` the positions scored."""

    name = "fake:char"

    def __init__(self) -> None:
        self.calls = 0
        self.scored = 0

    def settings(self) -> dict:
        return {"id": "fake:char", "vocab": SIZE}

    def render(self, messages, tools, *, generation_prompt: bool = True) -> str:
        return render_prompt(messages, tools, generation_prompt=generation_prompt)

    def tokenize(self, text: str) -> list[int]:
        return [INDEX.get(c, UNK) for c in text]

    def logprob_rows(self, ids: Sequence[int], start: int) -> list[float]:
        """``log p(ids[i] | ids[:i])`` for i >= start (i >= 1), by the definition above."""
        seen: set[tuple[int, ...]] = {tuple(ids[i - 3 : i + 1]) for i in range(3, start)}
        out = []
        for i in range(start, len(ids)):
            history = tuple(ids[max(0, i - 3) : i])
            logits = TABLE[zlib.crc32(bytes(history)) % TABLE.shape[0]].copy()
            if len(history) == 3:
                for c in range(SIZE):
                    if (*history, c) in seen:
                        logits[c] += COPY_BONUS
                seen.add((*history, ids[i]))
            top = logits.max()
            log_z = top + np.log(np.exp(logits - top).sum())
            out.append(float(logits[ids[i]] - log_z))
        return out

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        self.calls += 1
        context_ids = self.tokenize(context)
        out = []
        for continuation in continuations:
            full = self.tokenize(context + continuation)
            start = max(1, scored_tokens(context_ids, full))
            self.scored += len(full) - start
            out.append(TokenLogprobs(tuple(full[start:]), tuple(self.logprob_rows(full, start))))
        return out
