"""Cost of the log-probability probes on a transformers model (``HFScorer``), with and without
prefix reuse, at one retail fault-arm site (Xu et al.'s arms C, F, Ns, Nm).

For each configuration, a fresh scorer computes S0/S1/G and the legal-action distribution
(16 tools + reply: 17 continuations) at the site, and the script prints wall seconds, sequences
scored, tokens evaluated and tokens reused:

- one arm (C), prefix reuse on;
- the four arms consecutively (as the fault study orders them), prefix reuse on;
- one arm with reuse off (every sequence from its first token) with ``--no-reuse`` (slow: 19
  sequences of the whole site context). Without it, what reuse saves is still exact in tokens:
  a sequence evaluates ``len - 1`` tokens without reuse, ``evaluated + reused`` with it;
- one continuation after the cold site context vs the whole action distribution.

The model: ``--model DIR`` (a transformers directory with a tool-aware chat template), or
``--convert-embedded DIR`` to first write the embedded SmolLM2-135M-Instruct there, read from
its GGUF file by transformers (needs the ``gguf`` package; weights dequantised to float32) with
the Hermes-style tool template of the tests (the GGUF's own template renders no tools; the
embedded backend renders tools itself).

    PYTHONPATH=src python benchmarks/probe_hf.py --convert-embedded /tmp/smollm2-hf
    PYTHONPATH=src python benchmarks/probe_hf.py --model /tmp/smollm2-hf
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from toolprism.backends import HFBackend
from toolprism.domains import get_domain
from toolprism.perturb import fault_arms
from toolprism.probes import action_distribution, surprisal
from toolprism.probes._hf import HFScorer
from toolprism.run import EpisodeSpec, initial_messages
from toolprism.shaping import Variant

SITE_TOOL = "get_order_details"


def convert_embedded(out: Path) -> Path:
    """Write SmolLM2-135M-Instruct (the embedded model's GGUF, dequantised) as a transformers
    directory with the tests' tool template."""
    import torch
    import transformers

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from _tiny_hf import CHAT_TEMPLATE

    from toolprism.backends._embedded import MODELS, resolve_model_path

    gguf = resolve_model_path(MODELS["smollm2"])
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = transformers.AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
    )
    config = loaded.config.to_dict()
    config.pop("quantization_config", None)  # a GGUF-loaded model refuses save_pretrained
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**config))
    model.load_state_dict(loaded.state_dict())
    tokenizer.chat_template = CHAT_TEMPLATE
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def site_arms() -> tuple[list[dict], list[dict], dict[str, list[dict]]]:
    """``(tools, prefix messages, arm -> messages up to the site's return)`` for the first retail
    task with a ``get_order_details`` site, built as an episode builds them (native variant)."""
    domain = get_domain("retail")
    variant = Variant.build("native", domain.action_space())
    for task in domain.tasks(0):
        site = fault_arms(domain, task, SITE_TOOL)
        if site is not None and len(site.arms) == 4:
            break
    messages = initial_messages(EpisodeSpec(domain, task, variant, 0))
    steps = [*site.prefix, {"action": site.call, "reply": None}]
    for i, step in enumerate(steps, 1):
        action = step["action"]
        call = {"name": action["op"], "arguments": json.dumps(action["args"])}
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"call_{i}", "type": "function", "function": call}],
            }
        )
        if step["reply"] is not None:
            messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": _content(step["reply"])})
    arms = {
        name: [*messages, {"role": "tool", "tool_call_id": f"call_{len(steps)}", "content": _content(arm.payload)}]
        for name, arm in site.arms.items()
    }
    return list(variant.openai_tools), messages, arms


def _content(reply: object) -> str:
    return json.dumps(reply, sort_keys=True, separators=(",", ":"), ensure_ascii=False)  # run/_episode.py


def probe(scorer: HFScorer, tools: list[dict], arms: dict[str, list[dict]], names: list[str]) -> dict:
    started = time.perf_counter()
    for name in names:
        messages = arms[name]
        surprisal(scorer, messages, tools, len(messages) - 1)
        action_distribution(scorer, messages, tools)
    return _row(scorer, started)


def _row(scorer: HFScorer, started: float) -> dict:
    stats = scorer.stats
    total = stats.evaluated_tokens + stats.reused_tokens
    return {"wall_s": round(time.perf_counter() - started, 2), **vars(stats), "tokens_without_reuse": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="a transformers model directory with a tool chat template")
    parser.add_argument("--convert-embedded", type=Path, help="write the embedded model there first, then use it")
    parser.add_argument("--no-reuse", action="store_true", help="also time one arm without reuse (slow)")
    args = parser.parse_args()
    path = convert_embedded(args.convert_embedded) if args.convert_embedded else args.model
    if path is None:
        parser.error("give --model DIR or --convert-embedded DIR")
    backend = HFBackend(path, device="cpu", dtype="float32")
    tools, prefix, arms = site_arms()
    context = backend.render(prefix[:-1], tools)
    print(f"model {path}; site context {len(backend.token_ids(context))} tokens; {len(tools)} tools")

    rows = {
        "1 arm, reuse": probe(HFScorer(backend), tools, arms, ["C"]),
        "4 arms, reuse": probe(HFScorer(backend), tools, arms, list(arms)),
    }
    if args.no_reuse:
        rows["1 arm, no reuse"] = probe(HFScorer(backend, reuse=False), tools, arms, ["C"])
    site = backend.render(arms["C"], tools)
    for label, continuations in [("1 continuation, cold", ["<tool_call>"]), ("17 continuations, cold", None)]:
        scorer = HFScorer(backend)
        started = time.perf_counter()
        if continuations is None:
            action_distribution(scorer, arms["C"], tools)
        else:
            scorer.score(site, continuations)
        rows[label] = _row(scorer, started)
    for label, row in rows.items():
        print(f"{label:26} {json.dumps(row)}")
    one, four = rows["1 arm, reuse"], rows["4 arms, reuse"]
    print(f"4 arms / 1 arm (reuse): {four['wall_s'] / one['wall_s']:.2f}x wall")
    print(
        f"4 arms, tokens evaluated with / without reuse: {four['evaluated_tokens'] / four['tokens_without_reuse']:.3f}"
    )
    if "1 arm, no reuse" in rows:
        print(f"1 arm, no reuse / reuse: {rows['1 arm, no reuse']['wall_s'] / one['wall_s']:.2f}x wall")


if __name__ == "__main__":
    main()
