"""Typed trace records: call kinds are a union discriminated on ``outcome``; version-1 and
version-2 traces are upgraded on reading; an unknown version or a damaged record is a ConfigError
naming it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from toolprism import RunConfig, evaluate
from toolprism.backends import OracleBackend, ScriptedBackend, ScriptedTurns
from toolprism.domains import TaskRecord, get_domain
from toolprism.errors import ConfigError, RejectionKind
from toolprism.perturb import Injection, Instance, parse_perturbations, plan
from toolprism.run import (
    CALL_RECORD,
    TRACE_VERSION,
    EpisodeSpec,
    ExecutedCallRecord,
    RejectedCallRecord,
    RunStore,
    Trace,
    run_episode,
    upgrade_trace,
)
from toolprism.schema import ActionRecord
from toolprism.shaping import Variant

DOMAIN = get_domain("smart_home")
TASK = next(t for t in DOMAIN.tasks(0) if len(t.gold) >= 2)
T = ScriptedTurns()


def _trace(backend=None, perturb: str | None = None) -> Trace:  # noqa: ANN001
    space = DOMAIN.action_space()
    instances = ()
    if perturb:
        made, skips = plan(TASK, space, parse_perturbations(perturb), 0)
        assert not skips
        instances = tuple(made)
    spec = EpisodeSpec(DOMAIN, TASK, Variant.build("native", space), 0, instances)
    return asyncio.run(run_episode(spec, backend or OracleBackend()))


def test_a_trace_holds_typed_records_in_the_json_shape_of_version_1() -> None:
    trace = _trace(perturb="C2:medium")
    assert isinstance(trace.task, TaskRecord) and trace.task.to_task() == TASK
    assert all(isinstance(a, ActionRecord) for a in trace.actions)
    assert [a.to_action() for a in trace.actions] == list(TASK.gold)
    assert all(isinstance(i, Instance) for i in trace.perturbations)
    assert trace.injections and all(isinstance(i, Injection) for i in trace.injections)
    assert all(isinstance(c, ExecutedCallRecord) for c in trace.calls)
    data = json.loads(trace.model_dump_json())
    assert data["version"] == TRACE_VERSION == 5
    assert data["error"] is None and data["end"] == "answered"
    assert data["control"] == "strict" and data["mitigations"] == []
    assert data["task"] == TASK.to_json()
    assert data["actions"] == [a.to_json() for a in TASK.gold]
    assert set(data["turns"][0]["calls"][0]) == {
        "id", "name", "raw_arguments", "arguments", "outcome", "rejection", "path", "action", "reply", "layer"
    }  # fmt: skip
    assert Trace.load(trace.model_dump_json()) == trace


def test_call_records_are_discriminated_on_their_outcome() -> None:
    trace = _trace(ScriptedBackend([T.call("no_such_tool", {})]))
    call = trace.calls[0]
    assert isinstance(call, RejectedCallRecord) and call.rejection is RejectionKind.UNKNOWN_TOOL
    common = {"id": "c", "name": "n", "raw_arguments": "{}"}
    assert isinstance(CALL_RECORD.validate_python({**common, "outcome": "executed", "action": {"op": "x"}}),
                      ExecutedCallRecord)  # fmt: skip
    for bad in (
        {**common, "outcome": "executed"},  # an executed call names its action
        {**common, "outcome": "rejected", "rejection": "made_up"},  # a closed vocabulary
        {**common, "outcome": "rejected", "rejection": "unknown_tool", "action": {"op": "x", "args": {}}},
        {**common, "outcome": "vanished"},
    ):
        with pytest.raises(ValueError):
            CALL_RECORD.validate_python(bad)


def _as_version_1(trace: Trace) -> dict:
    data = json.loads(trace.model_dump_json())
    data["version"] = 1
    for key in ("world_seed", "kind", "form", "reference"):  # early version-1 writers left these out
        data["task"].pop(key)
    return data


def _as_version_2(trace: Trace) -> dict:
    data = _as_version_3(trace)
    data["version"] = 2
    del data["control"]  # version 3 added it
    return data


def _as_version_3(trace: Trace) -> dict:
    data = _as_version_4(trace)
    data["version"] = 3
    del data["error"]  # version 4 added it
    return data


def _as_version_4(trace: Trace) -> dict:
    data = json.loads(trace.model_dump_json())
    data["version"] = 4
    del data["mitigations"]  # version 5 added it
    return data


def test_version_3_embedded_overflows_are_upgraded_to_context_overflow() -> None:
    from toolprism.backends import ModelTurn

    note = "prompt of 9000 tokens exceeds n_ctx 8192"
    first = T.call("no_such_tool", {})
    overflowed = _trace(ScriptedBackend([first, ModelTurn(raw="", error=note)]))  # how version 3 recorded it
    assert overflowed.end == "no_output" and len(overflowed.turns) == 2
    old = _as_version_3(overflowed)
    frozen = json.dumps(old)
    upgraded = upgrade_trace(old)
    assert json.dumps(old) == frozen  # pure
    assert upgraded["version"] == 5 and upgraded["end"] == "context_overflow" and upgraded["error"] == note
    assert len(upgraded["turns"]) == 1 and upgraded["messages"] == old["messages"][:-1]  # the empty turn is gone
    loaded = Trace.load(json.dumps(old))
    assert loaded.end == "context_overflow" and not loaded.scored and loaded.calls == overflowed.calls[:1]
    # the same trace as version 4 wrote it
    assert loaded.messages[-1]["role"] == "tool" and loaded.turns == overflowed.turns[:1]
    for other in ("output truncated at max_tokens", "prompt too long", None):  # not the embedded overflow note
        kept = _trace(ScriptedBackend([first, ModelTurn(raw="", error=other)]))
        assert upgrade_trace(_as_version_3(kept)) == {**_as_version_3(kept), "version": 5, "mitigations": []}
    answered = _as_version_3(_trace())
    assert upgrade_trace(answered) == {**answered, "version": 5, "mitigations": []}


def test_version_1_traces_are_upgraded() -> None:
    trace = _trace(perturb="D1:light")
    old = _as_version_1(trace)
    frozen = json.dumps(old)
    upgraded = upgrade_trace(old)
    assert json.dumps(old) == frozen  # pure
    assert upgraded["version"] == 5 and upgraded["control"] == "strict" and upgraded["mitigations"] == []
    assert {k: upgraded["task"][k] for k in ("world_seed", "kind", "form", "reference")} == {
        "world_seed": 0, "kind": "single", "form": "easy", "reference": []
    }  # fmt: skip
    loaded = Trace.load(json.dumps(old))
    assert loaded.version == 5 and loaded.perturbations == trace.perturbations and loaded.calls == trace.calls
    assert loaded.control == "strict" and loaded.mitigations == []
    with pytest.raises(ConfigError, match="reads versions 1, 2, 3 and 4, got version 5"):
        upgrade_trace({"version": 5})
    with pytest.raises(ConfigError, match="reads versions 1, 2, 3 and 4, got version True"):
        upgrade_trace({"version": True})


def test_version_2_traces_are_upgraded_to_the_strict_control() -> None:
    trace = _trace()
    old = _as_version_2(trace)
    frozen = json.dumps(old)
    upgraded = upgrade_trace(old)
    assert json.dumps(old) == frozen  # pure
    assert upgraded == {**old, "version": 5, "control": "strict", "mitigations": []}
    assert Trace.load(json.dumps(old)) == trace
    with pytest.raises(ConfigError, match="control"):  # a version-3 trace must say a known control
        Trace.load(json.dumps({**json.loads(trace.model_dump_json()), "control": "lenient"}))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('{"version": 6}', "trace version 6 is not supported"),
        ('{"version": "two"}', "trace version 'two' is not supported.*not a trace version"),
        ('{"version": 6}', "a newer toolprism wrote it"),
        ('{"version": true}', "trace version True is not supported.*not a trace version"),
        ('{"version": 1.0}', "trace version 1.0 is not supported.*not a trace version"),
        ('{"version": 2.0}', "trace version 2.0 is not supported.*not a trace version"),
        ('{"version": 0}', "trace version 0 is not supported.*not a trace version"),
        ('{"version": -1}', "trace version -1 is not supported.*not a trace version"),
        ('{"version": null}', "trace version None is not supported.*not a trace version"),
        (123, "a trace is JSON text"),
        (None, "a trace is JSON text"),
        ("[1, 2]", "a trace is a JSON object"),
        ("{not json", "not valid JSON"),
        ('{"version": 2, "episode_id": "e"}', r"task: Field required"),
        ('{"version": 3, "episode_id": "e"}', r"task: Field required"),
        ('{"version": 4, "episode_id": "e"}', r"task: Field required"),
        ('{"version": 5, "episode_id": "e"}', r"task: Field required"),
    ],
)
def test_unreadable_traces_are_config_errors_naming_the_problem(text: object, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        Trace.load(text)
    assert "pydantic" not in str(info.value)


def test_the_store_upgrades_old_traces_and_names_a_newer_version(tmp_path: Path) -> None:
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=2)
    evaluate(config, run_dir=tmp_path / "r")
    header = json.loads((tmp_path / "r" / "header.json").read_text())
    assert set(header) == {
        "store_version", "toolprism_version", "git_revision", "config", "backend", "variant_specs", "episodes",
        "skipped", "tasks", "created_at",
    }  # fmt: skip
    store = RunStore.open(tmp_path / "r")
    first, second = (r.episode_id for r in store.results())
    fresh = store.trace(first)
    store.close()
    with sqlite3.connect(tmp_path / "r" / "results.sqlite") as db:
        db.execute("UPDATE traces SET trace = ? WHERE episode_id = ?", (json.dumps(_as_version_1(fresh)), first))
        db.execute("UPDATE traces SET trace = json_set(trace, '$.version', 7) WHERE episode_id = ?", (second,))
    store = RunStore.open(tmp_path / "r")
    try:
        assert store.trace(first).turns == fresh.turns
        with pytest.raises(ConfigError, match=f"episode {second}: trace version 7 is not supported"):
            store.trace(second)
    finally:
        store.close()


def test_a_header_of_a_newer_store_or_the_wrong_shape_is_a_config_error(tmp_path: Path) -> None:
    evaluate(RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=1), run_dir=tmp_path / "r")
    path = tmp_path / "r" / "header.json"
    header = json.loads(path.read_text())
    path.write_text(json.dumps({**header, "store_version": 9}))
    with pytest.raises(ConfigError, match="store version 9; this toolprism reads version 1"):
        RunStore.open(tmp_path / "r")
    path.write_text(json.dumps({**header, "episodes": "many", "skipped": [{"task": "t"}]}))
    with pytest.raises(ConfigError) as info:
        RunStore.open(tmp_path / "r")
    assert any("episodes" in p for p in info.value.problems)
    assert any("skipped.0.reason" in p for p in info.value.problems)


def test_the_header_record_of_the_configuration_keeps_up_with_run_config(tmp_path: Path) -> None:
    from toolprism.evaluation._config import SESSION_FIELDS
    from toolprism.run import RunConfigRecord

    where = SESSION_FIELDS  # how one invocation runs, not what the run is: not in the header
    assert list(RunConfigRecord.model_fields) == [f for f in RunConfig.model_fields if f not in where]
    config = RunConfig(model="oracle", domains=["smart_home"], variants=["native"], tasks=1, perturbations=["C2:light"])
    evaluate(config, run_dir=tmp_path / "r")
    store = RunStore.open(tmp_path / "r")
    try:
        assert store.header.config.model_fields_set == set(RunConfig.model_fields) - set(where)
        assert RunConfig.model_validate(store.header.config.model_dump(exclude_unset=True)) == config
        assert [s.condition for s in store.header.skipped] == []
    finally:
        store.close()


def test_a_run_scores_the_same_from_its_traces_rewritten_as_version_1(tmp_path: Path) -> None:
    from toolprism.score import score_run

    config = RunConfig(
        model="oracle", domains=["smart_home", "retail"], variants=["native", "merge"], tasks=2,
        perturbations=["C2:medium", "D1:light"],
    )  # fmt: skip
    evaluate(config, run_dir=tmp_path / "ok")
    evaluate(config, run_dir=tmp_path / "bad", backend=ScriptedBackend([T.call("no_such_tool", {})]))
    for name in ("ok", "bad"):
        run_dir = tmp_path / name
        typed = score_run(run_dir)
        store = RunStore.open(run_dir)
        old = {r.episode_id: json.dumps(_as_version_1(store.trace(r.episode_id))) for r in store.results()}
        store.close()
        with sqlite3.connect(run_dir / "results.sqlite") as db:
            db.executemany("UPDATE traces SET trace = ? WHERE episode_id = ?", [(t, e) for e, t in old.items()])
        assert score_run(run_dir) == typed
    assert typed.episodes >= 8 and sum(v.successes for v in typed.variants) < typed.episodes / 2  # "bad" failed
