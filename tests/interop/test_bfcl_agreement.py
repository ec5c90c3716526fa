"""toolprism's BFCL verdicts against BFCL's own checker, case by case (slow; needs ``bfcl-eval``).

BFCL's checker runs in a separate Python (``bfcl-eval`` pins numpy and pulls in every model SDK):
``TOOLPRISM_BFCL_PYTHON`` names it (e.g. a venv made with ``python3 -m venv /work/venv-bfcl &&
/work/venv-bfcl/bin/pip install --no-deps bfcl-eval filelock``); without it, this Python is used if
it has ``bfcl_eval``; otherwise the test skips. ``_bfcl_reference.py`` calls the checker as BFCL's
eval runner does. Every entry of the four AST categories gets right outputs and deliberately wrong
ones (``_bfcl_cases``); irrelevance gets no call and one call.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _bfcl_cases import right_outputs, wrong_outputs

from toolprism.interop import BfclTask, bfcl_check, read_bfcl
from toolprism.schema import ToolCall

pytestmark = [pytest.mark.slow, pytest.mark.bfcl]

REFERENCE = Path(__file__).with_name("_bfcl_reference.py")
AST_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


def _bfcl_python() -> str:
    python = os.environ.get("TOOLPRISM_BFCL_PYTHON")
    if python:
        if not Path(python).exists():
            pytest.skip(f"TOOLPRISM_BFCL_PYTHON={python} does not exist")
        return python
    if importlib.util.find_spec("bfcl_eval") is None:
        pytest.skip("bfcl-eval is not installed here and TOOLPRISM_BFCL_PYTHON is not set")
    return sys.executable


def _reference(python: str, cases: list[dict]) -> list[dict]:
    done = subprocess.run(
        [python, str(REFERENCE)], input=json.dumps(cases), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_verdicts_equal_bfcls_case_by_case(external: Path) -> None:
    python = _bfcl_python()  # skip before building the cases
    data = external / "bfcl"
    cases, ours, labels = [], [], []
    for category in (*AST_CATEGORIES, "irrelevance"):
        for task in read_bfcl(data, category):
            outputs = [("no_call", []), ("a_call", [{task.functions[0]["name"]: {}}])]
            if task.answers:
                outputs = [*right_outputs(task), *wrong_outputs(task)]
            for label, output in outputs:
                cases.append(
                    {"category": category, "functions": task.functions, "output": output, "answers": task.answers}
                )
                ours.append(bfcl_check(task, _native(task, output)))
                labels.append((category, task.id, label))
    theirs = _reference(python, cases)
    kinds: Counter[str] = Counter()
    disagreements = []
    for (_category, entry, label), mine, reference in zip(labels, ours, theirs, strict=True):
        kinds[f"{label.split()[0]}:{'valid' if reference['valid'] else 'invalid'}"] += 1
        if (mine.valid, mine.error_type) != (reference["valid"], reference["error_type"]):
            disagreements.append((entry, label, mine, reference))
    print(f"{len(cases)} cases; by kind and BFCL's verdict: {dict(sorted(kinds.items()))}")
    assert not disagreements, f"{len(disagreements)} of {len(cases)} disagree, e.g. {disagreements[:5]}"
    assert kinds["wrong_type:invalid"] and kinds["missing_parameter:invalid"] and kinds["wrong_value:invalid"]
    assert kinds["extra_call:invalid"] and kinds["missing_call:invalid"] and kinds["gold:valid"]


def _native(task: BfclTask, output: list[dict]) -> list[ToolCall]:
    """BFCL-named calls as toolprism's native calls (tool-safe names; an unknown name kept)."""
    names = {op.source_name: op.name for op in task.space.operations}
    return [ToolCall(names.get(name, name), arguments) for call in output for name, arguments in call.items()]
