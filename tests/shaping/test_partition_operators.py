"""Proof obligations for the tool-set partitioning operators ``merge`` and ``split``.

(1) the oracle succeeds on every task of both domains (a sample of each template by default, all of
them under ``-m slow``), alone and composed, with no rejection;
(2) each rejection the operators can produce is recorded with its kind and changes nothing;
(3) every shown tool is a valid JSON Schema object with a valid, unique name; (4) specs round-trip.
"""

from __future__ import annotations

import asyncio
import random
import re

import jsonschema
import pytest

from toolprism.backends import ScriptedBackend, ScriptedTurns
from toolprism.domains import get_domain
from toolprism.errors import ConfigError, RejectionKind
from toolprism.run import EpisodeSpec, run_episode
from toolprism.schema import Action, ActionSpace, Operation, Param
from toolprism.schema._model import TOOL_NAME
from toolprism.shaping import AdapterSession, Batch, Variant

BOTH = ("smart_home", "retail")
HOME = ("smart_home",)
RETAIL = ("retail",)
HOME_GROUPS = "lock_door+unlock_door/play_music+stop_music+set_volume"
RETAIL_GROUPS = "cancel_order+get_order_details/find_user_id_by_email+get_user_details"

SETTINGS: dict[str, tuple[str, ...]] = {
    "merge(by=random,k=3,seed=0)": BOTH,
    "merge(by=random,k=5,seed=7)": BOTH,
    "merge(args=prose)": BOTH,
    "merge(args=prefixed)": BOTH,
    "merge(by=class,args=prose)": BOTH,
    "merge(by=class,args=prefixed)": BOTH,
    "merge(by=random,k=2,seed=1,args=prefixed)": BOTH,
    f"merge(by=groups,groups={HOME_GROUPS})": HOME,
    f"merge(by=groups,groups={RETAIL_GROUPS},args=prose)": RETAIL,
    "merge(by=full)": BOTH,
    "merge(by=full,args=nested)": BOTH,
    "merge(by=full,args=union)": BOTH,
    "merge(by=class,args=nested)": BOTH,
    "merge(by=semantic)": BOTH,
    "merge(by=anti_semantic,args=union)": BOTH,
    "merge(by=shuffled,seed=20260715,args=nested)": BOTH,
    "ladder(k=0)": BOTH,
    "ladder(k=2)": BOTH,
    "ladder(k=4)": BOTH,
    "ladder(k=7)": BOTH,
    "ladder(k=9)": BOTH,
    "split(style=paper)": BOTH,
    "split(style=paper,on=all,cap=24)": BOTH,
    "split(on=all)": BOTH,
    "split(on=first)": BOTH,
    "split(arg=room)": HOME,
    "split(on=room+power)": HOME,
    "split(only=set_light_power+set_mode)": HOME,
    "split(interval=brightness:50)": HOME,
    "split(interval=brightness:10+50/volume:30/temperature:20)": HOME,
    "split(on=all,interval=brightness:50)": HOME,
    "split(on=reason)": RETAIL,
    "split(only=cancel_order)": RETAIL,
}
COMPOSED: dict[str, tuple[str, ...]] = {
    "ladder(k=3)|merge(args=union)": BOTH,
    "split(style=paper,on=all)|merge(by=class,args=nested)": HOME,
    "ladder(k=8)|transaction": HOME,
    "merge(by=semantic,args=union)|ladder(k=0)": BOTH,
    "merge(args=prose)|merge(args=prefixed)": BOTH,
    "merge(args=prefixed)|merge(args=prose)|merge": BOTH,
    "split(on=all)|merge(by=class,args=prefixed)": BOTH,
    "merge(by=random,k=3,seed=0,args=prose)|rename(style=opaque)": BOTH,
    "split(on=all)|transaction": BOTH,
    "merge(by=class,args=prefixed)|split": BOTH,
    f"merge(by=groups,groups={HOME_GROUPS},args=prefixed)|split(on=all)": HOME,
    "split(interval=brightness:50)|merge(args=prefixed)|rename(style=opaque)": HOME,
    "split(on=all,interval=volume:50)|merge(by=random,k=4,seed=2,args=prose)": HOME,
    "split(on=all)|merge(by=groups,groups=cancel_order__no_longer_needed+cancel_order__ordered_by_mistake)": RETAIL,
    f"split(on=all)|merge(by=groups,groups={RETAIL_GROUPS.replace('cancel_order+', '')})|transaction": RETAIL,
}
CASES_1 = [(d, s) for s, ds in {**SETTINGS, **COMPOSED}.items() for d in ds]


def _space(domain_name: str) -> ActionSpace:
    return get_domain(domain_name).action_space()


# (1) the oracle, end to end ------------------------------------------------------------------


@pytest.mark.parametrize(("domain_name", "spec"), CASES_1)
def test_oracle_scores_every_task(domain_name: str, spec: str, task_sample, oracle_scores_every_task) -> None:  # noqa: ANN001
    oracle_scores_every_task(domain_name, spec, 64, sample=task_sample)


# (2) rejections -------------------------------------------------------------------------------

T = ScriptedTurns()
LOCK = {"operation": "lock_door"}
BRIGHT_LT, BRIGHT_GE = "set_light_brightness__brightness_lt_50", "set_light_brightness__brightness_ge_50"
CASES = {
    "prose: foreign argument": (
        "merge(args=prose)",
        T.call("execute", {**LOCK, "arguments": {"lock": "front_door", "room": "kitchen"}}),
        "operation 'lock_door' takes no argument(s) 'room' in 'arguments'; its arguments are: lock",
    ),
    "prose: bad value": (
        "merge(args=prose)",
        T.call("execute", {**LOCK, "arguments": {"lock": "window"}}),
        "invalid arguments in 'arguments' for operation 'lock_door': lock: 'window' is not one of",
    ),
    "prose: missing argument": ("merge(args=prose)", T.call("execute", LOCK), "'lock' is a required property"),
    "prose: arguments passed flat": (
        "merge(args=prose)",
        T.call("execute", {**LOCK, "lock": "front_door"}),
        "Additional properties are not allowed ('lock' was unexpected)",
    ),
    "prose: arguments not an object": (
        "merge(by=class,args=prose)",
        T.call("locks", {**LOCK, "arguments": "front_door"}),
        "'front_door' is not of type 'object'",
    ),
    "prefixed: another operation's argument": (
        "merge(args=prefixed)",
        T.call("execute", {**LOCK, "lock_door__lock": "front_door", "unlock_door__lock": "back_door"}),
        "operation 'lock_door' takes no argument(s) 'unlock_door__lock'; its arguments are: lock_door__lock",
    ),
    "prefixed: missing argument": ("merge(args=prefixed)", T.call("execute", LOCK), "'lock_door__lock' is a required"),
    "prefixed: bad value": (
        "merge(args=prefixed)",
        T.call("execute", {**LOCK, "lock_door__lock": "window"}),
        "invalid arguments for tool 'execute': lock_door__lock: 'window' is not one of",
    ),
    "prefixed: unprefixed argument": (
        "merge(args=prefixed)",
        T.call("execute", {**LOCK, "lock": "front_door"}),
        "Additional properties are not allowed ('lock' was unexpected)",
    ),
    "shared: foreign argument": (
        "merge(by=random,k=3,seed=0,args=shared)",
        T.call("group_3", {**LOCK, "lock": "front_door", "room": "kitchen"}),
        "operation 'lock_door' takes no argument(s) 'room'",
    ),
    "random: operation of another dispatcher": (
        "merge(by=random,k=3,seed=0,args=shared)",
        T.call("group_1", {**LOCK, "lock": "front_door"}),
        "'lock_door' is not one of",
    ),
    "flat: another operation's argument": (
        "merge(by=full)",
        T.call("execute", {**LOCK, "lock_door::lock": "front_door", "unlock_door::lock": "back_door"}),
        "operation 'lock_door' takes no argument(s) 'unlock_door::lock'; its arguments are: lock_door::lock",
    ),
    "flat: missing argument": ("merge(args=flat)", T.call("execute", LOCK), "'lock' is a required property"),
    "flat: un-namespaced argument": (
        "merge(args=flat)",
        T.call("execute", {**LOCK, "lock": "front_door"}),
        "Additional properties are not allowed ('lock' was unexpected)",
    ),
    "nested: another operation's argument": (
        "merge(args=nested)",
        T.call("execute", {**LOCK, "arguments": {"lock": "front_door", "room": "kitchen"}}),
        "operation 'lock_door' takes no argument(s) 'room' in 'arguments'; its arguments are: lock",
    ),
    "nested: unknown argument": (
        "merge(args=nested)",
        T.call("execute", {**LOCK, "arguments": {"lock": "front_door", "door": "front"}}),
        "Additional properties are not allowed ('door' was unexpected)",
    ),
    "union: two operation objects": (
        "merge(args=union)",
        T.call("execute", {"lock_door": {"lock": "front_door"}, "unlock_door": {"lock": "front_door"}}),
        "expected exactly one operation object, got 'lock_door', 'unlock_door'",
    ),
    "union: no operation object": (
        "merge(args=union)",
        T.call("execute", {}),
        "expected exactly one operation object, got none",
    ),
    "union: selector given": (
        "merge(args=union)",
        T.call("execute", {**LOCK, "lock_door": {"lock": "front_door"}}),
        "Additional properties are not allowed ('operation' was unexpected)",
    ),
    "ladder: baked argument passed again": (
        "ladder(k=9)",
        T.call("lock_door__lock_front_door", {"lock": "front_door"}),
        "Additional properties are not allowed",
    ),
    "ladder: merged tool by its own name": ("ladder(k=2)", T.call("lock_door", {"lock": "front_door"}), "unknown tool"),
    "groups: merged tool by its own name": (
        f"merge(by=groups,groups={HOME_GROUPS})",
        T.call("lock_door", {"lock": "front_door"}),
        "unknown tool 'lock_door'",
    ),
    "split all: old argument": (
        "split(on=all)",
        T.call("set_light_power__kitchen__on", {"room": "kitchen"}),
        "Additional properties are not allowed",
    ),
    "split all: half-split name": (
        "split(on=all)",
        T.call("set_light_power__kitchen", {"power": "on"}),
        "unknown tool 'set_light_power__kitchen'",
    ),
    "split only: unsplit tool by a split name": (
        "split(only=set_light_power)",
        T.call("set_blinds__open", {"room": "kitchen"}),
        "unknown tool 'set_blinds__open'",
    ),
    "interval: value above the cut": (
        "split(interval=brightness:50)",
        T.call(BRIGHT_LT, {"room": "kitchen", "brightness": 70}),
        f"invalid arguments for tool '{BRIGHT_LT}': brightness: 70 is greater than or equal to the maximum of 50",
    ),
    "interval: value below the cut": (
        "split(interval=brightness:50)",
        T.call(BRIGHT_GE, {"room": "kitchen", "brightness": 20}),
        "brightness: 20 is less than the minimum of 50",
    ),
    "interval: the native tool": (
        "split(interval=brightness:50)",
        T.call("set_light_brightness", {"room": "kitchen", "brightness": 20}),
        "unknown tool 'set_light_brightness'",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rejection_is_recorded_and_executes_nothing(case: str) -> None:
    spec, turn, reason = CASES[case]
    domain = get_domain("smart_home")
    task = domain.tasks(0)[0]
    variant = Variant.build(spec, domain.action_space())
    before = domain.environment(task.world_seed).state_hash()
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), ScriptedBackend([turn])))
    rejected = [c for t in trace.turns for c in t.calls if c.outcome == "rejected"]
    kind = RejectionKind.UNKNOWN_TOOL if "unknown tool" in reason else RejectionKind.INVALID_ARGUMENTS
    assert [RejectionKind(c.rejection) for c in rejected] == [kind]
    assert reason in rejected[0].reply["error"], rejected[0].reply
    assert trace.actions == []
    assert trace.final_state_hash == before


# (3) shown tools, (4) specs ------------------------------------------------------------------


@pytest.mark.parametrize(("domain_name", "spec"), CASES_1)
def test_shown_tools_are_valid_and_specs_round_trip(domain_name: str, spec: str) -> None:
    space = _space(domain_name)
    variant = Variant.build(spec, space)
    names = [t.name for t in variant.tools()]
    assert len(names) == len(set(names))
    for tool in variant.tools():
        assert TOOL_NAME.match(tool.name), tool.name
        jsonschema.Draft202012Validator.check_schema(tool.openai()["function"]["parameters"])
        assert tool.parameters["type"] == "object"
    assert Variant.build(variant.spec, space).spec == variant.spec


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("merge", "merge(by=full,args=shared)"),  # the suite's name, toolprism's old default
        ("merge(by=full)", "merge(by=full,args=flat)"),
        ("merge(by=semantic)", "merge(by=semantic,args=flat)"),
        ("merge(by=shuffled,args=union)", "merge(by=shuffled,args=union,seed=0)"),
        ("ladder", "ladder(k=5)"),
        ("ladder(k=3)", "ladder(k=3)"),
        ("split(style=paper)", "split(style=paper)"),
        ("split(cap=24,style=paper,on=all)", "split(on=all,style=paper,cap=24)"),
        ("merge(by=class)", "merge(by=class,args=flat)"),
        ("merge(by=random,k=3)", "merge(by=random,args=flat,k=3,seed=0)"),
        (
            "merge(args=prefixed,by=groups,groups=lock_door+unlock_door)",
            "merge(by=groups,args=prefixed,groups=lock_door+unlock_door)",
        ),
        ("split", "split"),
        ("split(on=first)", "split"),
        ("split(arg=room)", "split(on=room)"),
        ("split(interval=brightness:50)", "split(interval=brightness:50)"),
        ("split(on=none,interval=brightness:50)", "split(interval=brightness:50)"),
        (
            "split(on=first,only=set_blinds+set_light_brightness,interval=brightness:50)",
            "split(on=first,only=set_blinds+set_light_brightness,interval=brightness:50)",
        ),
    ],
)
def test_canonical_specs(spec: str, canonical: str) -> None:
    assert Variant.build(spec, _space("smart_home")).spec == canonical


# the granularity ladder ----------------------------------------------------------------------

LADDER = {
    "merge": (1, 1),
    "merge(by=random,k=2,seed=0)": (2, 2),
    "merge(by=class)": (8, 4),
    "merge(by=random,k=6,seed=0)": (6, 6),
    "native": (17, 16),
    "split": (84, 17),
    "split(on=all)": (230, 17),
}


@pytest.mark.parametrize("spec", list(LADDER))
def test_granularity_ladder(spec: str) -> None:
    assert tuple(len(Variant.build(spec, _space(d)).tools()) for d in BOTH) == LADDER[spec]


# merge ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_random_merge_is_the_documented_seeded_partition(seed: str) -> None:
    space = _space("retail")
    names = [t.name for t in space.tools()]
    shuffled = sorted(names)
    random.Random(f"merge/{seed}").shuffle(shuffled)
    expected = {frozenset(shuffled[i::4]) for i in range(4)}
    variant = Variant.build(f"merge(by=random,k=4,seed={seed})", space)
    shown = {frozenset(t.parameters["properties"]["operation"]["enum"]) for t in variant.tools()}
    assert shown == expected
    assert [t.name for t in variant.tools()] == ["group_1", "group_2", "group_3", "group_4"]
    assert Variant.build(f"merge(by=random,k=4,seed={seed})", space).tools() == variant.tools()


def test_partial_merge_keeps_unlisted_tools_in_place() -> None:
    space = _space("smart_home")
    shown = Variant.build(f"merge(by=groups,groups={HOME_GROUPS})", space).tools()
    native = {t.name: t for t in space.tools()}
    merged = {"lock_door", "unlock_door", "play_music", "stop_music", "set_volume"}
    assert [t.name for t in shown if t.name in native] == [n for n in native if n not in merged]
    assert all(t == native[t.name] for t in shown if t.name in native)
    groups = {t.name: t.parameters["properties"]["operation"]["enum"] for t in shown if t.name not in native}
    assert groups == {
        "group_1": ["lock_door", "unlock_door"],
        "group_2": ["play_music", "stop_music", "set_volume"],
    }


def test_nested_and_union_show_each_operations_arguments() -> None:
    space = _space("smart_home")
    nested = Variant.build("merge(by=class,args=prose)", space).top.tool("lights")
    assert set(nested.parameters["properties"]) == {"operation", "arguments"}
    assert '"brightness":{"description":"Brightness in percent (1-100).","maximum":100' in nested.description
    union = Variant.build("merge(by=class,args=prefixed)", space).top.tool("lights")
    props = union.parameters["properties"]
    assert {"set_light_power__room", "set_light_power__power", "set_light_brightness__brightness"} <= set(props)
    assert props["set_light_brightness__brightness"]["maximum"] == 100
    assert union.parameters["required"] == ["operation"]


def test_merge_over_merge_picks_a_fresh_selector_in_every_style() -> None:
    space = _space("smart_home")
    for style in ("shared", "prose", "prefixed"):
        top = Variant.build(f"merge(by=class,args={style})|merge(args={style})", space).tools()[0]
        assert "operation_2" in top.parameters["properties"], style


# problems at binding time --------------------------------------------------------------------

EXTRA = ActionSpace(
    "extra",
    (
        Operation("group_1", "Taken name."),
        Operation("a", params=(Param("b__c", {"type": "string"}),)),
        Operation("a__b", params=(Param("c", {"type": "string"}),)),
        Operation("casey", params=(Param("p", {"type": "string", "enum": ["a b", "a-b"]}),)),
        Operation("big", params=tuple(Param(n, {"type": "string", "enum": list("abcdefghi")}) for n in "pqr")),
        Operation("opt", params=(Param("n", {"type": "number"}, required=False),)),
    ),
)


@pytest.mark.parametrize(
    ("spec", "space", "problems"),
    [
        ("merge(by=groups)", "smart_home", ["by=groups needs groups="]),
        (
            "merge(by=groups,groups=lock_door+nope/lock_door+unlock_door/)",
            "smart_home",
            [
                "names 'nope', which is not a tool",
                "'lock_door' is in group 1 and group 2",
                "group 3 has an empty",
                "the tools are get_room_status, ",
            ],
        ),
        ("merge(groups=lock_door,k=2)", "smart_home", ["only applies to by=groups", "only apply to by=random"]),
        ("merge(by=random,k=0)", "smart_home", ["k of at least 1, got k=0"]),
        ("merge(by=random)", "smart_home", ["got k=0"]),
        ("merge(by=groups,groups=a+a__b)", "extra", ["dispatcher 'group_1': the name is taken by an unmerged tool"]),
        ("merge(by=groups,groups=a+a__b+group_1,args=prefixed)", "extra", ["argument 'a__b__c' of 'a__b' and 'a'"]),
        ("split(on=nope+room)", "smart_home", ["no tool to split has a required enumerated argument 'nope'"]),
        ("split(only=nope+list_scenes)", "smart_home", ["'nope' is not a tool", "'list_scenes': nothing to split"]),
        ("split(interval=brightness:200)", "smart_home", ["cut 200 leaves an empty piece (its range is 1..100)"]),
        ("split(interval=brightness:1)", "smart_home", ["cut 1 leaves an empty piece"]),
        ("split(interval=brightness)", "smart_home", ["expected ARG:CUT"]),
        ("split(interval=brightness:50+10)", "smart_home", ["strictly increasing"]),
        ("split(interval=room:5)", "smart_home", ["no tool to split has a required numeric argument 'room'"]),
        ("split(interval=brightness:50)", "retail", ["required numeric argument 'brightness'"]),
        ("split(interval=n:5)", "extra", ["required numeric argument 'n'"]),
        ("split(on=room,arg=room)", "smart_home", ["arg is an alias of on"]),
        ("split(on=none)", "smart_home", ["splits nothing"]),
        ("split(on=brightness,interval=brightness:50)", "smart_home", ["on and interval both name 'brightness'"]),
        # casey's "a b" and "a-b" share a suffix: disambiguated (issue #14), not a binding problem
        ("split(only=big+casey,on=all)", "extra", ["'big': would become 729 tools"]),
    ],
)
def test_binding_problems_are_all_listed(spec: str, space: str, problems: list[str]) -> None:
    with pytest.raises(ConfigError) as error:
        Variant.build(spec, EXTRA if space == "extra" else _space(space))
    text = "\n".join(error.value.problems)
    assert len(error.value.problems) == len(problems), text
    for problem in problems:
        assert problem in text


# split: long names and number cuts through the adapter -----------------------------------------

LONG = ActionSpace(
    "long",
    (
        Operation(
            "configure_the_extremely_verbose_subsystem_parameter",
            params=(
                Param("mode", {"type": "string", "enum": ["alpha_mode_with_long_name", "beta_mode_with_long_name"]}),
                Param("level", {"type": "string", "enum": ["low", "high"]}),
                Param("ratio", {"type": "number", "minimum": -1, "maximum": 1}),
            ),
        ),
    ),
)


def _through(variant: Variant, action: Action) -> list[str]:
    """Encode ``action`` with the variant's plan, decode each call with the adapter; the names used."""
    executed: list[Action] = []
    session = AdapterSession(variant, lambda a: executed.append(a) or {"ok": True})
    plan, names, reply = variant.plan(action), [], None
    try:
        item = next(plan)
        while True:
            calls = item.calls if isinstance(item, Batch) else (item,)
            decisions = [session.handle(c) for c in calls]
            assert all(d.outcome != "rejected" for d in decisions), decisions
            names += [c.name for c in calls]
            replies = [d.reply for d in decisions]
            item = plan.send(replies if isinstance(item, Batch) else replies[0])
    except StopIteration as stop:
        reply = stop.value
    assert executed == [action] and reply == {"ok": True}
    return names


@pytest.mark.parametrize("ratio", [-1, -0.5, -0.25, 0, 0.3, 1])
def test_long_names_are_shortened_and_number_cuts_decode(ratio: float) -> None:
    variant = Variant.build("split(on=all,interval=ratio:-0.5+0.25)", LONG)
    names = [t.name for t in variant.tools()]
    assert len(names) == len(set(names)) == 12 and all(TOOL_NAME.match(n) for n in names)
    assert any(len(n) == 64 for n in names)
    action = LONG.action(LONG.operations[0].name, {"mode": "beta_mode_with_long_name", "level": "low", "ratio": ratio})
    (name,) = _through(variant, action)
    shown = variant.top.tool(name)
    assert set(shown.parameters["properties"]) == {"ratio"}
    jsonschema.validate(ratio, shown.parameters["properties"]["ratio"])
    again = Variant.build(variant.spec, LONG)
    assert [t.name for t in again.tools()] == names  # the shortening is deterministic


# the paper's split: booleans, optional arguments, clashing suffixes ----------------------------

OPTIONAL = ActionSpace(
    "optional",
    (
        Operation(
            "set_x",
            "Set x.",
            params=(
                Param("mode", {"type": "string", "enum": ["a b", "a-b", "unset"]}),
                Param("on", {"type": "boolean"}, required=False),
                Param("level", {"type": "integer"}),
            ),
        ),
    ),
)


@pytest.mark.parametrize("spec", ["ladder(k=9)", "split(style=paper,on=all)"])
def test_paper_split_bakes_booleans_and_optional_arguments(spec: str) -> None:
    variant = Variant.build(spec, OPTIONAL)
    names = [t.name for t in variant.tools()]
    assert len(names) == len(set(names)) == 3 * 3  # mode: 3 values; on: true, false, left out
    if spec.startswith("ladder"):  # fewest values first: on (2) before mode (3)
        assert names[0] == "set_x__on_true__mode_a_b" and "set_x__on_unset__mode_unset" in names
    else:  # in parameter order
        assert names[0] == "set_x__mode_a_b__on_true" and "set_x__mode_unset__on_unset" in names
    assert sum(bool(re.search(r"__mode_a_b_[0-9a-f]{6}(__|$)", n)) for n in names) == 3  # "a-b" after "a b"
    first = variant.tools()[0].description
    assert first == (
        "Set x. (fixed: on=True, mode=a b)" if spec.startswith("ladder") else "Set x. (fixed: mode=a b, on=True)"
    )
    assert all(set(t.parameters["properties"]) == {"level"} for t in variant.tools())
    for mode in ["a b", "a-b", "unset"]:
        for on in [True, False, None]:
            args = {"mode": mode, "level": 3, **({} if on is None else {"on": on})}
            (name,) = _through(variant, OPTIONAL.action("set_x", args))
            assert ("on_unset" in name) == (on is None), name


@pytest.mark.parametrize("domain_name", ["smart_home", "tv", "calendar"])
def test_paper_group_merges_share_their_granularity(domain_name: str) -> None:
    """Semantic, anti-semantic and shuffled groups: ``max(2, round(n / 4))`` dispatchers over every
    tool once; shuffled groups have the semantic groups' sizes (paper ``opspecs2.py``)."""
    space = _space(domain_name)
    natives = sorted(op.name for op in space.operations)
    shown = {}
    for by in ("semantic", "anti_semantic", "shuffled"):
        tools = Variant.build(f"merge(by={by},seed=20260715)" if by == "shuffled" else f"merge(by={by})", space).tools()
        shown[by] = [t.parameters["properties"]["operation"]["enum"] for t in tools]
        assert len(tools) == max(2, round(len(natives) / 4)) and all(t.name.endswith("_ops") for t in tools)
        assert sorted(n for group in shown[by] for n in group) == natives
    assert [len(g) for g in shown["shuffled"]] == [len(g) for g in shown["semantic"]]
    assert shown["semantic"] != shown["anti_semantic"] != shown["shuffled"]
