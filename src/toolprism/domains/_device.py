"""What the device domains share: a base for their state models and a declarative domain class.

A device domain's package holds three modules: ``_state`` (the typed state, built on
:class:`StateModel`, and ``initial_state(world_seed)``), ``_ops`` (``OPERATIONS``) and ``_tasks``
(``drafts(state, world_seed)``). Its ``__init__`` declares a :class:`DeviceDomain` subclass that
names them; nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from toolprism.domains._base import Domain, TaskDraft

Percent = Annotated[int, Field(ge=0, le=100)]
"""A whole percentage, 0 to 100 inclusive (a volume, a humidity, a battery charge)."""


class StateModel(BaseModel):
    """Base of a domain's state models: fields not declared are refused."""

    model_config = ConfigDict(extra="forbid")


class DeviceDomain(Domain):
    """A domain whose world is a function of the seed and whose drafts are a function of that world.

    Subclasses set :attr:`make_state` and :attr:`make_drafts` (plain module functions, called
    through the class, so never bound to an instance) besides :class:`Domain`'s ``name``,
    ``policy``, ``operations`` (and ``aliases``).
    """

    make_state: ClassVar[Callable[[int], BaseModel]]
    """``initial_state(world_seed)``: a fresh, deterministic state."""
    make_drafts: ClassVar[Callable[[Any, int], list[TaskDraft]]]
    """``drafts(state, world_seed)``: the tasks posed on that state (the domain's own state type), deterministically."""

    def initial_state(self, world_seed: int) -> BaseModel:
        """A fresh state for ``world_seed`` (deterministic)."""
        return type(self).make_state(world_seed)

    def drafts(self, world_seed: int) -> list[TaskDraft]:
        """The domain's drafts on the world of ``world_seed`` (deterministic)."""
        return type(self).make_drafts(self.initial_state(world_seed), world_seed)
