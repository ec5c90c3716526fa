"""Translate variant specs recorded before the merge encodings took the paper's names.

Until issue #12, ``merge(args=...)`` meant toolprism's own encodings: ``flat`` (un-namespaced
shared arguments), ``nested`` (an untyped ``arguments`` object) and ``union`` (``op__arg``), with
``flat`` the default. Those names now mean the paper's encodings (Action-Space Shaping; see
:mod:`toolprism.shaping.operators._encodings`) and toolprism's keep working as ``shared``,
``prose`` and ``prefixed``.
"""

from __future__ import annotations

import re

OLD_TO_NEW = {"flat": "shared", "nested": "prose", "union": "prefixed"}
"""Old ``merge`` argument encoding → its name now."""

_MERGE = re.compile(r"^(\s*)merge\s*(?:\(([^()]*)\))?(\s*)$")


def upgrade_spec(spec: str) -> str:
    """The spec that builds, today, the variant an old ``spec`` built.

    Every ``merge`` term is rewritten: ``args=flat|nested|union`` become ``args=shared|prose|
    prefixed``, and a ``merge`` without ``args`` (whose default was the old ``flat``) gets
    ``args=shared``. Every other term, suite names and unparsable text are returned unchanged, so
    the function is idempotent. Apply it only to specs recorded before the rename (a run header
    or trace of an earlier version): on a new spec it would turn the paper's ``flat`` into
    ``shared``.

    Examples: ``merge`` → ``merge(args=shared)``; ``merge(by=class,args=nested)|rename(style=opaque)``
    → ``merge(by=class,args=prose)|rename(style=opaque)``; ``split`` → ``split``.
    """
    return "|".join(_upgrade_term(term) for term in spec.split("|"))


def _upgrade_term(term: str) -> str:
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
