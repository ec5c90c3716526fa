"""A cancelled embedded generation stops at its next token (Ctrl-C, SIGTERM or a budget no longer
waits for a whole generation), and leaves the shared model usable and deterministic."""

from __future__ import annotations

import asyncio
import threading

import pytest

from toolprism.backends import _embedded as emb

pytestmark = [
    pytest.mark.embedded,
]

TOOLS = [emb.EXAMPLE_TOOL]
MESSAGES = [
    {"role": "system", "content": "You help with the weather."},
    {"role": "user", "content": "What is the weather in Lyon, in fahrenheit? Then tell me a long story."},
]


class _SetAfter(threading.Event):
    """A stop flag that reads as set from its ``n``-th look on (counts how often it was read)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n, self.looks = n, 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= self.n or super().is_set()


def test_a_stop_flag_ends_the_generation_at_the_next_token_and_the_model_stays_deterministic() -> None:
    backend = emb.EmbeddedBackend("smollm2", max_tokens=24)
    prompt = emb.render_prompt(MESSAGES, TOOLS)
    whole = backend.generate(prompt, 0)
    assert whole[3] is not None and whole[3] > 12, whole  # the uninterrupted turn is longer than the cut
    stop = _SetAfter(4)  # one look before generating, then one per token: set at the third token
    assert backend.generate(prompt, 0, stop=stop) == emb._INTERRUPTED
    # it stopped there (at most llama.cpp's look after its loop and ours later), not at the end of the generation
    assert stop.looks <= 6 < whole[3]
    assert backend.generate(prompt, 0) == whole  # the shared model and its cache are intact


def test_a_stop_flag_ends_a_long_prompt_evaluation_between_two_batches() -> None:
    backend = emb.EmbeddedBackend("smollm2", max_tokens=4)
    long = [*MESSAGES[:1], {"role": "user", "content": " ".join(f"item{i} is blue" for i in range(160))}]
    prompt = emb.render_prompt(long, TOOLS)
    assert len(backend.model().tokenize(prompt.encode(), add_bos=False, special=True)) > 2 * backend.model().n_batch
    stop = _SetAfter(3)  # one look before generating, one before each batch of the prompt: set before the second
    assert backend.generate(prompt, 0, stop=stop) == emb._INTERRUPTED and stop.looks == 3
    text, finish, *_ = backend.generate(prompt, 0)  # the model goes on from what was evaluated
    assert finish in ("stop", "length") and text


def test_a_generation_waiting_for_the_model_when_cancelled_never_starts() -> None:
    backend = emb.EmbeddedBackend("smollm2", max_tokens=2)
    stop = threading.Event()
    stop.set()
    assert backend.generate(emb.render_prompt(MESSAGES, TOOLS), 0, stop=stop) == emb._INTERRUPTED


def test_cancelling_a_turn_sets_its_stop_flag() -> None:
    backend = emb.EmbeddedBackend("smollm2", max_tokens=8)
    flags: list[threading.Event] = []
    release = threading.Event()

    def generate(prompt: str, seed: int | None = None, *, stop: threading.Event | None = None, grammar: str = ""):  # noqa: ANN202
        flags.append(stop)
        release.wait(30)
        return emb._INTERRUPTED

    backend.generate = generate  # type: ignore[method-assign]

    async def cancel_mid_turn() -> None:
        task = asyncio.ensure_future(backend.agent(type("C", (), {"seed": 0})()).respond(MESSAGES, TOOLS))
        while not flags:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert flags[0].is_set()
        release.set()

    asyncio.run(cancel_mid_turn())
