"""The ``hf`` backend on a tiny random model built here (nothing downloaded): loading, a run,
determinism, greedy decoding, context overflow, interruption, bad input (log-probabilities:
tests/probes/test_hf_scorer.py)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from _tiny_hf import MESSAGES, TOOL, build_model  # noqa: E402  (tests/_tiny_hf.py)

from toolprism.backends import _hf as hf  # noqa: E402
from toolprism.backends import create_backend  # noqa: E402
from toolprism.backends._hf import HFBackend, template_messages  # noqa: E402
from toolprism.errors import BackendError, ConfigError, ContextOverflow  # noqa: E402
from toolprism.evaluation import RunConfig, evaluate  # noqa: E402
from toolprism.run import RunStore  # noqa: E402

pytestmark = pytest.mark.hf


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def backend(model_dir):
    return HFBackend(model_dir, device="cpu", max_new_tokens=12)


def _greedy_reference(backend: HFBackend, ids: list[int], steps: int) -> list[int]:
    """Argmax decoding by hand, one full forward pass per token."""
    x = torch.tensor([ids])
    out: list[int] = []
    with torch.no_grad():
        for _ in range(steps):
            token = int(backend.model(input_ids=x).logits[0, -1].argmax())
            out.append(token)
            if token in backend._loaded.eos_ids:
                break
            x = torch.cat([x, torch.tensor([[token]])], dim=1)
    return out


def test_loads_and_settings_identify_the_model(backend, model_dir, tmp_path):
    settings = backend.settings()
    assert settings["backend"] == "hf"
    assert settings["model"] == str(model_dir.resolve())
    assert settings["model_type"] == "llama"
    assert settings["decoding"] == "greedy" and settings["temperature"] == 0.0
    assert settings["max_new_tokens"] == 12 and settings["max_positions"] == 8192
    assert settings["device"] == "cpu" and settings["dtype"] == "float32"
    assert settings["weights"]["model.safetensors"] > 0
    json.dumps(settings)  # stored in the run header
    other = HFBackend(build_model(tmp_path / "other", seed=1), device="cpu", max_new_tokens=12).settings()
    assert other["weights_sha256"] != settings["weights_sha256"]  # same architecture, other weights
    assert other["config_sha256"] == settings["config_sha256"]


def test_loaded_once_per_process(backend, model_dir):
    again = HFBackend(model_dir, device="cpu", max_new_tokens=5)
    assert again.model is backend.model and again.tokenizer is backend.tokenizer


def test_create_backend_hf_prefix_and_bare_directory(backend, model_dir):
    assert isinstance(create_backend(f"hf:{model_dir}"), HFBackend)
    bare = create_backend(str(model_dir))
    assert isinstance(bare, HFBackend) and bare.model is not None


def test_create_backend_reads_options_from_environment(model_dir, monkeypatch):
    monkeypatch.setenv("TOOLPRISM_HF_DEVICE", "cpu")
    monkeypatch.setenv("TOOLPRISM_HF_MAX_NEW_TOKENS", "7")
    monkeypatch.setenv("TOOLPRISM_HF_TOOL_FORMAT", "hermes")
    settings = create_backend(f"hf:{model_dir}").settings()
    assert (settings["max_new_tokens"], settings["tool_format"], settings["device"]) == (7, "hermes", "cpu")
    assert HFBackend.from_env(str(model_dir), tool_format="native").tool_format == "auto"
    assert HFBackend.from_env(str(model_dir), tool_format="mistral").tool_format == "mistral"
    monkeypatch.setenv("TOOLPRISM_HF_MAX_NEW_TOKENS", "many")
    with pytest.raises(ConfigError, match="TOOLPRISM_HF_MAX_NEW_TOKENS"):
        create_backend(f"hf:{model_dir}")


def test_generation_is_greedy_despite_sampling_defaults(backend):
    ids = backend.prompt_ids(MESSAGES, [TOOL])
    text, prompt_tokens, completion_tokens = backend.generate(MESSAGES, [TOOL])
    reference = _greedy_reference(backend, ids, 12)
    assert prompt_tokens == len(ids)
    assert completion_tokens == len(reference)
    kept = [t for t in reference if t not in backend._loaded.eos_ids]
    assert text == backend.tokenizer.decode(kept, skip_special_tokens=False)


def test_prompt_is_the_models_chat_template_with_tools(backend):
    history = [
        *MESSAGES,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "set_light", "arguments": '{"on": true}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
    ]
    text = backend.tokenizer.decode(backend.prompt_ids(history, [TOOL]))
    assert '"name": "set_light"' in text and "# Tools" in text
    assert '"arguments": {"on": true}' in text  # arguments passed as an object, not as JSON text
    assert '<tool_response name="set_light">{"ok": true}</tool_response>' in text
    assert text.endswith("<|im_start|>assistant\n")


def test_template_messages_keeps_unparseable_arguments_as_text():
    out = template_messages(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{oops"}}],
            }
        ]
    )
    assert out[0]["content"] == "" and out[0]["tool_calls"][0]["function"]["arguments"] == "{oops"


def _run(model_dir, run_dir, monkeypatch):
    monkeypatch.setenv("TOOLPRISM_HF_DEVICE", "cpu")
    monkeypatch.setenv("TOOLPRISM_HF_MAX_NEW_TOKENS", "8")
    config = RunConfig(model=f"hf:{model_dir}", domains=["smart_home"], variants=["native"], tasks=2, max_turns=2)
    summary = evaluate(config, run_dir=run_dir)
    store = RunStore.open(run_dir)
    try:
        traces = [store.trace(r.episode_id) for r in store.results()]
        return summary, store.header, traces
    finally:
        store.close()


def test_run_completes_records_episodes_and_is_deterministic(model_dir, tmp_path, monkeypatch):
    summary, header, traces = _run(model_dir, tmp_path / "a", monkeypatch)
    assert summary.episodes == 2 and len(traces) == 2
    assert header.backend["backend"] == "hf" and header.backend["model"] == str(model_dir.resolve())
    for trace in traces:
        assert trace.model["backend"] == "hf"
        assert trace.turns and all(t.prompt_tokens and t.prompt_tokens > 100 for t in trace.turns)
        assert all(t.completion_tokens is not None and 1 <= t.completion_tokens <= 8 for t in trace.turns)
    _, _, again = _run(model_dir, tmp_path / "b", monkeypatch)
    assert [t.messages for t in again] == [t.messages for t in traces]
    assert [[turn.raw for turn in t.turns] for t in again] == [[turn.raw for turn in t.turns] for t in traces]


def test_turn_parses_tool_calls_and_numbers_them(backend, monkeypatch):
    outputs = iter(['<tool_call>{"name": "set_light", "arguments": {"on": true}}</tool_call>', "Done."])
    monkeypatch.setattr(backend, "generate", lambda *a, **k: (next(outputs), 10, 5))
    agent = hf.HFAgent(backend, seed=0)
    first = asyncio.run(agent.respond(MESSAGES, [TOOL]))
    assert [(c.id, c.name, json.loads(c.arguments)) for c in first.calls] == [("call_1", "set_light", {"on": True})]
    assert (first.prompt_tokens, first.completion_tokens) == (10, 5)
    second = asyncio.run(agent.respond(MESSAGES, [TOOL]))
    assert second.calls == () and second.content == "Done." and second.error is None


def test_overflow_raises_context_overflow(tmp_path):
    small = HFBackend(build_model(tmp_path / "small", max_positions=32), device="cpu", max_new_tokens=4)
    long = [{"role": "user", "content": "Turn the light on. " * 20}]
    assert len(small.prompt_ids(long, [TOOL])) >= 32
    with pytest.raises(ContextOverflow, match="32 positions"):
        small.generate(long, [TOOL])
    with pytest.raises(ContextOverflow):
        asyncio.run(hf.HFAgent(small, seed=0).respond(long, [TOOL]))
    assert issubclass(ContextOverflow, BackendError)


def test_generation_is_capped_at_the_position_limit(tmp_path):
    small = HFBackend(build_model(tmp_path / "small", max_positions=64), device="cpu", max_new_tokens=50)
    short = [{"role": "user", "content": "on"}]
    n = len(small.prompt_ids(short, []))
    assert n < 64
    _, prompt_tokens, completion_tokens = small.generate(short, [])
    assert prompt_tokens + completion_tokens <= 64


def test_stop_flag_ends_generation(backend):
    stop = threading.Event()
    stop.set()
    with pytest.raises(BackendError, match="interrupted"):
        backend.generate(MESSAGES, [TOOL], stop=stop)
    # the criterion itself: set before the first check, generation stops after one token
    ids = torch.tensor([backend.prompt_ids(MESSAGES, [TOOL])])
    criteria = transformers.StoppingCriteriaList([hf._StopFlag(torch, stop)])
    config = transformers.GenerationConfig(max_new_tokens=10, do_sample=False, eos_token_id=None)
    out = backend.model.generate(
        input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=config, stopping_criteria=criteria
    )
    assert out.shape[1] == ids.shape[1] + 1


def test_cancelling_a_turn_sets_its_stop_flag(backend, monkeypatch):
    seen: list[threading.Event] = []
    started = threading.Event()

    def blocking_generate(messages, tools, *, seed, stop, constrained):
        seen.append(stop)
        started.set()
        stop.wait(30)  # returns as soon as the agent sets the flag
        raise BackendError("generation interrupted")

    monkeypatch.setattr(backend, "generate", blocking_generate)

    async def main():
        task = asyncio.create_task(hf.HFAgent(backend, seed=0).respond(MESSAGES, [TOOL]))
        await asyncio.to_thread(started.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen and seen[0].is_set()


def test_bad_directories_are_config_errors(tmp_path, model_dir):
    with pytest.raises(ConfigError, match="not a directory"):
        HFBackend(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no config.json"):
        HFBackend(tmp_path / "empty")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text((model_dir / "config.json").read_text())
    with pytest.raises(ConfigError, match="could not load"):
        HFBackend(broken, device="cpu")
    with pytest.raises(ConfigError) as info:
        HFBackend(model_dir, device="tpu", dtype="int3", max_new_tokens=0, tool_format="xml")
    assert len(info.value.problems) == 4  # every problem listed
    with pytest.raises(ConfigError, match="no model directory"):
        create_backend("hf:")
    with pytest.raises(ConfigError, match="unknown model"):
        create_backend(str(tmp_path / "empty"))  # a directory without config.json is not a model


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_a_gpu_is_a_config_error(model_dir):
    with pytest.raises(ConfigError, match="no CUDA device"):
        HFBackend(model_dir, device="cuda")


def test_no_chat_template_is_a_config_error(tmp_path):
    path = build_model(tmp_path / "plain")
    (path / "chat_template.jinja").unlink(missing_ok=True)
    config = json.loads((path / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (path / "tokenizer_config.json").write_text(json.dumps(config))
    with pytest.raises(ConfigError, match="no chat template"):
        HFBackend(path, device="cpu")


def test_missing_transformers_is_a_config_error_with_install_hint(monkeypatch, model_dir):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] == "transformers":
            raise ImportError("No module named 'transformers'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[hf\]"'):
        create_backend(f"hf:{model_dir}")


def test_sampling_is_seeded(model_dir):
    sampler = HFBackend(model_dir, device="cpu", max_new_tokens=12, temperature=1.0)
    assert sampler.settings()["decoding"] == "sampling"
    texts = [sampler.generate(MESSAGES, [TOOL], seed=seed)[0] for seed in (1, 1, 2, 3)]
    assert texts[0] == texts[1]
    assert len(set(texts[1:])) > 1  # different seeds sample differently (random weights: near-uniform)


def test_named_backends_win_over_a_directory_of_the_same_name(tmp_path, monkeypatch, model_dir):
    from toolprism.backends import OracleBackend

    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "config.json").write_text((model_dir / "config.json").read_text())
    monkeypatch.chdir(tmp_path)
    assert isinstance(create_backend("oracle"), OracleBackend)


def test_module_imports_neither_torch_nor_transformers():
    import subprocess
    import sys

    code = "import sys, toolprism.backends._hf; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
