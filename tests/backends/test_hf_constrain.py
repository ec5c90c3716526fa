"""``constrain`` on the ``hf`` backend (xgrammar), on the tiny random model of ``tests/_tiny_hf.py``.

A random model almost never opens a call by chance, so this module's copy gets a logit bias
towards ``<``, ``{`` and ``[`` (the characters that open a call in the hermes, json/llama and
mistral syntaxes): unconstrained it then writes brackets at random, and constrained it must turn
each opening into a call of a listed tool with schema-valid arguments. Sampled at temperature 1,
seeded, so that tool names and argument values vary over the episodes."""

from __future__ import annotations

import asyncio
import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")
xgrammar = pytest.importorskip("xgrammar")
jsonschema = pytest.importorskip("jsonschema")

from _tiny_hf import CHAT_TEMPLATE, MESSAGES, build_model  # noqa: E402  (tests/_tiny_hf.py)

from toolprism.backends import create_backend  # noqa: E402
from toolprism.backends._constrain import ANSWER_EXCLUDED, TextTurnGrammar  # noqa: E402
from toolprism.backends._hf import HFBackend  # noqa: E402
from toolprism.errors import ConfigError  # noqa: E402

pytestmark = [pytest.mark.hf, pytest.mark.xgrammar]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_light",
            "description": "Switch a light.",
            "parameters": {
                "type": "object",
                "properties": {"on": {"type": "boolean"}, "room": {"enum": ["kitchen", "bedroom"]}},
                "required": ["on", "room"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_fan",
            "description": "Set a fan's speed.",
            "parameters": {
                "type": "object",
                "properties": {"speed": {"type": "string", "enum": ["off", "low", "high"]}},
                "required": ["speed"],
            },
        },
    },
    {"type": "function", "function": {"name": "list_rooms", "description": "List the rooms."}},  # no parameters
]
NO_ARGUMENTS = {"type": "object", "maxProperties": 0}  # what a tool without parameters takes (OpenAI)
SEEDS = range(5)
MAX_NEW_TOKENS = 128  # a call of TOOLS is at most about 60 tokens of this tokenizer
CALLS = {
    "hermes": '<tool_call>\n{"name": "set_light", "arguments": {"on": true, "room": "kitchen"}}\n</tool_call>',
    "json": '{"name": "set_light", "arguments": {"on": true, "room": "kitchen"}}',
    "llama": '{"name": "set_light", "parameters": {"on": true, "room": "kitchen"}}',
    "mistral": '[TOOL_CALLS] [{"name": "set_light", "arguments": {"on": true, "room": "kitchen"}}]',
}


class Ctx:
    def __init__(self, seed: int) -> None:
        self.seed = seed


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_model(tmp_path_factory.mktemp("tiny_constrain") / "model")  # this module's own (biased) copy


def _biased(backend: HFBackend) -> HFBackend:
    """Bias the shared model of ``backend`` towards the characters that open a call (once)."""
    head = backend.model.get_output_embeddings()
    if head.bias is None:
        bias = torch.zeros(head.weight.shape[0])
        for char in "<{[":
            bias[backend.tokenizer.convert_tokens_to_ids(char)] = 8.0
        head.bias = torch.nn.Parameter(bias)
    return backend


def _backend(model_dir, **kw) -> HFBackend:
    return _biased(HFBackend(model_dir, device="cpu", max_new_tokens=MAX_NEW_TOKENS, temperature=1.0, **kw))


def judge(turn, tools) -> str:
    """``call`` (one call of a listed tool, arguments valid under its JSON Schema), ``answer`` (text
    without a character of ANSWER_EXCLUDED, as the constraint defines it) or ``invalid``."""
    if turn.error is not None:
        return "invalid"
    schemas = {t["function"]["name"]: t["function"].get("parameters") or NO_ARGUMENTS for t in tools}
    if turn.calls:
        if len(turn.calls) != 1 or turn.calls[0].name not in schemas:
            return "invalid"
        valid = jsonschema.Draft202012Validator(schemas[turn.calls[0].name])
        return "call" if valid.is_valid(json.loads(turn.calls[0].arguments)) else "invalid"
    text = turn.raw
    return "answer" if text and not text[0].isspace() and not set(text) & set(ANSWER_EXCLUDED) else "invalid"


def _verdicts(backend: HFBackend, messages=MESSAGES) -> list[str]:
    return [judge(asyncio.run(backend.agent(Ctx(seed)).respond(messages, TOOLS)), TOOLS) for seed in SEEDS]


@pytest.mark.parametrize("style", ["hermes", "json", "llama", "mistral"])
def test_the_grammar_admits_listed_calls_with_valid_arguments_and_plain_answers(model_dir, style):
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    grammar = TextTurnGrammar(
        tokenizer, vocab_size=len(tokenizer), stop_token_ids=[tokenizer.eos_token_id], style=style
    )
    compiled = grammar.compiled(TOOLS)

    def admits(text: str) -> bool:
        matcher = xgrammar.GrammarMatcher(compiled)
        return matcher.accept_string(text) and matcher.is_completed()

    call = CALLS[style]
    assert admits(call) and admits("The kitchen light is on.")
    assert admits(call.replace('"on": true, "room": "kitchen"', '"on": false, "room": "bedroom"'))
    for bad in (
        call.replace("set_light", "set_lamp"),  # not a listed tool
        call.replace('"room": "kitchen"', '"room": "attic"'),  # outside the enum
        call.replace('"on": true', '"on": 1'),  # wrong type
        call.replace('"on": true, ', ""),  # a required argument missing
        call.replace('"kitchen"', '"kitchen", "extra": 1'),  # an argument the tool does not have
        call + call,  # two calls
        "See {this}.",  # an answer holding a character that opens a call
        " leading space",
        "",
    ):
        assert not admits(bad), bad


@pytest.mark.parametrize("style", ["auto", "json", "llama", "mistral"])
def test_constrain_all_gives_only_valid_calls_or_answers(model_dir, style):
    backend = _backend(model_dir, tool_format=style, constrain="all")
    verdicts = _verdicts(backend)
    print(f"\nhf {style} constrain=all: {verdicts}")
    assert "invalid" not in verdicts
    assert "call" in verdicts  # the biased model opens calls: the call path was decoded, not only answers
    assert backend.settings()["constraint"].endswith(":hermes" if style == "auto" else f":{style}")


def test_unbiased_the_random_model_answers_in_plain_text(tmp_path_factory):
    plain = build_model(tmp_path_factory.mktemp("tiny_plain") / "model")  # no bias: it rarely opens a call
    verdicts = {
        mode: _verdicts(HFBackend(plain, device="cpu", max_new_tokens=48, temperature=1.0, constrain=mode))
        for mode in ("all", "none")
    }
    print(f"\nhf unbiased: {verdicts}")
    assert "invalid" not in verdicts["all"] and "answer" in verdicts["all"]  # the answer path was decoded


def test_unconstrained_the_biased_model_writes_invalid_output(model_dir):
    verdicts = _verdicts(_backend(model_dir))
    print(f"\nhf constrain=none: {verdicts}")
    assert verdicts.count("invalid") >= len(SEEDS) - 1  # so the constrained tests above can fail


def test_first_constrains_until_the_first_call_only(model_dir):
    backend = _backend(model_dir, constrain="first")
    call = {"id": "call_1", "type": "function", "function": {"name": "list_rooms", "arguments": "{}"}}
    after = [*MESSAGES, {"role": "assistant", "content": None, "tool_calls": [call]}]
    after.append({"role": "tool", "tool_call_id": "call_1", "content": '["kitchen"]'})
    before_verdicts, after_verdicts = _verdicts(backend), _verdicts(backend, after)
    print(f"\nhf constrain=first: before the first call {before_verdicts}, after it {after_verdicts}")
    assert "invalid" not in before_verdicts
    assert after_verdicts.count("invalid") >= len(SEEDS) - 1  # no longer constrained


def test_settings_and_errors(model_dir, monkeypatch):
    settings = _backend(model_dir).settings()
    assert (settings["constrain"], settings["constraint"]) == ("none", "none")
    constrained = create_backend(f"hf:{model_dir}", constrain="first").settings()
    version = xgrammar_version()
    assert (constrained["constrain"], constrained["constraint"]) == ("first", f"xgrammar-{version}:hermes")
    with pytest.raises(ConfigError, match=r"max_new_tokens must be >= 1[\s\S]*unknown constrain mode 'often'"):
        HFBackend(model_dir, device="cpu", constrain="often", max_new_tokens=0)
    assert "<tool_call>" in CHAT_TEMPLATE  # why ``auto`` reads the hermes syntax from this template


def xgrammar_version() -> str:
    import importlib.metadata

    return importlib.metadata.version("xgrammar")
