"""A tiny deterministic language model behind :class:`~toolprism.testing.MockOpenAIServer`'s
vLLM-style scoring endpoints, so tests can recompute every log-probability the server returns.

- Tokenizer: special tokens (matched anywhere in the text, as a Hugging Face tokenizer matches
  its added tokens), then greedy longest match over a few multi-character merges (so a boundary
  can merge: ``{`` + ``"name": "`` tokenises differently from ``{"name": "``), else the UTF-8 bytes
  of one character. Token ids: bytes 0-255, then :data:`SPECIALS`, then :data:`MERGES`.
  ``detokenize(tokenize(text)) == text`` for every string.
- Chat template: ChatML with the tools in a system turn and calls written Hermes-style
  (``<tool_call>\\n{"name": "<name>", "arguments": <arguments>}\\n</tool_call>``).
- Model: the logits after a prefix are ``scale`` times standard normals drawn from
  ``numpy.random.default_rng`` seeded by a SHA-256 rolling hash of the seed and every token of the
  prefix, so every position depends on the whole prefix and the numbers are the same on every
  machine.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

SPECIALS = ("<|bos|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>")
"""Special tokens, ids 256 onwards."""
MERGES = (
    '{"name": "',
    '", "arguments": ',
    '{"',
    '"}',
    '":',
    '", "',
    "\n",
    "assistant",
    "system",
    "user",
    "tool",
    "order",
    "get_",
    "the ",
)
"""Multi-character tokens after the specials (greedy longest match)."""
BOS = SPECIALS[0]


class TinyLM:
    """The mock's model: tokenizer, chat template and next-token distributions.

    Args:
        seed: seeds every next-token distribution.
        scale: standard deviation of the logits (larger: peakier distributions).
        max_model_len: the context window in tokens (prompt plus generated tokens).
    """

    def __init__(self, *, seed: int = 0, scale: float = 3.0, max_model_len: int = 65536) -> None:
        self.seed = seed
        self.scale = scale
        self.max_model_len = max_model_len
        self.vocab: tuple[str | bytes, ...] = (*(bytes([b]) for b in range(256)), *SPECIALS, *MERGES)
        self._special_ids = {s: 256 + i for i, s in enumerate(SPECIALS)}
        self._merge_ids = {m: 256 + len(SPECIALS) + i for i, m in enumerate(MERGES)}
        self._merges_by_length = sorted(MERGES, key=len, reverse=True)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def tokenize(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """Token ids of ``text``; ``add_special_tokens`` prepends the BOS token."""
        ids = [self._special_ids[BOS]] if add_special_tokens else []
        i = 0
        while i < len(text):
            special = next((s for s in SPECIALS if text.startswith(s, i)), None)
            if special is not None:
                ids.append(self._special_ids[special])
                i += len(special)
                continue
            merge = next((m for m in self._merges_by_length if text.startswith(m, i)), None)
            if merge is not None:
                ids.append(self._merge_ids[merge])
                i += len(merge)
                continue
            ids.extend(text[i].encode("utf-8", "surrogatepass"))
            i += 1
        return ids

    def detokenize(self, ids: Sequence[int]) -> str:
        """The text of ``ids`` (consecutive byte tokens decoded together as UTF-8)."""
        out: list[str] = []
        pending = bytearray()
        for i in ids:
            piece = self.vocab[i]
            if isinstance(piece, bytes):
                pending += piece
                continue
            out.append(pending.decode("utf-8", "replace"))
            pending.clear()
            out.append(piece)
        out.append(pending.decode("utf-8", "replace"))
        return "".join(out)

    def token_str(self, i: int) -> str:
        """One token's text (a byte token that is not ASCII shows as its UTF-8 replacement)."""
        piece = self.vocab[i]
        return piece.decode("utf-8", "replace") if isinstance(piece, bytes) else piece

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any], *, add_generation_prompt: bool) -> str:
        """The chat template (module docstring)."""
        parts = [BOS]
        if tools:
            listed = "\n".join(json.dumps(t, sort_keys=True) for t in tools)
            parts.append(f"<|im_start|>system\n# Tools\n{listed}<|im_end|>\n")
        for message in messages:
            content = message.get("content")
            text = content if isinstance(content, str) else "" if content is None else json.dumps(content)
            for call in message.get("tool_calls") or []:
                fn = call.get("function") or {}
                arguments = fn.get("arguments")
                arguments = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
                text += f'<tool_call>\n{{"name": "{fn.get("name", "")}", "arguments": {arguments}}}\n</tool_call>'
            parts.append(f"<|im_start|>{message.get('role', 'user')}\n{text}<|im_end|>\n")
        if add_generation_prompt:
            parts.append("<|im_start|>assistant\n")
        return "".join(parts)

    def logits(self, ids: Sequence[int]) -> np.ndarray:
        """The logits after each prefix ``ids[:i + 1]``: shape ``(len(ids), vocab_size)``, float64."""
        state = hashlib.sha256(f"tinylm|{self.seed}".encode()).digest()
        rows = np.empty((len(ids), self.vocab_size))
        for i, token in enumerate(ids):
            state = hashlib.sha256(state + int(token).to_bytes(4, "little")).digest()
            rows[i] = self.scale * np.random.default_rng(int.from_bytes(state[:8], "little")).standard_normal(
                self.vocab_size
            )
        return rows

    def logprobs(self, ids: Sequence[int]) -> np.ndarray:
        """Log-softmax of :meth:`logits` (nats), same shape."""
        rows = self.logits(ids)
        top = rows.max(axis=1, keepdims=True)
        return rows - top - np.log(np.exp(rows - top).sum(axis=1, keepdims=True))
