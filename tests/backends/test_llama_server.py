"""A real OpenAI-compatible server in the loop: llama-cpp-python's ``llama_cpp.server`` serving the
embedded SmolLM2 GGUF on 127.0.0.1, and a small toolprism run through the ``openai`` backend
against it, with native tool calls (llama_cpp's ``chatml-function-calling`` chat format) and with a
prompt-based format (``hermes`` over plain ``chatml``).

Marker ``server``; skipped when the server's dependencies (``pip install 'toolprism[server]'``) or
the embedded model are absent. The tiny model's correctness is not asserted: each run must
complete, reach the server on every turn and record its episodes. One server serves both runs (two
model aliases over the same file).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from toolprism.backends._openai import OpenAIBackend
from toolprism.errors import ConfigError
from toolprism.evaluation import RunConfig, evaluate
from toolprism.run import RunStore

pytestmark = pytest.mark.server

for _module in ("llama_cpp.server", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"):
    pytest.importorskip(_module, reason="llama_cpp.server's dependencies: pip install 'toolprism[server]'")

READY_TIMEOUT_S = 90.0
REQUEST_TIMEOUT_S = 600.0
NATIVE, CHATML = "smollm2-tools", "smollm2-chatml"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _model_path() -> Path:
    from toolprism.backends._embedded import MODELS, resolve_model_path

    try:
        return resolve_model_path(MODELS["smollm2"])
    except ConfigError as exc:
        pytest.skip(f"embedded model not installed: {exc}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` on a free port; yields its ``/v1`` URL; stopped at the end."""
    model = str(_model_path())
    port = _free_port()
    common = {"model": model, "n_ctx": 2048, "n_threads": -1, "verbose": False}
    config = {
        "host": "127.0.0.1",
        "port": port,
        "models": [
            {**common, "model_alias": NATIVE, "chat_format": "chatml-function-calling"},
            {**common, "model_alias": CHATML, "chat_format": "chatml"},
        ],
    }
    directory = tmp_path_factory.mktemp("llama_server")
    (directory / "config.json").write_text(json.dumps(config))
    log = (directory / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--config_file", str(directory / "config.json")],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{_tail(directory / 'server.log')}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not ready in {READY_TIMEOUT_S} s:\n{_tail(directory / 'server.log')}")
            time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _run(server: str, alias: str, tool_format: str, run_dir: Path):
    """One garden task (the smallest built-in catalog, 8 tools), native variant, at most 2 turns."""
    config = RunConfig(
        model=f"openai:{alias}",
        base_url=server,
        domains=["garden"],
        variants=["native"],
        tasks=1,
        max_turns=2,
        tool_format=tool_format,
    )
    backend = OpenAIBackend(
        alias,
        base_url=server,
        max_tokens=48,  # bounds the prompt-based reply; the function-calling handler ignores it
        timeout_s=REQUEST_TIMEOUT_S,
        max_attempts=1,
        tool_format=tool_format,
    )
    summary = evaluate(config, run_dir=run_dir, backend=backend)
    store = RunStore.open(run_dir)
    try:
        traces = [store.trace(r.episode_id) for r in store.results()]
        header = store.header
    finally:
        store.close()
    return summary, traces, header


def _check(summary, traces, header, tool_format: str) -> None:
    assert summary.episodes == 1
    assert len(traces) == 1
    trace = traces[0]
    assert trace.end in ("answered", "turn_limit")
    assert 1 <= len(trace.turns) <= 2
    for turn in trace.turns:
        assert turn.prompt_tokens and turn.prompt_tokens > 0  # each turn was answered by the server
    assert header.config.tool_format == tool_format


def test_native_tool_calls_through_llama_cpp_server(server: str, tmp_path: Path) -> None:
    summary, traces, header = _run(server, NATIVE, "native", tmp_path / "native")
    _check(summary, traces, header, "native")
    first = traces[0].turns[0]
    assert first.calls, f"chatml-function-calling answers the first turn with a tool call: {first.raw}"
    assert "tool_format" not in traces[0].model


def test_prompt_based_hermes_through_llama_cpp_server(server: str, tmp_path: Path) -> None:
    summary, traces, header = _run(server, CHATML, "hermes", tmp_path / "hermes")
    _check(summary, traces, header, "hermes")
    assert traces[0].model["tool_format"] == "hermes"
    for turn in traces[0].turns:  # the raw record is the generated text, read by the hermes parser
        assert not turn.raw.startswith('{"content"')
