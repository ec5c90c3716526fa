"""Deterministic, stateful domains with tasks and gold action multisets.

Each domain is a :class:`Domain` subclass registered in :data:`DOMAINS`; see
:mod:`toolprism.domains._base` for the contract.
"""

import importlib
import pkgutil

from toolprism.domains._base import (
    TASK_KINDS,
    Domain,
    Environment,
    Form,
    OperationDef,
    ReferenceStep,
    Task,
    TaskDraft,
    TaskKind,
    operation,
    task_hash,
    task_set_hash,
)
from toolprism.domains._catalog import (
    DEFAULT_POLICY,
    LIVE_SERVERS,
    ActionLog,
    CatalogDomain,
    DomainPack,
    LoggedAction,
    PackCall,
    PackServer,
    PackSource,
    PackTask,
    PackTool,
    TaskLine,
    catalog_pack,
    is_pack_path,
    kind_from_name,
    load_pack,
    read_task_file,
)
from toolprism.domains._grammar import Span
from toolprism.domains._phrasing import CHATTER, reachable, surface_forms
from toolprism.domains._record import ReferenceStepRecord, TaskRecord
from toolprism.domains._tau2 import (
    TAU2_PACK_FORMAT,
    TAU2_POLICY,
    Tau2Domain,
    Tau2Environment,
    Tau2Pack,
    Tau2Source,
    Tau2Task,
    file_digest,
    read_tau2_pack,
)
from toolprism.domains._tau2_retail import tau2_hash
from toolprism.registry import Registry

DOMAINS: Registry[type[Domain]] = Registry("domain")


def get_domain(name: str) -> Domain:
    """An instance of the registered domain ``name``, or the domain of a domain pack file when
    ``name`` is a path (it ends in ``.json`` or contains a path separator; see
    :mod:`toolprism.domains._catalog`).

    A built-in domain's package is imported on first use (only that one: a run on two domains
    does not pay for the other fourteen).

    Raises:
        ConfigError: unknown domain (the message lists the known ones), or an unreadable or
            malformed pack.
    """
    if is_pack_path(name):
        return load_pack(name)
    if name not in DOMAINS:
        if name in _builtin():
            importlib.import_module(f"{__name__}.{name}")
        else:
            _load_builtin()  # an unknown name: the error lists every domain
    return DOMAINS.get(name)()


def domain_names() -> list[str]:
    """Names of all registered domains, sorted: the built-in ones (each subpackage registers the
    domain of its own name; listed without importing them) and any other registered."""
    return sorted(set(_builtin()) | set(DOMAINS.names()))


def _builtin() -> list[str]:
    """The built-in domains: every public subpackage, by name (nothing imported)."""
    return [m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and not m.name.startswith("_")]


def _load_builtin() -> None:
    # Every public subpackage is a built-in domain; imported lazily so that importing
    # toolprism.domains stays cheap.
    for name in _builtin():
        importlib.import_module(f"{__name__}.{name}")


__all__ = [
    "CHATTER",
    "DOMAINS",
    "TASK_KINDS",
    "Form",
    "TaskKind",
    "Domain",
    "Environment",
    "OperationDef",
    "ReferenceStep",
    "Span",
    "ReferenceStepRecord",
    "Task",
    "TaskRecord",
    "TaskDraft",
    "ActionLog",
    "CatalogDomain",
    "LIVE_SERVERS",
    "LoggedAction",
    "PackServer",
    "DomainPack",
    "PackCall",
    "PackSource",
    "PackTask",
    "PackTool",
    "TaskLine",
    "TAU2_PACK_FORMAT",
    "TAU2_POLICY",
    "Tau2Domain",
    "Tau2Environment",
    "Tau2Pack",
    "Tau2Source",
    "Tau2Task",
    "file_digest",
    "read_tau2_pack",
    "tau2_hash",
    "DEFAULT_POLICY",
    "catalog_pack",
    "read_task_file",
    "domain_names",
    "get_domain",
    "is_pack_path",
    "kind_from_name",
    "load_pack",
    "operation",
    "reachable",
    "surface_forms",
    "task_hash",
    "task_set_hash",
]
