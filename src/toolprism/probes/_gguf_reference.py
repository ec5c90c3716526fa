"""A second implementation of the embedded model's scores: transformers reading the same GGUF file.

:class:`GGUFReferenceScorer` renders and tokenises exactly as :class:`~toolprism.probes._llama.LlamaScorer`
(the same prompt text, the same token ids, taken from llama.cpp's tokenizer) and computes the
log-probabilities with transformers' implementation of the architecture on the GGUF weights,
dequantised to float32 (``from_pretrained(dir, gguf_file=...)``; needs ``gguf`` and
``accelerate``, extra ``toolprism[hf]``). The two differ by llama.cpp's arithmetic (it
quantises activations to 8 bits for quantised matrix products, keeps the KV cache in float16),
so they agree to a tolerance, measured in ``benchmarks/probe_gguf_check.py`` and checked in
``tests/probes/test_llama_gguf.py``. It is a check, not a scorer to run studies with: it keeps no
cache between calls.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from toolprism.backends import Message
from toolprism.errors import ConfigError
from toolprism.probes._llama import LlamaScorer
from toolprism.probes._scorer import TokenLogprobs, scored_tokens
from toolprism.schema import JSON


class GGUFReferenceScorer:
    """Transformers on the GGUF file of ``llama`` (a :class:`~toolprism.probes.LogprobScorer`).

    Raises:
        ConfigError: transformers, torch, gguf or accelerate is not installed.
    """

    def __init__(self, llama: LlamaScorer) -> None:
        try:
            import accelerate  # noqa: F401 - transformers needs it to read GGUF files
            import gguf  # noqa: F401
            import torch
            from transformers import AutoModelForCausalLM
        except ImportError as exc:
            raise ConfigError(
                f"the GGUF reference needs transformers, torch, gguf and accelerate ({exc}): "
                "pip install 'toolprism[hf]'",
                what="gguf reference",
            ) from None
        self.llama = llama
        self.name = f"transformers-gguf:{llama.backend.spec.id}"
        path = llama.backend.path
        self._torch = torch
        self._model: Any = AutoModelForCausalLM.from_pretrained(
            str(path.parent), gguf_file=path.name, dtype=torch.float32
        ).eval()
        forward = inspect.signature(self._model.forward).parameters
        self._cache_arg = "cache" if "cache" in forward else "past_key_values"  # renamed in transformers 5.x

    def settings(self) -> dict[str, JSON]:
        """The llama scorer's settings, with this implementation named."""
        return {**self.llama.settings(), "scorer": "transformers (GGUF dequantised to float32)"}

    def render(self, messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
        """The embedded backend's prompt (as :meth:`LlamaScorer.render`)."""
        return self.llama.render(messages, tools, generation_prompt=generation_prompt)

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        """Log-probabilities (nats) of each continuation after ``context``, on llama.cpp's token
        ids: the context is run once and its cache cropped back to it for each continuation."""
        torch = self._torch
        context_ids = self.llama.tokenize(context)
        fulls = [self.llama.tokenize(context + c) for c in continuations]
        firsts = [scored_tokens(context_ids, full) for full in fulls]
        shared = max(0, min(firsts, default=1) - 1)
        out = []
        with torch.no_grad():
            cache = None
            if shared:
                output = self._model(torch.tensor([context_ids[:shared]]), use_cache=True)
                cache = getattr(output, "cache", None) or output.past_key_values
            for full, first in zip(fulls, firsts, strict=True):
                if first >= len(full):
                    out.append(TokenLogprobs((), ()))
                    continue
                if cache is not None and cache.get_seq_length() > shared:
                    cache.crop(shared - cache.get_seq_length())  # a negative count: tokens to remove
                logits = self._model(
                    torch.tensor([full[shared:-1]]), **{self._cache_arg: cache}, use_cache=cache is not None
                ).logits[0, first - 1 - shared :]
                out.append(_pick(torch, logits, full[first:]))
        return out

    def score_ids(self, context_ids: Sequence[int], full_ids: Sequence[int]) -> TokenLogprobs:
        """One forward pass over ``full_ids``; the scored tokens as :func:`toolprism.probes.scored_tokens`."""
        torch = self._torch
        first = scored_tokens(context_ids, full_ids)
        if first >= len(full_ids):
            return TokenLogprobs((), ())
        with torch.no_grad():
            logits = self._model(torch.tensor([list(full_ids[:-1])])).logits[0, first - 1 :]
        return _pick(torch, logits, full_ids[first:])


def _pick(torch: Any, logits: Any, targets: Sequence[int]) -> TokenLogprobs:
    """Log-softmax (float64) of each row, read at its target token."""
    logprobs = torch.log_softmax(logits.double(), dim=-1)
    index = torch.tensor(list(targets), dtype=torch.long)
    values = logprobs[torch.arange(len(index)), index].numpy()
    return TokenLogprobs(tuple(int(t) for t in targets), tuple(float(v) for v in values))


__all__ = ["GGUFReferenceScorer"]
