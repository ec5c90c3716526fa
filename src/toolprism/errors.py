"""The exception tree. One root, split by audience (see STYLE.md, "Errors").

- :class:`ConfigError`: a user or developer mistake, raised before anything runs, listing every
  problem at once.
- :class:`RejectedCall`: an invalid model call; it becomes a tool message the model sees, is
  recorded in the trace, and executes nothing.
- :class:`DomainError`: a valid native call that the domain refuses (unknown order, policy); the
  model sees it as a structured ``{"error": ...}`` reply and the state is unchanged.
- :class:`BackendError`: a provider, network or model-runtime failure; :class:`ContextOverflow`,
  one of them, is a prompt that does not fit the model's context.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class ToolprismError(Exception):
    """Root of every error toolprism raises on purpose."""


class ConfigError(ToolprismError):
    """A malformed catalog, spec or option; carries every problem found, not just the first.

    Attributes:
        problems: one human-readable line per problem, e.g. ``"tool 'x', parameter 'y': no type"``.
    """

    def __init__(self, problems: Iterable[str] | str, *, what: str = "configuration") -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.what = what
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"invalid {what} ({len(self.problems)} problem(s)):\n{lines}")


def validation_problems(error: ValidationError, *, limit: int = 10, root: str = "the document") -> list[str]:
    """A pydantic validation error as :class:`ConfigError` problems: ``"<field path>: <message>"`` for
    the first ``limit`` (``root`` names a problem of the whole document), then ``"... and N more"``."""
    errors = error.errors()
    lines = [f"{'.'.join(map(str, e['loc'])) or root}: {e['msg']}" for e in errors[:limit]]
    return lines + ([f"... and {len(errors) - limit} more"] if len(errors) > limit else [])


class RejectionKind(StrEnum):
    """Why the adapter refused a call. Closed vocabulary, recorded in traces."""

    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_TRANSACTION = "unknown_transaction"
    INCOMPLETE_TRANSACTION = "incomplete_transaction"
    UNKNOWN_HANDLE = "unknown_handle"
    UNDISCOVERED = "undiscovered"
    MALFORMED_CALL = "malformed_call"
    PROTOCOL = "protocol"


class RejectedCall(ToolprismError):
    """An invalid call at some layer: shown to the model, recorded, never executed.

    Attributes:
        kind: the :class:`RejectionKind`.
        reason: the message the model sees.
    """

    def __init__(self, kind: RejectionKind, reason: str) -> None:
        self.kind = RejectionKind(kind)
        self.reason = reason
        super().__init__(f"{self.kind.value}: {reason}")


class DomainError(ToolprismError):
    """A native operation refused by the domain (not found, not allowed); state is unchanged."""


class ToolFault(ToolprismError):
    """The runtime refused to run a decoded call (a runtime perturbation: unavailable tool,
    timeout, rate limit). Nothing was executed; ``reply`` is what the model is shown.

    Attributes:
        reply: the failure reply (JSON; may be a bare string for malformed feedback).
    """

    def __init__(self, reply: object) -> None:
        self.reply = reply
        super().__init__(f"runtime fault: {reply!r}")


class BackendError(ToolprismError):
    """A model backend failed (network, provider, runtime); not the model's fault."""


class ContextOverflow(BackendError):
    """The prompt does not fit the model's context (its tokens, with room to reply, exceed the
    context window). The episode loop records it as an outcome of its own (end
    ``context_overflow``), neither a success nor a model failure."""
