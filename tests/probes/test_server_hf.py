"""``ServerScorer`` against a vLLM-style server whose model is a real transformers model (the tiny
model built in the tests, nothing downloaded): a byte-level BPE tokenizer, a Jinja chat template
with tools, float32 forward passes. S0, S1 and the action distribution are recomputed by direct
forward passes over the whole token sequences, summed by hand, and match to 1e-4 nats."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from toolprism.probes import REPLY, action_distribution, call_syntax, schema_only_messages, surprisal  # noqa: E402
from toolprism.probes._server import ServerScorer  # noqa: E402
from toolprism.testing import MockOpenAIServer  # noqa: E402

try:  # the shared builder (tests/_tiny_hf.py)
    from _tiny_hf import build_model
except ImportError:  # before it exists: the hf backend's tests hold it
    from backends.test_hf import build_model

pytestmark = pytest.mark.hf


class HFLM:
    """The server side of a vLLM shim over a transformers model: what vLLM does with the
    tokenizer (encode, decode, ``apply_chat_template``) and the model (float32 logits)."""

    def __init__(self, path) -> None:
        self.tok = transformers.AutoTokenizer.from_pretrained(path)
        self.model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
        self.vocab_size = len(self.tok)
        self.max_model_len = 8192

    def tokenize(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        return self.tok(text, add_special_tokens=add_special_tokens)["input_ids"]

    def detokenize(self, ids) -> str:
        return self.tok.decode(ids)

    def token_str(self, i: int) -> str:
        return self.tok.convert_ids_to_tokens(i)

    def render(self, messages, tools, *, add_generation_prompt: bool) -> str:
        return self.tok.apply_chat_template(
            messages, tools=tools or None, add_generation_prompt=add_generation_prompt, tokenize=False
        )

    def logits(self, ids):
        with torch.no_grad():
            return self.model(torch.tensor([list(ids)])).logits[0].double().numpy()

    def logprobs(self, ids):
        with torch.no_grad():
            return torch.log_softmax(self.model(torch.tensor([list(ids)])).logits[0].double(), -1).numpy()


def tool(name: str) -> dict:
    return {
        "type": "function",
        "function": {"name": name, "description": f"{name}.", "parameters": {"type": "object", "properties": {}}},
    }


TOOLS = [tool("set_light"), tool("get_state")]
MESSAGES = [
    {"role": "system", "content": "You control a house."},
    {"role": "user", "content": "Is the hall light on?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_state", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"hall":{"light":"off"}}'},
]


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return HFLM(build_model(tmp_path_factory.mktemp("tiny-hf")))


def direct_sum(lm: HFLM, context: str, continuation: str) -> tuple[float, int]:
    """Sum of the scored tokens' log-probabilities (nats) by one forward pass over the whole
    sequence, and their count (scored: after the common prefix with the context's tokens)."""
    ctx, full = lm.tokenize(context), lm.tokenize(context + continuation)
    start = next((i for i, (a, b) in enumerate(zip(ctx, full, strict=False)) if a != b), min(len(ctx), len(full)))
    with torch.no_grad():
        logits = lm.model(torch.tensor([full])).logits[0].double()
    total = 0.0
    for i in range(start, len(full)):
        row = logits[i - 1]
        total += float(row[full[i]] - torch.logsumexp(row, 0))
    return total, len(full) - start


def test_server_probes_match_direct_forward_passes_of_a_transformers_model(lm: HFLM):
    with MockOpenAIServer(lm=lm) as server, ServerScorer("tiny", base_url=server.base_url) as scorer:
        assert scorer.render(MESSAGES, TOOLS) == lm.render(MESSAGES, TOOLS, add_generation_prompt=True)
        text = MESSAGES[3]["content"]
        s0_prompt = lm.render(schema_only_messages(MESSAGES, 3), [TOOLS[1]], add_generation_prompt=False)
        s1_prompt = lm.render(MESSAGES, TOOLS, add_generation_prompt=False)
        (s0, n0), (s1, n1) = (direct_sum(lm, p[: p.rindex(text)], text) for p in (s0_prompt, s1_prompt))
        got = surprisal(scorer, MESSAGES, TOOLS, 3)
        assert got.s0 == pytest.approx(-s0 / n0, abs=1e-4) and got.s1 == pytest.approx(-s1 / n1, abs=1e-4)
        assert got.n_tokens == n1

        opener, end = call_syntax(scorer, MESSAGES, TOOLS)
        context = lm.render(MESSAGES, TOOLS, add_generation_prompt=True)
        log_open, _ = direct_sum(lm, context, opener)
        joint = {t["function"]["name"]: direct_sum(lm, context, opener + t["function"]["name"] + end)[0] for t in TOOLS}
        top = max(joint.values())
        log_z = top + math.log(sum(math.exp(v - top) for v in joint.values()))
        dist = action_distribution(scorer, MESSAGES, TOOLS)
        assert math.fsum(dist.probs.values()) == pytest.approx(1.0, abs=1e-6)
        assert dist.probs[REPLY] == pytest.approx(1 - math.exp(log_open), abs=1e-4)
        for name, value in joint.items():
            assert math.log(dist.probs[name]) == pytest.approx(log_open + value - log_z, abs=1e-4)
