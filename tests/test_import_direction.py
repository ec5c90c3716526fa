"""Imports flow one way (DESIGN.md, "Package layout"): a package imports only lower or equal ranks."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "toolprism"
RANK = {
    "errors": 0,
    "registry": 0,
    "schema": 0,
    "shaping": 1,
    "domains": 2,
    "perturb": 2,
    "backends": 3,
    "run": 3,
    "score": 4,
    "validate": 4,
    "probes": 5,
    "report": 5,
    "interop": 5,
    "repair": 5,
    "train": 5,
    "evaluation": 6,
    "__init__": 6,  # the package facade re-exports evaluate lazily
    "cli": 7,
}


def _package(path: Path) -> str:
    part = path.relative_to(SRC).parts[0]
    return part.removesuffix(".py")


def test_imports_flow_one_way() -> None:
    violations = []
    for path in SRC.rglob("*.py"):
        own = _package(path)
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] != "toolprism" or len(parts) < 2:
                    continue
                target = parts[1]
                if RANK[target] > RANK[own]:
                    violations.append(f"{path.relative_to(SRC)} imports {name}")
    assert not violations, violations


def test_every_package_has_a_rank() -> None:
    assert {_package(p) for p in SRC.rglob("*.py")} <= set(RANK)
