"""Requests as a typed grammar: phrasings whose gold values are slots, so every value's span is known.

A phrasing is an ordinary f-string in which each gold value is written through :func:`slot`
(``f"turn on the {slot(tv)} tv"``). ``slot`` renders the value's surface text (``living_room`` →
``living room``, the grounding check's rule) between invisible marker characters that also carry
the value itself; :func:`~toolprism.domains._phrasing.draft` strips the markers and records, for
the easy and the hard query, a :class:`Span` per slotted value and gold argument it states.
A gold value the user does not state but an earlier reply supplies is wrapped in :func:`replied`
in the gold. So "every gold value is recoverable from the query" holds by construction
(Action-Space Shaping: templated-then-rephrased tasks keep their gold values recoverable);
:func:`~toolprism.domains._phrasing.ungrounded` stays as the cross-check.

The queries of imported domain packs are data, written without slots: they get their spans once,
when the pack is loaded, from :func:`find_spans` (a whole-word search for the gold values), so
perturbations read spans the same way for every task.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolprism.schema import JSON, canonical_json

_OPEN, _CLOSE, _END = "\ue000", "\ue001", "\ue002"
_NIBBLE = 0xE010  # payload characters U+E010..U+E01F, one per hex digit of the value's JSON
_MARKED = re.compile(f"{_OPEN}([^{_OPEN}{_CLOSE}]*){_CLOSE}([\ue010-\ue01f]*){_END}")
MARKERS = frozenset(_OPEN + _CLOSE + _END + "".join(chr(_NIBBLE + i) for i in range(16)))
"""Every character a marked phrasing may contain that its rendered text does not."""


@dataclass(frozen=True)
class Span:
    """Where a query states one gold argument value.

    Attributes:
        start / end: character offsets in the query (``query[start:end]`` is the value's text).
        action: index of the gold action in the task's gold (execution order).
        param: the argument name.
        value: the argument value (a scalar inside a list or object argument for such values).
    """

    start: int
    end: int
    action: int
    param: str
    value: JSON


@dataclass(frozen=True)
class Replied:
    """A gold argument value the query does not state: an earlier reply supplies it."""

    value: JSON


def replied(value: JSON) -> Replied:
    """Mark a gold argument value as supplied by an earlier reply (compositional tasks).

    ``("set_volume", {"tv": tv, "volume": replied(other.volume)})``: :func:`request` unwraps it
    and records ``(action, "volume")`` as exempt from the slot check.
    """
    return Replied(value)


def surface(value: JSON) -> str:
    """The text a phrasing writes for ``value``: a string with ``_`` as spaces, a number as is."""
    return value.replace("_", " ") if isinstance(value, str) else str(value)


def slot(value: JSON, text: str | None = None) -> str:
    """``value``'s text (``text``, default :func:`surface`) marked as a slot for the gold value.

    The marks are private-use characters, unchanged by case mapping and by ``str.format``;
    :func:`unmark` removes them. Use one slot per stated value: ``f"set it to {slot(level)}"``.
    """
    payload = "".join(chr(_NIBBLE + int(d, 16)) for d in canonical_json(value).encode().hex())
    return f"{_OPEN}{surface(value) if text is None else text}{_CLOSE}{payload}{_END}"


def upper_first(text: str) -> str:
    """``text`` with its first character upper-cased, past the mark of a slot it may open with."""
    i = len(text) - len(text.lstrip(_OPEN))
    return text[:i] + text[i : i + 1].upper() + text[i + 1 :]


def is_marked(text: str) -> bool:
    """Whether ``text`` has a slot."""
    return _OPEN in text


def unmark(text: str) -> tuple[str, list[tuple[int, int, JSON]]]:
    """``text`` without slot marks, and ``(start, end, value)`` of each slot in the result."""
    out: list[str] = []
    found: list[tuple[int, int, JSON]] = []
    position = length = 0
    for match in _MARKED.finditer(text):
        out.append(text[position : match.start()])
        length += match.start() - position
        shown = match.group(1)
        payload = bytes.fromhex("".join(f"{ord(c) - _NIBBLE:x}" for c in match.group(2)))
        found.append((length, length + len(shown), json.loads(payload)))
        out.append(shown)
        length += len(shown)
        position = match.end()
    out.append(text[position:])
    clean = "".join(out)
    if MARKERS & set(clean):
        raise ValueError(f"malformed slot marks in {text!r}")
    return clean, found


def scalars(value: JSON) -> list[JSON]:
    """The scalars of an argument value (itself, or those inside a list or object)."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in scalars(v)]
    return [value]


def stated(value: JSON) -> bool:
    """Whether a scalar gold value is one a query states in words (not a boolean or null)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def same(a: JSON, b: JSON) -> bool:
    """Whether two stated scalars are the same value (``20 == 20.0``; ``"20" != 20``)."""
    return stated(a) and stated(b) and isinstance(a, str) == isinstance(b, str) and a == b


Gold = Sequence[tuple[str, dict[str, JSON]]]


def bind(found: Iterable[tuple[int, int, JSON]], gold: Gold) -> list[Span]:
    """One :class:`Span` per slot and gold argument (scalar) with the slot's value, in text order.

    Raises:
        ValueError: a slot's value is no gold argument's (a phrasing bug).
    """
    spans: list[Span] = []
    for start, end, value in found:
        bound = [
            Span(start, end, i, param, value)
            for i, (_, args) in enumerate(gold)
            for param, arg in args.items()
            if any(same(value, s) for s in scalars(arg))
        ]
        if not bound:
            raise ValueError(f"slot {value!r} at {start}:{end} is no gold argument's value")
        spans += bound
    return spans


def unslotted(spans: Sequence[Span], gold: Gold, exempt: Iterable[tuple[int, str]]) -> list[str]:
    """Gold arguments ``op.param=value`` that no span states and ``exempt`` (replied) does not cover."""
    covered = {(s.action, s.param, canonical_json(s.value)) for s in spans} | {(i, p, None) for i, p in exempt}
    return [
        f"{op}.{param}={value!r}"
        for i, (op, args) in enumerate(gold)
        for param, arg in args.items()
        for value in scalars(arg)
        if stated(value) and (i, param, None) not in covered and (i, param, canonical_json(value)) not in covered
    ]


def _forms(value: JSON) -> list[str]:
    text = str(value)
    if isinstance(value, float) and value.is_integer():
        return [text, str(int(value))]
    return sorted({text, text.replace("_", " "), text.replace("-", " "), text.replace("_", " ").replace("-", " ")})


def mark_found(text: str, gold: Gold) -> str:
    """``text`` with every whole-word occurrence of a stated gold value marked as its slot.

    For text written without slots (an imported pack's query): longer
    forms win, occurrences never overlap, matching ignores case and writes ``_``/``-`` as spaces
    (the grounding check's surface forms, :func:`~toolprism.domains._phrasing.surface_forms`).
    """
    values = [v for _, args in gold for arg in args.values() for v in scalars(arg) if stated(v)]
    candidates = sorted({(f, canonical_json(v)) for v in values for f in _forms(v) if f}, key=lambda c: -len(c[0]))
    taken: list[tuple[int, int, str]] = []
    for form, value in candidates:
        for match in re.finditer(rf"(?<![\w.]){re.escape(form)}(?!\w)", text, re.IGNORECASE):
            if all(match.end() <= a or match.start() >= b for a, b, _ in taken):
                taken.append((match.start(), match.end(), value))
    for start, end, value in sorted(taken, reverse=True):
        text = text[:start] + slot(json.loads(value), text[start:end]) + text[end:]
    return text


def find_spans(text: str, gold: Gold) -> tuple[Span, ...]:
    """The spans of ``text`` (written without slots) that :func:`mark_found` finds for ``gold``."""
    return tuple(bind(unmark(mark_found(text, gold))[1], gold))


__all__ = [
    "MARKERS",
    "Span",
    "bind",
    "find_spans",
    "is_marked",
    "mark_found",
    "replied",
    "same",
    "slot",
    "surface",
    "unmark",
    "upper_first",
]
