"""The recipes the domains' native operations share.

An operation (see :func:`toolprism.domains._base.operation`) refuses with a
:class:`~toolprism.errors.DomainError` before it changes anything, then replies with the JSON of
what it touched. The recurring steps are here, each one line at the call site:

- :func:`refuse_if`: a refusal;
- :func:`require_on`: a unit (player, set, camera, appliance) that must be switched on;
- :func:`switch`: a setting that must change (switching to the current value is refused);
- :func:`transition`: a status that must be in one state to move to another (pause, resume);
- :func:`discard`: an entry that must be present to be removed (a timer, a stop, a guest);
- :func:`dumped`, :func:`listing` and :func:`rows`: replies.

Every refusal text is the caller's, word for word.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from toolprism.errors import DomainError


class _Powered(Protocol):
    @property
    def power(self) -> str: ...


U = TypeVar("U", bound=_Powered)
K = TypeVar("K", bound=str)


def words(name: str) -> str:
    """A snake_case name as words: ``"living_room"`` → ``"living room"``."""
    return name.replace("_", " ")


def refuse_if(condition: bool, refusal: str) -> None:
    """Refuse the call if ``condition`` holds.

    Raises:
        DomainError: ``refusal``, if ``condition`` holds.
    """
    if condition:
        raise DomainError(refusal)


def require_on(unit: U, refusal: str) -> U:
    """``unit`` itself, if its ``power`` is not ``"off"``.

    Raises:
        DomainError: ``refusal``, if the unit is off.
    """
    refuse_if(unit.power == "off", refusal)
    return unit


def switch(unit: object, field: str, value: object, refusal: str) -> None:
    """Set ``unit.field`` to ``value``.

    Raises:
        DomainError: ``refusal``, if the field already has that value (nothing is set).
    """
    refuse_if(getattr(unit, field) == value, refusal)
    setattr(unit, field, value)


def transition(unit: object, field: str, source: str, target: str, refusal: str) -> None:
    """Move ``unit.field`` from ``source`` to ``target`` (``"playing"`` → ``"paused"``).

    Raises:
        DomainError: ``refusal``, if the field is not ``source`` (nothing is set).
    """
    refuse_if(getattr(unit, field) != source, refusal)
    setattr(unit, field, target)


def discard(items: dict[Any, Any] | list[Any], item: object, refusal: str) -> None:
    """Remove ``item`` from a list, or the key ``item`` from a dict.

    Raises:
        DomainError: ``refusal``, if it is not there.
    """
    refuse_if(item not in items, refusal)
    if isinstance(items, dict):
        del items[item]
    else:
        items.remove(item)


def dumped(key: str, name: str, model: BaseModel, **options: Any) -> dict[str, Any]:
    """A named unit as a reply: ``{key: name, **model's JSON}``; ``options`` go to ``model_dump``."""
    return {key: name, **model.model_dump(mode="json", **options)}


def listing(mapping: Mapping[K, BaseModel], key: str = "name", **options: Any) -> list[dict[str, Any]]:
    """A mapping of named models as a list for a reply: each row is :func:`dumped` ``(key, name, model)``."""
    return [dumped(key, name, model, **options) for name, model in mapping.items()]


def rows(mapping: Mapping[K, object], key: str, value: str) -> list[dict[str, Any]]:
    """A mapping as a list of two-field rows: ``{"tea": 4}`` → ``[{key: "tea", value: 4}]``."""
    return [{key: k, value: v} for k, v in mapping.items()]
