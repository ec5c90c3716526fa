"""Deterministic, stateful domains with tasks and gold action multisets.

Each domain is a :class:`Domain` subclass registered in :data:`DOMAINS`; see
:mod:`toolprism.domains._base` for the contract.
"""

from toolprism.domains._base import (
    Domain,
    Environment,
    OperationDef,
    ReferenceStep,
    Task,
    TaskDraft,
    operation,
)
from toolprism.registry import Registry

DOMAINS: Registry[type[Domain]] = Registry("domain")


def get_domain(name: str) -> Domain:
    """An instance of the registered domain ``name``.

    Raises:
        ConfigError: unknown domain (the message lists the known ones).
    """
    _load_builtin()
    return DOMAINS.get(name)()


def domain_names() -> list[str]:
    """Names of all registered domains."""
    _load_builtin()
    return DOMAINS.names()


def _load_builtin() -> None:
    # Imported lazily so that importing toolprism.domains stays cheap.
    from toolprism.domains import retail, smart_home  # noqa: F401


__all__ = [
    "DOMAINS",
    "Domain",
    "Environment",
    "OperationDef",
    "ReferenceStep",
    "Task",
    "TaskDraft",
    "domain_names",
    "get_domain",
    "operation",
]
