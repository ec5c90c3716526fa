"""``LlamaScorer``: teacher-forced scoring on the embedded GGUF model through llama.cpp.

The prompt is :func:`toolprism.backends._embedded.render_prompt`, the text the embedded backend
generates from, tokenised as generation tokenises it (no BOS added, special tokens parsed).
Scoring runs on a llama.cpp context of its own (same file, ``n_ctx``, batch size and threads as
the backend's ``Llama``; generation's shared instance and its cache are never touched) through the
low-level batch API: a batch asks for logits only at the positions that predict a scored token,
so no ``n_ctx x vocab`` array is allocated; the log-softmax is computed in float64 with scipy.

Prefix reuse: the scorer keeps up to :data:`SLOTS` token sequences, each in a KV-cache stream of
its own (llama.cpp sequence ids with ``kv_unified`` off, ``n_ctx`` cells per stream). Each
continuation is evaluated in the sequence with the longest common prefix, keeping that prefix and
decoding only the rest, so the context of one call is evaluated once for all its continuations
and consecutive calls that share a prefix (the four fault arms of a decision point, S1 after S0
after S1) evaluate it once.

Reuse does not change a number: llama.cpp computes each position's keys, values and logits row
by row, so splitting a sequence into batches of different sizes gives bit-identical results,
except for batches of exactly one token, which take a matrix-vector kernel path whose
log-probabilities differ by up to ~0.07 nats on SmolLM2 Q4_1. The scorer never decodes a
one-token batch (it re-decodes one more cached token instead). Where a sequence's tokens sit in
the cache does change numbers: in one cache shared by all sequences (``kv_unified``), a sequence
decoded after another one's cells scored up to 0.33 nats apart from the same sequence decoded
first, so each sequence has a stream of its own, where its token at position p is always in
cell p. A score therefore does not depend on what was scored before it and equals a
from-scratch evaluation (tests/probes/test_llama.py).
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from toolprism.backends import EmbeddedBackend, Message, render_prompt
from toolprism.errors import BackendError
from toolprism.probes._scorer import ProbeError, TokenLogprobs, common_prefix, scored_tokens
from toolprism.schema import JSON

N_BATCH = 512
"""Tokens per llama.cpp batch (``Llama``'s default ``n_batch``)."""


def _llama_cpp() -> Any:
    """llama-cpp-python (importable: the :class:`EmbeddedBackend` given to the scorer checked it)."""
    import llama_cpp

    return llama_cpp


def chunk_bounds(start: int, stop: int, size: int) -> list[tuple[int, int]]:
    """Split ``[start, stop)`` into batches of at most ``size`` tokens, none of exactly one token
    unless the whole range is one token (module docstring: one-token batches compute differently)."""
    bounds = []
    at = start
    while at < stop:
        end = min(at + size, stop)
        if stop - end == 1 and end - at > 2:  # leave two tokens for the last batch, not one
            end -= 1
        bounds.append((at, end))
        at = end
    return bounds


def log_softmax_at(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``log softmax(logits[i])[targets[i]]`` per row, in float64 (nats).

    Args:
        logits: float32 array of shape ``(n, vocab)``.
        targets: int array of shape ``(n,)``, a token id per row.

    Returns:
        float64 array of shape ``(n,)``. Computed in place on one float64 copy (max-shifted
        exponentials summed per row): the same numbers as ``scipy.special.logsumexp`` to about
        1e-15 nats, some 30 times faster on vocabulary-wide rows.
    """
    rows = logits.astype(np.float64)
    picked = rows[np.arange(len(targets)), targets]
    top = rows.max(axis=1)
    rows -= top[:, None]
    np.exp(rows, out=rows)
    return picked - top - np.log(rows.sum(axis=1))


SLOTS = 4
"""Cached sequences kept side by side (llama.cpp sequence ids, a KV-cache stream each)."""

FORK_MIN = 64
"""A request that would cut more than this many cached tokens off its best sequence copies the
shared prefix into another slot instead (a copy of the stream's cells, no compute), so alternating
contexts (S0's short schema-only prompt, S1's long prefix) each keep their cache."""


_OPEN: weakref.WeakSet[LlamaScorer] = weakref.WeakSet()


@atexit.register
def _close_open() -> None:
    """Free open scorers before interpreter teardown (llama.cpp's finalizers fail after it)."""
    for scorer in list(_OPEN):
        scorer.close()


@dataclass
class _Slot:
    tokens: list[int] = field(default_factory=list)
    used: int = 0


class LlamaScorer:
    """Teacher-forced scoring on the embedded model (:class:`~toolprism.probes.LogprobScorer`).

    Args:
        backend: the embedded backend whose model file, ``n_ctx`` and thread count are used.

    Attributes:
        decoded: tokens decoded so far (a cost counter; prefix reuse keeps it low).

    Thread-safe: calls are serialised by a lock of the scorer's own.

    Raises:
        ConfigError: llama-cpp-python or the model is missing (from the backend).
    """

    def __init__(self, backend: EmbeddedBackend) -> None:
        self.backend = backend
        self.name = f"embedded:{backend.spec.id}"
        self.decoded = 0
        self._lock = threading.Lock()
        self._model: Any = None
        self._ctx: Any = None
        self._batch: Any = None
        self._slots = [_Slot() for _ in range(SLOTS)]
        self._clock = 0

    # --- protocol ----------------------------------------------------------------------------

    def settings(self) -> dict[str, JSON]:
        """The backend's settings (model id, file, SHA-256, ``n_ctx``, prompt format) and how
        scores are computed."""
        return {
            **self.backend.settings(),
            "scorer": "llama.cpp",
            "logprobs": "float32 logits, float64 log-softmax",
            "kv_cache": f"{SLOTS} streams",
            "n_batch": N_BATCH,
        }

    def render(self, messages: Sequence[Message], tools: Sequence[JSON], *, generation_prompt: bool = True) -> str:
        """:func:`toolprism.backends._embedded.render_prompt`, the embedded backend's prompt."""
        return render_prompt(messages, tools, generation_prompt=generation_prompt)

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as generation tokenises a prompt: no BOS added (as
        llama-cpp-python's completions do), special tokens such as ``<|im_start|>`` parsed."""
        with self._lock:
            return self._tokenize(text)

    def score(self, context: str, continuations: Sequence[str]) -> list[TokenLogprobs]:
        """Log-probabilities (nats) of each continuation after ``context``
        (:meth:`toolprism.probes.LogprobScorer.score`).

        Raises:
            ProbeError: context plus a continuation exceed ``n_ctx`` tokens.
            BackendError: llama.cpp failed to decode.
        """
        with self._lock:
            context_ids = self._tokenize(context)
            return [self._score_ids(context_ids, self._tokenize(context + c)) for c in continuations]

    def score_ids(self, context_ids: Sequence[int], full_ids: Sequence[int]) -> TokenLogprobs:
        """Score the tokens of ``full_ids`` after its common prefix with ``context_ids`` (the token
        rule of :func:`toolprism.probes.scored_tokens`), on token ids directly."""
        with self._lock:
            return self._score_ids(list(context_ids), list(full_ids))

    def close(self) -> None:
        """Free the scorer's model, context and cache (they are rebuilt on next use)."""
        with self._lock:
            if self._model is not None:
                from llama_cpp._utils import suppress_stdout_stderr

                _llama_cpp().llama_batch_free(self._batch)
                with suppress_stdout_stderr(disable=False):  # llama.cpp logs the freed buffers
                    self._ctx.close()
                    self._model.close()
                self._model = self._ctx = self._batch = None
            self._slots = [_Slot() for _ in range(SLOTS)]

    # --- internals ----------------------------------------------------------------------------

    def _load(self) -> None:
        """The model and a context like ``Llama``'s (same ``n_ctx``, batch, threads, no flash
        attention) with :data:`SLOTS` sequences, each in a KV-cache stream of ``n_ctx`` cells."""
        if self._model is not None:
            return
        llama_cpp = _llama_cpp()
        from llama_cpp import _internals
        from llama_cpp._utils import suppress_stdout_stderr

        b = self.backend
        model_params = llama_cpp.llama_model_default_params()
        model_params.n_gpu_layers = 0
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = b.n_ctx * SLOTS  # split into SLOTS streams of n_ctx cells each
        params.n_batch = params.n_ubatch = N_BATCH
        params.n_threads = params.n_threads_batch = b.n_threads
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.n_seq_max = SLOTS
        params.kv_unified = False
        try:
            with suppress_stdout_stderr(disable=False):
                model = _internals.LlamaModel(path_model=str(b.path), params=model_params, verbose=False)
                ctx = _internals.LlamaContext(model=model, params=params, verbose=False)
        except Exception as exc:  # noqa: BLE001 - llama.cpp raises bare ValueError/RuntimeError
            raise BackendError(f"could not load {b.path}: {exc}") from exc
        self._model, self._ctx = model, ctx
        self._batch = llama_cpp.llama_batch_init(N_BATCH, 0, 1)
        _OPEN.add(self)

    def _tokenize(self, text: str) -> list[int]:
        self._load()
        return list(self._model.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _score_ids(self, context_ids: list[int], full_ids: list[int]) -> TokenLogprobs:
        self._load()
        n_ctx = self.backend.n_ctx
        if len(full_ids) > n_ctx:
            raise ProbeError(
                f"the prompt and continuation are {len(full_ids)} tokens, more than the embedded model's "
                f"context window (n_ctx {n_ctx})"
            )
        first = scored_tokens(context_ids, full_ids)
        if first >= len(full_ids):
            return TokenLogprobs((), ())
        if first == 0:
            raise ProbeError("nothing precedes the continuation: an empty context cannot condition it")
        needed = full_ids[:-1]  # the last token is only predicted, never evaluated
        seq, keep = self._place(needed, first)
        logits = self._decode(seq, needed, keep, want_from=first - 1)
        targets = np.asarray(full_ids[first:], dtype=np.int64)
        logprobs = log_softmax_at(logits, targets)
        return TokenLogprobs(tuple(int(t) for t in targets), tuple(float(x) for x in logprobs))

    def _place(self, needed: list[int], first: int) -> tuple[int, int]:
        """``(sequence id, cached tokens kept)`` for evaluating ``needed``: the slot with the
        longest common prefix, or a copy of its prefix in the least recently used other slot
        when using it would cut more than :data:`FORK_MIN` cached tokens."""
        self._clock += 1
        prefixes = [common_prefix(slot.tokens, needed) for slot in self._slots]
        best = max(range(SLOTS), key=lambda i: (prefixes[i], self._slots[i].used))
        keep = min(prefixes[best], first - 1)  # the position predicting the first scored token is decoded
        if len(needed) - keep == 1 and keep > 0:  # never a one-token batch (module docstring)
            keep -= 1
        seq = best
        if len(self._slots[best].tokens) - keep > FORK_MIN:
            seq = min((i for i in range(SLOTS) if i != best), key=lambda i: self._slots[i].used)
            self._drop(seq, 0)
            if keep:  # across streams llama.cpp copies a whole sequence; the tail is cut below
                _llama_cpp().llama_memory_seq_cp(self._memory(), best, seq, -1, -1)
                self._slots[seq].tokens = list(self._slots[best].tokens)
        self._drop(seq, keep)
        self._slots[seq].used = self._clock
        return seq, keep

    def _memory(self) -> Any:
        return _llama_cpp().llama_get_memory(self._ctx.ctx)

    def _drop(self, seq: int, keep: int) -> None:
        """Remove sequence ``seq``'s cache from position ``keep`` on."""
        _llama_cpp().llama_memory_seq_rm(self._memory(), seq, keep, -1)
        del self._slots[seq].tokens[keep:]

    def _decode(self, seq: int, tokens: list[int], keep: int, *, want_from: int) -> np.ndarray:
        """Decode ``tokens[keep:]`` into sequence ``seq`` (whose first ``keep`` positions are
        cached) and return the logits (float32, one row per position from ``want_from`` on)."""
        llama_cpp = _llama_cpp()
        n_vocab = self._model.n_vocab()
        rows = np.empty((len(tokens) - want_from, n_vocab), dtype=np.float32)
        batch = self._batch
        for start, stop in chunk_bounds(keep, len(tokens), N_BATCH):
            batch.n_tokens = stop - start
            for i, pos in enumerate(range(start, stop)):
                batch.token[i] = tokens[pos]
                batch.pos[i] = pos
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = seq
                batch.logits[i] = pos >= want_from
            status = llama_cpp.llama_decode(self._ctx.ctx, batch)
            if status != 0:
                self._drop(seq, 0)
                raise BackendError(f"llama.cpp could not decode a batch of {stop - start} tokens (status {status})")
            self.decoded += stop - start
            self._slots[seq].tokens.extend(tokens[start:stop])
            for pos in range(max(start, want_from), stop):
                row = llama_cpp.llama_get_logits_ith(self._ctx.ctx, pos - start)
                rows[pos - want_from] = np.ctypeslib.as_array(row, shape=(n_vocab,))
        return rows


__all__ = ["LlamaScorer", "chunk_bounds", "log_softmax_at"]
