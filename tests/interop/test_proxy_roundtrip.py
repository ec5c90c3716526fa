"""The schema proxy end to end: a scripted harness talks through ``toolprism proxy`` (starlette's
TestClient) to a mock model that is a real HTTP server on 127.0.0.1 and answers in variant
vocabulary. The harness must see only native tool calls, the model only variant tools, in both the
streaming and the non-streaming protocol, and the log must hold both sides."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("starlette")
from _proxy_mock import MockUpstream, assistant, call  # noqa: E402  (tests/_proxy_mock.py)
from starlette.testclient import TestClient  # noqa: E402

from toolprism.interop import PROXY_LOG_FILE, ProxyConfig, create_proxy_app  # noqa: E402
from toolprism.schema import ActionSpace  # noqa: E402
from toolprism.shaping import Variant  # noqa: E402

pytestmark = pytest.mark.proxy

NATIVE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
                "required": ["city", "unit"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "send_email",
            "description": "Send an email.",
            "parameters": {
                "type": "object",
                "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                "required": ["to", "body"],
            },
        },
    },
]
NATIVE = {"get_weather", "send_email"}
WEATHER = {"city": "Paris", "temp_c": 21, "conditions": "sunny"}


def _last_tool(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    return messages[-1] if messages[-1]["role"] == "tool" else None


def merge_model(body: dict[str, Any]) -> tuple[int, Any]:
    """A model under ``merge`` (one ``execute`` tool with an ``operation``): first a call the proxy
    must reject, then the weather, then the email, then a text answer."""
    messages, n = body["messages"], len(body["messages"])
    last = _last_tool(messages)
    if last is None:
        return 200, assistant(call(f"m{n}", "execute", {"operation": "get_forecast", "city": "Paris"}))
    reply = json.loads(last["content"])
    if "error" in reply:
        return 200, assistant(call(f"m{n}", "execute", {"operation": "get_weather", "city": "Paris", "unit": "c"}))
    if "temp_c" in json.dumps(reply):
        args = {"operation": "send_email", "to": "bob@example.com", "body": "Paris: 21 C"}
        return 200, assistant(call(f"m{n}", "execute", args), content="Sending it.")
    return 200, assistant(content="Done: Bob has the weather.")


def transaction_model(body: dict[str, Any]) -> tuple[int, Any]:
    """A model under ``transaction``: begin, then every set and the commit in one message."""
    messages, n = body["messages"], len(body["messages"])
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    last = calls[-1]["function"]["name"] if calls else ""
    values = {"get_weather": {"city": "Paris", "unit": "c"}, "send_email": {"to": "bob@example.com", "body": "21 C"}}
    if not last:
        return 200, assistant(call(f"t{n}", "begin_get_weather", {}))
    if last.startswith("begin_"):
        op = last.removeprefix("begin_")
        txn = json.loads(messages[-1]["content"])["txn_id"]
        sets = [call(f"t{n}_{k}", f"set_{op}__{k}", {"txn_id": txn, k: v}) for k, v in values[op].items()]
        return 200, assistant(*sets, call(f"t{n}_c", f"commit_{op}", {"txn_id": txn}))
    if last == "commit_get_weather":
        return 200, assistant(call(f"t{n}", "begin_send_email", {}))
    return 200, assistant(content="Done: Bob has the weather.")


def reference_model(body: dict[str, Any]) -> tuple[int, Any]:
    """A model under ``reference``: resolve each value to a handle, then call with the handles."""
    messages, n = body["messages"], len(body["messages"])
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    last = calls[-1]["function"]["name"] if calls else ""
    handles = {m["tool_call_id"]: json.loads(m["content"]).get("handle") for m in messages if m["role"] == "tool"}
    if not last:
        return 200, assistant(call(f"r{n}", "resolve_city", {"value": "Paris"}))
    if last == "resolve_city":
        return 200, assistant(call(f"r{n}", "get_weather", {"city_handle": handles[calls[-1]["id"]], "unit": "c"}))
    if last == "get_weather":
        to, body_ = (
            call(f"r{n}_t", "resolve_to", {"value": "bob@example.com"}),
            call(f"r{n}_b", "resolve_body", {"value": "21 C"}),
        )
        return 200, assistant(to, body_)
    if last == "resolve_body":
        args = {"to_handle": handles[calls[-2]["id"]], "body_handle": handles[calls[-1]["id"]]}
        return 200, assistant(call(f"r{n}", "send_email", args))
    return 200, assistant(content="Done: Bob has the weather.")


def discovery_model(body: dict[str, Any]) -> tuple[int, Any]:
    """A model under ``discovery``: list the class's methods once, then invoke them."""
    messages, n = body["messages"], len(body["messages"])
    lister = next(t["function"] for t in body["tools"] if t["function"]["name"] == "list_methods")
    (klass,) = lister["parameters"]["properties"]["class"]["enum"]
    invokes = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    invokes = [c for c in invokes if c["function"]["name"] == "invoke"]
    if not any(m.get("tool_calls") for m in messages if m["role"] == "assistant"):
        return 200, assistant(call(f"d{n}", "list_methods", {"class": klass}))
    if not invokes:
        args = {"class": klass, "method": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}
        return 200, assistant(call(f"d{n}", "invoke", args))
    if len(invokes) == 1:
        args = {"class": klass, "method": "send_email", "arguments": {"to": "bob@example.com", "body": "21 C"}}
        return 200, assistant(call(f"d{n}", "invoke", args))
    return 200, assistant(content="Done: Bob has the weather.")


MODELS = {
    "merge": merge_model,
    "transaction": transaction_model,
    "reference": reference_model,
    "discovery": discovery_model,
}
UPSTREAM_CALLS = {"merge": 4, "transaction": 5, "reference": 5, "discovery": 4}
"""Model calls per conversation: the harness's three requests plus one per re-ask (a rejection
under merge; begins, handles and list_methods answered by the proxy)."""


def execute(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The harness's own native tools."""
    assert name in NATIVE, f"the harness got a call of {name!r}, which is no native tool"
    if name == "get_weather":
        assert arguments == {"city": "Paris", "unit": "c"}
        return WEATHER
    assert arguments["to"] == "bob@example.com"
    return {"sent": True, "id": "m1"}


def read_sse(response: Any) -> dict[str, Any]:
    """The assistant message a stream of chat.completion.chunk events adds up to."""
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    for event in events[:-1]:
        chunk = json.loads(event)
        assert chunk["object"] == "chat.completion.chunk"
        for choice in chunk["choices"]:
            delta = choice["delta"]
            message["content"] += delta.get("content") or ""
            for part in delta.get("tool_calls") or []:
                slot = calls.setdefault(
                    part["index"], {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                )
                slot["id"] += part.get("id") or ""
                slot["function"]["name"] += part.get("function", {}).get("name") or ""
                slot["function"]["arguments"] += part.get("function", {}).get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
        assert finish == "tool_calls"
    return message


def run_harness(client: httpx.Client, stream: bool, turns: int = 8) -> list[dict[str, Any]]:
    """A scripted harness: asks, runs every native call it gets, until a text answer."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You help with errands."},
        {"role": "user", "content": "Email bob@example.com the weather in Paris, in Celsius."},
    ]
    for _ in range(turns):
        response = client.post(
            "/v1/chat/completions", json={"model": "m", "messages": messages, "tools": NATIVE_TOOLS, "stream": stream}
        )
        assert response.status_code == 200, response.text
        message = read_sse(response) if stream else response.json()["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            return messages
        for tc in message["tool_calls"]:
            result = execute(tc["function"]["name"], json.loads(tc["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": tc["id"], "content": json.dumps(result)})
    raise AssertionError("the harness never got a final answer")


def assert_well_formed(messages: list[dict[str, Any]]) -> None:
    """Every tool message answers a call of an earlier assistant message, each call exactly once."""
    issued: list[str] = []
    answered: list[str] = []
    for m in messages:
        if m["role"] == "assistant":
            issued += [c["id"] for c in m.get("tool_calls") or []]
        if m["role"] == "tool":
            assert m["tool_call_id"] in issued, f"tool message for {m['tool_call_id']!r} answers no earlier call"
            answered.append(m["tool_call_id"])
    assert sorted(answered) == sorted(issued)


def proxy_client(upstream: MockUpstream, variant: str, log_dir: Path, **settings: Any) -> TestClient:
    return TestClient(
        create_proxy_app(ProxyConfig(upstream=upstream.url, variant=variant, log_dir=log_dir, **settings))
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("variant", list(MODELS))
def test_harness_sees_native_calls_model_sees_variant(variant: str, stream: bool, tmp_path: Path) -> None:
    with MockUpstream(MODELS[variant]) as upstream, proxy_client(upstream, variant, tmp_path) as client:
        harness = run_harness(client, stream)
    # the harness: only native calls, the two it needed, in order, and the model's final text
    native_calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for m in harness
        for c in m.get("tool_calls") or []
    ]
    assert [name for name, _ in native_calls] == ["get_weather", "send_email"]
    assert harness[-1]["content"] == "Done: Bob has the weather."
    # the model: only the variant's tools, a well-formed variant-level history
    variant_tools = Variant.build(variant, ActionSpace.from_openai_tools(NATIVE_TOOLS)).openai_tools
    assert variant_tools != NATIVE_TOOLS
    for request in upstream.requests:
        assert request["tools"] == variant_tools
        shown = {t["function"]["name"] for t in request["tools"]}
        assert "stream" not in request
        called = {c["function"]["name"] for m in request["messages"] for c in m.get("tool_calls") or []}
        assert called <= shown
    final = upstream.requests[-1]["messages"]
    assert_well_formed(final)
    contents = [m["content"] for m in final if m["role"] == "tool"]
    assert json.dumps(WEATHER) in contents  # the harness's own result, shown under the model's call id
    assert len(upstream.requests) == UPSTREAM_CALLS[variant]
    if variant == "merge":  # the rejection went to the model, never to the harness; it asked again
        assert any("get_forecast" in c for c in contents if "error" in c)
    if variant == "transaction":  # begin and every set answered by the proxy, the commit's result from the harness
        assert sum('"txn_id"' in c and '"set"' not in c for c in contents) == 2  # two begins
        assert sum('"set"' in c for c in contents) == 4
    if variant == "reference":
        assert sum('"handle"' in c for c in contents) == 3
    if variant == "discovery":
        assert sum('"methods"' in c for c in contents) == 1
    # both sides recorded: one line per harness request
    lines = [json.loads(line) for line in (tmp_path / PROXY_LOG_FILE).read_text().splitlines()]
    assert len(lines) == 3
    for line in lines:
        assert {t["function"]["name"] for t in line["harness_request"]["tools"]} == NATIVE
        assert all(u["request"]["tools"] == variant_tools for u in line["upstream"])
        assert line["status"] == 200 and line["harness_response"]["choices"][0]["message"]
    assert sum(len(line["upstream"]) for line in lines) == len(upstream.requests)
    outcomes = [d["outcome"] for line in lines for d in line["decisions"]]
    assert outcomes.count("executed") == 2
    assert ("rejected" in outcomes) == (variant == "merge") and ("answered" in outcomes) == (variant != "merge")


def test_unissued_native_history_is_encoded(tmp_path: Path) -> None:
    """A native call the proxy never issued (a harness's few-shot turn) reaches the model as the
    encoder's begin/set/commit, with the harness's result on the commit."""
    with (
        MockUpstream(lambda body: (200, assistant(content="ok"))) as upstream,
        proxy_client(upstream, "transaction", tmp_path) as client,
    ):
        history = [
            {"role": "user", "content": "weather?"},
            assistant(call("h1", "get_weather", {"city": "Paris", "unit": "c"})),
            {"role": "tool", "tool_call_id": "h1", "content": json.dumps(WEATHER)},
            {"role": "user", "content": "thanks"},
        ]
        response = client.post("/v1/chat/completions", json={"model": "m", "messages": history, "tools": NATIVE_TOOLS})
    assert response.json()["choices"][0]["message"]["content"] == "ok"
    sent = upstream.requests[0]["messages"]
    assert_well_formed(sent)
    names = [c["function"]["name"] for m in sent for c in m.get("tool_calls") or []]
    assert names[0] == "begin_get_weather" and names[-1] == "commit_get_weather" and "get_weather" not in names
    commit_id = next(
        c["id"] for m in sent for c in m.get("tool_calls") or [] if c["function"]["name"] == "commit_get_weather"
    )
    assert next(m["content"] for m in sent if m.get("tool_call_id") == commit_id) == json.dumps(WEATHER)
    assert sent[-1] == {"role": "user", "content": "thanks"}


def test_output_perturbation_reaches_the_model_only(tmp_path: Path) -> None:
    with (
        MockUpstream(merge_model) as upstream,
        proxy_client(upstream, "merge", tmp_path, perturb=["C1:light"]) as client,
    ):
        harness = run_harness(client, stream=False)
    assert json.dumps(WEATHER) in [m["content"] for m in harness if m["role"] == "tool"]  # the harness's own
    shown = [json.loads(m["content"]) for m in upstream.requests[-1]["messages"] if m["role"] == "tool"]
    weather = next(r for r in shown if "temp_c" in r)
    assert "_trace_id" in weather and list(weather)[:3] == list(reversed(list(WEATHER)))
    lines = [json.loads(line) for line in (tmp_path / PROXY_LOG_FILE).read_text().splitlines()]
    assert lines[-1]["injections"] and lines[-1]["injections"][0]["subtype"] == "C1"
    assert not lines[0]["injections"]  # no tool result yet, nothing changed


def test_protocol_loop_is_bounded(tmp_path: Path) -> None:
    """A model that only ever begins transactions: the proxy stops after max_rounds model calls
    and ends the turn with the paper's text; the harness never sees a begin."""
    never_commits = lambda body: (200, assistant(call(f"b{len(body['messages'])}", "begin_get_weather", {})))  # noqa: E731
    with (
        MockUpstream(never_commits) as upstream,
        proxy_client(upstream, "transaction", tmp_path, max_rounds=3) as client,
    ):
        body = client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": NATIVE_TOOLS},
        ).json()
    assert len(upstream.requests) == 3
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "I was unable to complete the tool calls."}
    assert body["usage"]["total_tokens"] == 45  # summed over the three model calls


@contextlib.contextmanager
def served(config: ProxyConfig) -> Iterator[str]:
    """The proxy served by uvicorn (what ``toolprism proxy`` runs) on a free 127.0.0.1 port; yields its base URL."""
    uvicorn = pytest.importorskip("uvicorn")
    server = uvicorn.Server(uvicorn.Config(create_proxy_app(config), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            thread.join(0.05)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


def test_served_by_uvicorn_on_a_free_port(tmp_path: Path) -> None:
    """The same harness against the proxy served by uvicorn, over real HTTP."""
    with MockUpstream(transaction_model) as upstream:
        with served(ProxyConfig(upstream=upstream.url, variant="transaction", log_dir=tmp_path)) as url:
            with httpx.Client(base_url=url, timeout=30) as client:
                harness = run_harness(client, stream=True)
    assert [c["function"]["name"] for m in harness for c in m.get("tool_calls") or []] == ["get_weather", "send_email"]
    assert len((tmp_path / PROXY_LOG_FILE).read_text().splitlines()) == 3


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_the_official_openai_client_as_harness(stream: bool) -> None:
    """The ``openai`` package (when installed) reads the proxy's answers, streamed or not."""
    openai = pytest.importorskip("openai")
    with MockUpstream(merge_model) as upstream, served(ProxyConfig(upstream=upstream.url, variant="merge")) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="test", max_retries=0)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Email bob the weather in Paris."}]
        for _ in range(4):
            if stream:
                calls: dict[int, dict[str, Any]] = {}
                text = ""
                for chunk in client.chat.completions.create(
                    model="m", messages=messages, tools=NATIVE_TOOLS, stream=True
                ):
                    for choice in chunk.choices:
                        text += choice.delta.content or ""
                        for part in choice.delta.tool_calls or []:
                            slot = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                            slot["id"] += part.id or ""
                            slot["name"] += part.function.name or ""
                            slot["arguments"] += part.function.arguments or ""
                got = [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())]
            else:
                message = (
                    client.chat.completions.create(model="m", messages=messages, tools=NATIVE_TOOLS).choices[0].message
                )
                text = message.content or ""
                got = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
            if not got:
                break
            messages.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in got
                    ],
                }
            )
            messages += [
                {"role": "tool", "tool_call_id": i, "content": json.dumps(execute(n, json.loads(a)))} for i, n, a in got
            ]
    assert text == "Done: Bob has the weather."
    assert [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []] == ["get_weather", "send_email"]


@pytest.mark.parametrize("control", ["strict", "paper", "loose"])
def test_control_decides_what_reaches_the_harness(control: str, tmp_path: Path) -> None:
    """Under merge the model calls the native name ``get_weather``, which merge does not show:
    strict and paper reject it (to the model, in their own words), loose runs it natively."""

    def model(body: dict[str, Any]) -> tuple[int, Any]:
        if body["messages"][-1]["role"] == "tool":
            return 200, assistant(content="gave up")
        return 200, assistant(call("n1", "get_weather", {"city": "Paris", "unit": "c"}))

    ask = {"model": "m", "messages": [{"role": "user", "content": "weather?"}], "tools": NATIVE_TOOLS}
    with MockUpstream(model) as upstream, proxy_client(upstream, "merge", tmp_path, control=control) as client:
        message = client.post("/v1/chat/completions", json=ask).json()["choices"][0]["message"]
    if control == "loose":
        assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]
        assert len(upstream.requests) == 1
        return
    assert message == {"role": "assistant", "content": "gave up"}
    error = json.loads(upstream.requests[1]["messages"][-1]["content"])["error"]
    assert (
        error.startswith("call rejected: unknown tool") if control == "strict" else error.startswith("Unknown function")
    )


def test_convention_and_tool_choice_are_rewritten(tmp_path: Path) -> None:
    forced = {"type": "function", "function": {"name": "get_weather"}}
    ask = {
        "model": "m",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "weather?"}],
        "tools": NATIVE_TOOLS,
        "tool_choice": forced,
    }
    with MockUpstream(lambda body: (200, assistant(content="ok"))) as upstream:
        with proxy_client(upstream, "transaction", tmp_path, convention=True) as client:
            client.post("/v1/chat/completions", json=ask)
        with proxy_client(upstream, "reference", tmp_path) as client:
            client.post("/v1/chat/completions", json=ask)
    under_transaction, under_reference = upstream.requests
    convention = Variant.build("transaction", ActionSpace.from_openai_tools(NATIVE_TOOLS)).convention()
    assert convention and under_transaction["messages"][0]["content"] == f"Be brief.\n\n{convention}"
    assert under_transaction["tool_choice"] == "required"  # begin_get_weather, not get_weather, is shown
    assert under_reference["tool_choice"] == forced and under_reference["messages"][0]["content"] == "Be brief."
