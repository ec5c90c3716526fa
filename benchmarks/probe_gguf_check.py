"""The embedded model's probe values against a second implementation: transformers reading the
same GGUF file (:class:`toolprism.probes._gguf_reference.GGUFReferenceScorer`), on the same token ids.

At retail decision points (the fault arms of the first ``--sites`` tasks, default 1, with a
``get_order_details`` site; S0, S1, G as Xu et al. II.B, computed as ``surprisal`` does), prints
the per-token log-probability differences over the returns' tokens under the schema alone and
under the whole prefix (max, percentiles, mean |diff|, nats), the largest differences of S0, S1,
G (nats per token) and of the legal-action distribution (entropy, nats; largest probability
difference). The tolerances in tests/probes/test_llama_gguf.py come from here.

    PYTHONPATH=src python benchmarks/probe_gguf_check.py [--sites 1] [--model smollm2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_prefix import retail_sites  # noqa: E402

from toolprism.backends._embedded import EmbeddedBackend  # noqa: E402
from toolprism.probes import action_distribution, schema_only_messages, turn_span  # noqa: E402
from toolprism.probes._gguf_reference import GGUFReferenceScorer  # noqa: E402
from toolprism.probes._llama import LlamaScorer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--sites", type=int, default=1)
    parser.add_argument("--arms", type=int, default=4, help="sites with at least this many arms")
    args = parser.parse_args()
    llama = LlamaScorer(EmbeddedBackend(args.model))
    started = time.perf_counter()
    reference = GGUFReferenceScorer(llama)
    print(f"transformers loaded the GGUF file in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    token_diffs: list[float] = []
    channel = {"S0": [], "S1": [], "G": [], "S0_first": [], "S1_first": [], "entropy": [], "max |dp|": []}
    points = 0
    for tools, arms in retail_sites(arms=args.arms, limit=args.sites):
        for arm, messages in arms.items():
            index = len(messages) - 1
            text = messages[index]["content"]
            s1_context, _ = turn_span(llama, messages, tools, index, text)
            s0_messages = schema_only_messages(messages, index)
            name = s0_messages[0]["tool_calls"][0]["function"]["name"]
            s0_tools = [t for t in tools if t["function"]["name"] == name]
            s0_context, _ = turn_span(llama, s0_messages, s0_tools, 1, text)
            (a0,), (a1,) = llama.score(s0_context, [text]), llama.score(s1_context, [text])
            (b0,), (b1,) = reference.score(s0_context, [text]), reference.score(s1_context, [text])
            assert a1.token_ids == b1.token_ids and a0.token_ids == b0.token_ids
            token_diffs += list(np.abs(np.array(a1.logprobs) - np.array(b1.logprobs)))
            token_diffs += list(np.abs(np.array(a0.logprobs) - np.array(b0.logprobs)))
            sa = (a0.mean_surprisal, a1.mean_surprisal, a0.first_surprisal, a1.first_surprisal)
            sb = (b0.mean_surprisal, b1.mean_surprisal, b0.first_surprisal, b1.first_surprisal)
            channel["S0"].append(abs(sa[0] - sb[0]))
            channel["S1"].append(abs(sa[1] - sb[1]))
            channel["G"].append(abs((sa[1] - sa[0]) - (sb[1] - sb[0])))
            channel["S0_first"].append(abs(sa[2] - sb[2]))
            channel["S1_first"].append(abs(sa[3] - sb[3]))
            da, db = action_distribution(llama, messages, tools), action_distribution(reference, messages, tools)
            channel["entropy"].append(abs(da.entropy - db.entropy))
            channel["max |dp|"].append(max(abs(da.probs[k] - db.probs[k]) for k in da.probs))
            points += 1
            print(
                f"{arm:>3}: S1 {sa[1]:.4f} vs {sb[1]:.4f}, S0 {sa[0]:.4f} vs {sb[0]:.4f}, "
                f"H {da.entropy:.4f} vs {db.entropy:.4f}, leader {da.leader} vs {db.leader}",
                file=sys.stderr,
            )
    d = np.array(token_diffs)
    print(f"model {llama.name}: {points} decision points, {len(d)} return tokens (S0 and S1 spans)")
    print(
        f"per-token |log p diff| (nats): max {d.max():.4f}, p99 {np.percentile(d, 99):.4f}, "
        f"p50 {np.median(d):.4f}, mean {d.mean():.4f}"
    )
    for name, values in channel.items():
        print(f"|{name} diff|: max {max(values):.4f}, mean {float(np.mean(values)):.4f}")


if __name__ == "__main__":
    main()
