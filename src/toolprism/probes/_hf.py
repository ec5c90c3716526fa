"""``HFScorer``: teacher-forced scoring on a local transformers model (``hf:<directory>``).

The text is the backend's own rendering (:meth:`HFBackend.render`: the model's chat template
with the tools, exactly the prompt ``generate`` tokenises; the backend's ``tool_format`` is only
a parser style, so there is no prompt-based tool format to add), tokenised the same way
(:meth:`HFBackend.token_ids`). Scored tokens follow ``toolprism.probes.scored_tokens``.

One forward pass per continuation, float32 log-softmax over the logits of the positions that
predict scored tokens only (``logits_to_keep``, so a 3,500-token prefix never allocates
3,500 x vocabulary logits).

Prefix reuse (issue item 6): the scorer keeps the ``past_key_values`` of the last sequence it
evaluated and the token ids they hold. A new sequence crops that cache to the longest common
prefix (at most up to the token before the first scored one, whose logits are needed) and
evaluates only the rest. So the continuations of one context evaluate the context once, and four
fault arms that share a 3,500-token prefix evaluate it once. A cache that cannot be cropped
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
from toolprism.probes._scorer import ProbeError, TokenLogprobs, scored_tokens
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


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class HFScorer:
    """:class:`~toolprism.probes.LogprobScorer` on an :class:`~toolprism.backends.HFBackend`.

    Args:
        backend: the loaded model, its tokenizer and chat template (shared with generation,
            under the backend's lock: generation works unchanged after scoring).
        reuse: keep and crop ``past_key_values`` between sequences (module docstring); False
            evaluates every sequence from its first token (the reference for tests and benchmarks).

    Attributes:
        name: ``hf:<resolved directory>``, as runs record the model.
        stats: :class:`ScoringStats` (tokens evaluated and reused).
    """

    def __init__(self, backend: HFBackend, *, reuse: bool = True) -> None:
        self.backend = backend
        self.reuse = reuse
        self.name = f"hf:{backend.path.resolve()}"
        self.stats = ScoringStats()
        self._cache: Any = None
        self._cached_ids: list[int] = []
        self._keep_arg = _logits_to_keep_arg(backend.model)

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

    def reset(self) -> None:
        """Drop the kept cache and zero :attr:`stats`."""
        self._cache, self._cached_ids = None, []
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
        """Log-probabilities of ``ids[start:]`` given ``ids[:start]`` (``start >= 1``): evaluates
        ``ids[:-1]`` from the kept cache's common prefix on, keeping the logits of the positions
        ``start - 1 ... len(ids) - 2`` only."""
        import torch

        backend = self.backend
        model = backend.model
        with backend.lock, torch.inference_mode():
            keep = self._crop(min(_common_prefix(self._cached_ids, ids), start - 1))
            fed = ids[keep:-1]
            n_scored = len(ids) - start
            kwargs: dict[str, Any] = {self._keep_arg: n_scored} if self._keep_arg else {}
            input_ids = torch.tensor([fed], device=model.device)
            try:
                output = model(input_ids=input_ids, past_key_values=self._cache, use_cache=True, **kwargs)
            except Exception as exc:  # noqa: BLE001 - torch/transformers raise many kinds
                self._cache, self._cached_ids = None, []
                raise ProbeError(f"forward pass failed on {backend.path}: {exc}") from None
            self.stats.sequences += 1
            self.stats.evaluated_tokens += len(fed)
            self.stats.reused_tokens += keep
            if self.reuse:
                self._cache, self._cached_ids = output.past_key_values, ids[:-1]
            logits = output.logits[0, -n_scored:].float()
            target = torch.tensor(ids[start:], device=logits.device)
            values = torch.log_softmax(logits, dim=-1).gather(1, target[:, None])[:, 0]
        return TokenLogprobs(tuple(ids[start:]), tuple(float(v) for v in values.tolist()))

    def _crop(self, keep: int) -> int:
        """Crop the kept cache to its first ``keep`` tokens; the number of tokens it then holds
        (0 with no cache, without reuse, or when the cache refuses to be cropped)."""
        if self._cache is None or keep <= 0 or not self.reuse:
            self._cache, self._cached_ids = None, []
            return 0
        remove = len(self._cached_ids) - keep
        try:
            if remove > 0:
                # a negative argument removes that many tokens in transformers 4.x and 5.x alike
                self._cache.crop(-remove)
            held = self._cache.get_seq_length()
        except Exception:  # noqa: BLE001 - sliding-window and recurrent caches refuse (RuntimeError, ValueError)
            held = -1
        if held != keep:
            self._cache, self._cached_ids = None, []
            return 0
        self._cached_ids = self._cached_ids[:keep]
        return keep


def _logits_to_keep_arg(model: Any) -> str | None:
    """The forward argument that limits logits to the last positions (``logits_to_keep`` in
    transformers >= 4.50, ``num_logits_to_keep`` before), or None when the model has neither."""
    parameters = inspect.signature(model.forward).parameters
    for name in ("logits_to_keep", "num_logits_to_keep"):
        if name in parameters:
            return name
    return None


__all__ = ["HFScorer", "ScoringStats"]
