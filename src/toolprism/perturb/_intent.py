"""Family B, user intent: the request the model reads is rewritten (ToolRobustBench, B1-B4).

Rewrites work on the query text and on where the gold values appear in it: the spans recorded
when the query was written (:attr:`~toolprism.domains.Task.spans`: slots of the phrasing, or for
imported packs the values found once at load), so every change is recorded with the words it
replaced.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from toolprism.domains import CHATTER, Span, Task, get_domain, reachable, surface_forms
from toolprism.errors import ToolprismError
from toolprism.perturb._model import Injection, Instance, RuntimeLabels, Severity
from toolprism.perturb._subtype import Subtype, register
from toolprism.schema import ActionSpace


def written(task: Task, span: Span) -> bool:
    """Whether the query states ``span``'s value in the value's own words (one of its
    :func:`~toolprism.domains.surface_forms`, any case), not as an alias or verb form ("Mute"
    for ``muted``), which B2/B3 could not replace with other values' words."""
    text = task.query[span.start : span.end].lower()
    return any(text in forms for forms in surface_forms(span.value))


def mentions(task: Task) -> list[Span]:
    """The gold values the query states, from its recorded spans (:attr:`Task.spans`): the
    first span of each scalar argument, in text order, none overlapping an earlier one. Only
    arguments every span of which states the value in its own words (:func:`written`) count:
    elsewhere the query says it in words a rewrite cannot replace or leave out."""
    other = {(s.action, s.param) for s in task.spans if not written(task, s)}
    first: dict[tuple[int, str], Span] = {}
    for span in sorted(task.spans, key=lambda s: s.start):
        if (span.action, span.param) in other:
            continue
        if not isinstance(task.gold[span.action].arguments.get(span.param), (dict, list)):
            first.setdefault((span.action, span.param), span)
    spans = sorted(first.values(), key=lambda s: s.start)
    return [m for i, m in enumerate(spans) if all(m.end <= o.start or m.start >= o.end for o in spans[:i])]


def stated_at(task: Task, mention: Span) -> list[list[int]]:
    """Every ``[start, end]`` where the query states ``mention``'s argument (it may say it twice)."""
    return sorted({(s.start, s.end) for s in task.spans if (s.action, s.param) == (mention.action, mention.param)})


def decoys(space: ActionSpace, task: Task, mention: Span) -> list[Any]:
    """The other legal values for the mentioned argument (the other enum values, or nearby
    integers in range) that the query does not already state (in none of their
    :func:`~toolprism.domains.surface_forms`): a wrong value the query also states elsewhere
    ("the bedroom tv ... I meant living room, not bedroom") would leave the correction ambiguous."""
    param = space.get(task.gold[mention.action].op).param(mention.param)
    if param.enum is not None:
        others = [v for v in param.enum if v != mention.value and isinstance(v, str)]
    elif isinstance(mention.value, int) and not isinstance(mention.value, bool):
        low, high = param.schema.get("minimum", -(10**9)), param.schema.get("maximum", 10**9)
        others = [v for v in (mention.value + d for d in (-10, -5, -2, -1, 1, 2, 5, 10)) if low <= v <= high]
    else:
        others = []
    return [v for v in others if not _said(task.query, v)]


def _said(text: str, value: Any) -> bool:
    """Whether ``text`` states ``value`` in one of its surface forms (a whole word or phrase, any case)."""
    forms = [f for group in surface_forms(value) for f in group if f]
    return any(re.search(rf"(?<![\w.]){re.escape(f)}(?!\w)", text, re.IGNORECASE) for f in forms)


def single_step(task: Task) -> bool:
    """Whether ``task``'s domain poses single-step tasks only (:attr:`Domain.single_step`,
    ToolRobustBench's setting); False for a domain not registered (an imported pack)."""
    try:
        return bool(get_domain(task.domain).single_step)
    except ToolprismError:
        return False


def _words(value: Any) -> str:
    return str(value).replace("_", " ")


class _Intent(Subtype):
    primary = "S1"
    spillover = ("S3", "S5")

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        return self.instance(task, severity, target="query")

    def rewrite(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, str]:
        raise NotImplementedError

    def query(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, list[Injection]]:
        new, change = self.rewrite(instance, text, rng)
        return new, [self.injection(instance, "query", "query", change, original=text, replacement=new)]


_WISH = ("It would be great if you could {}", "I'd love it if you could {}", "Ideally you would {}")
_GOAL = (
    "Here is what I am after, you will know which settings that means: {}",
    "I'm not sure which option does it, but the end result I want is this: {}",
)


@register
class IndirectRequest(_Intent):
    """B1: the goal is stated indirectly: a wish, an outcome to reach, a question about the result."""

    id = "B1"
    name = "indirect request"
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.0}
    levels = {
        "light": "the request becomes a wish ('It would be great if you could ...')",
        "medium": "the request is framed as an outcome to reach, not settings to change",
        "heavy": "outcome framing, phrased as a question about the end state, with a hedge",
    }

    def rewrite(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, str]:
        body = text[0].lower() + text[1:]
        body = body.rstrip(".!?")
        if instance.severity == "light":
            return rng.choice(_WISH).format(body) + ".", "wish framing"
        framed = rng.choice(_GOAL).format(body)
        if instance.severity == "medium":
            return framed + ".", "outcome framing"
        return f"{framed}. Is that something you can make happen? No pressure if not.", "outcome question + hedge"


@register
class Ambiguity(_Intent):
    """B2: an underspecified request: a value the gold needs is no longer given (blanked at
    every span that states it), so the right action is to ask. Every action the left-out value
    made possible leaves the expected gold: the one it was written for, any other that carries
    it, and any later one whose values came from a reply of a dropped step
    (:func:`toolprism.domains._phrasing.reachable`). Policy order (a retail write that needs the
    user authenticated first) is not modelled."""

    id = "B2"
    name = "ambiguity"
    primary = "S3"
    spillover = ("S1", "S5")
    strength = {"light": 1.0, "medium": 1.5, "heavy": 3.0}
    levels = {
        "light": "one value replaced by 'the usual'",
        "medium": "one value replaced by a vague reference ('whatever works')",
        "heavy": "two values of different actions replaced by vague references (single-step domains: two values "
        "of the one action)",
    }

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        return None if mentions(task) else "no gold value is written in the query to leave out"

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        found = mentions(task)
        chosen = [rng.choice(found)]
        if severity == "heavy":
            others = [m for m in found if m.action != chosen[0].action]
            if not others and single_step(task):  # ToolRobustBench's one-call tasks: another value of that call
                others = [m for m in found if m.param != chosen[0].param]
            chosen += [rng.choice(others)] if others else []
        spans = [list(at) for m in chosen for at in stated_at(task, m)]
        # every step the left-out values made possible leaves the expected gold: the chosen actions,
        # and any later one whose values (the same id, or a reply of a dropped step) are now unknown
        lost = Counter(task.gold[m.action] for m in chosen)
        before = reachable(task, task.query)
        after = reachable(task, _blank(task.query, spans, severity), only_from_query=[m.value for m in chosen])
        lost |= Counter(step.action for step, was, now in zip(task.reference, before, after, strict=True) if was > now)
        asks = ", ".join(f"{task.gold[m.action].op}.{m.param}" for m in chosen)
        return self.instance(
            task,
            severity,
            target="query",
            params={"spans": spans, "values": [m.value for m in chosen]},
            expected_gold=list((Counter(task.gold) - lost).elements()),
            labels=RuntimeLabels(final_result=f"ask the user for {asks} instead of guessing"),
        )

    def rewrite(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, str]:
        return _blank(text, instance.params["spans"], instance.severity), f"left out {instance.params['values']}"


_ARTICLE = re.compile(r"(?:^|(?<=\W))(the|a|an) $", re.IGNORECASE)


def _blank(text: str, spans: list[list[int]], severity: str) -> str:
    """``text`` with each span replaced by B2's vague reference for ``severity``; an article
    before the span goes with it ("the kitchen light" → "the usual light", not "the the usual")."""
    vague = "the usual" if severity == "light" else "whatever works"
    for start, end in sorted(spans, reverse=True):
        if article := _ARTICLE.search(text[:start]):
            start = article.start()
        said = vague[0].upper() + vague[1:] if text[start : start + 1].isupper() else vague
        text = text[:start] + said + text[end:]
    return text


@register
class Conflict(_Intent):
    """B3: the request contradicts itself or is corrected midway; the last correction stands."""

    id = "B3"
    name = "conflict"
    strength = {"light": 1.0, "medium": 2.0, "heavy": 3.0}
    levels = {
        "light": "a value is first misspoken and corrected on the spot ('D, no wait, V')",
        "medium": "the query states a wrong value and a correction at the end restores it",
        "heavy": "two different wrong values in turn, and a final correction restores the right one",
    }

    def applicable(self, task: Task, space: ActionSpace) -> str | None:
        if any(decoys(space, task, m) for m in mentions(task)):
            return None
        return "no gold value in the query has another legal value, not stated in the query, to contradict it with"

    def applicable_at(self, task: Task, space: ActionSpace, severity: Severity) -> str | None:
        if (reason := self.applicable(task, space)) is not None or severity != "heavy":
            return reason
        if any(len(decoys(space, task, m)) >= 2 for m in mentions(task)):
            return None
        return "heavy states two different wrong values, and no gold value in the query has two other legal values"

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        need = 2 if severity == "heavy" else 1
        options = [(m, pool) for m in mentions(task) if len(pool := decoys(space, task, m)) >= need]
        m, pool = rng.choice(options)
        wrong = rng.sample(pool, need)
        return self.instance(
            task,
            severity,
            target="query",
            params={"span": [m.start, m.end], "value": m.value, "decoys": wrong},
            labels=RuntimeLabels(final_result=f"use the corrected value {m.value!r}"),
        )

    def rewrite(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, str]:
        (start, end), value = instance.params["span"], instance.params["value"]
        first = _words(instance.params["decoys"][0])
        said = text[start:end]
        if instance.severity == "light":
            return text[:start] + f"{first}, no wait, {said}" + text[end:], f"misspoke {first!r}, corrected"
        stated = text[:start] + first + text[end:]
        if instance.severity == "medium":
            return (
                f"{stated} Sorry, correction: I meant {said}, not {first}.",
                f"stated {first!r}, corrected at the end",
            )
        second = _words(instance.params["decoys"][1])
        return (
            f"{stated} Hmm, actually make that {second}. No, scratch both of those: {said} is what I want.",
            f"stated {first!r}, then {second!r}, final correction to {value!r}",
        )


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


@register
class Noise(_Intent):
    """B4: typos, chatter, reordered sentences and a distractor remark around the same request."""

    id = "B4"
    name = "noise"
    strength = {"light": 1.0, "medium": 2.5, "heavy": 6.0}
    levels = {
        "light": "a chatter sentence before the request",
        "medium": "chatter, and typos in up to three words that carry no gold value",
        "heavy": "chatter before and after, up to six typos, and a distractor remark",
    }

    def plan(self, task: Task, space: ActionSpace, severity: Severity, rng: random.Random) -> Instance:
        spans = [(m.start, m.end) for m in task.spans]
        safe, position = [], 0
        for i, word in enumerate(task.query.split(" ")):
            start, end = position, position + len(word)
            position = end + 1
            if len(word) >= 5 and word.isalpha() and all(end <= a or start >= b for a, b in spans):
                safe.append(i)
        return self.instance(task, severity, target="query", params={"typo_words": safe})

    def rewrite(self, instance: Instance, text: str, rng: random.Random) -> tuple[str, str]:
        words = text.split(" ")
        typos = {"light": 0, "medium": 3, "heavy": 6}[instance.severity]
        candidates = [i for i in instance.params["typo_words"] if i < len(words)]
        changed = sorted(rng.sample(candidates, min(typos, len(candidates))))
        for i in changed:
            words[i] = _typo(words[i], rng)
        body = " ".join(words)
        before = rng.choice(CHATTER)
        if instance.severity == "light":
            return f"{before} {body}", "chatter before"
        if instance.severity == "medium":
            return f"{before} {body}", f"chatter, {len(changed)} typos"
        after = rng.choice([c for c in CHATTER if c != before])
        distractor = "My friend told me to do it the other way around last time, but never mind that."
        return f"{before} {body} {distractor} {after}", f"chatter, {len(changed)} typos, distractor"
