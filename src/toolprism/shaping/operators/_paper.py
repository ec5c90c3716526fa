"""Helpers shared by the paper's constructions (Action-Space Shaping; ToolSchemaSpace
``toolschema/operators.py``): reading the paper's operator spec files, and spec strings that omit
parameters left at their default.

A paper spec file is ``{"ops": [{"op": KIND, "tool": NAME, "group": GROUP, ...}, ...]}``: operator
applications stamped with the tool group they apply to (tool names repeat across groups). An op
whose tool is absent from a catalog is ignored, as the paper's compiler ignores it, so one file
applies to any one group's catalog.
"""

from __future__ import annotations

import json
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from toolprism.errors import ConfigError
from toolprism.schema import ToolSpec
from toolprism.shaping._layer import Operator


def spec_without_defaults(op: Operator, defaults: dict[str, Any]) -> str:
    """``op``'s spec string, leaving out the parameters in ``defaults`` that still hold that value.

    New parameters of an existing operator use this so that the spec strings of the variants
    that existed before them (stored in traces and run headers) do not change.
    """
    parts = []
    for f in fields(op):
        value = getattr(op, f.name)
        if f.name == "below" or value == "" or (f.name in defaults and value == defaults[f.name]):
            continue
        parts.append(f"{f.name}={str(value).lower() if isinstance(value, bool) else value}")
    return f"{op.name}({','.join(parts)})" if parts else op.name


@lru_cache(maxsize=32)
def _read(file: str) -> tuple[dict[str, Any], ...]:
    what = f"paper spec file {file}"
    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {file}: {e.strerror}", what=what) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{file} is not JSON: {e}", what=what) from None
    ops = data.get("ops") if isinstance(data, dict) else None
    if not isinstance(ops, list) or not all(isinstance(o, dict) and "op" in o for o in ops):
        raise ConfigError(f'{file}: expected {{"ops": [{{"op": ...}}, ...]}}', what=what)
    return tuple(ops)


def paper_ops(file: str, kind: str, tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """The ops of kind ``kind`` in the paper spec file ``file`` that apply to ``tools``: the tool
    (``tool``) is one of them and the op's ``group`` (if stamped) is that tool's group. In file order.

    Raises:
        ConfigError: the file is unreadable or not a spec file.
    """
    groups = {(t.name, t.group) for t in tools}
    names = {t.name for t in tools}
    out = []
    for op in _read(file):
        if op["op"] != kind or op.get("tool") not in names:
            continue
        if "group" in op and (op["tool"], op["group"]) not in groups:
            continue
        out.append(op)
    return out


def number_label(value: float) -> str:
    """A cut value as a name fragment: ``75``, ``2_5`` for 2.5, ``m5`` for -5."""
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return text.replace("-", "m").replace(".", "_")


def paper_merges(file: str, tools: list[ToolSpec]) -> list[list[str]]:
    """The member lists of the paper's ``merge`` ops in ``file`` for ``tools`` (members of the op's
    group present in ``tools``; ops with none are left out), in file order.

    Raises:
        ConfigError: the file is unreadable or not a spec file.
    """
    present = {(t.name, t.group) for t in tools}
    names = {t.name for t in tools}
    out = []
    for op in _read(file):
        if op["op"] != "merge":
            continue
        members = [m for m in op.get("tools", []) if m in names and ("group" not in op or (m, op["group"]) in present)]
        if members:
            out.append(members)
    return out
