"""Pinned task sets: a run records the content hash of every task it poses, and every later reader
(``score``, ``diagnose``, ``--resume``) checks that the code still generates those same tasks.

A task is whatever the generator makes of its id; without a pin, editing a phrasing helper would
silently make ``tv/single/3`` in an old run mean another task when it is re-scored, repaired or
resumed. The header's ``tasks`` entry holds, per domain, the domain version, the hash of its whole
task set at the run's seed and the hash of each task the run uses (see
:func:`toolprism.domains.task_hash`). Runs written before pins existed are checked against the
task JSON their traces stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from toolprism.domains import Domain, Task, get_domain, task_hash, task_set_hash
from toolprism.errors import ConfigError
from toolprism.run._store import DomainPins, RunStore
from toolprism.schema import JSON

SHOWN = 10
"""Changed tasks named in a refusal at most (the rest are counted)."""


def pin_tasks(domain: Domain, all_tasks: Sequence[Task], used: Iterable[Task]) -> DomainPins:
    """The pins of ``used`` (tasks of ``domain``), with the set hash of ``all_tasks`` (its whole set)."""
    return DomainPins(
        version=domain.version, set_hash=task_set_hash(all_tasks), tasks={t.id: t.content_hash for t in used}
    )


def changed_tasks(
    pins: Mapping[str, DomainPins],
    now: Mapping[str, Sequence[Task]],
    stored: Mapping[str, Mapping[str, JSON]] | None = None,
    *,
    exact: bool = False,
) -> list[str]:
    """One message per pinned task the code no longer generates as it was.

    Args:
        pins: domain name -> its pins (a run header's ``tasks``).
        now: domain name -> the tasks the code generates today (the whole set, or with ``exact``
            the tasks a resumed run would pose).
        stored: task id -> the task JSON a trace stored, to say what changed (optional).
        exact: also report tasks in ``now`` that the run did not pin (a resume would pose them).

    Returns:
        ``"task tv/single/3 changed since this run: ..."`` messages, in pin order; empty when
        every pinned task is generated unchanged.
    """
    problems: list[str] = []
    for name, pinned in pins.items():
        current = {t.id: t for t in now.get(name, ())}
        for task_id, digest in pinned.tasks.items():
            task = current.get(task_id)
            if task is None:
                problems.append(f"task {task_id} changed since this run: the code no longer generates it")
            elif task.content_hash != digest:
                detail = _difference(stored.get(task_id), task) if stored else None
                problems.append(
                    f"task {task_id} changed since this run: {detail or f'hash {digest} -> {task.content_hash}'}"
                )
        if exact:
            problems += [
                f"task {i} is new since this run (it would be posed on resume)"
                for i in current
                if i not in pinned.tasks
            ]
    return problems


def _difference(old: Mapping[str, JSON] | None, task: Task) -> str | None:
    if old is None:
        return None
    new = task.to_json()
    for key in ("query", "gold", "reference", "world_seed", "kind", "form"):
        if old.get(key) != new[key]:
            if key == "query":
                return f"its query was {old.get(key)!r}, now {new[key]!r}"
            return f"its {key} differs" + (" (the replies of its reference trace)" if key == "reference" else "")
    if task.version != 1 or old == new:
        return f"its domain version is now {task.version}"
    return None


def pins_from_traces(tasks: Mapping[str, Mapping[str, JSON]], domains: Mapping[str, str]) -> dict[str, DomainPins]:
    """Pins for a run made before headers recorded them: each trace's stored task JSON hashed at
    domain version 1 (every domain's version then), grouped by domain.

    Args:
        tasks: task id -> the task JSON its traces stored.
        domains: task id -> domain name.
    """
    out: dict[str, DomainPins] = {}
    for task_id, data in tasks.items():
        entry = out.setdefault(domains[task_id], DomainPins(version=1, set_hash=None, tasks={}))
        entry.tasks[task_id] = task_hash(data, 1)
    return out


def refuse_changed(problems: list[str], run_dir: object, action: str) -> None:
    """Raise when ``problems`` (from :func:`changed_tasks`) is not empty.

    Raises:
        ConfigError: naming up to :data:`SHOWN` changed tasks and how many more there are, and
            that ``action`` on the run would mean other tasks than those it ran.
    """
    if not problems:
        return
    shown = problems[:SHOWN]
    if len(problems) > SHOWN:
        shown.append(f"... and {len(problems) - SHOWN} more changed task(s)")
    shown.append(
        f"{action} {run_dir} would mix tasks the run never posed with those it did; check out the toolprism "
        "version that made the run (its header has the git revision), or start a new run"
    )
    raise ConfigError(shown, what="pinned tasks")


def run_pins(posed: Iterable[tuple[Domain, Task]], seed: int) -> dict[str, DomainPins]:
    """The header's ``tasks`` entry for a run posing ``posed`` (domain, task) pairs at ``seed``."""
    by_domain: dict[str, tuple[Domain, dict[str, Task]]] = {}
    for domain, task in posed:
        by_domain.setdefault(domain.name, (domain, {}))[1].setdefault(task.id, task)
    return {name: pin_tasks(domain, domain.tasks(seed), used.values()) for name, (domain, used) in by_domain.items()}


def verify_run_tasks(
    store: RunStore, action: str = "re-scoring", posed: Iterable[tuple[Domain, Task]] | None = None
) -> None:
    """Check that the code still generates every task the run in ``store`` posed.

    Without ``posed``, the run's domains are regenerated at its seed and each pinned task's hash
    compared. With ``posed`` (what a resumed run would pose now), those tasks must be exactly the
    pinned ones. A run without pins in its header is checked against the task JSON its traces
    stored (its unfinished tasks cannot be checked).

    Raises:
        ConfigError: a task changed (see :func:`refuse_changed`).
    """
    config = store.header.config
    header_pins = store.header.tasks
    stored = None
    if header_pins is None:
        stored = store.stored_tasks()
        pins = pins_from_traces(stored, {i: str(t.get("domain")) for i, t in stored.items()})
    else:
        pins = header_pins
    now: dict[str, list[Task]] = {}
    if posed is None:
        for name in config.domains or []:
            domain = get_domain(name)
            now[domain.name] = domain.tasks(config.seed or 0)
    else:
        for domain, task in posed:
            if task.id not in {t.id for t in now.setdefault(domain.name, [])}:
                now[domain.name].append(task)
    exact = posed is not None and header_pins is not None
    problems = changed_tasks(pins, now, exact=exact)
    if problems and stored is None:
        problems = changed_tasks(pins, now, store.stored_tasks(), exact=exact)
    refuse_changed(problems, store.run_dir, action)
