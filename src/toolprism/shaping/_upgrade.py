"""Translate variant specs recorded before the paper's constructions took their names (issue #12).

Until then, ``merge(args=...)`` meant toolprism's own encodings: ``flat`` (un-namespaced shared
arguments), ``nested`` (an untyped ``arguments`` object) and ``union`` (``op__arg``), with ``flat``
the default. Those names now mean the paper's encodings (Action-Space Shaping; see
:mod:`toolprism.shaping.operators._encodings`) and toolprism's keep working as ``shared``,
``prose`` and ``prefixed``. Likewise ``rename(style=opaque)`` (now the paper's ``fn_`` names; the
old ``t_`` names are ``style=hash``), ``rename(style=namespaced)`` (now the paper's
``<class>__<method>``; the old form is ``style=domain-class``) and ``discovery`` (now the paper's
ungated form; the old one is ``style=gated``).
"""

from __future__ import annotations

import re

OLD_TO_NEW = {"flat": "shared", "nested": "prose", "union": "prefixed"}
"""Old ``merge`` argument encoding → its name now."""

RENAMED_STYLES = {"opaque": "hash", "namespaced": "domain-class"}
"""Old ``rename`` style → its name now."""

_MERGE = re.compile(r"^(\s*)merge\s*(?:\(([^()]*)\))?(\s*)$")
_TERM = re.compile(r"^(\s*)(rename|discovery)\s*(?:\(([^()]*)\))?(\s*)$")
_BARE_TRANSACTION = re.compile(r"^(\s*)transaction(\s*)$")


def upgrade_spec(spec: str) -> str:
    """The spec that builds, today, the variant an old ``spec`` built.

    Every ``merge`` term is rewritten: ``args=flat|nested|union`` become ``args=shared|prose|
    prefixed``, and a ``merge`` without ``args`` (whose default was the old ``flat``) gets
    ``args=shared``; ``rename`` styles ``opaque|namespaced`` (and no style) become
    ``hash|domain-class``; a ``discovery`` without a style becomes ``discovery(style=gated)``; a bare
    ``transaction`` becomes ``transaction(setters=shared)``. Every
    other term, suite names and unparsable text are returned unchanged; an upgraded spec upgrades
    to itself. Apply it only to specs recorded before the rename (a run header
    or trace of an earlier version): on a new spec it would turn the paper's ``flat`` into
    ``shared``.

    Examples: ``merge`` → ``merge(args=shared)``; ``merge(by=class,args=nested)|rename(style=opaque)``
    → ``merge(by=class,args=prose)|rename(style=hash)``; ``split`` → ``split``.
    """
    return "|".join(_upgrade_term(term) for term in spec.split("|"))


def _upgrade_term(term: str) -> str:
    bare = _BARE_TRANSACTION.match(term)
    if bare:  # the spec string toolprism's transaction printed (it is also the paper variant's name now)
        return f"{bare.group(1)}transaction(setters=shared){bare.group(2)}"
    other = _TERM.match(term)
    if other:
        return _upgrade_style(*other.groups())
    match = _MERGE.match(term)
    if not match:
        return term
    lead, body, tail = match.group(1), match.group(2) or "", match.group(3)
    items = [item.strip() for item in body.split(",") if item.strip()]
    out, has_args = [], False
    for item in items:
        key, eq, value = (part.strip() for part in item.partition("="))
        if key == "args" and eq:
            has_args = True
            item = f"args={OLD_TO_NEW.get(value, value)}"
        out.append(item)
    if not has_args:
        out.append("args=shared")
    return f"{lead}merge({','.join(out)}){tail}"


def _upgrade_style(lead: str, name: str, body: str | None, tail: str) -> str:
    """``rename``'s old styles get their new names (the old default was ``opaque``); a ``discovery``
    without a style was the gated form."""
    items = [item.strip() for item in (body or "").split(",") if item.strip()]
    styles = [i for i, item in enumerate(items) if item.partition("=")[0].strip() == "style"]
    if not styles:
        items.append("style=hash" if name == "rename" else "style=gated")
    elif name == "rename":
        value = items[styles[0]].partition("=")[2].strip()
        items[styles[0]] = f"style={RENAMED_STYLES.get(value, value)}"
    return f"{lead}{name}({','.join(items)}){tail}"
