"""The whole_catalog domain: the twelve device domains at once, class = member, names
``<class>__<method>``; its tasks are sampled member tasks in catalog terms; the oracle scores 100%
under native and every class arm."""

from __future__ import annotations

import pytest

from toolprism.domains import get_domain
from toolprism.domains.whole_catalog import LABELS, MEMBERS, PER_KIND, WholeCatalog, grouping_spec
from toolprism.errors import ConfigError
from toolprism.schema import canonical_json
from toolprism.shaping import Variant, class_method

CLASS_ARMS = {
    "native-whole-catalog": "rename(style=flat)",
    "namespaced-names": "rename(style=namespaced)",
    "class-dispatch": "merge(by=class,args=flat)",
    "schema-discovery": "discovery",
    "schema-discovery-gated": "discovery(style=gated)",
    "merge-catalog-neutral": "merge(by=class_neutral)",
    "merge-catalog-random-classes": "merge(by=class_random)",
    "merge-catalog-anti-classes": "merge(by=class_anti)",
}


def test_every_member_operation_is_there_under_its_class() -> None:
    space = get_domain("whole_catalog").action_space()
    expected = [(m, op) for m in MEMBERS for op in get_domain(m).action_space().operations]
    assert len(space.operations) == len(expected) == 181
    for op, (member, native) in zip(space.operations, expected, strict=True):
        assert op.name == f"{member}__{native.name}" and op.group == member
        assert class_method(op.name, op.group) == (member, native.name)
        assert (op.description, op.params, op.kind) == (native.description, native.params, native.kind)


def test_tasks_are_sampled_member_tasks_in_catalog_terms() -> None:
    tasks = get_domain("whole_catalog").tasks(0)
    sources = {t.id: t for m in MEMBERS for t in get_domain(m).tasks(0)}
    assert len(tasks) == len(MEMBERS) * 3 * PER_KIND * 2 == 144
    assert [t.form for t in tasks] == ["easy"] * 72 + ["hard"] * 72
    for task in tasks:
        member = task.id.split("/")[1]
        source = sources[task.id.removeprefix("whole_catalog/")]
        assert task.query == f"{LABELS[member]}: {source.query}"
        assert [(a.op, a.args) for a in task.gold] == [(f"{member}__{a.op}", a.args) for a in source.gold]
        assert [canonical_json(s.reply) for s in task.reference] == [canonical_json(s.reply) for s in source.reference]
        assert (task.kind, task.form, task.world_seed) == (source.kind, source.form, source.world_seed)
        assert all(str(task.query[s.start : s.end]).lower() in task.query.lower() for s in task.spans)
        assert [task.query[s.start : s.end] for s in task.spans] == [
            source.query[s.start : s.end] for s in source.spans
        ]
    easy = [t for t in tasks if t.form == "easy"]
    for member in MEMBERS:
        kinds = sorted(t.kind for t in easy if t.id.split("/")[1] == member)
        assert kinds == sorted(["single", "compound", "compositional"] * PER_KIND), member


def test_tasks_are_the_same_when_generated_again() -> None:
    first, second = WholeCatalog()._tasks(1), WholeCatalog()._tasks(1)  # uncached: tasks() is cached per seed
    assert [canonical_json(t.to_json()) for t in first] == [canonical_json(t.to_json()) for t in second]
    assert [t.id for t in first] != [t.id for t in WholeCatalog()._tasks(0)] or first != WholeCatalog()._tasks(0)


def test_a_write_lands_in_its_members_world_only() -> None:
    domain = get_domain("whole_catalog")
    env = domain.environment(0)
    before = {m: canonical_json(getattr(env.state, m).model_dump(mode="json")) for m in MEMBERS}
    task = next(t for t in domain.tasks(0) if t.id.startswith("whole_catalog/tv/") and t.kind == "compound")
    for action in task.gold:
        env.execute(action)
    after = {m: canonical_json(getattr(env.state, m).model_dump(mode="json")) for m in MEMBERS}
    assert [m for m in MEMBERS if before[m] != after[m]] == ["tv"]


@pytest.mark.parametrize("grouping", ["class", "random", "anti"])
def test_catalog_groupings_are_class_sized_and_never_repeat_a_method(grouping: str) -> None:
    space = get_domain("whole_catalog").action_space()
    spec = grouping_spec(grouping)
    groups = [g.split("+") for g in spec.split("groups=", 1)[1].removesuffix(")").split("/")]
    sizes = sorted(len(get_domain(m).action_space().operations) for m in MEMBERS)
    assert sorted(len(g) for g in groups) == sizes and sorted(n for g in groups for n in g) == sorted(
        op.name for op in space.operations
    )
    for group in groups:
        methods = [n.split("__", 1)[1] for n in group]
        assert len(methods) == len(set(methods)), group
    classes = [{n.split("__", 1)[0] for n in g} for g in groups]
    if grouping == "class":
        assert all(len(c) == 1 for c in classes)
    else:
        assert sum(len(c) for c in classes) > 6 * len(groups)  # spread over many classes
    assert spec == grouping_spec(grouping)  # deterministic
    assert len(Variant.build(spec, space).tools()) == 12


def test_grouping_spec_refuses_bad_input_listing_every_problem() -> None:
    with pytest.raises(ConfigError) as info:
        grouping_spec("semantic", realization=9)
    assert len(info.value.problems) == 2


SAMPLE = 24
"""Tasks checked per arm in the default suite (the ``slow`` suite checks all 72 distinct traces)."""


@pytest.mark.parametrize("spec", ["native", *CLASS_ARMS.values(), "class", "random", "anti"])
def test_oracle_scores_sampled_tasks_under_native_and_each_class_arm(spec: str, oracle_scores_every_task) -> None:  # noqa: ANN001
    spec = grouping_spec(spec) if spec in ("class", "random", "anti") else spec
    oracle_scores_every_task("whole_catalog", spec, sample=SAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["native", *CLASS_ARMS.values(), "class", "random", "anti"])
def test_oracle_scores_every_task_under_native_and_each_class_arm(spec: str, oracle_scores_every_task) -> None:  # noqa: ANN001
    spec = grouping_spec(spec) if spec in ("class", "random", "anti") else spec
    oracle_scores_every_task("whole_catalog", spec)


def test_class_arm_tool_counts() -> None:
    space = get_domain("whole_catalog").action_space()
    counts = {name: len(Variant.build(spec, space).tools()) for name, spec in CLASS_ARMS.items()}
    assert counts == {
        "native-whole-catalog": 181,
        "namespaced-names": 181,
        "class-dispatch": 12,
        "schema-discovery": 2,
        "schema-discovery-gated": 2,
        "merge-catalog-neutral": 12,
        "merge-catalog-random-classes": 12,
        "merge-catalog-anti-classes": 12,
    }
    flat = [t.name for t in Variant.build("rename(style=flat)", space).tools()]
    assert "set_volume_tv" in flat and "set_volume_media_player" in flat and "set_volume" not in flat


@pytest.mark.parametrize("grouping", ["class", "random", "anti"])
def test_short_catalog_merge_specs_are_the_grouping_specs(grouping: str) -> None:
    """``merge(by=class_neutral|class_random|class_anti)`` has the members of :func:`grouping_spec`
    (the paper's r0 seed), shown by method, named ``group_01``..."""
    space = get_domain("whole_catalog").action_space()
    short = {"class": "class_neutral", "random": "class_random", "anti": "class_anti"}[grouping]
    shown = Variant.build(f"merge(by={short})", space).tools()
    groups = [g.split("+") for g in grouping_spec(grouping).split("groups=", 1)[1].removesuffix(")").split("/")]
    assert [t.name for t in shown] == [f"group_{i:02d}" for i in range(1, 13)]
    assert [t.parameters["properties"]["operation"]["enum"] for t in shown] == [
        [n.split("__", 1)[1] for n in g] for g in groups
    ]


def test_class_dispatch_shows_methods_in_class_order() -> None:
    shown = Variant.build("merge(by=class,args=flat)", get_domain("whole_catalog").action_space()).tools()
    assert [t.name for t in shown] == sorted(MEMBERS)
    tv = get_domain("tv").action_space()
    assert shown[MEMBERS.index("tv")].parameters["properties"]["operation"]["enum"] == [t.name for t in tv.tools()]
