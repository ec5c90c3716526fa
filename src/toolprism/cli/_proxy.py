"""``toolprism proxy``: an OpenAI-compatible schema proxy between any agent harness and its model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from toolprism.cli._common import friendly_errors
from toolprism.errors import ConfigError

INSTALL_HINT = "pip install 'toolprism[proxy]' (starlette and uvicorn)"


@friendly_errors
def proxy(
    upstream: Annotated[
        str,
        typer.Option(
            envvar="TOOLPRISM_PROXY_UPSTREAM",
            help="The model endpoint's OpenAI base URL, e.g. http://127.0.0.1:8000/v1.",
        ),
    ],
    variant: Annotated[
        str,
        typer.Option(
            envvar="TOOLPRISM_PROXY_VARIANT",
            help="A variant name ('merge', 'transaction', see 'toolprism variants') or a spec "
            "('merge(by=class,args=shared)|rename(style=opaque)').",
        ),
    ],
    control: Annotated[
        str,
        typer.Option(envvar="TOOLPRISM_CONTROL", help="Adapter control for invalid calls: strict, paper or loose."),
    ] = "strict",
    perturb: Annotated[
        list[str] | None,
        typer.Option(
            "--perturb",
            help="Tool-output perturbations (family C) applied to the harness's tool results on their way to the "
            "model, e.g. C1:medium (comma list or repeated; C2:heavy is not available).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the perturbations.")] = 0,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8100,
    log_dir: Annotated[
        Path | None,
        typer.Option(help="Write both sides of every request to LOG_DIR/proxy.jsonl (one JSON line per request)."),
    ] = None,
    max_rounds: Annotated[
        int, typer.Option(help="Model calls per harness request (protocol-only and rejected calls ask again).")
    ] = 16,
    timeout: Annotated[float, typer.Option(help="Seconds one upstream call may take.")] = 600.0,
    convention: Annotated[
        bool, typer.Option(help="Add the variant's calling-convention sentences to the system message.")
    ] = False,
) -> None:
    """Serve POST /v1/chat/completions (and pass GET /v1/models through) in front of UPSTREAM, showing the
    model the variant of each request's tools.

    Point the harness at http://HOST:PORT/v1. The model sees the variant's tools and its own
    variant-level history; the harness sees only native tool calls. Protocol-only calls (transaction
    begin/set, reference handles, discovery's list_methods) and rejected calls are answered by the proxy and
    the model is asked again, up to --max-rounds times. A client asking stream=true gets server-sent events
    (the upstream is asked without streaming). Upstream failures come back as OpenAI-style errors with the
    upstream's status (502 unreachable, 504 timeout); a variant that does not apply to a request's tools is
    a 400 error saying why.
    """
    try:
        import uvicorn  # noqa: F401

        from toolprism.interop import ProxyConfig, serve_proxy
    except ImportError as e:
        raise ConfigError(f"{e.name or e} is not installed: {INSTALL_HINT}", what="proxy dependencies") from None

    terms = [t for item in perturb or [] for t in item.split(",") if t.strip()]
    config = ProxyConfig(
        upstream=upstream,
        variant=variant,
        control=control,
        perturb=terms,
        seed=seed,
        log_dir=log_dir,
        max_rounds=max_rounds,
        timeout_s=timeout,
        convention=convention,
    )
    config.checked()
    print(f"toolprism proxy: http://{host}:{port}/v1 -> {upstream} (variant {variant}, {control})", file=sys.stderr)
    serve_proxy(config, host=host, port=port)
