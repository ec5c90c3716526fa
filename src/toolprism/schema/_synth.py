"""A small deterministic generator of values valid under a JSON Schema (the shapes real tool
catalogs use: enums, const, types and type lists, anyOf/oneOf/allOf, nullable, arrays with
items/prefixItems and size bounds, objects with required/optional properties, numeric and length
bounds, formats, defaults). Used to synthesize one valid call per operation when checking that
operators round-trip on catalogs no one here wrote.
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Mapping
from typing import Any

import jsonschema

from toolprism.schema._model import JSON, _plain

_FORMATS = {
    "date": "2024-05-01",
    "date-time": "2024-05-01T12:30:00Z",
    "time": "12:30:00",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "email": "user@example.com",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}
_MAX_DEPTH = 8


def synthesize_arguments(schema: Mapping[str, JSON], rng: random.Random, *, optional: float = 0.5) -> JSON:
    """A value valid under ``schema`` (draft 2020-12), chosen with ``rng`` (same seed, same value).

    Optional object properties are each included with probability ``optional``.

    Raises:
        ValueError: no valid value was found (e.g. a ``pattern`` it cannot satisfy, or an
            unsatisfiable schema), naming the schema's last validation error.
    """
    plain = _plain(schema)
    validator = jsonschema.Draft202012Validator(plain)
    error = "no attempt"
    for _ in range(25):
        value = _Gen(rng, optional).value(plain, 0)
        problem = jsonschema.exceptions.best_match(validator.iter_errors(value))
        if problem is None:
            return value
        error = problem.message
    raise ValueError(f"cannot synthesize a value valid under the schema: {error}")


class _Gen:
    def __init__(self, rng: random.Random, optional: float) -> None:
        self.rng, self.optional = rng, optional

    def value(self, schema: Any, depth: int) -> JSON:
        rng = self.rng
        if schema is True or schema == {}:
            return self.scalar()
        if schema is False or not isinstance(schema, Mapping):
            return None
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return rng.choice(schema["enum"])
        if "default" in schema and rng.random() < 0.25:
            return schema["default"]
        if "allOf" in schema:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                merged = _merge(merged, part) if isinstance(part, Mapping) else merged
            return self.value(merged, depth)
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                rest = {k: v for k, v in schema.items() if k != key and k not in ("description", "title", "default")}
                branch = rng.choice(schema[key])
                return self.value(_merge(rest, branch) if isinstance(branch, Mapping) else branch, depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = rng.choice(kind) if kind else None
        kind = kind or _infer(schema)
        if kind is None:
            return self.scalar()
        return getattr(self, kind)(schema, depth)

    def scalar(self) -> JSON:
        return self.rng.choice(["x", 1, True])

    def null(self, schema: Mapping, depth: int) -> JSON:
        return None

    def boolean(self, schema: Mapping, depth: int) -> JSON:
        return self.rng.random() < 0.5

    def integer(self, schema: Mapping, depth: int) -> JSON:
        lo, hi = _bounds(schema, integer=True)
        value = self.rng.randint(lo, hi)
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            value = (value // step) * step
        return value

    def number(self, schema: Mapping, depth: int) -> JSON:
        lo, hi = _bounds(schema, integer=False)
        value = round(self.rng.uniform(lo, hi), 2)
        if value <= lo and "exclusiveMinimum" in schema or value >= hi and "exclusiveMaximum" in schema:
            value = (lo + hi) / 2
        return value

    def string(self, schema: Mapping, depth: int) -> JSON:
        if schema.get("format") in _FORMATS:
            return _FORMATS[schema["format"]]
        low = int(schema.get("minLength", 1))
        high = max(low, int(schema.get("maxLength", max(low, 8))))
        size = self.rng.randint(low, min(high, low + 8))
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(size))

    def array(self, schema: Mapping, depth: int) -> JSON:
        prefix = schema.get("prefixItems", [])
        low = max(int(schema.get("minItems", 0)), len(prefix) if schema.get("items") is not False else 0)
        low = max(low, 1) if depth < _MAX_DEPTH and "maxItems" not in schema else low
        high = int(schema.get("maxItems", low + 2))
        size = low if depth >= _MAX_DEPTH else self.rng.randint(low, max(low, min(high, low + 2)))
        items = []
        for i in range(size):
            sub = prefix[i] if i < len(prefix) else schema.get("items", True)
            for _ in range(10):
                item = self.value(sub, depth + 1)
                if not schema.get("uniqueItems") or item not in items:
                    break
            items.append(item)
        return items

    def object(self, schema: Mapping, depth: int) -> JSON:
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        out = {}
        for name, sub in props.items():
            if name in required or (depth < _MAX_DEPTH and self.rng.random() < self.optional):
                out[name] = self.value(sub, depth + 1)
        for name in sorted(required - set(props)):
            out[name] = self.scalar()
        return out


def _infer(schema: Mapping) -> str | None:
    if any(k in schema for k in ("properties", "required", "additionalProperties")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
        return "array"
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    return None


def _bounds(schema: Mapping, *, integer: bool) -> tuple[Any, Any]:
    eps = 1 if integer else 0.5
    lows = [schema.get("minimum"), _shift(schema.get("exclusiveMinimum"), eps)]
    highs = [schema.get("maximum"), _shift(schema.get("exclusiveMaximum"), -eps)]
    lo = max((v for v in lows if isinstance(v, int | float)), default=None)
    hi = min((v for v in highs if isinstance(v, int | float)), default=None)
    lo = lo if lo is not None else (min(0, hi - 10) if hi is not None else 0)
    hi = min(hi if hi is not None else lo + 100, lo + 1000)
    if integer:
        lo, hi = math.ceil(lo), math.floor(hi)
    return lo, max(lo, hi)


def _shift(value: Any, by: float) -> Any:
    return value + by if isinstance(value, int | float) and not isinstance(value, bool) else None


def _merge(a: Mapping, b: Mapping) -> dict:
    """Conjunction of two schemas, approximately (properties and required unioned; b's keys win)."""
    out = {**a, **b}
    if "properties" in a and "properties" in b:
        out["properties"] = {**a["properties"], **b["properties"]}
    if "required" in a and "required" in b:
        out["required"] = sorted(set(a["required"]) | set(b["required"]))
    return out
