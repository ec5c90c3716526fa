"""Hypothesis fuzz of the adapter and the episode loop with arbitrary model output (issue 14,
item 10): a scripted backend emits arbitrary text, tool names and argument text (non-object JSON,
huge numbers, NaN text, deep nesting, lone surrogates) under several variants and every adapter
control; every call ends as a recorded rejection or a recorded execution (or a protocol reply),
never an exception, and the trace is stored and scored."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolprism.backends import ModelTurn, OracleBackend, RawCall, ScriptedBackend
from toolprism.domains import get_domain
from toolprism.evaluation._score import score_episode
from toolprism.run import EpisodeSpec, Trace, run_episode
from toolprism.score import diagnose, score_stages
from toolprism.shaping import Variant

DOMAIN = get_domain("smart_home")
SPACE = DOMAIN.action_space()
TASK = DOMAIN.tasks(0)[0]
VARIANTS = {
    spec: Variant.build(spec, SPACE) for spec in ("native", "merge(by=class)", "transaction", "reference", "discovery")
}
CONTROLS = ("strict", "paper", "loose")
MAX_TURNS = 6

NASTY_ARGUMENTS = [
    "",
    "   ",
    "null",
    "[]",
    "[1, 2]",
    '"text"',
    "12",
    "NaN",
    "-Infinity",
    '{"a": NaN}',
    '{"a": Infinity}',
    "1" * 5000,
    '{"a": ' + "9" * 5000 + "}",
    '{"a": 1e999}',
    '{"a": -1e999}',
    "[" * 3000 + "]" * 3000,
    '{"a": ' + "[" * 3000 + "]" * 3000 + "}",
    '{"a": ' + '{"b": ' * 2000 + "1" + "}" * 2000 + "}",
    '{"a": "\\ud800"}',
    '{"\\udfff": 1}',
    '{"a": 1, "a": 2}',
    "{'single': 'quotes'}",
    '{"a": 1',
    "\x00",
    "\ud800",
]


def _json_values() -> st.SearchStrategy:
    scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    )


def _tool_names(variant: Variant) -> st.SearchStrategy[str]:
    shown = [t["function"]["name"] for t in variant.openai_tools]
    return st.sampled_from(shown) | st.sampled_from([op.name for op in SPACE.operations]) | st.text(max_size=20)


def _arguments(variant: Variant) -> st.SearchStrategy[str]:
    keys = sorted(
        {k for t in variant.openai_tools for k in t["function"]["parameters"].get("properties", {})}
        | {"txn_id", "handle"}
    )
    objects = st.dictionaries(st.sampled_from(keys) | st.text(max_size=6), _json_values(), max_size=4)
    return (
        st.sampled_from(NASTY_ARGUMENTS)
        | st.text(max_size=40)
        | objects.map(lambda v: json.dumps(v, allow_nan=True))
        | _json_values().map(lambda v: json.dumps(v, allow_nan=True))
    )


@st.composite
def _turns(draw: st.DrawFn, variant: Variant) -> list[ModelTurn]:
    turns = []
    for i in range(draw(st.integers(0, MAX_TURNS))):
        kind = draw(st.sampled_from(["calls", "calls", "text", "unreadable", "empty"]))
        if kind == "calls":
            n = draw(st.integers(1, 3))
            calls = tuple(
                RawCall(f"call_{i}_{j}", draw(_tool_names(variant)), draw(_arguments(variant))) for j in range(n)
            )
            turns.append(
                ModelTurn(raw=draw(st.text(max_size=30)), content=draw(st.none() | st.text(max_size=10)), calls=calls)
            )
        elif kind == "text":
            text = draw(st.text(max_size=60))
            turns.append(ModelTurn(raw=text, content=text))
        elif kind == "unreadable":
            turns.append(ModelTurn(raw=draw(st.text(min_size=1, max_size=60)) or "x", error="could not be read"))
        else:
            turns.append(ModelTurn(raw="", error="nothing generated"))
    return turns


def _check(spec: EpisodeSpec, trace: Trace) -> None:
    for call in trace.calls:
        assert call.outcome in ("executed", "rejected", "failed", "answered"), call
        if call.outcome == "rejected":
            assert call.rejection is not None and call.action is None
        if call.outcome == "executed":
            assert call.action is not None
    Trace.model_validate_json(trace.model_dump_json())  # storable and readable back
    result = score_episode(spec, trace)
    assert result.scoring_error is None, result.scoring_error
    diagnose(trace, DOMAIN)
    score_stages(trace, DOMAIN)


@pytest.mark.parametrize("control", CONTROLS)
@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_arbitrary_model_output_is_recorded_never_raised(variant: str, control: str, data: st.DataObject) -> None:
    turns = data.draw(_turns(VARIANTS[variant]))
    spec = EpisodeSpec(DOMAIN, TASK, VARIANTS[variant], 0, control=control)
    trace = asyncio.run(run_episode(spec, ScriptedBackend(turns), max_turns=MAX_TURNS + 1))
    _check(spec, trace)


def _oracle_calls(variant: str) -> list[tuple[str, str]]:
    """The oracle's calls for TASK under ``variant`` (protocol steps included): raw material
    that reaches deep into the layers' protocol state when replayed out of order."""
    spec = EpisodeSpec(DOMAIN, TASK, VARIANTS[variant], 0)
    trace = asyncio.run(run_episode(spec, OracleBackend()))
    return [(c.name, c.raw_arguments) for c in trace.calls]


ORACLE_CALLS = {variant: _oracle_calls(variant) for variant in VARIANTS}


@pytest.mark.parametrize("control", CONTROLS)
@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_protocol_calls_replayed_out_of_order_are_recorded(variant: str, control: str, data: st.DataObject) -> None:
    steps = st.sampled_from(ORACLE_CALLS[variant])
    mutated = st.tuples(st.sampled_from([n for n, _ in ORACLE_CALLS[variant]]), _arguments(VARIANTS[variant]))
    calls = data.draw(st.lists(steps | mutated, min_size=1, max_size=8))
    turns = [
        ModelTurn(raw="x", calls=(RawCall(f"c{i}", name, arguments),)) for i, (name, arguments) in enumerate(calls)
    ]
    spec = EpisodeSpec(DOMAIN, TASK, VARIANTS[variant], 0, control=control)
    trace = asyncio.run(run_episode(spec, ScriptedBackend(turns), max_turns=len(turns) + 1))
    assert len(trace.calls) == len(calls)
    _check(spec, trace)


@pytest.mark.parametrize("control", CONTROLS)
@pytest.mark.parametrize("operation", [[], {}, [1], {"a": 1}, 1, None, True])
def test_a_dispatcher_operation_that_is_no_name_is_rejected(control: str, operation: object) -> None:
    # found by the fuzz: a list or object as a class dispatcher's operation raised TypeError
    spec = EpisodeSpec(DOMAIN, TASK, VARIANTS["merge(by=class)"], 0, control=control)
    dispatcher = next(n for n, _ in ORACLE_CALLS["merge(by=class)"])
    call = RawCall("c", dispatcher, json.dumps({"operation": operation}))
    trace = asyncio.run(run_episode(spec, ScriptedBackend([ModelTurn(raw="x", calls=(call,))])))
    assert trace.calls[0].outcome == "rejected"
    _check(spec, trace)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("arguments", NASTY_ARGUMENTS, ids=range(len(NASTY_ARGUMENTS)))
def test_each_nasty_argument_text_is_a_recorded_rejection_or_call(variant: str, arguments: str) -> None:
    names = [t["function"]["name"] for t in VARIANTS[variant].openai_tools][:2] + ["no_such_tool", "\ud800"]
    turns = [ModelTurn(raw="x", calls=tuple(RawCall(f"c{i}", n, arguments) for i, n in enumerate(names)))]
    spec = EpisodeSpec(DOMAIN, TASK, VARIANTS[variant], 0)
    trace = asyncio.run(run_episode(spec, ScriptedBackend(turns)))
    assert len(trace.calls) == len(names)
    _check(spec, trace)
