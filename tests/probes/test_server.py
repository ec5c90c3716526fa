"""``ServerScorer`` against :class:`toolprism.testing.MockOpenAIServer`'s vLLM-style endpoints,
driven by :class:`toolprism.testing.TinyLM`: every number is recomputed here from the model's
logits (log-softmax and sums by hand), on the token ids the model's own tokenizer gives."""

from __future__ import annotations

import math

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolprism.errors import BackendError, ConfigError
from toolprism.probes import (
    REPLY,
    ProbeError,
    action_distribution,
    call_syntax,
    create_scorer,
    schema_only_messages,
    surprisal,
)
from toolprism.probes._server import ServerScorer
from toolprism.testing import MockOpenAIServer, TinyLM


def tool(name: str) -> dict:
    return {
        "type": "function",
        "function": {"name": name, "description": f"{name}.", "parameters": {"type": "object", "properties": {}}},
    }


TOOLS = [tool("get_order"), tool("get_order_details"), tool("cancel_order")]
MESSAGES = [
    {"role": "system", "content": "Be helpful."},
    {"role": "user", "content": "Cancel order #W1."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_order_details", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"order_id":"#W1","status":"pending"}'},
]


@pytest.fixture(scope="module")
def mock():
    with MockOpenAIServer() as server:
        yield server


@pytest.fixture
def scorer(mock: MockOpenAIServer):
    with ServerScorer("mock", base_url=mock.base_url, backoff_s=0.0) as s:
        yield s


def direct(lm: TinyLM, context: str, continuation: str) -> list[float]:
    """The scored tokens' log-probabilities by hand: tokenise the whole text, log-softmax each row
    of the logits, read the token after each position; scored = after the common prefix."""
    ctx, full = lm.tokenize(context), lm.tokenize(context + continuation)
    start = next((i for i, (a, b) in enumerate(zip(ctx, full, strict=False)) if a != b), min(len(ctx), len(full)))
    logits = lm.logits(full)
    out = []
    for i in range(start, len(full)):
        row = logits[i - 1]
        log_z = row.max() + math.log(sum(math.exp(x - row.max()) for x in row))
        out.append(float(row[full[i]] - log_z))
    return out


# --- the mock's endpoints ---------------------------------------------------------------------


def test_tinylm_round_trips_and_merges_at_a_boundary():
    lm = TinyLM()
    text = '<|im_start|>tool\n{"name": "ü", "x":1}<|im_end|>'
    assert lm.detokenize(lm.tokenize(text)) == text
    # '{' then '"name": "' tokenises differently from the whole: the boundary merges
    assert lm.tokenize("{")[-1] != lm.tokenize('{"name": "')[0]
    rows = lm.logprobs(lm.tokenize(text))
    assert rows.shape == (len(lm.tokenize(text)), lm.vocab_size)
    np.testing.assert_allclose(np.exp(rows).sum(axis=1), 1.0, atol=1e-12)


def test_mock_tokenize_detokenize_and_prompt_logprobs(mock: MockOpenAIServer):
    root = mock.base_url.removesuffix("/v1")
    chat = httpx.post(f"{root}/tokenize", json={"model": "m", "messages": MESSAGES, "tools": TOOLS}).json()
    text = mock.lm.render(MESSAGES, TOOLS, add_generation_prompt=True)
    assert chat["tokens"] == mock.lm.tokenize(text) and chat["count"] == len(chat["tokens"])
    assert httpx.post(f"{root}/detokenize", json={"model": "m", "tokens": chat["tokens"]}).json()["prompt"] == text
    plain = httpx.post(f"{root}/tokenize", json={"model": "m", "prompt": "ab"}).json()["tokens"]
    assert plain == mock.lm.tokenize("ab", add_special_tokens=True)
    ids = chat["tokens"][:20]
    body = {"model": "m", "prompt": ids, "max_tokens": 1, "prompt_logprobs": 2}
    choice = httpx.post(f"{mock.base_url}/completions", json=body).json()["choices"][0]
    entries = choice["prompt_logprobs"]
    assert entries[0] is None and len(entries) == len(ids)
    rows = mock.lm.logprobs(ids)
    for i in range(1, len(ids)):
        assert entries[i][str(ids[i])]["logprob"] == pytest.approx(rows[i - 1][ids[i]], abs=1e-12)
        assert 2 <= len(entries[i]) <= 3  # the prompt token plus the top 2
    assert choice["text"] == mock.lm.detokenize([int(mock.lm.logits(ids)[-1].argmax())])


def test_mock_without_scoring_answers_404():
    with MockOpenAIServer(scoring="off") as off:
        root = off.base_url.removesuffix("/v1")
        assert httpx.post(f"{root}/tokenize", json={"prompt": "a"}).status_code == 404
        assert httpx.post(f"{off.base_url}/completions", json={"prompt": "a"}).status_code == 404
    with pytest.raises(ValueError):
        MockOpenAIServer(scoring="sometimes")  # type: ignore[arg-type]


# --- ServerScorer -------------------------------------------------------------------------------


def test_render_is_the_servers_template(scorer: ServerScorer, mock: MockOpenAIServer):
    for prompt in (True, False):
        assert scorer.render(MESSAGES, TOOLS, generation_prompt=prompt) == mock.lm.render(
            MESSAGES, TOOLS, add_generation_prompt=prompt
        )
    assert call_syntax(scorer, MESSAGES, TOOLS) == ('<tool_call>\n{"name": "', '", "arguments":')


@pytest.mark.parametrize(
    "context, continuations",
    [
        ("<|im_start|>tool\n", ['{"order_id":"#W1"}', "ok", ""]),
        ("abc {", ['"name": "x"', '"', "ü"]),  # merges across the boundary; a multi-byte character
    ],
)
def test_score_matches_a_direct_recomputation(scorer: ServerScorer, mock, context, continuations):
    got = scorer.score(context, continuations)
    for cont, tl in zip(continuations, got, strict=True):
        want = direct(mock.lm, context, cont)
        assert len(tl.logprobs) == len(want)
        np.testing.assert_allclose(tl.logprobs, want, atol=1e-9)
    # the boundary merge: '{' + '"name": "' is scored from the merged token
    if context.endswith("{"):
        assert got[0].token_ids[0] == mock.lm.tokenize('{"name": "')[0]


def test_surprisal_and_action_distribution_match_direct_forward_passes(scorer: ServerScorer, mock):
    lm = mock.lm
    text = MESSAGES[3]["content"]
    s0_messages = schema_only_messages(MESSAGES, 3)
    s0_prompt = lm.render(s0_messages, [TOOLS[1]], add_generation_prompt=False)
    s1_prompt = lm.render(MESSAGES, TOOLS, add_generation_prompt=False)
    s0 = direct(lm, s0_prompt[: s0_prompt.rindex(text)], text)
    s1 = direct(lm, s1_prompt[: s1_prompt.rindex(text)], text)
    got = surprisal(scorer, MESSAGES, TOOLS, 3)
    assert got.s0 == pytest.approx(-sum(s0) / len(s0), abs=1e-9)
    assert got.s1 == pytest.approx(-sum(s1) / len(s1), abs=1e-9)
    assert got.g == pytest.approx(got.s1 - got.s0, abs=1e-12)
    assert got.s0_first == pytest.approx(-s0[0], abs=1e-9) and got.n_tokens == len(s1)

    context = lm.render(MESSAGES, TOOLS, add_generation_prompt=True)
    opener = '<tool_call>\n{"name": "'
    log_open = sum(direct(lm, context, opener))
    end = '", "arguments":'
    joint = {t["function"]["name"]: sum(direct(lm, context, opener + t["function"]["name"] + end)) for t in TOOLS}
    log_z = max(joint.values()) + math.log(sum(math.exp(v - max(joint.values())) for v in joint.values()))
    dist = action_distribution(scorer, MESSAGES, TOOLS)
    assert set(dist.probs) == {*joint, REPLY}
    assert math.fsum(dist.probs.values()) == pytest.approx(1.0, abs=1e-6)
    assert math.log(dist.opener_prob) == pytest.approx(log_open, abs=1e-9)
    assert dist.probs[REPLY] == pytest.approx(1.0 - math.exp(log_open), abs=1e-12)
    for name, value in joint.items():  # each tool's share of the call mass, in log space
        assert math.log(dist.probs[name]) == pytest.approx(log_open + value - log_z, abs=1e-9)


def test_batched_and_prefix_shared_scoring_equals_one_at_a_time(scorer: ServerScorer, mock):
    context = mock.lm.render(MESSAGES, TOOLS, add_generation_prompt=True)
    conts = ["<tool_call>", "<tool_call>\n", "<tool_call>\n", "Hello"]
    together = scorer.score(context, conts)
    with ServerScorer("mock", base_url=mock.base_url) as fresh:
        alone = [fresh.score(context, [c])[0] for c in conts]
    assert together == alone
    assert together[1] == together[2]


def test_scorer_retries_server_faults(mock):
    with MockOpenAIServer(fault_rate=0.4, fault_mix={"503": 1.0, "truncated": 1.0}, seed=1) as flaky:
        with ServerScorer("mock", base_url=flaky.base_url, backoff_s=0.0, max_attempts=10) as s:
            got = s.score("<|im_start|>user\n", ["Cancel it."])
        assert flaky.faults()  # some requests did fail and were retried
    assert got[0].logprobs == pytest.approx(direct(mock.lm, "<|im_start|>user\n", "Cancel it."), abs=1e-9)
    with MockOpenAIServer(fault_rate=1.0, fault_mix={"500": 1.0}) as broken:
        with ServerScorer("mock", base_url=broken.base_url, backoff_s=0.0, max_attempts=2) as s:
            with pytest.raises(BackendError, match="after 2 attempts"):
                s.score("a", ["b"])


@pytest.mark.parametrize("mode", ["off", "no-prompt-logprobs"])
def test_a_server_that_cannot_score_says_so(mode: str):
    with MockOpenAIServer(scoring=mode) as server:  # type: ignore[arg-type]
        s = ServerScorer("mock", base_url=server.base_url, backoff_s=0.0)
        for use in (lambda: s.render(MESSAGES, TOOLS), lambda: s.score("a", ["b"]), s.settings):
            with pytest.raises(ProbeError, match=r"cannot return prompt log-probabilities .*embedded or hf:<dir>"):
                use()


def test_a_prompt_longer_than_the_context_is_a_probe_error():
    with MockOpenAIServer(lm=TinyLM(max_model_len=40)) as server:
        s = ServerScorer("mock", base_url=server.base_url)
        assert s.settings()["max_model_len"] == 40
        with pytest.raises(ProbeError, match="does not fit"):
            s.score("x" * 30, ["y" * 20])
        s.max_model_len = None  # the server's own 400 says the same
        with pytest.raises(ProbeError, match="does not fit"):
            s.score("x" * 30, ["y" * 20])


def test_a_lossy_detokenisation_is_refused(mock):
    class Lossy(TinyLM):
        def detokenize(self, ids):
            return super().detokenize(ids).replace("Be helpful.", "Be  helpful.")

    with MockOpenAIServer(lm=Lossy()) as server:
        with pytest.raises(ProbeError, match="does not tokenise back"):
            ServerScorer("mock", base_url=server.base_url).render(MESSAGES, TOOLS)


def test_create_scorer_and_configuration_errors(mock, monkeypatch: pytest.MonkeyPatch):
    s = create_scorer("openai:mock", base_url=mock.base_url)
    assert isinstance(s, ServerScorer) and s.name == "openai:mock" and s.root == mock.base_url.removesuffix("/v1")
    assert s.settings()["model"] == "mock"
    monkeypatch.delenv("TOOLPRISM_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="no base URL"):
        ServerScorer("m")
    with pytest.raises(ConfigError, match="not an http"):
        ServerScorer("m", base_url="ftp://x/v1")
    monkeypatch.delenv("TOOLPRISM_TEST_KEY", raising=False)
    with pytest.raises(ConfigError, match="TOOLPRISM_TEST_KEY"):
        ServerScorer("m", base_url="https://vllm.example/v1", api_key_env="TOOLPRISM_TEST_KEY")


def test_same_inputs_same_numbers(mock):
    runs = []
    for _ in range(2):
        with ServerScorer("mock", base_url=mock.base_url) as s:
            runs.append((surprisal(s, MESSAGES, TOOLS, 3), action_distribution(s, MESSAGES, TOOLS).probs))
    assert runs[0] == runs[1]


def test_a_server_ignoring_tools_in_tokenize_is_refused():
    class NoTools(TinyLM):
        def render(self, messages, tools, *, add_generation_prompt):
            return super().render(messages, [], add_generation_prompt=add_generation_prompt)

    with MockOpenAIServer(lm=NoTools()) as server:
        s = ServerScorer("mock", base_url=server.base_url)
        assert s.render(MESSAGES, []) == NoTools().render(MESSAGES, [], add_generation_prompt=True)
        with pytest.raises(ProbeError, match="ignores 'tools'"):
            s.render(MESSAGES, TOOLS)


def test_the_servers_404_text_is_shown(mock):
    """vLLM answers 404 for an unknown model too: the user sees the server's words."""
    transport = httpx.MockTransport(lambda r: httpx.Response(404, json={"message": "The model `x` does not exist."}))
    s = ServerScorer("x", base_url="http://127.0.0.1:9/v1", transport=transport)
    with pytest.raises(ProbeError, match="does not exist"):
        s.settings()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    context=st.text(alphabet='ab {}":,\nü<|>nme', min_size=1, max_size=12),
    continuation=st.text(alphabet='ab {}":,\nü<|>nme', max_size=12),
)
@example(context="{", continuation='"a')  # the whole context merges into the continuation's first token
def test_any_boundary_scores_as_the_direct_recomputation(scorer: ServerScorer, mock, context, continuation):
    ctx, full = mock.lm.tokenize(context), mock.lm.tokenize(context + continuation)
    if ctx[0] != full[0]:  # nothing of the context survives: the token rule refuses
        with pytest.raises(ProbeError, match="no common prefix"):
            scorer.score(context, [continuation])
        return
    (got,) = scorer.score(context, [continuation])
    want = direct(mock.lm, context, continuation)
    assert len(got.logprobs) == len(want)
    np.testing.assert_allclose(got.logprobs, want, atol=1e-9)


def test_a_sequence_scored_before_is_not_sent_again(mock):
    with ServerScorer("mock", base_url=mock.base_url) as s:
        first = surprisal(s, MESSAGES, TOOLS, 3)
        sent, tokens = s.requests, s.prompt_tokens
        assert surprisal(s, MESSAGES, TOOLS, 3) == first
        assert (s.requests, s.prompt_tokens) == (sent, tokens)  # renderings, tokens and scores all cached
        other = [*MESSAGES[:3], {**MESSAGES[3], "content": '{"error":"not found"}'}]
        surprisal(s, other, TOOLS, 3)
        assert s.prompt_tokens > tokens
