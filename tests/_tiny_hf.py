"""A tiny transformers model built in the test, never downloaded: the shared builder for every
test of the ``hf`` backend and of log-probability probes on it (``tests/backends/test_hf.py``,
``tests/probes/``). Import it as ``from _tiny_hf import build_model`` (pytest puts ``tests/`` on
``sys.path``: it holds ``conftest.py`` and no ``__init__.py``); callers ``importorskip``
torch, transformers and tokenizers first.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path

import torch
import transformers

CHAT_TEMPLATE = """\
{%- if messages[0].role == 'system' or tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}
{% endif %}{% if tools %}# Tools
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}{% endif %}<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'system' and loop.first %}
{%- elif message.role == 'assistant' %}<|im_start|>assistant
{{ message.content }}{% for call in message.tool_calls or [] %}<tool_call>\
{{ {"name": call.function.name, "arguments": call.function.arguments} | tojson }}</tool_call>{% endfor %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
<tool_response name="{{ message.name }}">{{ message.content }}</tool_response><|im_end|>
{% else %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""

TOOL = {
    "type": "function",
    "function": {
        "name": "set_light",
        "description": "Switch a light.",
        "parameters": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]},
    },
}
MESSAGES = [{"role": "system", "content": "You control a house."}, {"role": "user", "content": "Turn the light on."}]


@functools.cache
def _corpus() -> tuple[str, ...]:
    """Text like the prompts the run shows (the domain's tools and policy), so prompts stay short."""
    from toolprism.domains import get_domain

    domain = get_domain("smart_home")
    return (json.dumps(TOOL), domain.policy, CHAT_TEMPLATE, *[json.dumps(t) for t in _native_tools()] * 3)


def _native_tools() -> list[dict]:
    from toolprism.evaluation import RunConfig, plan_run

    specs, _ = plan_run(RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=1))
    return list(specs[0].variant.openai_tools)


def build_model(
    path: Path,
    *,
    max_positions: int = 8192,
    seed: int = 0,
    sampling_defaults: bool = True,
    corpus: Sequence[str] = (),
) -> Path:
    """A 2-layer Llama with hidden size 32 and a byte-level BPE tokenizer (vocabulary 1,024,
    trained on the smart_home tools and ``corpus``: add the texts your prompts hold so they stay
    short) with :data:`CHAT_TEMPLATE` and random weights seeded by ``seed``, saved to ``path``.
    ``sampling_defaults`` writes a sampling generation config, as instruct models ship.
    Returns ``path``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1024, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator([*_corpus(), *corpus], trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = transformers.LlamaForCausalLM(config)
    if sampling_defaults:  # as instruct models ship: the backend must still decode greedily
        model.generation_config.do_sample = True
        model.generation_config.temperature = 0.7
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
