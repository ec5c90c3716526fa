"""Ask kinds: the common one-call requests (set a setting, toggle, read), declared once per domain table.

Most things a user asks of a device follow one recipe: an operation, a few direct and indirect
phrasing templates, and the gold arguments they state. An :class:`AskKind` holds that recipe;
its templates are ``str.format`` strings whose fields are the operation's parameter names, each
filled with the argument as a slot (:func:`~toolprism.domains._grammar.slot`: ``living_room`` is
written ``living room`` and its span is recorded). ``{param:text}`` writes ``text`` for the value
(``"{mute:unmute} the {tv} tv"``). Phrasings may be keyed by the value of one parameter
(:attr:`AskKind.key`): a toggle words "on" and "off" differently. Tasks that do not follow the
recipe stay as code (Action-Space Shaping: templated-then-rephrased tasks).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolprism.domains._grammar import slot
from toolprism.domains._phrasing import Request, request
from toolprism.schema import JSON

Phrasings = str | Sequence[str] | Mapping[JSON, "str | Sequence[str]"]
"""One template, several, or (with :attr:`AskKind.key`) templates by the key parameter's value;
the key ``None`` holds the templates of every value not listed (``{"off": ..., None: ...}``)."""


class _Slot:
    """An argument value as a ``str.format`` field: its slot, or ``{name:text}`` for other text."""

    def __init__(self, value: JSON) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        return slot(self.value, spec or None)


@dataclass(frozen=True)
class AskKind:
    """One kind of one-call request: an operation and its phrasing templates.

    Attributes:
        op: the gold operation.
        direct: direct phrasing templates (see :data:`Phrasings`).
        indirect: indirect phrasing templates, verb-first clauses.
        key: the parameter whose value selects keyed templates and which :meth:`draw` chooses.
    """

    op: str
    direct: Phrasings
    indirect: Phrasings
    key: str = ""

    def request(self, context: Mapping[str, str] | None = None, /, **args: JSON) -> Request:
        """The request with gold ``(op, args)``; ``context`` fills further, unslotted fields
        (``{show}``: a programme name the template mentions but no argument carries).

        Raises:
            KeyError: a template field names neither an argument nor a context entry.
        """
        return self._phrased(context, args, (self.op, args))

    def after(self, read: tuple[str, dict[str, JSON]], /, **args: JSON) -> Request:
        """The request with gold ``read``, then ``(op, args)``: a conditional ask ("if the tv is
        muted, unmute it") whose first call reads what decides it."""
        return self._phrased(None, args, read, (self.op, args))

    def _phrased(
        self, context: Mapping[str, str] | None, args: Mapping[str, JSON], *gold: tuple[str, dict[str, JSON]]
    ) -> Request:
        fields = {**(context or {}), **{name: _Slot(value) for name, value in args.items()}}

        def filled(phrasings: Phrasings) -> list[str]:
            if isinstance(phrasings, Mapping):
                value = args[self.key]
                phrasings = phrasings[value if value in phrasings else None]
            templates = [phrasings] if isinstance(phrasings, str) else phrasings
            return [t.format(**fields) for t in templates]

        return request(filled(self.direct), filled(self.indirect), *gold)

    def draw(
        self,
        rng: random.Random,
        values: Sequence[JSON],
        current: JSON,
        context: Mapping[str, str] | None = None,
        /,
        **args: JSON,
    ) -> Request | None:
        """The request setting :attr:`key` to one of ``values`` other than ``current`` (one
        ``rng.choice``), or None when there is no other value."""
        options = [v for v in values if v != current]
        return self.request(context, **args, **{self.key: rng.choice(options)}) if options else None


__all__ = ["AskKind", "Phrasings"]
