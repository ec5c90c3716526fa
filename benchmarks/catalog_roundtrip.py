"""Operators on real catalogs: every external catalog × every named variant (and every registered
operator with its default parameters).

For each pair, ``Variant.build`` either fails with a ConfigError (counted by reason) or succeeds;
then every shown tool must pass the JSON Schema metaschema and the tool-name pattern, and one
synthesized valid call per operation must round-trip: ``variant.plan(action)`` driven through an
``AdapterSession`` decodes back to exactly that native action, with no rejection.

A BFCL entry file counts each entry (its own small catalog) separately; the other files are one
catalog each. Reads ``../shared/external`` (or the folder given as the first argument).

    python benchmarks/catalog_roundtrip.py [EXTERNAL_DIR]
"""

from __future__ import annotations

import collections
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema

from toolprism.errors import ConfigError, RejectedCall
from toolprism.schema import Action, ActionSpace, load_catalog
from toolprism.schema._model import TOOL_NAME, _plain
from toolprism.schema._synth import synthesize_arguments
from toolprism.shaping import OPERATORS, VARIANTS, AdapterSession, Variant
from toolprism.shaping._layer import Batch

EXTERNAL = Path(__file__).resolve().parents[2] / "shared" / "external"


def catalogs(root: Path) -> Iterator[tuple[str, list[ActionSpace]]]:
    """(label, action spaces) for every tool catalog under ``root``."""
    for path in sorted((root / "tau2").glob("*_tools.openai.json")):
        yield f"tau2/{path.name}", [load_catalog(path)]
    for path in sorted((root / "mcp").glob("*.tools_list.json")):
        yield f"mcp/{path.name}", [load_catalog(path)]
    for path in sorted((root / "bfcl").glob("BFCL_v4_*.json")):
        entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        spaces = [ActionSpace.from_bfcl(e["function"], name=e["id"]) for e in entries if "function" in e]
        if spaces:
            yield f"bfcl/{path.name}", spaces
    for path in sorted((root / "bfcl" / "multi_turn_func_doc").glob("*.json")):
        yield f"bfcl/multi_turn_func_doc/{path.name}", [load_catalog(path)]
    if (root / "toolschemaspace" / "tools.json").is_file():
        yield "toolschemaspace/tools.json", [load_catalog(root / "toolschemaspace" / "tools.json")]


def specs() -> list[tuple[str, str]]:
    """(label, spec): every named variant, then every operator alone with default parameters."""
    named = [(name, VARIANTS.get(name)) for name in VARIANTS.names()]
    return named + [(f"op:{name}", name) for name in OPERATORS.names()]


def shown_tool_problems(variant: Variant) -> list[str]:
    """Shown tools that are not valid JSON Schema objects or have invalid names."""
    problems = []
    for tool in variant.tools():
        if not TOOL_NAME.match(tool.name):
            problems.append(f"shown tool {tool.name!r}: invalid name")
        try:
            jsonschema.Draft202012Validator.check_schema(_plain(tool.parameters))
        except jsonschema.SchemaError as e:
            problems.append(f"shown tool {tool.name!r}: invalid JSON Schema: {e.message}")
        if tool.parameters.get("type") != "object":
            problems.append(f"shown tool {tool.name!r}: parameters are not an object schema")
    return problems


def roundtrip(variant: Variant, action: Action) -> str | None:
    """Drive ``variant.plan(action)`` through an adapter session; None when it decodes back to
    exactly ``action`` with no rejection, else what went wrong."""
    executed: list[Action] = []

    def execute(a: Action) -> dict:
        executed.append(a)
        return {"ok": True, "n": len(executed)}

    session = AdapterSession(variant, execute)
    rejected: list[str] = []

    def handle(call):  # noqa: ANN001, ANN202
        decision = session.handle(call)
        if decision.outcome == "rejected":
            rejected.append(f"{call.name}: {decision.reply['error']}")
        return decision.reply

    plan = variant.plan(action)
    try:
        item = next(plan)
        for _ in range(10_000):
            reply = [handle(c) for c in item.calls] if isinstance(item, Batch) else handle(item)
            item = plan.send(reply)
        return "plan did not finish"
    except StopIteration as stop:
        final = stop.value
    if rejected:
        return f"rejected: {rejected[0]}"
    if executed != [action]:
        return f"decoded {[str(a) for a in executed]} instead of {action}"
    if final != {"ok": True, "n": 1}:
        return f"plan returned {final!r} instead of the native reply"
    return None


def calls(space: ActionSpace, rng: random.Random) -> Iterator[tuple[str, Action | str]]:
    """Native actions to round-trip: one synthesized call per operation, plus, for each
    enumerated argument, that call with each other value of the enum (what ``split`` keys on).
    Yields (tool, action) or (tool, why no valid call could be made)."""
    for op in space.operations:
        try:
            args = synthesize_arguments(op.tool().parameters, rng)
        except ValueError as e:
            yield op.name, str(e)
            continue
        seen: set[Action] = set()
        for arguments in [args] + [{**args, p.name: v} for p in op.params if p.enum for v in p.enum]:
            try:
                action = space.action(op.name, arguments)
            except RejectedCall:
                continue  # an enum value the rest of the parameter's schema refuses
            if action not in seen:
                seen.add(action)
                yield op.name, action


def check(spec: str, space: ActionSpace, seed: int = 0) -> list[str]:
    """Problems of one variant over one catalog: shown-tool problems and failed round trips.

    Raises:
        ConfigError: from ``Variant.build``, when the variant cannot apply to the catalog.
    """
    variant = Variant.build(spec, space)
    problems = shown_tool_problems(variant)
    for tool, action in calls(space, random.Random(seed)):
        if isinstance(action, str):
            problems.append(f"tool {tool!r}: {action}")
            continue
        try:
            problem = roundtrip(variant, action)
        except Exception as e:  # noqa: BLE001 - a traceback is exactly what this reports
            problem = f"crashed: {type(e).__name__}: {e}"
        if problem:
            problems.append(f"tool {tool!r}: {problem}")
    return problems


def reason(problem: str) -> str:
    """A problem line without tool names and values, for counting by reason."""
    text = problem.split(": ", 1)[1] if problem.startswith("tool ") else problem
    text = re.sub(r"^rejected: \S+: call rejected: ", "rejected: ", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "…", text)
    return re.sub(r"\s+", " ", re.sub(r"\d+", "N", text)).strip()[:100]


def main(root: Path) -> None:
    if not root.is_dir():
        sys.exit(f"{root} is absent")
    outcomes: dict[str, dict[str, collections.Counter]] = {}
    for label, spaces in catalogs(root):
        row = outcomes.setdefault(label, {})
        for name, spec in specs():
            counts = row.setdefault(name, collections.Counter())
            for space in spaces:
                try:
                    problems = check(spec, space)
                except ConfigError as e:
                    counts.update({f"ConfigError: {reason(p)}" for p in e.problems})
                    continue
                counts.update({f"FAIL: {reason(p)}" for p in problems} or {"ok"})
    names = [n for n, _ in specs()]
    print("catalog × variant: ok / ConfigError (by reason) / FAIL counts (BFCL entry files: per entry)\n")
    print(f"{'catalog':<44} " + " ".join(f"{n[:13]:>13}" for n in names))
    details: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for label, row in outcomes.items():
        cells = []
        for n in names:
            c = row[n]
            bad = sum(v for k, v in c.items() if k != "ok")
            cells.append(f"{c['ok']}" + (f"/{bad}!" if bad else ""))
            for k, v in c.items():
                if k != "ok":
                    details[k][f"{label} × {n}"] += v
        print(f"{label:<44} " + " ".join(f"{cell:>13}" for cell in cells))
    print("\ncells: ok count, '/k!' = k catalogs with a ConfigError or failure")
    for key, where in sorted(details.items()):
        print(f"\n{key}")
        for w, v in sorted(where.items()):
            print(f"    {v:>4}  {w}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else EXTERNAL)
