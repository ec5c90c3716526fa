"""One generic typed registry: decorator registration, an error on duplicates, lookup by name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from toolprism.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → object table for one kind of thing (operators, variants, domains, backends).

    Raises:
        ConfigError: on a duplicate registration or an unknown name.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name``; duplicates are a developer mistake."""
        if name in self._items:
            raise ConfigError(f"{self.kind} {name!r} is registered twice", what=self.kind)
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""
        return lambda item: self.add(name, item)

    def get(self, name: str) -> T:
        """Look ``name`` up; the error lists what exists."""
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(sorted(self._items)) or "none"
            raise ConfigError(f"unknown {self.kind} {name!r} (known: {known})", what=self.kind) from None

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)
