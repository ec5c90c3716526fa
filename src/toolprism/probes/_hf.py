"""``HFScorer``: teacher-forced scoring on a local transformers model (``hf:<directory>``).

The text is the backend's own rendering (:meth:`HFBackend.render`: the model's chat template
with the tools, exactly the prompt ``generate`` tokenises; the backend's ``tool_format`` is only
a parser style, so there is no prompt-based tool format to add), tokenised the same way
(:meth:`HFBackend.token_ids`). Scored tokens follow ``toolprism.probes.scored_tokens``.

One forward pass per continuation, float32 log-softmax over the logits of the positions that
predict scored tokens only (``logits_to_keep``, so a 3,500-token prefix never allocates
3,500 x vocabulary logits).

Prefix reuse (issue item 6): the scorer keeps, for the last two sequences it evaluated, the
``past_key_values``, the token ids and the log-probabilities it computed on them. A new sequence
takes the kept one sharing the longest prefix: log-probabilities of positions inside that prefix
are read back (the same tokens after the same tokens), its cache is cropped to just before the
first position still to compute, and only the rest is evaluated. So the continuations of one
context evaluate the context once (and the 17 of an action distribution share the call opener's
tokens), and four fault arms that share a 3,500-token prefix evaluate it once. A cache that cannot be cropped
(sliding-window or recurrent layers past their window) is dropped and the sequence evaluated from
the start: the numbers are the same either way (float32 on CPU: within 1e-5 nats, tested), only
the cost differs.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolprism.backends import Message
from toolprism.errors import BackendError
from toolprism.probes._scorer import ProbeError, TokenLogprobs, common_prefix, scored_tokens
from toolprism.schema import JSON

if TYPE_CHECKING:
    from toolprism.backends import HFBackend


@dataclass
class ScoringStats:
    """What the scorer evaluated since it was built (or since :meth:`HFScorer.reset`).

    Attributes:
        sequences: context + continuation sequences scored.
        evaluated_tokens: tokens run through the model (positions computed).
        reused_tokens: tokens served from the kept cache instead.
    """

    sequences: int = 0
    evaluated_tokens: int = 0
    reused_tokens: int = 0


@dataclass
class _Slot:
    """A kept cache: the sequence it was computed for (the cache holds all but its last token)
    and the log-probabilities computed on it, position -> ``log p(tokens[p] | tokens[:p])``."""

    cache: Any
    tokens: list[int]
    known: dict[int, float]


class HFScorer:
    """:class:`~toolprism.probes.LogprobScorer` on an :class:`~toolprism.backends.HFBackend`.

    Args:
        backend: the loaded model, its tokenizer and chat template (shared with generation,
            under the backend's lock: generation works unchanged after scoring).
        reuse: keep and crop ``past_key_values`` between sequences (module docstring); False
            evaluates every sequence from its first token (the reference for tests and benchmarks).
        slots: how many sequences' caches are kept (least recently used dropped first). Two
            serve the surprisal channels, which alternate an S0 context (schema and call only)
            with an S1 context (the whole prefix): each reuses its own across arms. Memory: one
            cache per slot, ``2 x layers x kv_heads x head_dim x tokens`` values (SmolLM2-135M,
            3,500 tokens, float32: 161 MB).

    Attributes:
        name: ``hf:<resolved directory>``, as runs record the model.
        stats: :class:`ScoringStats` (tokens evaluated and reused).

    Raises:
        ProbeError: ``slots`` below 1.
    """

    def __init__(self, backend: HFBackend, *, reuse: bool = True, slots: int = 2) -> None:
        if slots < 1:
            raise ProbeError(f"slots must be at least 1, got {slots}")
        self.backend = backend
        self.reuse = reuse
        self.slots = slots
        self.name = f"hf:{backend.path.resolve()}"
        self.stats = ScoringStats()
        self._kept: list[_Slot] = []  # most recently used last
        self._keep_arg, self._cache_arg = _forward_args(backend.model)

    def settings(self) -> dict[str, JSON]:
        """The backend's model identity (directory, hashes of config, tokenizer and weights,
        device, dtype, position limit) and how scores are computed; decoding options dropped."""
        settings = {
            k: v
            for k, v in self.backend.settings().items()
            if k not in ("max_new_tokens", "temperature", "decoding", "tool_format")
        }
        return {**settings, "scorer": "hf", "logprob_dtype": "float32", "prefix_reuse": self.reuse}

    def render(self, messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
        """The backend's prompt text (:meth:`HFBackend.render`).

        Raises:
            ProbeError: the chat template fails on these messages.
        """
        try:
            return self.backend.render(messages, tools, generation_prompt=generation_prompt)
        except BackendError as exc:
            raise ProbeError(str(exc)) from None

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as :meth:`score` tokenises it (``LogprobScorer.tokenize``)."""
        return list(self.backend.token_ids(text))

    def reset(self) -> None:
        """Drop the kept caches and zero :attr:`stats`."""
        self._kept = []
        self.stats = ScoringStats()

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        """Log-probabilities (nats) of each continuation after ``context`` (``LogprobScorer.score``).

        Deterministic: the same model, context and continuations give the same numbers (up to
        float rounding of the cached vs uncached attention, below 1e-5 nats in float32).

        Raises:
            ProbeError: the context is empty (nothing conditions the first token), context plus a
                continuation exceed the model's positions, or the forward pass fails.
        """
        context_ids = self.backend.token_ids(context)
        if not context_ids:
            raise ProbeError("the context is empty: the first token has nothing to condition on")
        out = []
        for continuation in continuations:
            full = self.backend.token_ids(context + continuation)
            start = scored_tokens(context_ids, full)
            if start == len(full):
                out.append(TokenLogprobs((), ()))
                continue
            limit = self.backend.max_positions
            if limit is not None and len(full) > limit:
                raise ProbeError(
                    f"context and continuation ({len(full)} tokens) do not fit the model's {limit} positions"
                )
            out.append(self._score_ids(full, start))
        return out

    def _score_ids(self, ids: list[int], start: int) -> TokenLogprobs:
        """Log-probabilities of ``ids[start:]`` given ``ids[:start]`` (``start >= 1``).

        From the kept sequence sharing the longest prefix with ``ids``: the log-probabilities it
        already has for positions inside the shared prefix (the same tokens after the same
        tokens: the same numbers), and its cache cropped to just before the first position still
        to compute; the model then evaluates the rest of ``ids[:-1]``, keeping the logits of the
        positions that predict a wanted token only."""
        import torch

        backend = self.backend
        model = backend.model
        n = len(ids)
        with backend.lock, torch.inference_mode():
            best, shared = self._closest(ids)
            known = {p: v for p, v in self._kept[best].known.items() if p < shared} if best is not None else {}
            first = start  # the first position whose log-probability is not known yet
            while first < n and first in known:
                first += 1
            cache, keep = self._take(best, min(first - 1, shared)) if first < n else (None, n - 1)
            fed = ids[keep:-1]
            self.stats.sequences += 1
            self.stats.evaluated_tokens += len(fed)
            self.stats.reused_tokens += n - 1 - len(fed)
            if first < n:
                kwargs: dict[str, Any] = {self._cache_arg: cache, "use_cache": True}
                if self._keep_arg:
                    kwargs[self._keep_arg] = n - first
                try:
                    output = model(input_ids=torch.tensor([fed], device=model.device), **kwargs)
                except Exception as exc:  # noqa: BLE001 - torch/transformers raise many kinds
                    raise ProbeError(f"forward pass failed on {backend.path}: {exc}") from None
                logits = output.logits[0, -(n - first) :].float()
                target = torch.tensor(ids[first:], device=logits.device)
                values = torch.log_softmax(logits, dim=-1).gather(1, target[:, None])[:, 0].tolist()
                known.update(zip(range(first, n), (float(v) for v in values), strict=True))
                kept = getattr(output, self._cache_arg, None)
                if self.reuse and kept is not None:  # a model returning no cache object is scored without reuse
                    others = self._kept[len(self._kept) - (self.slots - 1) :] if self.slots > 1 else []
                    self._kept = [*others, _Slot(kept, ids, known)]
        return TokenLogprobs(tuple(ids[start:]), tuple(known[p] for p in range(start, n)))

    def _closest(self, ids: list[int]) -> tuple[int | None, int]:
        """``(index, n)``: the kept sequence sharing the longest prefix with ``ids``, and its length
        (``(None, 0)`` with none kept)."""
        if not self.reuse or not self._kept:
            return None, 0
        shared = [common_prefix(slot.tokens, ids) for slot in self._kept]
        best = max(range(len(shared)), key=shared.__getitem__)
        return best, shared[best]

    def _take(self, best: int | None, keep: int) -> tuple[Any, int]:
        """``(cache, keep)``: kept sequence ``best``'s cache taken out of the pool and cropped to its
        first ``keep`` tokens (at most all it holds); ``(None, 0)`` when there is none, when ``keep`` is under half of
        what it holds (it stays for a sequence that shares more), or when it refuses to be
        cropped (it is dropped)."""
        if best is None or keep <= 0:
            return None, 0
        held = len(self._kept[best].tokens) - 1
        keep = min(keep, held)
        if keep * 2 < held:
            return None, 0
        cache = self._kept.pop(best).cache
        try:
            if held > keep:
                # a negative argument removes that many tokens in transformers 4.x and 5.x alike
                cache.crop(keep - held)
            ok = cache.get_seq_length() == keep
        except Exception:  # noqa: BLE001 - sliding-window and recurrent caches refuse (RuntimeError, ValueError)
            ok = False
        return (cache, keep) if ok else (None, 0)


def _forward_args(model: Any) -> tuple[str | None, str]:
    """``(logits_to_keep, cache)``: the forward arguments that limit the logits to the last
    positions (``logits_to_keep`` since transformers 4.50, ``num_logits_to_keep`` before, None when
    the model has neither) and that pass the kept cache (``cache`` since transformers 5.2x,
    ``past_key_values`` before; the output field has the same name)."""
    parameters = inspect.signature(model.forward).parameters
    keep = next((n for n in ("logits_to_keep", "num_logits_to_keep") if n in parameters), None)
    return keep, "cache" if "cache" in parameters else "past_key_values"


__all__ = ["HFScorer", "ScoringStats"]
