"""The BFCL verdict of an episode does not depend on the variant: right and wrong native outputs,
encoded into a variant's calls and played by a scripted model, get the verdict their native calls
get (``../shared/external/bfcl``; skipped when absent)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from _bfcl_cases import bfcl_output, wrong_outputs

from toolprism.backends import ModelTurn, RawCall, ScriptedBackend
from toolprism.errors import ToolprismError
from toolprism.interop import bfcl_check, bfcl_pack, read_bfcl, trace_calls
from toolprism.run import EpisodeSpec, run_episode
from toolprism.shaping import Variant

VARIANTS = ("native", "merge(by=full,args=flat)", "rename(style=opaque)")
KINDS = ("gold", "wrong_value", "extra_call", "missing_call")


@pytest.fixture(scope="module")
def data() -> Path:
    path = Path(__file__).resolve().parents[3] / "shared" / "external" / "bfcl"
    if not path.is_dir():
        pytest.skip("../shared/external/bfcl is not present")
    return path


@pytest.mark.parametrize("category", ["simple_python", "multiple", "parallel", "parallel_multiple"])
def test_episode_verdicts_equal_the_native_verdicts_under_every_variant(data: Path, category: str) -> None:
    seen: dict[tuple[str, bool], int] = {}
    for task in read_bfcl(data, category)[:4]:
        domain = bfcl_pack(task).domain()
        space, episode_task = domain.action_space(), domain.tasks()[0]
        names = {op.source_name: op.name for op in task.space.operations}
        for label, output in [("gold", bfcl_output(task)), *wrong_outputs(task)]:
            if label.split()[0] not in KINDS:
                continue
            try:
                actions = [space.action(names[n], a) for call in output for n, a in call.items()]
            except ToolprismError:
                continue  # the schema refuses it: the adapter would reject it under every variant
            expected = bfcl_check(task, [a.call() for a in actions])
            for spec in VARIANTS:
                variant = Variant.build(spec, space)
                calls = []
                for i, action in enumerate(actions):
                    call = next(variant.plan(action))  # one call per action for these variants
                    calls.append(RawCall(f"call_{i}", call.name, json.dumps(dict(call.arguments))))
                backend = ScriptedBackend([ModelTurn(raw="", calls=tuple(calls))])
                trace = asyncio.run(run_episode(EpisodeSpec(domain, episode_task, variant, 0), backend))
                verdict = bfcl_check(task, trace_calls(trace))
                assert (verdict.valid, verdict.error_type) == (expected.valid, expected.error_type), (
                    task.id,
                    label,
                    spec,
                )
                seen[(label.split()[0], verdict.valid)] = seen.get((label.split()[0], verdict.valid), 0) + 1
    assert seen.get(("gold", True)) and seen.get(("extra_call", False)) and seen.get(("wrong_value", False))
