"""Query phrasing shared by every domain's task generator: requests, easy and hard forms, grounding.

The Action-Space Shaping paper ("templated-then-rephrased" tasks) poses each task twice over the same gold: an **easy**
form that states each request directly in the order the gold performs it, and a **hard** form
that words each request indirectly, reorders independent requests and wraps them in irrelevant
chatter. Both forms keep every gold value recoverable from the text (:func:`ungrounded` checks
it), so a wrong action is the agent's, never the query's.

A domain writes each thing a user may ask as a :class:`Request` (several direct phrasings, at
least one indirect phrasing, and the gold actions) and turns one or more requests into a
:class:`~toolprism.domains._base.TaskDraft` with :func:`draft`. Phrasings write gold values
through :func:`~toolprism.domains._grammar.slot`, so the draft records where each value is
stated (:class:`~toolprism.domains._grammar.Span`) and refuses a value that is not.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolprism.domains._base import Task, TaskDraft, TaskKind
from toolprism.domains._grammar import (
    Gold,
    Replied,
    Span,
    bind,
    unmark,
    unslotted,
    upper_first,
)
from toolprism.schema import JSON, canonical_json

CHATTER: tuple[str, ...] = (
    "It has been one of those weeks, honestly.",
    "I just got back from a long walk and I'm still catching my breath.",
    "My neighbour keeps asking me for gardening tips, which is funny because I have none.",
    "Sorry if this is a bit rambling, I haven't had my coffee yet.",
    "We are having friends over later, so I'm trying to get organised.",
    "The traffic this morning was absolutely terrible.",
    "I keep forgetting to do this, so let's sort it out now.",
    "My sister says I rely on this assistant far too much.",
    "Work has been hectic and my inbox is overflowing.",
    "The dog has been barking at the mail carrier all morning.",
    "I read somewhere that routines make life easier, so here goes.",
    "Anyway, I digress.",
    "Thanks in advance, you are a lifesaver.",
    "No rush, but I'd appreciate it soon.",
    "That should be everything for now, I think.",
)
"""Irrelevant sentences for hard forms: no digits and no value any built-in domain enumerates."""

_OPENERS: tuple[str, ...] = (
    "Could you {}?",
    "I'd like you to {}.",
    "Would you please {}?",
    "Please {}.",
    "When you get a chance, {}.",
)

_THEN: tuple[str, ...] = ("then", "after that", "and once that's done,")


@dataclass(frozen=True)
class Request:
    """One thing a user asks for, with its phrasings and the gold native actions it implies.

    Attributes:
        direct: direct phrasings, lowercase clauses without final punctuation
            (``"turn off the kitchen lights"``); at least one.
        indirect: indirect phrasings of the same request, naming the goal rather than the
            setting where possible but still stating every gold value; at least one. Each is a
            verb-first clause, because the hard form puts it inside an opener such as
            ``"Could you {}?"`` (``"switch the kitchen lights off, nobody is in there now"``).
        gold: ``(operation, arguments)`` pairs, in execution order.
        replied: ``(action, parameter)`` of gold values an earlier reply supplies (not stated).
    """

    direct: tuple[str, ...]
    indirect: tuple[str, ...]
    gold: Gold
    replied: frozenset[tuple[int, str]] = frozenset()

    def __post_init__(self) -> None:
        if not self.direct or not self.indirect:
            raise ValueError("a request needs at least one direct and one indirect phrasing")


def request(direct: str | Sequence[str], indirect: str | Sequence[str], *gold: tuple[str, dict[str, JSON]]) -> Request:
    """Build a :class:`Request`; ``direct``/``indirect`` may be one phrasing or several.

    Gold values wrapped in :func:`~toolprism.domains._grammar.replied` are unwrapped and recorded
    in :attr:`Request.replied`.
    """
    as_tuple = lambda p: (p,) if isinstance(p, str) else tuple(p)  # noqa: E731
    plain = tuple((op, {k: v.value if isinstance(v, Replied) else v for k, v in args.items()}) for op, args in gold)
    exempt = frozenset((i, k) for i, (_, args) in enumerate(gold) for k, v in args.items() if isinstance(v, Replied))
    return Request(as_tuple(direct), as_tuple(indirect), plain, exempt)


def _join(clauses: Sequence[str], connectors: Sequence[str] | None = None) -> str:
    if len(clauses) == 1:
        return clauses[0]
    if connectors is None:
        return ", ".join(clauses[:-1]) + " and " + clauses[-1]
    parts = [clauses[0]]
    for connector, clause in zip(connectors, clauses[1:], strict=True):
        parts.append(f"{connector} {clause}")
    return ", ".join(parts)


def _sentence(text: str) -> str:
    text = text.strip()
    text = upper_first(text)
    return text if text[-1] in ".?!" else text + "."


def draft(
    rng: random.Random,
    template: str,
    requests: Sequence[Request],
    *,
    kind: TaskKind | None = None,
    chatter: Sequence[str] = CHATTER,
) -> TaskDraft:
    """Phrase ``requests`` as one task in both forms.

    Easy form: one direct phrasing per request, in gold order, joined with "and". Hard form: one
    indirect phrasing per request inside a polite opener, a chatter sentence before (and
    sometimes after), and, unless the task is ``compositional``, the requests in a different
    order (a multiset gold does not care). Compositional requests keep their order and are joined
    with "then".

    Args:
        rng: the generator's RNG (consumed deterministically).
        template: template name (becomes part of the task id).
        requests: one or more requests; their gold actions are concatenated in order.
        kind: ``single`` (one request with one action), ``compound`` (independent requests) or
            ``compositional`` (later actions depend on earlier results or state); inferred as
            single/compound when omitted.
        chatter: irrelevant sentences to draw from.

    Raises:
        ValueError: no requests, or a ``single`` task with more than one gold action.
    """
    if not requests:
        raise ValueError("a task needs at least one request")
    gold = [action for r in requests for action in r.gold]
    if kind is None:
        kind = "single" if len(gold) == 1 else "compound"
    if kind == "single" and len(gold) != 1:
        raise ValueError(f"a single-call task has exactly one gold action, got {len(gold)}")
    easy = _sentence(_join([rng.choice(r.direct) for r in requests]))
    indirect = [rng.choice(r.indirect) for r in requests]
    if kind == "compositional":
        body = _join(indirect, [rng.choice(_THEN) for _ in indirect[1:]])
    else:
        order = list(range(len(indirect)))
        if len(order) > 1:
            while order == sorted(order):
                rng.shuffle(order)
        body = _join([indirect[i] for i in order])
    parts = [rng.choice(chatter), _sentence(rng.choice(_OPENERS).format(body))]
    if rng.random() < 0.5:
        parts.append(rng.choice([c for c in chatter if c != parts[0]]))
    exempt, offset = set(), 0
    for r in requests:
        exempt |= {(offset + i, p) for i, p in r.replied}
        offset += len(r.gold)
    query, spans = _spans(template, easy, gold, exempt)
    hard, hard_spans = _spans(template, " ".join(parts), gold, exempt)
    return TaskDraft(template, query, gold, kind=kind, hard=hard, spans=spans, hard_spans=hard_spans)


def introduced(body: TaskDraft, easy: str, hard: str, action: tuple[str, dict[str, JSON]]) -> TaskDraft:
    """``body`` with a sentence before each query (``easy``, ``hard``) and ``action`` before its gold.

    The sentences state ``action``'s values as slots; the spans of ``body`` move along (a user who
    introduces themselves, then asks: the retail domain).

    Raises:
        ValueError: a value of ``action`` is not slotted in a sentence.
    """
    gold = [action, *body.gold]
    stated_later = {(i, p) for i, (_, args) in enumerate(gold) for p in args if i > 0}

    def joined(intro: str, text: str, spans: Sequence[Span]) -> tuple[str, tuple[Span, ...]]:
        clean, own = _spans(body.template, intro, gold, stated_later)
        shift = len(clean) + 1
        moved = (replace(s, start=s.start + shift, end=s.end + shift, action=s.action + 1) for s in spans)
        return f"{clean} {text}", (*own, *moved)

    query, spans = joined(easy, body.query, body.spans)
    full_hard, hard_spans = joined(hard, body.hard or "", body.hard_spans)
    return replace(body, query=query, gold=gold, hard=full_hard, spans=spans, hard_spans=hard_spans)


def _spans(template: str, marked: str, gold: Gold, exempt: set[tuple[int, str]]) -> tuple[str, tuple[Span, ...]]:
    """The query ``marked`` renders and the spans of its slots.

    Raises:
        ValueError: a slot is no gold value, or a gold value (not ``exempt``: an earlier reply
            supplies it) is not slotted.
    """
    text, found = unmark(marked)
    spans = bind(found, gold)
    missing = unslotted(spans, gold, exempt)
    if missing:
        raise ValueError(f"{template}: gold values neither slotted nor replied in {text!r}: {', '.join(missing)}")
    return text, tuple(spans)


# --- grounding: every gold value is recoverable from the query --------------------------------


def surface_forms(value: JSON, aliases: Mapping[str, Sequence[str]] | None = None) -> list[list[str]]:
    """The ways each scalar inside ``value`` may be written in a query, lowercased.

    Returns one list of accepted forms per scalar (a list or object contributes each of its
    scalars). A string is accepted as written or with ``_``/``-`` as spaces, plus its
    ``aliases``; a number as its decimal text (``20.0`` also as ``20``). Booleans and nulls
    have no surface form: domains state such values as enumerated words instead.
    """
    aliases = aliases or {}
    if isinstance(value, dict):
        return [forms for v in value.values() for forms in surface_forms(v, aliases)]
    if isinstance(value, list):
        return [forms for v in value for forms in surface_forms(v, aliases)]
    if isinstance(value, bool) or value is None:
        return [[]]
    if isinstance(value, (int, float)):
        forms = [str(value)]
        if isinstance(value, float) and value.is_integer():
            forms.append(str(int(value)))
        return [forms]
    text = str(value).lower()
    forms = {text, text.replace("_", " "), text.replace("-", " "), text.replace("_", " ").replace("-", " ")}
    forms.update(a.lower() for a in aliases.get(str(value), ()))
    return [sorted(forms)]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("_", " "))


def _mentioned(form: str, text: str) -> bool:
    if not form:
        return False
    pattern = re.escape(_normal(form))
    return re.search(rf"(?<![\w.]){pattern}(?![\w])", text) is not None or (
        not form[0].isalnum() and _normal(form) in text
    )


def ungrounded(task: Task, aliases: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """Gold values of ``task`` that cannot be recovered from its query, one message each.

    A value is recoverable when one of its :func:`surface_forms` occurs in the query as a whole
    word, or (compositional tasks) in the reply of an earlier reference step. An empty list means
    every value is grounded (the Action-Space Shaping paper keeps a rewrite only when its gold values are recoverable).
    """
    query = _normal(task.query)
    problems: list[str] = []
    for index, step in enumerate(task.reference):
        earlier = _normal(" ".join(canonical_json(s.reply) for s in task.reference[:index]))
        for name, value in step.action.arguments.items():
            for forms in surface_forms(value, aliases):
                if not any(_mentioned(f, query) or _mentioned(f, earlier) for f in forms):
                    problems.append(f"{task.id}: {step.action.op}.{name}={value!r} not recoverable from the query")
    return problems


def reachable(
    task: Task,
    query: str,
    aliases: Mapping[str, Sequence[str]] | None = None,
    only_from_query: Sequence[Any] = (),
) -> list[bool]:
    """Per reference step of ``task``, whether an agent reading ``query`` (the task's own, or a
    rewrite of it) can make that step: each argument value is recoverable, as in
    :func:`ungrounded`, from ``query`` or from the reply of an earlier reachable step. Values in
    ``only_from_query`` count only when ``query`` gives them (a reply may list one among others,
    which does not say which one the user meant).

    Returns:
        one bool per step of ``task.reference``, in order.
    """
    text = _normal(query)
    replies: list[str] = []
    out = []
    for step in task.reference:
        earlier = _normal(" ".join(replies))
        ok = all(
            any(_mentioned(f, text) or (value not in only_from_query and _mentioned(f, earlier)) for f in forms)
            for value in step.action.arguments.values()
            for forms in surface_forms(value, aliases)
        )
        out.append(ok)
        if ok:
            replies.append(canonical_json(step.reply))
    return out


def kinds(tasks: Iterable[Task]) -> dict[str, int]:
    """Task counts by kind (``single``/``compound``/``compositional``)."""
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.kind] = counts.get(task.kind, 0) + 1
    return counts


__all__ = [
    "CHATTER",
    "Request",
    "Span",
    "draft",
    "introduced",
    "kinds",
    "reachable",
    "request",
    "surface_forms",
    "ungrounded",
]
