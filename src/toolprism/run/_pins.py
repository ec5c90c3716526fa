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
        if name not in now:
            problems.append(f"domain {name} is pinned by the run but not among the domains its configuration names")
            continue
        current = {t.id: t for t in now[name]}
        version = next((t.version for t in current.values()), pinned.version)
        if version != pinned.version:
            problems.append(f"domain {name} is at version {version}; the run was made at version {pinned.version}")
        for task_id, digest in pinned.tasks.items():
            task = current.get(task_id)
            if task is None:
                problems.append(f"task {task_id} changed since this run: the code no longer generates it")
            elif task.content_hash != digest:
                detail = _difference((stored or {}).get(task_id), task)
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
    return None


def pins_from_traces(tasks: Mapping[str, Mapping[str, JSON]]) -> dict[str, DomainPins]:
    """Pins for a run made before headers recorded them: each trace's stored task JSON hashed at
    domain version 1 (every domain's version then), grouped by the task's domain.

    Args:
        tasks: task id -> the task JSON its traces stored (normalised, see :func:`stored_tasks`).
    """
    out: dict[str, DomainPins] = {}
    for task_id, data in tasks.items():
        entry = out.setdefault(str(data["domain"]), DomainPins(version=1, set_hash=None, tasks={}))
        entry.tasks[task_id] = task_hash(data, 1)
    return out


def stored_tasks(store: RunStore) -> tuple[dict[str, dict[str, JSON]], list[str]]:
    """The task each task id's traces stored, normalised through :meth:`Task.from_json` (a version-1
    trace's task reads as the upgraded one), and one problem per task whose traces disagree or
    whose stored task is malformed (an edited or damaged trace).

    Returns:
        ``(task id -> task JSON, problems)``.
    """
    found: dict[str, list[dict[str, JSON]]] = {}
    problems: list[str] = []
    for data in store.stored_tasks():
        try:
            task = Task.from_json(data)
        except (ConfigError, TypeError, KeyError, AttributeError, ValueError) as e:
            problems.append(f"a trace stores a malformed task ({str(e).splitlines()[0]}): edited or damaged")
            continue
        versions = found.setdefault(task.id, [])
        if (normal := task.to_json()) not in versions:
            versions.append(normal)
    problems += [
        f"the traces of task {i} store {len(v)} different tasks: edited or damaged"
        for i, v in found.items()
        if len(v) > 1
    ]
    return {i: v[0] for i, v in found.items()}, problems


def refuse_changed(problems: list[str], run_dir: object, action: str) -> None:
    """Raise when ``problems`` (from :func:`changed_tasks`) is not empty.

    Raises:
        ConfigError: naming up to :data:`SHOWN` problems and how many more there are, and what
            ``action`` on the run needs.
    """
    if not problems:
        return
    shown = problems[:SHOWN]
    if len(problems) > SHOWN:
        shown.append(f"... and {len(problems) - SHOWN} more changed task(s)")
    shown.append(
        f"{action} {run_dir} needs the tasks the run posed: check out the toolprism version that made the run "
        "(its header has the git revision), or start a new run"
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
    """Check that the traces of the run in ``store`` hold the tasks its header pins, and that the
    code still generates every one of them.

    Without ``posed``, the run's domains are regenerated at its seed and each pinned task's hash
    compared. With ``posed`` (what a resumed run would pose now), those tasks must be exactly the
    pinned ones. A run without pins in its header is pinned by the tasks its traces stored (its
    unfinished tasks cannot be checked).

    Raises:
        ConfigError: a trace's task differs from its pin or from another trace of the same task, or
            the code now generates a pinned task differently (see :func:`refuse_changed`).
    """
    config = store.header.config
    stored, problems = stored_tasks(store)
    pins = store.header.tasks
    if pins is None:
        pins = pins_from_traces(stored)
    else:
        pinned = {i: (d, p.version) for d, p in pins.items() for i, _ in p.tasks.items()}
        for task_id, data in stored.items():
            if task_id not in pinned:
                problems.append(f"task {task_id} has traces but the run header does not pin it: edited header?")
            elif task_hash(data, pinned[task_id][1]) != pins[pinned[task_id][0]].tasks[task_id]:
                problems.append(f"the traces of task {task_id} store another task than the header pins: edited?")
    now: dict[str, list[Task]] = {}
    if posed is None:
        for name in config.domains:
            domain = get_domain(name)
            now[domain.name] = domain.tasks(config.seed)
    else:
        for domain, task in posed:
            if task.id not in {t.id for t in now.setdefault(domain.name, [])}:
                now[domain.name].append(task)
    problems += changed_tasks(pins, now, stored, exact=posed is not None and store.header.tasks is not None)
    refuse_changed(problems, store.run_dir, action)
