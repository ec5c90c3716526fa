"""``python -m toolprism.testing [--port P] [--latency-ms MS] [--fault-rate R] ...``: serve a
:class:`~toolprism.testing.MockOpenAIServer` until interrupted; prints its base URL first.
With ``--stats-every S`` it prints requests served and the most in flight every S seconds."""

from __future__ import annotations

import argparse
import sys
import time

from toolprism.testing._mock import FAULTS, SCORING_MODES, MockOpenAIServer


def main(argv: list[str] | None = None) -> int:
    """Serve a :class:`MockOpenAIServer` on 127.0.0.1 until interrupted (Ctrl-C).

    Args:
        argv: command-line arguments (None: ``sys.argv[1:]``); see ``--help``.

    Returns:
        The exit status: 0 after Ctrl-C, 2 for settings the server refuses (argparse exits
        with 2 itself on malformed arguments).
    """
    parser = argparse.ArgumentParser(prog="python -m toolprism.testing", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="time per answer, milliseconds")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="share of requests with a fault, 0 to 1")
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"comma list of fault kinds ({','.join(FAULTS)})")
    parser.add_argument("--retry-after", default="0", help="Retry-After of a 429, seconds")
    parser.add_argument("--hang-s", type=float, default=1.0, help="how long a timeout fault holds a request")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scoring", choices=SCORING_MODES, default="vllm", help="vLLM scoring endpoints served")
    parser.add_argument("--stats-every", type=float, default=0.0, help="print stats every S seconds (0: never)")
    args = parser.parse_args(argv)
    try:
        server = MockOpenAIServer(
            latency_s=args.latency_ms / 1000,
            fault_rate=args.fault_rate,
            fault_mix=dict.fromkeys([f for f in args.faults.split(",") if f], 1.0),
            retry_after=args.retry_after,
            hang_s=args.hang_s,
            seed=args.seed,
            port=args.port,
            scoring=args.scoring,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(args.stats_every or 3600)
                if args.stats_every:
                    print(f"served={len(server.served)} max_in_flight={server.max_in_flight}", flush=True)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())
