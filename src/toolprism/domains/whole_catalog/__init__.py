"""The ``whole_catalog`` domain: the twelve device domains shown at once (Action-Space Shaping, the
whole-catalog arms; paper code ``toolschema/hierarchy.py`` and ``toolschema/class_grouping.py``).

One action space holds every operation of calendar, car_cabin, climate, kitchen, laundry,
media_player, navigation, security, smart_home, smartwatch, tv and vacuum (181 operations); one
environment holds the twelve worlds (each member's world for the same seed); the tasks are member
tasks, posed on the member's world inside the whole catalog.

Native names repeat across members: 18 of them, ``get_status`` and ``set_mode`` in eleven members
each (the paper's 168 tools repeat five names, each twice). The paper
keeps a class-qualified native identity, ``<class>.<method>``, and scores in that space (picking
the right method in the wrong class is wrong); so does this domain: every operation is named
``<class>__<method>`` (``.`` is not allowed in a tool name; ``__`` is the separator of the paper's
own namespaced arm), its ``group`` is its class (the member domain), and its description and
parameters are the member's. The shaping operators read the class and the method back from that
form (:func:`toolprism.shaping.class_method`). The class arms are variants over this space:

- native whole catalog (the paper's ``flat`` arm, the control): ``rename(style=flat)``, the method
  names, ``<method>_<class>`` for a method more than one class has, descriptions prefixed
  ``[<class>] ``. Deviation: the paper's control is its own native form, ours a rename of the
  class-qualified native identity (the tools shown are the same).
- namespaced names (paper ``qualified``): ``rename(style=namespaced)``, ``<class>__<method>``
  (which is this domain's native form).
- class dispatch (paper ``dispatch``): ``merge(by=class,args=flat)``, one dispatcher per class.
- schema discovery (paper ``disclose``): ``discovery``, ``list_methods(class)`` then
  ``invoke(class, method, arguments)``, not gated.
- the catalog merges of ``class_grouping.py`` (neutral names, random classes, anti-classes):
  :func:`grouping_spec`.

Tasks: :data:`PER_KIND` easy tasks of each kind per member (the member's first task of that kind
and the one halfway through its list), each with its hard form: 12 x 3 x 2 = 72 easy and 72 hard
tasks per seed (computed once per seed and process). A task keeps the member's id under
``whole_catalog/`` (``whole_catalog/tv/...``), its gold in catalog names, and a reference trace
replayed on the whole catalog's environment. Its
query is the member's, after the member's label (``TV: ...``): the paper sends each task with its
domain's system prompt, and this domain has one policy for all twelve classes, so the request
itself says which device it is about. Two same-named methods of two classes are told apart by
that label only.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, create_model

from toolprism.domains import DOMAINS, get_domain
from toolprism.domains._base import Domain, OperationDef, ReferenceStep, Task
from toolprism.errors import ConfigError, ToolprismError
from toolprism.schema import JSON, ActionSpace, canonical_json
from toolprism.shaping import grouping_spec as catalog_grouping_spec
from toolprism.shaping import qualified_name

MEMBERS: tuple[str, ...] = (
    "calendar",
    "car_cabin",
    "climate",
    "kitchen",
    "laundry",
    "media_player",
    "navigation",
    "security",
    "smart_home",
    "smartwatch",
    "tv",
    "vacuum",
)
"""The member domains (the classes), in the paper's order (sorted)."""

LABELS: dict[str, str] = {
    "calendar": "Calendar",
    "car_cabin": "Car cabin",
    "climate": "Home climate",
    "kitchen": "Kitchen",
    "laundry": "Laundry",
    "media_player": "Media player",
    "navigation": "Car navigation",
    "security": "Home security",
    "smart_home": "Smart home",
    "smartwatch": "Smartwatch",
    "tv": "TV",
    "vacuum": "Robot vacuum",
}
"""The label that opens each member's requests (``"<label>: <query>"``)."""

PER_KIND = 2
"""Easy tasks taken per member and task kind (each with its hard form)."""


@functools.cache
def _member(name: str) -> Domain:
    return get_domain(name)


@functools.cache
def _member_tasks(name: str, seed: int) -> tuple[Task, ...]:
    return tuple(_member(name).tasks(seed))


def _executor(member: str, fn: Callable[..., JSON]) -> Callable[..., JSON]:
    """Run a member's operation on the member's world inside the whole catalog's state."""

    def execute(state: BaseModel, /, **arguments: JSON) -> JSON:
        return fn(getattr(state, member), **arguments)

    execute.__name__ = fn.__name__
    return execute


def _sample(tasks: tuple[Task, ...]) -> list[Task]:
    """The easy tasks kept of one member: per kind, the first and the one halfway through."""
    easy = [t for t in tasks if t.form == "easy"]
    chosen: set[str] = set()
    for kind in ("single", "compound", "compositional"):
        of_kind = [t for t in easy if t.kind == kind]
        picks = {round(i * len(of_kind) / PER_KIND) for i in range(PER_KIND)} if of_kind else set()
        chosen.update(of_kind[i].id for i in picks)
    return [t for t in easy if t.id in chosen]


@DOMAINS.register("whole_catalog")
class WholeCatalog(Domain):
    """The twelve device domains at once: class = member domain, names ``<class>__<method>``
    (see the module docstring)."""

    name = "whole_catalog"
    version = 1
    policy = (
        "You control twelve devices and services through one catalog of tools: a calendar, a car "
        "cabin, home climate, a kitchen, a laundry room, a media player, car navigation, home "
        "security, a smart home, a smartwatch, a TV and a robot vacuum. Each request opens with "
        "the device it is about; act on that device's tools only, since several devices have "
        "tools with the same name. Do exactly what the user asked and nothing more, use the "
        "values the user gave, answer questions by reading the state without changing anything, "
        "and if a tool refuses an action, tell the user why."
    )
    operations: ClassVar[tuple] = ()

    @classmethod
    def definitions(cls) -> dict[str, OperationDef]:
        """``<class>__<method>`` → the member's operation, run on the member's world."""
        if "_definitions" not in cls.__dict__:
            out: dict[str, OperationDef] = {}
            for member in MEMBERS:
                for definition in _member(member).definitions().values():
                    spec = dataclasses.replace(
                        definition.spec, name=qualified_name(member, definition.spec.name), group=member
                    )
                    out[spec.name] = OperationDef(spec, _executor(member, definition.fn))
            cls._definitions = out
        return cls._definitions

    @classmethod
    def state_model(cls) -> type[BaseModel]:
        """The state: one field per member, holding that member's world (its own state type)."""
        if "_state_model" not in cls.__dict__:
            fields: dict[str, Any] = {m: (type(_member(m).initial_state(0)), ...) for m in MEMBERS}
            cls._state_model = create_model("WholeCatalogState", __config__=ConfigDict(extra="forbid"), **fields)
        return cls._state_model

    @classmethod
    def aliases_of_members(cls) -> dict[str, tuple[str, ...]]:
        """Every member's aliases, merged (a value aliased by two members gets both lists)."""
        merged: dict[str, tuple[str, ...]] = {}
        for member in MEMBERS:
            for value, words in type(_member(member)).aliases.items():
                merged[value] = tuple(dict.fromkeys(merged.get(value, ()) + tuple(words)))
        return merged

    def __init__(self) -> None:
        self.aliases = self.aliases_of_members()  # type: ignore[misc]  # built from the members, once per instance
        replies: dict[str, tuple[str, ...]] = {}
        for member in MEMBERS:
            for key, values in type(_member(member)).reply_values.items():
                replies[key] = tuple(dict.fromkeys(replies.get(key, ()) + tuple(values)))
        self.reply_values = replies  # type: ignore[misc]

    def initial_state(self, world_seed: int) -> BaseModel:
        """Each member's world for ``world_seed``."""
        return self.state_model()(**{m: _member(m).initial_state(world_seed) for m in MEMBERS})

    def drafts(self, world_seed: int) -> list:
        """Not used: :meth:`tasks` lifts the members' tasks directly."""
        raise NotImplementedError("whole_catalog lifts its members' tasks; call tasks()")

    def tasks(self, seed: int = 0, limit: int | None = None) -> list[Task]:
        """The sampled member tasks of ``seed`` in catalog terms (see the module docstring): easy
        forms first, members in :data:`MEMBERS` order, then the hard forms in the same order.

        Raises:
            ConfigError: a member's gold action that the whole catalog refuses or answers
                otherwise than the member did (a bug: the member's world is the same).
        """
        out = list(_catalog_tasks(seed))
        return out[:limit] if limit is not None else out

    def _tasks(self, seed: int) -> tuple[Task, ...]:
        """The uncached :meth:`tasks` (computed once per seed and process)."""
        space = self.action_space()
        easy: list[Task] = []
        hard: list[Task] = []
        problems: list[str] = []
        for member in MEMBERS:
            tasks = _member_tasks(member, seed)
            twins = {t.id.removesuffix("/hard"): t for t in tasks if t.form == "hard"}
            for task in _sample(tasks):
                reference = self._replay(space, member, task, seed, problems)
                easy.append(self._lift(member, task, reference))
                if task.id in twins:
                    hard.append(self._lift(member, twins[task.id], reference))
        if problems:
            raise ConfigError(problems, what=f"tasks of domain {self.name!r}")
        return tuple(easy + hard)

    def _replay(
        self, space: ActionSpace, member: str, task: Task, seed: int, problems: list[str]
    ) -> tuple[ReferenceStep, ...]:
        env = self.environment(seed)
        steps = []
        for step in task.reference:
            try:
                action = space.action(qualified_name(member, step.action.op), step.action.arguments)
            except ToolprismError as e:
                problems.append(f"task {task.id}: {step.action} is not a whole-catalog action: {e}")
                return ()
            reply = env.execute(action)
            if canonical_json(reply) != canonical_json(step.reply):
                problems.append(f"task {task.id}: {action} replies {reply!r} in the catalog, {step.reply!r} alone")
            steps.append(ReferenceStep(action, reply))
        return tuple(steps)

    def _lift(self, member: str, task: Task, reference: tuple[ReferenceStep, ...]) -> Task:
        prefix = f"{LABELS[member]}: "
        spans = tuple(dataclasses.replace(s, start=s.start + len(prefix), end=s.end + len(prefix)) for s in task.spans)
        return Task(
            id=f"{self.name}/{task.id}",
            domain=self.name,
            query=prefix + task.query,
            gold=tuple(s.action for s in reference),
            reference=reference,
            world_seed=task.world_seed,
            kind=task.kind,
            form=task.form,
            version=self.version,
            spans=spans,
        )


@functools.cache
def _catalog_tasks(seed: int) -> tuple[Task, ...]:
    return WholeCatalog()._tasks(seed)


def grouping_spec(grouping: str, realization: int = 0) -> str:
    """The ``merge`` spec of one of the paper's catalog merges over this domain (``class``,
    ``random`` or ``anti``; see :func:`toolprism.shaping.grouping_spec`).

    Raises:
        ConfigError: an unknown grouping or a realization outside 0..4.
    """
    return catalog_grouping_spec(WholeCatalog.action_space().tools(), WholeCatalog.name, grouping, realization)


__all__ = ["LABELS", "MEMBERS", "PER_KIND", "WholeCatalog", "grouping_spec"]
