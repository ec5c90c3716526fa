"""The class arms of the Action-Space Shaping paper (``toolschema/hierarchy.py``,
``toolschema/class_grouping.py``): classes and methods, ``rename`` styles ``namespaced`` / ``flat`` /
``domain-class``, ``discovery`` styles ``paper`` / ``gated``, the class-sized partitions; and golden
checks against the paper's own rendered catalogs and spec files in ../shared/external (skipped when
absent)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from toolprism.errors import ConfigError, RejectionKind
from toolprism.interop import import_toolschemaspace
from toolprism.schema import ActionSpace, Operation, Param, ToolCall, ToolSpec
from toolprism.shaping import (
    ANTI_SEEDS,
    RANDOM_SEEDS,
    AdapterSession,
    Variant,
    anti_partition,
    class_method,
    class_partition,
    classes,
    grouping_spec,
    random_partition,
)
from toolprism.shaping.operators import is_class_qualified, method_names, neutral_lengths, pad_description

LEVEL = Param("level", {"type": "integer"})
SPACE = ActionSpace(
    "home",
    (
        Operation("tv__set_volume", "Set the TV volume.", (LEVEL,), group="tv"),
        Operation("tv__get_status", "Read the TV.", kind="read", group="tv"),
        Operation("radio__set_volume", "Set the radio volume.", (LEVEL,), group="radio"),
        Operation("radio__tune", "Tune the radio.", (Param("station", {"type": "string"}),), group="radio"),
        Operation("ping", "Ping."),
    ),
)
"""A tiny whole catalog: class-qualified names, one method (set_volume) in two classes, one tool
without a group."""


def _names(spec: str) -> list[str]:
    return [t.name for t in Variant.build(spec, SPACE).tools()]


def test_class_and_method_come_from_the_group_and_a_qualified_name() -> None:
    assert class_method("tv__set_volume", "tv") == ("tv", "set_volume")
    assert class_method("set_volume", "tv") == ("tv", "set_volume")
    assert class_method("radio__tune", "tv") == ("tv", "radio__tune")  # another class's prefix is part of the name
    assert class_method("tv__", "tv") == ("tv", "tv__")
    by_class = classes(SPACE.tools(), "home")
    assert {c: list(ms) for c, ms in by_class.items()} == {
        "tv": ["set_volume", "get_status"],
        "radio": ["set_volume", "tune"],
        "home": ["ping"],
    }
    with pytest.raises(ConfigError, match="both method 'x'"):
        classes([ToolSpec("g__x", "", {}, "g"), ToolSpec("x", "", {}, "g")], "s")


def test_rename_styles() -> None:
    assert _names("rename(style=namespaced)") == [
        "home__ping", "radio__set_volume", "radio__tune", "tv__set_volume", "tv__get_status",
    ]  # fmt: skip
    flat = Variant.build("rename(style=flat)", SPACE).tools()
    assert [t.name for t in flat] == ["ping", "set_volume_radio", "tune", "set_volume_tv", "get_status"]
    assert flat[1].description == "[radio] Set the radio volume." and flat[0].description == "[home] Ping."
    assert _names("rename(style=domain-class)") == [
        "home__tv__tv__set_volume", "home__tv__tv__get_status", "home__radio__radio__set_volume",
        "home__radio__radio__tune", "home__ping",
    ]  # fmt: skip


@pytest.mark.parametrize("style", ["namespaced", "flat", "domain-class", "opaque"])
def test_every_rename_style_decodes_to_the_native_call(style: str) -> None:
    variant = Variant.build(f"rename(style={style})", SPACE)
    executed = []
    session = AdapterSession(variant, lambda action: executed.append(action) or {"ok": True})
    for native in SPACE.tools():
        shown = variant.tools()[[t.name for t in variant.layers[1].below.tools()].index(native.name)]
        if style in ("namespaced", "flat"):  # shown class by class: find the tool by its description
            shown = next(t for t in variant.tools() if t.description.endswith(native.description))
        arguments = {"level": 3} if "level" in native.parameters["properties"] else {}
        arguments |= {"station": "jazz"} if "station" in native.parameters["properties"] else {}
        assert session.handle(ToolCall(shown.name, arguments)).outcome == "executed"
        assert executed[-1] == SPACE.action(native.name, arguments)


def test_paper_discovery_lists_methods_and_invokes_without_a_listing() -> None:
    variant = Variant.build("discovery(style=paper)", SPACE)
    invoke = variant.tools()[1]
    assert invoke.parameters["properties"]["class"]["enum"] == ["home", "radio", "tv"]
    assert sorted(invoke.parameters["required"]) == ["arguments", "class", "method"]
    assert "radio: set_volume, tune" in invoke.description
    executed = []
    session = AdapterSession(variant, lambda action: executed.append(action) or {"ok": True})
    call = ToolCall("invoke", {"class": "tv", "method": "set_volume", "arguments": {"level": 4}})
    assert session.handle(call).outcome == "executed"
    assert executed == [SPACE.action("tv__set_volume", {"level": 4})]
    listing = session.handle(ToolCall("list_methods", {"class": "radio"}))
    assert [m["name"] for m in listing.reply["methods"]] == ["set_volume", "tune"]
    wrong = session.handle(ToolCall("invoke", {"class": "tv", "method": "tune", "arguments": {"station": "x"}}))
    assert wrong.rejection == RejectionKind.UNKNOWN_TOOL and "'tune' is a method of class 'radio'" in str(wrong.reply)
    plan = variant.plan(SPACE.action("radio__tune", {"station": "jazz"}))
    assert next(plan) == ToolCall("invoke", {"class": "radio", "method": "tune", "arguments": {"station": "jazz"}})


def test_gated_discovery_rejects_an_invoke_before_the_listing() -> None:
    variant = Variant.build("discovery(style=gated)", SPACE)
    session = AdapterSession(variant, lambda action: {"ok": True})
    call = ToolCall("invoke", {"class": "tv", "method": "set_volume", "arguments": {"level": 4}})
    assert session.handle(call).rejection == RejectionKind.UNDISCOVERED
    session.handle(ToolCall("list_methods", {"class": "tv"}))
    assert session.handle(call).outcome == "executed"
    assert next(variant.plan(SPACE.action("tv__get_status"))) == ToolCall("list_methods", {"class": "tv"})


def test_partitions_are_class_sized_deterministic_and_never_repeat_a_method() -> None:
    tools = [
        ToolSpec(f"{c}__{m}", "", {}, c) for c in ("a", "b", "c", "d") for m in ("get", "set", f"only_{c}", "x", "y")
    ]
    assert class_partition(tools, "s") == [[t.name for t in tools[i : i + 5]] for i in range(0, 20, 5)]
    for partition in (random_partition, anti_partition):
        groups, seed = partition(tools, "s", 7)
        assert (groups, seed) == partition(tools, "s", 7)
        assert sorted(len(g) for g in groups) == [5] * 4
        assert sorted(n for g in groups for n in g) == sorted(t.name for t in tools)
        for group in groups:
            methods = [n.split("__")[1] for n in group]
            assert len(set(methods)) == len(methods)
    anti, _ = anti_partition(tools, "s", 7)
    # spread thin: no class more than twice in a group (the repair may undo the one-per-group spread)
    assert all(max(Counter(n.split("__")[0] for n in g).values()) <= 2 for g in anti)


QUALIFIED = ActionSpace("home", tuple(op for op in SPACE.operations if op.group))
"""SPACE without its ungrouped tool: every name ``<class>__<method>``, classes out of order."""


def test_class_qualified_catalogs_and_their_methods() -> None:
    assert is_class_qualified(QUALIFIED.tools()) and not is_class_qualified(SPACE.tools())
    assert not is_class_qualified([])
    tv = [t for t in QUALIFIED.tools() if t.group == "tv"]
    assert method_names(tv) == ["set_volume", "get_status"]
    assert method_names(QUALIFIED.tools()) is None  # set_volume twice
    assert method_names(SPACE.tools()) is None  # ping is not qualified


def test_class_dispatch_over_a_qualified_catalog_is_the_papers() -> None:
    """hierarchy.py arm ``dispatch``: classes sorted, operations by method, ``<method>::<param>``
    keys all optional, empty values dropped on decode; calls decode to the catalog's names."""
    variant = Variant.build("merge(by=class,args=flat)", QUALIFIED)
    radio, tv = variant.tools()
    assert (radio.name, tv.name) == ("radio", "tv")  # the catalog lists tv first
    assert tv.parameters["properties"]["operation"]["enum"] == ["set_volume", "get_status"]
    assert list(radio.parameters["properties"]) == ["operation", "set_volume::level", "tune::station"]
    assert tv.parameters["required"] == ["operation"]
    assert "ONLY these 2 operations: set_volume, get_status." in tv.description
    executed = []
    session = AdapterSession(variant, lambda action: executed.append(action) or {"ok": True})
    call = ToolCall("radio", {"operation": "set_volume", "set_volume::level": 4, "tune::station": ""})
    assert session.handle(call).outcome == "executed"
    assert executed == [QUALIFIED.action("radio__set_volume", {"level": 4})]
    foreign = session.handle(ToolCall("radio", {"operation": "tune", "set_volume::level": 4}))
    assert foreign.rejection == RejectionKind.INVALID_ARGUMENTS
    assert next(variant.plan(QUALIFIED.action("tv__set_volume", {"level": 2}))) == ToolCall(
        "tv", {"operation": "set_volume", "set_volume::level": 2}
    )


def test_class_dispatch_elsewhere_keeps_its_order_and_own_encodings_keep_catalog_names() -> None:
    """Over a catalog that is not wholly class-qualified ``by=class`` keeps each dispatcher where its
    first member was (a dispatcher of qualified members still shows methods); toolprism's own
    encodings show catalog names."""
    shown = Variant.build("merge(by=class,args=flat)", SPACE).tools()
    assert [t.name for t in shown] == ["tv", "radio", "execute"]
    assert shown[0].parameters["properties"]["operation"]["enum"] == ["set_volume", "get_status"]
    assert shown[2].parameters["properties"]["operation"]["enum"] == ["ping"]
    shared = Variant.build("merge(by=class,args=shared)", QUALIFIED).tools()
    assert [t.name for t in shared] == ["radio", "tv"]  # a qualified catalog: classes sorted
    assert shared[1].parameters["properties"]["operation"]["enum"] == ["tv__set_volume", "tv__get_status"]


def test_neutral_descriptions_are_padded_as_the_papers() -> None:
    assert pad_description("abc", "g", 4) == "abc"
    assert pad_description("abc", "g", 6) == "abc N"
    assert pad_description("abc", "g", 4 + 30) == "abc Neutral dispatch surface. Neu"
    assert neutral_lengths([2, 3, 2, 1], [(2, 10), (3, 11), (2, 12)]) == [10, 11, 12, 0]


@pytest.mark.parametrize("by", ["class_neutral", "class_random", "class_anti"])
def test_catalog_merges_are_neutral_class_sized_and_lossless(by: str) -> None:
    level = Param("v", {"type": "integer"})
    space = ActionSpace(
        "s",
        tuple(
            Operation(f"{c}__{m}", f"{m} of {c}.", (level,), group=c)
            for c in ("kitchen_sink", "bb", "c")
            for m in ("get", "set", f"only_{c}")
        ),
    )
    variant = Variant.build(f"merge(by={by})", space)
    shown = variant.tools()
    assert [t.name for t in shown] == ["group_01", "group_02", "group_03"]
    for tool in shown:
        enum = tool.parameters["properties"]["operation"]["enum"]
        assert len(enum) == 3 and all("__" not in m for m in enum)  # methods, unique in the group
    # padded to the same-size class dispatcher's length (classes sorted: bb, c, kitchen_sink)
    by_class = Variant.build("merge(by=class,args=flat)", space).tools()
    assert [t.name for t in by_class] == ["bb", "c", "kitchen_sink"]
    for tool, target in zip(shown, by_class, strict=True):
        unpadded = tool.description.split(" Neu", 1)[0]
        assert len(tool.name) + len(tool.description) == max(
            len(target.name) + len(target.description), len(tool.name) + len(unpadded)
        )
    if by == "class_neutral":
        assert shown[2].description == by_class[2].description + " Neu"  # kitchen_sink is 4 longer than group_03
    executed = []
    session = AdapterSession(variant, lambda action: executed.append(action) or {"ok": True})
    for native in space.tools():
        call = next(variant.plan(space.action(native.name, {"v": 1})))
        assert call.name.startswith("group_0") and "__" not in str(call.arguments["operation"])
        assert session.handle(call).outcome == "executed"
        assert executed[-1] == space.action(native.name, {"v": 1})


def test_catalog_merges_refuse_parameters_that_do_not_apply() -> None:
    with pytest.raises(ConfigError, match="k and seed only apply"):
        Variant.build("merge(by=class_random,k=3)", QUALIFIED).tools()
    with pytest.raises(ConfigError, match="k and seed only apply"):
        Variant.build("merge(by=class_neutral,seed=3)", QUALIFIED).tools()
    assert Variant.build("merge(by=class_anti,seed=7)", QUALIFIED).layers[-1].spec() == (
        "merge(by=class_anti,args=flat,seed=7)"
    )


# --- golden: the paper's rendered catalogs and spec files ----------------------------------------


@pytest.fixture(scope="module")
def release(request: pytest.FixtureRequest) -> Path:
    shared = Path(__file__).resolve().parents[2] / ".." / "shared" / "external" / "toolschemaspace"
    if not shared.is_dir():
        pytest.skip("../shared/external/toolschemaspace is not present")
    return shared


@pytest.fixture(scope="module")
def catalog(release: Path) -> ActionSpace:
    """The paper's 168 tools as one whole-catalog pack (``toolprism import toolschemaspace --whole-catalog``)."""
    imported = import_toolschemaspace(release / "tools.json", release / "queries.sample.jsonl", whole_catalog=True)
    (pack,) = imported.packs
    return pack.action_space()


def _golden(release: Path, name: str) -> list[dict]:
    return [t["function"] for t in json.loads((release / "schemas" / name).read_text(encoding="utf-8"))["tools"]]


def _shape(parameters: dict) -> tuple[dict, list[str]]:
    """Parameters without prose: each property's schema less description (and the paper's
    ``optional`` marker), and the sorted required names."""
    properties = {
        name: {k: v for k, v in schema.items() if k not in ("description", "optional")}
        for name, schema in parameters.get("properties", {}).items()
    }
    return properties, sorted(parameters.get("required", []))


def _compare(ours: list[ToolSpec], golden: list[dict]) -> None:
    assert len(ours) == len(golden)
    assert [t.name for t in ours] == [g["name"] for g in golden]
    for tool, gold in zip(ours, golden, strict=True):
        assert _shape(dict(tool.parameters)) == _shape(gold["parameters"]), tool.name


def test_namespaced_names_reproduce_the_papers_catalog(release: Path, catalog: ActionSpace) -> None:
    ours = Variant.build("rename(style=namespaced)", catalog).tools()
    _compare(ours, _golden(release, "06_namespaced_names.json"))
    assert len(ours) == 168


def test_schema_discovery_reproduces_the_papers_catalog(release: Path, catalog: ActionSpace) -> None:
    ours = Variant.build("discovery(style=paper)", catalog).tools()
    _compare(ours, _golden(release, "11_schema_discovery.json"))
    listing = AdapterSession(Variant.build("discovery(style=paper)", catalog), lambda a: {}).handle(
        ToolCall("list_methods", {"class": "tv"})
    )
    native = {t.name: t for t in catalog.tools()}
    assert [m["parameters"] for m in listing.reply["methods"]] == [
        native[f"tv__{m['name']}"].parameters for m in listing.reply["methods"]
    ]


def test_class_dispatch_has_the_papers_dispatchers(release: Path, catalog: ActionSpace) -> None:
    ours = Variant.build("merge(by=class,args=flat)", catalog).tools()
    golden = _golden(release, "02_class_dispatch.json")
    assert len(ours) == len(golden) == 12
    assert sorted(t.name for t in ours) == sorted(g["name"] for g in golden)
    for tool in ours:  # one dispatcher per class, over exactly that class's methods
        gold = next(g for g in golden if g["name"] == tool.name)
        members = [class_method(n, tool.name)[1] for n in tool.parameters["properties"]["operation"]["enum"]]
        assert members == gold["parameters"]["properties"]["operation"]["enum"]


def test_class_dispatch_reproduces_the_papers_catalog(release: Path, catalog: ActionSpace) -> None:
    _compare(Variant.build("merge(by=class,args=flat)", catalog).tools(), _golden(release, "02_class_dispatch.json"))


def test_partitions_reproduce_the_papers_assignments(release: Path, catalog: ActionSpace) -> None:
    assignments = json.loads((release / "specs" / "class_grouping_assignments.json").read_text(encoding="utf-8"))
    tools = catalog.tools()

    def paper(groups: list[dict]) -> list[list[str]]:
        return [[f"{cls}__{name}" for cls, name in g["members"]] for g in groups]

    assert class_partition(tools, "x") == paper(assignments["class_neutral"]["groups"])
    for realization, seed in enumerate(RANDOM_SEEDS):
        row = assignments["random_neutral"][realization]
        assert random_partition(tools, "x", seed) == (paper(row["groups"]), row["seed_used"])
    for realization, seed in enumerate(ANTI_SEEDS):
        row = assignments["anti_class_neutral"][realization]
        assert anti_partition(tools, "x", seed) == (paper(row["groups"]), row["seed_used"])
    for name, key in [
        ("random_neutral_r0.json", "random_neutral"),
        ("anti_class_neutral_r0.json", "anti_class_neutral"),
    ]:
        spec = json.loads((release / "specs" / name).read_text(encoding="utf-8"))
        assert paper(spec["groups"]) == paper(assignments[key][0]["groups"])


@pytest.mark.parametrize(
    ("grouping", "spec_file"),
    [("class", "class_neutral.json"), ("random", "random_neutral_r0.json"), ("anti", "anti_class_neutral_r0.json")],
)
def test_catalog_merges_build_the_papers_spec_files(
    release: Path, catalog: ActionSpace, grouping: str, spec_file: str
) -> None:
    paper = json.loads((release / "specs" / spec_file).read_text(encoding="utf-8"))
    spec = grouping_spec(catalog.tools(), catalog.name, grouping)
    groups = [g.split("+") for g in spec.split("groups=", 1)[1].removesuffix(")").split("/")]
    assert groups == [[f"{cls}__{name}" for cls, name in g["members"]] for g in paper["groups"]]
    shown = {t.name: t for t in Variant.build(spec, catalog).tools()}  # in the order the merge shows them
    assert sorted(shown) == sorted(f"group_{i}" for i in range(1, 13))  # the paper's group_01..group_12
    sizes = [len(shown[f"group_{i}"].parameters["properties"]["operation"]["enum"]) for i in range(1, 13)]
    assert sizes == [g["size"] for g in paper["groups"]]


@pytest.mark.parametrize(
    ("spec", "arm", "seeds"),
    [
        ("merge(by=class_neutral)", "class_neutral", ()),
        ("merge(by=class_random)", "random_neutral", RANDOM_SEEDS),
        ("merge(by=class_anti)", "anti_class_neutral", ANTI_SEEDS),
    ],
)
def test_short_catalog_merge_specs_reproduce_the_papers(
    release: Path, catalog: ActionSpace, spec: str, arm: str, seeds: tuple[int, ...]
) -> None:
    """The r0 spec file exactly (names, member methods in order, padded descriptions, flat
    parameters); every realization's members by its seed."""
    paper = json.loads((release / "specs" / f"{arm}{'_r0' if seeds else ''}.json").read_text(encoding="utf-8"))
    native = {t.name: t for t in catalog.tools()}
    shown = Variant.build(spec, catalog).tools()
    assert [t.name for t in shown] == [g["into"] for g in paper["groups"]]
    for tool, group in zip(shown, paper["groups"], strict=True):
        assert tool.description == group["description"]
        assert tool.parameters["properties"]["operation"]["enum"] == [m for _, m in group["members"]]
        keys = [f"{m}::{p}" for c, m in group["members"] for p in native[f"{c}__{m}"].parameters["properties"]]
        assert list(tool.parameters["properties"]) == ["operation", *keys]
    assignments = json.loads((release / "specs" / "class_grouping_assignments.json").read_text(encoding="utf-8"))
    for realization, seed in enumerate(seeds[1:], start=1):
        row = assignments[arm][realization]
        shown = Variant.build(spec.replace(")", f",seed={seed})"), catalog).tools()
        assert [t.parameters["properties"]["operation"]["enum"] for t in shown] == [
            [m for _, m in g["members"]] for g in row["groups"]
        ]


def test_grouping_spec_refuses_bad_input_listing_every_problem() -> None:
    with pytest.raises(ConfigError) as info:
        grouping_spec(SPACE.tools(), "home", "semantic", realization=5)
    assert len(info.value.problems) == 2


def test_flat_rename_is_the_papers_native_whole_catalog_control(release: Path, catalog: ActionSpace) -> None:
    """hierarchy.py arm ``flat`` (no rendered file): classes sorted, the five repeated names as
    ``<name>_<class>``, every description prefixed ``[<class>] ``."""
    rows = json.loads((release / "tools.json").read_text(encoding="utf-8"))
    repeated = {n for n, c in Counter(r["name"] for r in rows).items() if c > 1}
    assert len(repeated) == 5
    expected = [
        (f"{r['name']}_{r['group']}" if r["name"] in repeated else r["name"], f"[{r['group']}] {r['description']}")
        for r in sorted(rows, key=lambda r: r["group"])
    ]
    shown = Variant.build("rename(style=flat)", catalog).tools()
    assert [(t.name, t.description) for t in shown] == expected
