"""The package boundaries of DESIGN.md ("Package layout"), checked on the source by ``ast``:

- imports flow one way: a package imports only packages of lower or equal rank (``from toolprism
  import X`` of a name that is not a module imports the package facade, ``toolprism/__init__``);
- some edges are forbidden even where the ranks would allow them (``score`` and ``report`` read
  stored results and never import ``backends``; ``score`` never imports ``repair``);
- a package's private modules (``toolprism.<pkg>._x``, at any depth below ``<pkg>``) are imported
  only from inside ``<pkg>``; other packages use what its ``__init__`` exports (tests are exempt;
  the top-level modules of ``toolprism`` itself, such as ``errors`` and ``_version``, are shared);
- the modules of one package import each other without cycles (a package's ``__init__`` counts as
  a module of it).

Every import statement counts, at module level or inside a function alike (an import deferred
into a function still couples the two modules, and deferring is the usual way a cycle is hidden);
only imports under ``if TYPE_CHECKING:`` are left out, since they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "toolprism"
RANK = {
    "errors": 0,
    "testing": 0,  # the mock OpenAI-compatible server: imports nothing of toolprism
    "registry": 0,
    "_version": 0,
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
    "repair": 5,  # runs models again: may import backends, run and score
    "train": 5,
    "evaluation": 6,
    "__init__": 6,  # the package facade re-exports evaluate lazily
    "cli": 7,
    "__main__": 8,  # python -m toolprism: runs the command line
}
FORBIDDEN = {
    ("score", "backends"): "score reads stored traces only",
    ("score", "repair"): "score reads stored traces only; repair runs models",
    ("report", "backends"): "report is built from stored results only",
}


def _module(path: Path) -> str:
    """``toolprism.run._store`` for src/toolprism/run/_store.py; a package is its ``__init__``'s module."""
    parts = ("toolprism", *path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in SRC.rglob("*.py")}


def _package(module: str) -> str:
    """The top-level package (or module) a module belongs to: ``run``, ``errors``; ``__init__`` for
    the ``toolprism`` facade itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _type_checking_only(tree: ast.AST) -> set[ast.AST]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {n for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def _imports(module: str) -> Iterator[tuple[int, str]]:
    """(line, imported toolprism module) for every import statement of ``module``; ``from a import b``
    imports ``a.b`` when that is a module, else ``a``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    skipped = _type_checking_only(tree)
    here = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if node in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield node.lineno, full if full in MODULES else base


def _edges() -> Iterator[tuple[str, int, str]]:
    """(importer, line, imported) over every toolprism module, imported modules of toolprism only."""
    for module in sorted(MODULES):
        for line, target in sorted(set(_imports(module))):
            if target == "toolprism" or target.startswith("toolprism."):
                yield module, line, target


def _where(module: str, line: int) -> str:
    return f"{MODULES[module].relative_to(SRC)}:{line}"


def test_imports_flow_one_way() -> None:
    violations = [
        f"{_where(m, line)} imports {t} (rank {RANK[_package(t)]} above {RANK[_package(m)]})"
        for m, line, t in _edges()
        if RANK[_package(t)] > RANK[_package(m)]
    ]
    assert not violations, violations


def test_forbidden_edges() -> None:
    violations = [
        f"{_where(m, line)} imports {t}: {FORBIDDEN[_package(m), _package(t)]}"
        for m, line, t in _edges()
        if (_package(m), _package(t)) in FORBIDDEN
    ]
    assert not violations, violations


def _private_to(module: str) -> str | None:
    """The package a module is private to (``toolprism.domains`` for ``toolprism.domains._catalog``
    and for ``toolprism.domains._catalog.x``), or None for a public module and for the top-level
    modules of toolprism."""
    parts = module.split(".")
    for i in range(2, len(parts)):
        if parts[i].startswith("_"):
            return ".".join(parts[:2])
    return None


def test_no_private_module_of_another_package_is_imported() -> None:
    violations = [
        f"{_where(m, line)} imports {t}, private to {owner}"
        for m, line, t in _edges()
        if (owner := _private_to(t)) is not None and m != owner and not m.startswith(owner + ".")
    ]
    assert not violations, violations


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path (first node repeated at the end), or None: a depth-first
    search that meets a node still on its stack."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_inside_a_package() -> None:
    graphs: dict[str, dict[str, set[str]]] = {}
    for m, _, t in _edges():
        if _package(m) == _package(t) and m != t:
            graphs.setdefault(_package(m), {}).setdefault(m, set()).add(t)
    cycles = {pkg: cycle for pkg, graph in sorted(graphs.items()) if (cycle := _cycle(graph))}
    assert not cycles, {pkg: " -> ".join(cycle) for pkg, cycle in cycles.items()}


def test_every_package_has_a_rank() -> None:
    assert {_package(m) for m in MODULES} <= set(RANK)


def test_the_checks_see_what_they_look_for() -> None:
    """The resolver on known shapes: a deferred import, ``from pkg import module``, a facade name."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert _private_to("toolprism.domains._catalog") == "toolprism.domains"
    assert _private_to("toolprism.shaping.operators._merge") == "toolprism.shaping"
    assert _private_to("toolprism._version") is None and _private_to("toolprism.domains") is None
    edges = {(m, t) for m, _, t in _edges()}
    assert ("toolprism.score", "toolprism.score._aggregate") in edges  # `from toolprism.score import _aggregate`
    assert ("toolprism", "toolprism.evaluation") in edges  # inside __getattr__: a deferred import counts
