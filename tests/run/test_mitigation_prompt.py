"""Mitigations in the episode loop: the ``instruction`` mitigation puts the variant's calling
convention in the system prompt (and nothing else does), and traces record the mitigations
(trace version 5; version-4 traces upgrade to none)."""

from __future__ import annotations

import asyncio
import json

import pytest

from toolprism.backends import OracleBackend
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.run import (
    MITIGATIONS,
    TRACE_VERSION,
    EpisodeSpec,
    Trace,
    constrain_mode,
    initial_messages,
    run_episode,
    upgrade_trace,
)
from toolprism.run._episode import SYSTEM_SUFFIX
from toolprism.shaping import PAPER_INSTRUCTION, Variant

DOMAIN = get_domain("garden")
TASK = DOMAIN.tasks(0)[0]


def _spec(variant: str, mitigations: tuple[str, ...] = (), **options: object) -> EpisodeSpec:
    built = Variant.build(variant, DOMAIN.action_space())
    return EpisodeSpec(DOMAIN, TASK, built, 0, mitigations=mitigations, **options)  # type: ignore[arg-type]


def _system(spec: EpisodeSpec) -> str:
    return initial_messages(spec)[0]["content"]


def test_the_vocabulary() -> None:
    assert MITIGATIONS == ("instruction", "constrain-first", "constrain-all")
    cases = ([], ["instruction"], ["constrain-first", "instruction"], ["constrain-all"])
    assert [constrain_mode(m) for m in cases] == ["none", "none", "first", "all"]


@pytest.mark.parametrize("variant", ["merge", "transaction", "rename(style=opaque)|merge"])
def test_instruction_appends_the_convention_after_the_calling_instruction(variant: str) -> None:
    convention = Variant.build(variant, DOMAIN.action_space()).convention()
    assert convention  # these variants have something to say
    plain, told = _system(_spec(variant)), _system(_spec(variant, ("instruction",)))
    assert convention not in plain
    assert told == plain.replace(SYSTEM_SUFFIX, f"{SYSTEM_SUFFIX} {convention}")
    assert told.endswith(f"{SYSTEM_SUFFIX} {convention}")
    # after the paper's calling instruction too
    paper = _system(_spec(variant, ("instruction",), instruction="paper"))
    assert paper.endswith(f"{PAPER_INSTRUCTION} {convention}")


def test_only_instruction_changes_the_prompt_and_native_has_nothing_to_add() -> None:
    plain = _system(_spec("merge"))
    for other in (("constrain-first",), ("constrain-all",)):
        assert _system(_spec("merge", other)) == plain
    assert Variant.build("native", DOMAIN.action_space()).convention() == ""
    assert _system(_spec("native", ("instruction",))) == _system(_spec("native"))


def test_a_trace_records_its_mitigations_and_round_trips() -> None:
    trace = asyncio.run(run_episode(_spec("merge", ("constrain-first", "instruction")), OracleBackend()))
    assert trace.version == TRACE_VERSION == 5
    assert trace.mitigations == ["constrain-first", "instruction"]
    assert Trace.load(trace.model_dump_json()) == trace
    assert Variant.build("merge", DOMAIN.action_space()).convention() in trace.messages[0]["content"]
    unmitigated = asyncio.run(run_episode(_spec("merge"), OracleBackend()))
    assert unmitigated.mitigations == [] and json.loads(unmitigated.model_dump_json())["mitigations"] == []


def test_version_4_traces_upgrade_to_no_mitigations() -> None:
    trace = asyncio.run(run_episode(_spec("merge"), OracleBackend()))
    old = json.loads(trace.model_dump_json())
    old["version"] = 4
    del old["mitigations"]
    frozen = json.dumps(old)
    assert upgrade_trace(old) == {**old, "version": 5, "mitigations": []}
    assert json.dumps(old) == frozen  # pure
    assert Trace.load(json.dumps(old)) == trace
    with pytest.raises(ConfigError, match="mitigations"):  # a version-5 trace names known mitigations only
        Trace.load(json.dumps({**json.loads(trace.model_dump_json()), "mitigations": ["prayer"]}))
