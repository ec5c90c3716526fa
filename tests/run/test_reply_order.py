"""Tool replies are shown in the order they were written: deterministic across processes, and
ToolRobustBench's C1 light reordering reaches the model."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from toolprism.backends import OracleBackend
from toolprism.domains import get_domain
from toolprism.perturb import parse_perturbations, plan
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import Variant, reply_text

SCRIPT = """
import asyncio, hashlib, json
from toolprism.backends import OracleBackend
from toolprism.domains import domain_names, get_domain
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import Variant, reply_text
digest = hashlib.sha256()
async def main():
    for name in domain_names():
        domain = get_domain(name)
        variant = Variant.build("native", domain.action_space())
        for task in domain.tasks(0, limit=6):
            trace = await run_episode(EpisodeSpec(domain, task, variant, 0), OracleBackend())
            for message in trace.messages:
                if message["role"] == "tool":
                    digest.update(message["content"].encode())
asyncio.run(main())
print(digest.hexdigest())
"""


def test_reply_order_is_the_same_under_any_hash_seed() -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": src}
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_reply_text_keeps_the_written_order() -> None:
    assert reply_text({"b": 1, "a": {"d": 2, "c": "é"}}) == '{"b":1,"a":{"d":2,"c":"é"}}'


def test_c1_light_reordering_reaches_the_model() -> None:
    domain = get_domain("smart_home")
    variant = Variant.build("native", domain.action_space())
    task = next(t for t in domain.tasks(0, limit=40) if any(step.reply and len(step.reply) > 2 for step in t.reference))
    instances, skips = plan(task, domain.action_space(), parse_perturbations("C1:light"), 0)
    assert not skips
    clean = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), OracleBackend()))
    noisy = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0, tuple(instances)), OracleBackend()))
    target = noisy.injections[0]
    shown = [json.loads(m["content"]) for m in noisy.messages if m["role"] == "tool"]
    original = [json.loads(m["content"]) for m in clean.messages if m["role"] == "tool"]
    changed = [(a, b) for a, b in zip(original, shown, strict=True) if a != b]
    assert len(changed) == 1, target
    before, after = changed[0]
    assert list(after)[:-1] == list(reversed(list(before)))  # the fields reversed, then the noise field
