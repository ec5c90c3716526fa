"""The OpenAI-compatible schema proxy: put a variant in front of any agent harness.

::

    harness --POST /v1/chat/completions (native tools)--> proxy --(variant tools)--> upstream model
            <-- native tool calls ------------------------      <-- variant tool calls --

Per request the proxy (an ASGI app: starlette, served by uvicorn; httpx to the upstream):

1. builds the action space of the request's ``tools`` (:meth:`ActionSpace.from_openai_tools`) and
   the variant over it (:meth:`Variant.build`, cached per tools hash), and sends the variant's tools;
2. rebuilds the history in variant vocabulary (:class:`~toolprism.interop._proxy_state.Translator`):
   what the model really said and was told, including the protocol calls the proxy answered;
3. decodes the model's calls through an :class:`~toolprism.shaping.AdapterSession` under the chosen
   control: a call that decodes to a native action goes to the harness as a native tool call; a
   protocol-only call (``begin``/``set``, ``resolve``, ``list_methods``) is answered by the proxy and
   a rejected call gets its rejection, both shown to the model only, and the proxy asks the model
   again, up to ``max_rounds`` model calls per harness request;
4. optionally changes the harness's tool results on their way to the model (family C,
   :mod:`toolprism.interop._proxy_faults`);
5. streams the result as server-sent events when the client asks (``stream: true``; the upstream is
   always asked without streaming, see :mod:`toolprism.interop._proxy_wire`);
6. logs both sides, one JSON line per harness request, to ``LOG_DIR/proxy.jsonl``
   (:class:`~toolprism.interop._proxy_wire.ExchangeRecord`).

Source: the Action-Space Shaping paper's proxy (``toolschema/proxy.py`` of its code) does steps 1-3
and 5 the same way: splices per-conversation variant transcripts keyed by the native call ids it
issued (and text turns by their hash), re-queries up to 16 times per harness turn, and, when those
run out, ends the turn with the text :data:`EXHAUSTED`. toolprism's differences: the adapter and
controls are toolprism's (``paper`` is the paper's hard control); a native assistant message the
proxy did not issue is re-encoded by the variant's encoder; the adapter's protocol state is restored
from the segment of the latest known turn, so a harness that branches a conversation stays
consistent; the paper's proxy prepends its tool instruction by default, toolprism only with
``convention=True`` (the variant's :meth:`~toolprism.shaping.Variant.convention`); a ``tools``-less
request passes through unchanged; the request's ``n`` is dropped (one choice is decoded).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
from pydantic import BaseModel, ConfigDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolprism.errors import ConfigError
from toolprism.interop._proxy_faults import ReplyFaults, proxy_perturbations
from toolprism.interop._proxy_state import (
    Message,
    Translator,
    VariantCache,
    digest,
    new_segments,
    text_key,
)
from toolprism.interop._proxy_wire import (
    ExchangeLog,
    ExchangeRecord,
    UpstreamCall,
    add_usage,
    completion,
    error_body,
    sse_events,
)
from toolprism.perturb import Perturbation
from toolprism.shaping import CONTROLS, Control, Decision, parse_spec, resolve

MAX_ROUNDS = 16
"""Model calls per harness request, the paper's proxy's default (``--max-inner 16``)."""

EXHAUSTED = "I was unable to complete the tool calls."
"""The text a harness request ends with when its model calls run out (the paper's proxy's)."""

FORWARDED_HEADERS = ("authorization", "openai-organization", "openai-project")
"""Request headers passed on to the upstream (the harness's credentials are the upstream's)."""


class ProxyConfig(BaseModel):
    """What ``toolprism proxy`` runs with.

    Attributes:
        upstream: the model endpoint's OpenAI base URL (``http://127.0.0.1:8000/v1``); the proxy
            posts to ``{upstream}/chat/completions`` and reads ``{upstream}/models``.
        variant: a suite name or a pipeline spec (``merge``, ``transaction(setters=tool)``, ...).
        control: the adapter control, ``strict`` (default), ``paper`` or ``loose``.
        perturb: tool-output perturbation terms (``C1:medium``; family C only).
        seed: seed of the perturbations.
        log_dir: where ``proxy.jsonl`` is written; None: no log.
        max_rounds: model calls per harness request (protocol-only and rejected calls re-ask).
        timeout_s: seconds one upstream call may take.
        convention: add the variant's calling-convention sentences to the system message.
    """

    model_config = ConfigDict(extra="forbid")

    upstream: str
    variant: str
    control: str = "strict"
    perturb: list[str] = []
    seed: int = 0
    log_dir: Path | None = None
    max_rounds: int = MAX_ROUNDS
    timeout_s: float = 600.0
    convention: bool = False

    def checked(self) -> list[Perturbation]:
        """Check every setting; returns the parsed perturbations.

        Raises:
            ConfigError: listing every problem (a URL that is not http(s) with a host, a variant
                spec that does not parse, an unknown control, a perturbation the proxy cannot
                apply, a bound below 1).
        """
        problems: list[str] = []
        url = urlparse(self.upstream)
        if url.scheme not in ("http", "https") or not url.hostname:
            problems.append(f"--upstream {self.upstream!r}: expected an http(s) URL such as http://127.0.0.1:8000/v1")
        try:
            parse_spec(resolve(self.variant))
        except ConfigError as e:
            problems += [f"--variant {self.variant!r}: {p}" for p in e.problems]
        if self.control not in CONTROLS:
            problems.append(f"--control {self.control!r}: expected one of {', '.join(CONTROLS)}")
        perturbations: list[Perturbation] = []
        try:
            perturbations = proxy_perturbations(self.perturb)
        except ConfigError as e:
            problems += [f"--perturb: {p}" for p in e.problems]
        if self.max_rounds < 1:
            problems.append(f"--max-rounds {self.max_rounds}: must be at least 1")
        if self.timeout_s <= 0:
            problems.append(f"--timeout {self.timeout_s}: must be positive")
        if problems:
            raise ConfigError(problems, what="proxy settings")
        return perturbations


class _HttpError(Exception):
    """An answer to the harness other than a completion: a status and an OpenAI-style error body."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status, self.body = status, body


def _request_error(message: str, code: str) -> _HttpError:
    return _HttpError(400, error_body(message, kind="invalid_request_error", code=code))


@dataclass
class _Proxy:
    """The app's state: settings, caches, the segment memory, the log, the upstream client."""

    config: ProxyConfig
    perturbations: list[Perturbation]
    variants: VariantCache
    segments: Any = field(default_factory=new_segments)
    log: ExchangeLog | None = None
    _client: httpx.AsyncClient | None = None

    @property
    def base(self) -> str:
        return self.config.upstream.rstrip("/")

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.config.timeout_s)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def upstream(self, method: str, path: str, body: Any, headers: dict[str, str], record: ExchangeRecord) -> Any:
        """One upstream call; its request and response go into ``record``.

        Raises:
            _HttpError: 504 on a timeout, 502 when unreachable or the body is not JSON, the
                upstream's own status (and error body, when it is OpenAI-style) on a non-2xx answer.
        """
        url = f"{self.base}{path}"
        call = UpstreamCall(request=body if isinstance(body, dict) else {})
        record.upstream.append(call)
        started = time.perf_counter()
        try:
            response = await self.client().request(method, url, json=body, headers=headers)
        except httpx.TimeoutException:
            call.error = f"no answer within {self.config.timeout_s:g} s"
            failure = error_body(f"upstream {url}: {call.error}", kind="upstream_error", code="timeout")
            raise _HttpError(504, failure) from None
        except httpx.HTTPError as e:
            call.error = f"unreachable ({type(e).__name__}: {e})"
            failure = error_body(f"upstream {url}: {call.error}", kind="upstream_error", code="unreachable")
            raise _HttpError(502, failure) from None
        finally:
            call.latency_ms = (time.perf_counter() - started) * 1000
        call.status = response.status_code
        try:
            data = response.json()
        except ValueError:
            data = None
        call.response = data if data is not None else response.text[:2000]
        if not response.is_success:
            upstream_error = isinstance(data, dict) and isinstance(data.get("error"), dict)
            message = f"upstream {url} answered HTTP {response.status_code}: {response.text[:500]}"
            body = data if upstream_error else error_body(message, kind="upstream_error", code="upstream_status")
            raise _HttpError(response.status_code, body)
        if data is None:
            message = f"upstream {url} answered with a body that is not JSON: {response.text[:200]!r}"
            raise _HttpError(502, error_body(message, kind="upstream_error", code="upstream_malformed"))
        return data


def _headers(request: Request) -> dict[str, str]:
    return {k: v for k, v in request.headers.items() if k.lower() in FORWARDED_HEADERS}


def _message(data: Any, url: str) -> tuple[Message, str | None]:
    """``choices[0].message`` and its ``finish_reason`` of an upstream completion.

    Raises:
        _HttpError: 502 when the completion has no message object or malformed ``tool_calls``.
    """
    try:
        choice = data["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
        calls = message.get("tool_calls")
        if calls is not None and not (isinstance(calls, list) and all(isinstance(c, dict) for c in calls)):
            raise TypeError("tool_calls is not a list of objects")
    except (KeyError, IndexError, TypeError) as e:
        text = f"upstream {url} answered a malformed chat completion ({e}): {str(data)[:300]}"
        raise _HttpError(502, error_body(text, kind="upstream_error", code="upstream_malformed")) from None
    return message, choice.get("finish_reason")


def _decision_json(decision: Decision) -> dict[str, Any]:
    return {
        "call": {**decision.call.to_json(), "id": decision.call.id},
        "outcome": decision.outcome,
        "action": decision.action.to_json() if decision.action else None,
        "reply": decision.reply,  # None for a call passed on to the harness (its result comes later)
        "rejection": str(decision.rejection) if decision.rejection else None,
        "layer": decision.layer,
    }


def _read_request(body: Any) -> tuple[list[Message], list[Any] | None]:
    """The request's messages and tools, checked.

    Raises:
        _HttpError: 400 listing what is wrong.
    """
    if not isinstance(body, dict):
        raise _request_error("the request body must be a JSON object", "invalid_body")
    messages, tools = body.get("messages"), body.get("tools")
    problems = []
    if not isinstance(messages, list) or not messages:
        problems.append("'messages' must be a non-empty list")
    elif not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages):
        problems.append("every message must be an object with a 'role'")
    if tools is not None and not isinstance(tools, list):
        problems.append("'tools' must be a list")
    if problems:
        raise _request_error("; ".join(problems), "invalid_request")
    return messages, tools or None


async def _chat(proxy: _Proxy, request: Request, record: ExchangeRecord) -> dict[str, Any]:
    """Answer one harness request with a ``chat.completion`` (or raise :class:`_HttpError`)."""
    try:
        body = await request.json()
    except ValueError:
        raise _request_error("the request body is not JSON", "invalid_json") from None
    record.harness_request = body
    messages, tools = _read_request(body)
    headers = _headers(request)
    outgoing = {k: v for k, v in body.items() if k not in ("stream", "stream_options", "n")}
    if tools is None:  # nothing to rewrite
        data = await proxy.upstream("POST", "/chat/completions", outgoing, headers, record)
        _message(data, proxy.base)
        return data
    try:
        variant = proxy.variants.variant(tools)
    except ConfigError as e:
        message = f"variant {proxy.config.variant!r} does not apply to this request's tools: {e}"
        raise _request_error(message, "variant_not_applicable") from None
    record.variant = variant.spec
    space = variant.layers[0].space  # type: ignore[attr-defined]
    faults = ReplyFaults(proxy.perturbations, space, proxy.config.seed) if proxy.perturbations else None
    translator = Translator(variant, proxy.config.control, proxy.segments, faults)  # type: ignore[arg-type]
    history = _with_convention(translator.history(messages), variant.convention() if proxy.config.convention else "")
    if faults is not None:
        record.injections = [i.model_dump(mode="json") for i in faults.injections]
    outgoing["tools"] = variant.openai_tools
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and (choice.get("function") or {}).get("name") not in variant.top.tool_index:
        outgoing["tool_choice"] = "required"  # a native tool name the variant does not show
    usage: dict[str, int] = {}
    pending: list[Message] = []
    data: dict[str, Any] = {}
    for _ in range(proxy.config.max_rounds):
        asked = {**outgoing, "messages": history + pending}
        data = await proxy.upstream("POST", "/chat/completions", asked, headers, record)
        message, finish = _message(data, proxy.base)
        add_usage(usage, data)
        calls = [
            c if c.get("id") else {**c, "id": f"call_v{digest([history, pending, i])}"}
            for i, c in enumerate(message.get("tool_calls") or [])
        ]
        said: Message = {"role": "assistant", "content": message.get("content")}
        if calls:
            said["tool_calls"] = calls
        if not calls:
            translator.remember([text_key(Translator.anchor(messages), said["content"])], [*pending, said])
            return completion(data, {"role": "assistant", "content": said["content"]}, finish or "stop", usage)
        turn = translator.decode(calls, [f"call_{digest([history, pending, said, i])}" for i in range(len(calls))])
        record.decisions += [_decision_json(d) for d in turn.decisions]
        if turn.natives:
            translator.remember([n.id for n in turn.natives], [*pending, said, *turn.replies], turn.natives)
            answer = {"role": "assistant", "content": said["content"], "tool_calls": [n.wire() for n in turn.natives]}
            return completion(data, answer, "tool_calls", usage)
        pending += [said, *turn.replies]
    said = {"role": "assistant", "content": EXHAUSTED}
    translator.remember([text_key(Translator.anchor(messages), EXHAUSTED)], [*pending, said])
    return completion(data, said, "stop", usage)


def _with_convention(messages: list[Message], convention: str) -> list[Message]:
    """``messages`` with ``convention`` appended to the system message (one added if there is none)."""
    if not convention:
        return messages
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        return [{**messages[0], "content": f"{messages[0]['content']}\n\n{convention}"}, *messages[1:]]
    return [{"role": "system", "content": convention}, *messages]


def create_app(config: ProxyConfig) -> Starlette:
    """The proxy as an ASGI app (serve it with uvicorn, or test it with starlette's TestClient).

    Routes: ``POST /v1/chat/completions`` (and ``/chat/completions``), ``GET /v1/models`` (and
    ``/models``, passed through to the upstream).

    Raises:
        ConfigError: a setting is wrong (see :meth:`ProxyConfig.checked`).
    """
    perturbations = config.checked()
    proxy = _Proxy(
        config,
        perturbations,
        VariantCache(config.variant),
        log=ExchangeLog(config.log_dir) if config.log_dir is not None else None,
    )

    def record_for(request: Request) -> ExchangeRecord:
        now = datetime.now(UTC).isoformat(timespec="milliseconds")
        return ExchangeRecord(time=now, path=request.url.path, variant=config.variant, control=config.control)

    def finish(record: ExchangeRecord, status: int, body: Any) -> None:
        record.status, record.harness_response = status, body
        if proxy.log is not None:
            proxy.log.write(record)

    async def chat(request: Request) -> Response:
        record = record_for(request)
        try:
            body = await _chat(proxy, request, record)
        except _HttpError as e:
            finish(record, e.status, e.body)
            return JSONResponse(e.body, status_code=e.status)
        except Exception as e:  # noqa: BLE001 - a bug must reach the harness as an error, not a traceback
            failure = error_body(f"proxy error: {type(e).__name__}: {e}", kind="proxy_error", code="internal")
            finish(record, 500, failure)
            return JSONResponse(failure, status_code=500)
        finish(record, 200, body)
        asked = record.harness_request if isinstance(record.harness_request, dict) else {}
        if asked.get("stream"):
            options = asked.get("stream_options") if isinstance(asked.get("stream_options"), dict) else {}
            events = sse_events(body, bool(options.get("include_usage")))
            return StreamingResponse(iter(events), media_type="text/event-stream")
        return JSONResponse(body)

    async def models(request: Request) -> Response:
        record = record_for(request)
        try:
            body = await proxy.upstream("GET", "/models", None, _headers(request), record)
        except _HttpError as e:
            finish(record, e.status, e.body)
            return JSONResponse(e.body, status_code=e.status)
        finish(record, 200, body)
        return JSONResponse(body)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await proxy.aclose()

    routes = [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/chat/completions", chat, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/models", models, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.proxy = proxy
    return app


def serve(config: ProxyConfig, *, host: str = "127.0.0.1", port: int = 8100) -> None:
    """Run the proxy with uvicorn until interrupted.

    Raises:
        ConfigError: a setting is wrong.
    """
    import uvicorn

    uvicorn.run(create_app(config), host=host, port=port, log_level="warning")


__all__ = ["EXHAUSTED", "MAX_ROUNDS", "Control", "ProxyConfig", "create_app", "serve"]
