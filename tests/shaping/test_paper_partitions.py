"""The paper's merges, splits and granularity ladder, checked against its own catalog and files
(``../shared/external/toolschemaspace``: ``tools.json``, the rendered ``schemas/01_fully_merged``
and ``03_fully_split``, the spec files ``mgroup_*``, ``enum1``, ``enumfull``, ``merge_full_*``).
Skipped when that folder is absent.

Each of the paper's tool groups (domains) is loaded as one action space, as the paper transforms
each group separately. Known differences, asserted here so that a new one fails: toolprism's
schemas are closed (``additionalProperties: false``) where the paper's are open, and a split name
longer than 64 characters is shortened (:func:`~toolprism.shaping.operators._split.fit`).
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

from toolprism.schema import ActionSpace, load_catalog
from toolprism.shaping import AdapterSession, Batch, Variant
from toolprism.shaping.operators._split import fit

PAPER_RATIOS = [0.07, 0.29, 0.46, 0.69, 0.85, 1.0, 1.5, 2.9, 5.4, 10.6]
"""The paper's tool-count ratio to native at ladder steps 0..9 (registry.json, appendix Figure 4):
the mean over domains of each domain's ratio."""


@pytest.fixture(scope="module")
def paper(request: pytest.FixtureRequest) -> Path:
    folder = Path(__file__).resolve().parents[2] / ".." / "shared" / "external" / "toolschemaspace"
    if not (folder / "tools.json").is_file():
        pytest.skip("../shared/external/toolschemaspace is not present")
    return folder


@pytest.fixture(scope="module")
def spaces(paper: Path) -> dict[str, ActionSpace]:
    groups = dict.fromkeys(t["group"] for t in json.loads((paper / "tools.json").read_text()))
    return {g: load_catalog(paper / "tools.json", group=g) for g in groups}


def _open(value: Any) -> Any:
    """``value`` without ``additionalProperties`` keys (the paper's schemas are open)."""
    if isinstance(value, dict):
        return {k: _open(v) for k, v in value.items() if k != "additionalProperties"}
    if isinstance(value, list):
        return [_open(v) for v in value]
    return value


def _schemas(paper: Path, name: str) -> dict[str, list[dict[str, Any]]]:
    return json.loads((paper / "schemas" / name).read_text())["domains"]


def _ops(paper: Path, name: str) -> list[dict[str, Any]]:
    return json.loads((paper / "specs" / f"{name}.json").read_text())["ops"]


@pytest.mark.parametrize("spec", ["ladder(k=0)", "merge(by=full)"])
def test_fully_merged_is_the_papers_catalog(paper: Path, spaces: dict[str, ActionSpace], spec: str) -> None:
    gold = _schemas(paper, "01_fully_merged.json")
    for group, space in spaces.items():
        ours = Variant.build(spec, space).openai_tools
        assert ours[0]["function"]["parameters"]["additionalProperties"] is False
        assert _open(ours) == gold[group], group  # names, parameters, types, enums and descriptions


def test_fully_split_is_the_papers_catalog(paper: Path, spaces: dict[str, ActionSpace]) -> None:
    gold = _schemas(paper, "03_fully_split.json")
    shortened = 0
    for group, space in spaces.items():
        ours = Variant.build("ladder(k=9)", space).openai_tools
        theirs = gold[group]
        assert [t["function"]["name"] for t in ours] == [fit(t["function"]["name"]) for t in theirs], group
        for mine, paper_tool in zip(ours, theirs, strict=True):
            shortened += mine["function"]["name"] != paper_tool["function"]["name"]
            paper_tool["function"]["name"] = mine["function"]["name"]
        assert _open(ours) == theirs, group
    assert sum(len(v) for v in gold.values()) == 1824
    assert shortened == 36  # the names over 64 characters in the paper's file


def _ratios(spaces: dict[str, ActionSpace], spec: str) -> tuple[float, float]:
    """(mean over domains of tools / native tools, pooled tools / native tools)."""
    counts = {g: (len(Variant.build(spec, s).tools()), len(s.operations)) for g, s in spaces.items()}
    pooled = sum(c for c, _ in counts.values()) / sum(n for _, n in counts.values())
    return mean(c / n for c, n in counts.values()), pooled


@pytest.mark.parametrize("k", range(10))
def test_ladder_reproduces_the_papers_ratios(spaces: dict[str, ActionSpace], k: int) -> None:
    per_domain, pooled = _ratios(spaces, f"ladder(k={k})")
    assert abs(per_domain - PAPER_RATIOS[k]) <= 0.05, (k, per_domain)
    assert pooled == pytest.approx([12, 49, 77, 115, 143, 168, 252, 489, 915, 1824][k] / 168)


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("mgroup_sem", "merge(by=semantic)"),
        ("mgroup_anti", "merge(by=anti_semantic)"),
        ("mgroup_rand", "merge(by=shuffled,seed=20260715)"),
        ("merge_sem_nested", "merge(by=semantic,args=nested)"),
        ("merge_sem_union", "merge(by=semantic,args=union)"),
        ("merge_full_nested", "merge(by=full,args=nested)"),
        ("merge_full_union", "merge(by=full,args=union)"),
    ],
)
def test_group_merges_reproduce_the_papers_spec_files(
    paper: Path, spaces: dict[str, ActionSpace], name: str, spec: str
) -> None:
    ops = _ops(paper, name)
    for group, space in spaces.items():
        want = [(o["into"], o["tools"]) for o in ops if o["group"] == group]
        tools = Variant.build(spec, space).tools()
        if "union" in spec:
            got = [(t.name, list(t.parameters["properties"])) for t in tools]
        else:
            got = [(t.name, t.parameters["properties"]["operation"]["enum"]) for t in tools]
        assert got == want, group


@pytest.mark.parametrize(
    ("name", "spec"), [("enum1", "split(style=paper)"), ("enumfull", "split(style=paper,on=all,cap=24)")]
)
def test_paper_splits_bake_the_papers_arguments(
    paper: Path, spaces: dict[str, ActionSpace], name: str, spec: str
) -> None:
    ops = _ops(paper, name)
    for group, space in spaces.items():
        variant = Variant.build(spec, space)
        baked: dict[str, list[str]] = {}
        for tool in variant.tools():
            base, _, rest = tool.name.partition("__")
            if rest:
                props = {t.name: t for t in space.tools()}[base].parameters["properties"]
                baked.setdefault(base, [p for p in props if p not in tool.parameters["properties"]])
        assert baked == {o["tool"]: o["params"] for o in ops if o["group"] == group}, group


def test_nested_arguments_accept_every_members_values(spaces: dict[str, ActionSpace]) -> None:
    """The paper keeps the first member's schema for a shared name; toolprism widens it."""
    tool = Variant.build("merge(by=full,args=nested)", spaces["car_cabin"]).tools()[0]
    state = tool.parameters["properties"]["arguments"]["properties"]["state"]
    assert state["description"] == "[set_window] Target window state."
    assert {"open", "closed", "vent", "tilt"} <= set(state["enum"])


PAPER_VARIANTS = [
    *(f"ladder(k={k})" for k in range(10)),
    "merge(by=full,args=nested)",
    "merge(by=full,args=union)",
    "merge(by=semantic)",
    "merge(by=anti_semantic)",
    "merge(by=shuffled,seed=20260715)",
    "split(style=paper)",
    "split(style=paper,on=all,cap=24)",
]


@pytest.mark.parametrize("spec", PAPER_VARIANTS)
def test_the_papers_gold_calls_round_trip(paper: Path, spaces: dict[str, ActionSpace], spec: str) -> None:
    """Every gold call of the sample tasks, encoded by the variant's plan and decoded by the
    adapter, gives back the same native action with no rejection."""
    variants = {g: Variant.build(spec, s) for g, s in spaces.items()}
    lines = (paper / "queries.sample.jsonl").read_text().splitlines()
    calls = [(row["domain"], c) for row in map(json.loads, lines) for c in row["gold_calls"]]
    assert len(calls) > 400
    for group, call in calls:
        action = spaces[group].action(call["name"], call["arguments"])
        executed: list = []
        session = AdapterSession(variants[group], lambda a, out=executed: out.append(a) or {"ok": True})
        plan = variants[group].plan(action)
        try:
            item = next(plan)
            while True:
                decisions = [session.handle(c) for c in (item.calls if isinstance(item, Batch) else (item,))]
                assert all(d.outcome != "rejected" for d in decisions), (spec, call, decisions)
                replies = [d.reply for d in decisions]
                item = plan.send(replies if isinstance(item, Batch) else replies[0])
        except StopIteration:
            pass
        assert executed == [action], (spec, call)
