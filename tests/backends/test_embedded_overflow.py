"""The embedded backend raises ContextOverflow when the prompt does not fit its context, or when
the context runs out before the reply does; a reply cut at ``max_tokens`` stays the model's own
(unreadable) output. A stand-in for llama.cpp (tokenize, create_completion) checks the rule
without the model; the real model checks the first case (marked ``embedded``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from toolprism.backends import _embedded as emb
from toolprism.backends._embedded import EmbeddedBackend
from toolprism.errors import BackendError, ContextOverflow

MESSAGES = [{"role": "system", "content": "You control a smart home."}, {"role": "user", "content": "Lights on."}]


class FakeLlama:
    """Tokenizes one token per character; completes with a scripted finish and usage."""

    def __init__(self, completion_tokens: int, finish: str) -> None:
        self.completion_tokens, self.finish = completion_tokens, finish
        self.calls = 0

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = True) -> list[int]:
        return list(range(len(text)))

    def create_completion(self, prompt: str, **kwargs: object) -> dict:
        self.calls += 1
        usage = {"prompt_tokens": len(prompt.encode()), "completion_tokens": self.completion_tokens}
        return {"choices": [{"text": '{"answer": "ok', "finish_reason": self.finish}], "usage": usage}


def _backend(monkeypatch: pytest.MonkeyPatch, llama: FakeLlama, *, n_ctx: int, max_tokens: int = 64) -> EmbeddedBackend:
    backend = object.__new__(EmbeddedBackend)  # no model file: the fields generate() reads
    backend.n_ctx, backend.max_tokens, backend.seed = n_ctx, max_tokens, 0
    backend.path, backend.n_threads = Path("fake.gguf"), 1
    backend.constrain, backend._grammars = "none", {}  # the agent asks for its grammar (no converter here)
    grammar = SimpleNamespace(from_string=lambda *a, **k: None)
    monkeypatch.setattr(emb, "_import_llama_cpp", lambda: SimpleNamespace(LlamaGrammar=grammar))
    monkeypatch.setattr(EmbeddedBackend, "_loaded", lambda self: emb._Loaded(llama))
    return backend


def test_a_prompt_that_does_not_fit_raises_before_generating(monkeypatch: pytest.MonkeyPatch) -> None:
    llama = FakeLlama(0, "stop")
    backend = _backend(monkeypatch, llama, n_ctx=256)
    with pytest.raises(ContextOverflow, match=r"prompt of 300 tokens exceeds n_ctx 256") as info:
        backend.generate("x" * 300)
    assert isinstance(info.value, BackendError) and llama.calls == 0


def test_a_reply_cut_off_by_the_context_is_an_overflow(monkeypatch: pytest.MonkeyPatch) -> None:
    llama = FakeLlama(56, "length")  # 200 + 56 = n_ctx: llama.cpp lowered max_tokens to what was left
    backend = _backend(monkeypatch, llama, n_ctx=256, max_tokens=64)
    with pytest.raises(ContextOverflow, match=r"prompt of 200 tokens left 56 of n_ctx 256"):
        backend.generate("x" * 200)
    agent = backend.agent(SimpleNamespace(seed=0))
    with pytest.raises(ContextOverflow):  # the agent lets it through to the episode loop
        asyncio.run(agent.respond(MESSAGES, []))


@pytest.mark.parametrize(("completion", "finish"), [(64, "length"), (10, "stop"), (30, "length")])
def test_replies_with_room_left_are_the_models_output(
    monkeypatch: pytest.MonkeyPatch, completion: int, finish: str
) -> None:
    llama = FakeLlama(completion, finish)  # cut at max_tokens, finished, or cut with room left (not the context)
    backend = _backend(monkeypatch, llama, n_ctx=1024, max_tokens=64)
    text, got_finish, prompt_tokens, completion_tokens, error = backend.generate("x" * 100)
    assert (got_finish, prompt_tokens, completion_tokens, error) == (finish, 100, completion, None)
    assert text == '{"answer": "ok'


@pytest.mark.embedded
def test_the_real_model_raises_on_a_prompt_longer_than_its_context() -> None:
    backend = EmbeddedBackend("smollm2")
    long = [MESSAGES[0], {"role": "user", "content": "turn on the light " * 3000}]
    with pytest.raises(ContextOverflow, match=r"prompt of \d+ tokens exceeds n_ctx 8192"):
        asyncio.run(backend.agent(SimpleNamespace(seed=0)).respond(long, []))
