"""Model outputs for BFCL entries, right and deliberately wrong, as BFCL writes them
(``[{name: {param: value}}]``, BFCL's own names). Import as ``from _bfcl_cases import ...`` (pytest
puts a test's own directory on the path, as it does ``tests/`` for ``_tiny_hf``).

Right ones: the possible answer's first acceptable value per parameter, then each other
acceptable value one parameter at a time, the optional parameters given, and parallel calls
reversed. Wrong ones, one change each: a wrong type, a missing parameter, a wrong value, an extra
call, a missing call, a wrong function name, an int where BFCL wants a float inside an array, a
float for an integer.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from toolprism.interop import BfclTask, gold_calls

Output = list[dict[str, dict[str, Any]]]


def bfcl_output(task: BfclTask) -> Output:
    """The first acceptable answer, in BFCL's names and shape."""
    return [{task.space.get(c.name).source_name: dict(c.arguments)} for c in gold_calls(task, fit_schema=False)]


def right_outputs(task: BfclTask) -> Iterator[tuple[str, Output]]:
    """(label, output) of outputs BFCL accepts by construction."""
    gold = bfcl_output(task)
    yield "gold", gold
    for i, answer in enumerate(task.answers):
        ((name, acceptable),) = answer.items()
        doc = next(d for d in task.functions if d["name"] == name)
        for param, values in acceptable.items():
            for value in values[1:]:
                if param not in doc["parameters"]["properties"]:
                    break  # an answer's parameter the doc lacks (BFCL data): BFCL refuses any value for it
                kind = doc["parameters"]["properties"][param]["type"]
                if value == "" or isinstance(value, dict) or kind == "dict":
                    continue  # dict answers hold lists of values; the gold already takes their first
                if _list_of_dicts(doc, param):
                    continue
                other = copy.deepcopy(gold)
                other[i][name][param] = value
                yield f"alternative {name}.{param}={value!r}", other
    if len(gold) > 1 and "parallel" in task.category:
        yield "reversed", list(reversed(gold))


def _list_of_dicts(doc: dict[str, Any], param: str) -> bool:
    schema = doc["parameters"]["properties"].get(param, {})
    return schema.get("type") in ("array", "tuple") and schema.get("items", {}).get("type") == "dict"


def wrong_outputs(task: BfclTask) -> Iterator[tuple[str, Output]]:
    """(kind, output) with one deliberate change each (kinds: wrong_type, missing_parameter,
    wrong_value, extra_call, missing_call, wrong_name, int_in_float_array, float_for_integer)."""
    gold = bfcl_output(task)
    ((name, arguments),) = gold[0].items()
    doc = next(d for d in task.functions if d["name"] == name)
    properties = doc["parameters"]["properties"]
    for param, value in arguments.items():
        kind = properties.get(param, {}).get("type")
        broken = copy.deepcopy(gold)
        broken[0][name][param] = _wrong_type(value)
        yield f"wrong_type {param}", broken
        changed = _wrong_value(value)
        if changed is not None:
            broken = copy.deepcopy(gold)
            broken[0][name][param] = changed
            yield f"wrong_value {param}", broken
        if kind == "integer" and type(value) is int:
            broken = copy.deepcopy(gold)
            broken[0][name][param] = float(value)
            yield f"float_for_integer {param}", broken
        if (
            kind in ("array", "tuple") and properties[param].get("items", {}).get("type") == "float"
        ):  # kind: param known
            if isinstance(value, list) and value and all(isinstance(v, float) and v.is_integer() for v in value):
                broken = copy.deepcopy(gold)
                broken[0][name][param] = [int(v) for v in value]
                yield f"int_in_float_array {param}", broken
        broken = copy.deepcopy(gold)
        del broken[0][name][param]
        yield f"missing_parameter {param}", broken
    yield "extra_call", gold + [copy.deepcopy(gold[0])]
    yield "missing_call", gold[:-1]
    yield "wrong_name", [{f"{name}_x": arguments}, *gold[1:]]


def _wrong_type(value: Any) -> Any:
    if isinstance(value, bool):
        return "true"
    if isinstance(value, str):
        return 42
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[1, 2]"
    return ["x"]


def _wrong_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return value + " nowhere else"
    if isinstance(value, int):
        return value + 7919
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, list) and value:
        return value + value[:1]
    if isinstance(value, dict) and value:
        key = next(iter(value))
        return {**value, key: _wrong_value(value[key])}
    return None
