"""BFCL's AST checker semantics over decoded calls, for Python-flavoured function docs.

Source: the Berkeley Function Calling Leaderboard (gorilla, ``bfcl_eval/eval_checker/ast_eval/
ast_checker.py`` and ``eval_runner.py``; package ``bfcl-eval`` 2026.3.23), re-implemented from
its documented behaviour, not copied. A model output is a list of calls ``{name: {param: value}}``
with Python values as ``json.loads`` gives them (``1`` is an int, ``1.0`` a float). A possible
answer is a list of calls ``{name: {param: [acceptable values]}}``; ``""`` among the acceptable
values means the parameter may be left out.

What counts as valid, as BFCL's checker decides it:

- **categories**: ``parallel*``: as many calls as answers, matched in any order (greedily: each
  answer, in order, takes the first still unmatched call that passes it); ``multiple*``: as many
  calls as answers, the first call checked against the first answer; any other (``simple``):
  exactly one call. ``irrelevance``: valid when there is no call at all.
- **one call** against one answer: the function name must be the answer's; every ``required``
  parameter present; no parameter outside the doc's properties or the answer; each value of the
  doc's type (BFCL type names; a Python ``int`` is accepted for ``float``, never the reverse, and
  a ``bool`` is no ``int``); arrays checked one level deep against the answer's element types;
  a value whose answer type differs from the doc's type is a "variable" (a string standing for a
  value) and is compared as it is; strings compared after removing spaces and ``,./-_*^`` and
  lower-casing (single quotes become double); lists compared element-wise the same way, order
  kept; dicts key by key (missing keys allowed where ``""`` is acceptable); lists of dicts in
  order; other values by Python equality (``1 == 1.0 == True``). A parameter of the answer the
  call leaves out must have ``""`` among its acceptable values.

The verdict's ``error_type`` strings are BFCL's own (``simple_function_checker:missing_required``,
``type_error:simple``, ``value_error:string``, ``parallel_function_checker_no_order:cannot_find_match``,
``irrelevance_error:decoder_success``...), so verdicts compare one to one; the messages are ours.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from toolprism.errors import ConfigError

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
"""BFCL type name -> the Python type a value must have (``tuple`` arrives as a JSON list; ``any``
is checked as a string, as BFCL does)."""

_NESTED = ("array", "tuple")
_PUNCTUATION = re.compile(r"[ ,./\-_*^]")

Call = Mapping[str, Mapping[str, Any]]
"""One call as BFCL writes it: ``{function name: {parameter: value}}``."""


class BfclVerdict(NamedTuple):
    """BFCL's verdict on one model output.

    Attributes:
        valid: whether the output passes.
        error_type: BFCL's error type (``""`` when valid), e.g. ``type_error:simple``.
        message: what failed, in words (``""`` when valid).
    """

    valid: bool
    error_type: str = ""
    message: str = ""


_VALID = BfclVerdict(True)


def check_output(
    category: str, functions: Sequence[Mapping[str, Any]], output: Sequence[Call], answers: Sequence[Call]
) -> BfclVerdict:
    """BFCL's AST check of ``output`` against ``answers`` for one entry of ``category``.

    Args:
        category: the BFCL test category (``simple_python``, ``multiple``, ``parallel``,
            ``parallel_multiple``, ``irrelevance``; any name containing ``parallel``/``multiple``
            is checked as those are, as BFCL dispatches).
        functions: the entry's function docs (BFCL's ``function`` list, BFCL names and types).
        output: the model's calls, ``[{name: {param: value}}]``, in the order made.
        answers: the entry's possible answer (``ground_truth``); ignored for irrelevance.

    Raises:
        ConfigError: a doc or answer BFCL's own checker could not read either (an answer naming a
            function the entry lacks, a parameter type outside :data:`PYTHON_TYPES`).
    """
    if "irrelevance" in category:
        if output and not (len(output) == 1 and not output[0]):  # BFCL: [] and [{}] are no call
            return BfclVerdict(False, "irrelevance_error:decoder_success", "a call was made where none should be")
        return _VALID
    if "parallel" in category:
        return _parallel(functions, output, answers)
    if "multiple" in category:
        if len(output) != len(answers):
            return _count("multiple_function_checker:wrong_count", output, answers)
        return _one(_doc(functions, answers[0]), output[0], answers[0])
    if len(output) != 1:
        return _count("simple_function_checker:wrong_count", output, [None])
    return _one(functions[0], output[0], answers[0])  # BFCL checks a simple entry against its first doc


def json_numbers(functions: Sequence[Mapping[str, Any]], output: Sequence[Call]) -> list[Call]:
    """``output`` with each ``int`` where the doc says ``float`` (a parameter, or an element of an
    array of floats) made a ``float``: JSON has one number type, and toolprism writes integral
    numbers as ints (``canonical_numbers``: ``1.0`` is ``1``), which BFCL's Python checker refuses
    inside arrays of floats. Not BFCL's semantics: an option of :func:`toolprism.interop.bfcl_check`."""
    docs = {d.get("name"): d.get("parameters", {}).get("properties", {}) for d in functions}
    return [{name: _floats(args, docs.get(name, {})) for name, args in call.items()} for call in output]


def _floats(arguments: Mapping[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(arguments)
    for param, value in arguments.items():
        schema = properties.get(param, {})
        if schema.get("type") == "float" and type(value) is int:
            out[param] = float(value)
        elif (
            schema.get("type") in _NESTED and (schema.get("items") or {}).get("type") == "float" and type(value) is list
        ):
            out[param] = [float(v) if type(v) is int else v for v in value]
    return out


def _count(error_type: str, output: Sequence[Any], answers: Sequence[Any]) -> BfclVerdict:
    return BfclVerdict(False, error_type, f"{len(output)} call(s) made, {len(answers)} expected")


def _doc(functions: Sequence[Mapping[str, Any]], answer: Call) -> Mapping[str, Any]:
    name = next(iter(answer))
    for doc in functions:
        if doc.get("name") == name:
            return doc
    raise ConfigError(f"the possible answer names {name!r}, which is not among the entry's functions", what="BFCL")


def _parallel(functions: Sequence[Mapping[str, Any]], output: Sequence[Call], answers: Sequence[Call]) -> BfclVerdict:
    if len(output) != len(answers):
        return _count("parallel_function_checker_no_order:wrong_count", output, answers)
    matched: set[int] = set()
    for i, answer in enumerate(answers):
        doc = _doc(functions, answer)
        failures = []
        for index, call in enumerate(output):
            if index in matched:
                continue
            verdict = _one(doc, call, answer)
            if verdict.valid:
                matched.add(index)
                break
            failures.append(f"call {index}: {verdict.error_type}: {verdict.message}")
        else:
            left = [k for k in range(len(output)) if k not in matched]
            detail = "; ".join(failures)
            return BfclVerdict(
                False,
                "parallel_function_checker_no_order:cannot_find_match",
                f"no call among {left} matches answer {i} ({next(iter(answer))}): {detail}",
            )
    return _VALID


def _one(doc: Mapping[str, Any], call: Call, answer: Call) -> BfclVerdict:
    """One call against one answer (BFCL's ``simple_function_checker``, Python)."""
    name = doc["name"]
    acceptable: Mapping[str, list[Any]] = next(iter(answer.values()))
    properties: Mapping[str, Any] = doc["parameters"].get("properties", {})
    if name not in call:
        return BfclVerdict(False, "simple_function_checker:wrong_func_name", f"no call of {name!r}")
    arguments = call[name]
    for param in doc["parameters"].get("required", []):
        if param not in arguments:
            return BfclVerdict(False, "simple_function_checker:missing_required", f"missing required {param!r}")
    for param, value in arguments.items():
        if param not in properties or param not in acceptable:
            return BfclVerdict(False, "simple_function_checker:unexpected_param", f"unexpected parameter {param!r}")
        verdict = _parameter(param, value, properties[param], acceptable[param])
        if not verdict.valid:
            return verdict
    for param, values in acceptable.items():
        if param not in arguments and "" not in values:
            return BfclVerdict(
                False, "simple_function_checker:missing_optional", f"{param!r} left out, but the answer requires it"
            )
    return _VALID


def _python_type(name: Any) -> type:
    if name not in PYTHON_TYPES:
        raise ConfigError(f"parameter type {name!r} is not a BFCL Python type ({', '.join(PYTHON_TYPES)})", what="BFCL")
    return PYTHON_TYPES[name]


def _parameter(param: str, value: Any, schema: Mapping[str, Any], acceptable: list[Any]) -> BfclVerdict:
    type_name = schema.get("type")
    expected = _python_type(type_name)
    items = schema.get("items")
    nested = _python_type(items.get("type") if isinstance(items, Mapping) else None) if type_name in _NESTED else None
    if type_name == "float" and type(value) is int:
        value = float(value)  # Python's int -> float promotion, the one coercion BFCL allows
    verdict, variable = _type_check(param, value, acceptable, expected, nested)
    if not verdict.valid:
        return verdict
    if not variable:
        if expected is dict:
            return _dict(param, value, acceptable)
        if expected is list and nested is dict:
            return _list_of_dicts(param, value, acceptable)
        if expected is str:
            if _standard(value) not in [_standard(a) for a in acceptable if type(a) is str]:
                return BfclVerdict(False, "value_error:string", f"{param!r}: {value!r} not one of {acceptable}")
            return _VALID
        if expected is list:
            if _standard_list(value) not in [_standard_list(a) for a in acceptable]:
                return BfclVerdict(False, "value_error:list/tuple", f"{param!r}: {value!r} not one of {acceptable}")
            return _VALID
    if value not in acceptable:
        return BfclVerdict(False, "value_error:others", f"{param!r}: {value!r} not one of {acceptable}")
    return _VALID


def _answer_type(acceptable: Sequence[Any]) -> type | None:
    """The type of the first acceptable value that is not ``""`` (None: only ``""``)."""
    return next((type(a) for a in acceptable if a != ""), None)


def _type_check(
    param: str, value: Any, acceptable: Sequence[Any], expected: type, nested: type | None
) -> tuple[BfclVerdict, bool]:
    """(verdict, is the value a variable). A value of the answer's type where the answer's type is
    not the doc's counts as a variable; arrays are checked one level deep against each answer."""
    answer_type = _answer_type(acceptable)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return _VALID, variable
        for candidate in acceptable:
            if type(candidate) is not list or all(
                _type_check(param, item, candidate, nested, None)[0].valid for item in value
            ):
                return _VALID, variable
        if answer_type is not None and type(value) is answer_type:
            return BfclVerdict(
                False, "type_error:nested", f"{param!r}: elements of {value!r} are not {nested.__name__}"
            ), True
    elif answer_type is not None and type(value) is answer_type:
        return _VALID, True
    return BfclVerdict(
        False, "type_error:simple", f"{param!r}: {type(value).__name__} given, {expected.__name__} expected"
    ), False


def _standard(text: str) -> str:
    """BFCL's string standardisation: no spaces or ``,./-_*^``, lower case, ``'`` as ``\"``."""
    return _PUNCTUATION.sub("", text).lower().replace("'", '"')


def _standard_list(values: Any) -> list[Any]:
    """Each string element standardised (an answer ``""`` is the empty list, as BFCL reads it)."""
    return [_standard(v) if type(v) is str else v for v in values]


def _dict(param: str, value: Mapping[str, Any], acceptable: Sequence[Any]) -> BfclVerdict:
    verdict = BfclVerdict(False, "dict_checker:unclear", f"{param!r}: no acceptable dict")
    for candidate in acceptable:
        if candidate == "":
            continue
        verdict = _dict_against(param, value, candidate)
        if verdict.valid:
            return verdict
    return verdict


def _dict_against(param: str, value: Mapping[str, Any], candidate: Mapping[str, Any]) -> BfclVerdict:
    """One dict against one acceptable dict; a missing key is reported over a bad value (BFCL
    checks both and keeps the later)."""
    verdict = _VALID
    for key, item in value.items():
        if key not in candidate:
            verdict = BfclVerdict(False, "value_error:dict_key", f"{param!r}: unexpected key {key!r}")
            break
        standard = _standard(item) if type(item) is str else item
        if standard not in _standard_list(candidate[key]):
            verdict = BfclVerdict(False, "value_error:dict_value", f"{param!r}[{key!r}]: {item!r} not acceptable")
            break
    for key, values in candidate.items():
        if key not in value and "" not in values:
            return BfclVerdict(False, "value_error:dict_key", f"{param!r}: missing key {key!r}")
    return verdict


def _list_of_dicts(param: str, value: Sequence[Any], acceptable: Sequence[Any]) -> BfclVerdict:
    verdict = BfclVerdict(False, "list_dict_checker:unclear", f"{param!r}: no acceptable list")
    for candidate in acceptable:
        if len(value) != len(candidate):
            verdict = BfclVerdict(False, "value_error:list_dict_count", f"{param!r}: wrong number of dicts")
            continue
        for item, expected in zip(value, candidate, strict=True):
            verdict = _dict(param, item, [expected])
            if not verdict.valid:
                break
        else:
            return _VALID
    return verdict
