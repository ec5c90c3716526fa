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

from toolprism.domains import Domain, Task, get_domain, task_set_hash
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
    """What differs between a task JSON a trace stored and the task the code generates, over the
    fields the stored one has (early version-1 traces left some out); None when nothing does."""
    if old is None:
        return None
    new = task.to_json()
    for key in ("query", "gold", "reference", "world_seed", "kind", "form"):
        if key in old and old[key] != new[key]:
            if key == "query":
                return f"its query was {old[key]!r}, now {new[key]!r}"
            return f"its {key} differs" + (" (the replies of its reference trace)" if key == "reference" else "")
    return None


def stored_tasks(store: RunStore) -> tuple[dict[str, dict[str, JSON]], list[str]]:
    """The task JSON each task id's traces stored, and one problem per task whose traces disagree
    (on a field both have) or whose stored task is not a task (an edited or damaged trace).

    Returns:
        ``(task id -> task JSON as stored, problems)``.
    """
    found: dict[str, dict[str, JSON]] = {}
    problems: list[str] = []
    for data in store.stored_tasks():
        try:
            Task.from_json(data)
        except ConfigError as e:
            problems.append(f"a trace stores a malformed task ({str(e).splitlines()[0]}): edited or damaged")
            continue
        first = found.setdefault(str(data["id"]), data)
        if any(first[k] != v for k, v in data.items() if k in first):
            problems.append(f"the traces of task {data['id']} store different tasks: edited or damaged")
    return found, list(dict.fromkeys(problems))


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
    """Check that the code still generates every task the run in ``store`` posed, and that its
    traces hold those tasks.

    The run's domains are regenerated at its seed (or, with ``posed``, what a resumed run would
    pose now, which must be exactly the pinned tasks) and each task compared with the header's
    pin. Each task a trace stored is compared with the task the code generates: a run made before
    pins existed is checked that way only (over the fields its traces stored; its unfinished
    tasks cannot be checked), and in a pinned run a difference means an edited trace.

    Raises:
        ConfigError: a task changed, a trace's task differs from its pin or from another trace of
            the same task, or the header does not pin a task its traces hold (see :func:`refuse_changed`).
    """
    config = store.header.config
    stored, problems = stored_tasks(store)
    now: dict[str, list[Task]] = {}
    if posed is None:
        for name in config.domains:
            domain = get_domain(name)
            now[domain.name] = domain.tasks(config.seed)
    else:
        for domain, task in posed:
            if task.id not in {t.id for t in now.setdefault(domain.name, [])}:
                now[domain.name].append(task)
    pins = store.header.tasks
    if pins is not None:
        problems += changed_tasks(pins, now, stored, exact=posed is not None)
    pinned = {i: digest for p in (pins or {}).values() for i, digest in p.tasks.items()}
    generated = {t.id: t for tasks in now.values() for t in tasks}
    for task_id, data in stored.items():
        task = generated.get(task_id)
        if pins is not None and task_id not in pinned:
            problems.append(f"task {task_id} has traces but the run header does not pin it: edited header?")
        elif pins is None and task is None and posed is None:
            problems.append(f"task {task_id} changed since this run: the code no longer generates it")
        elif task is not None and (pins is None or task.content_hash == pinned[task_id]):
            if (detail := _difference(data, task)) is not None:
                problems.append(
                    f"task {task_id} changed since this run: {detail}"
                    if pins is None
                    else f"the traces of task {task_id} store another task than the header pins ({detail}): edited?"
                )
    refuse_changed(problems, store.run_dir, action)
