"""Stored runs with and without the ``instruction`` mitigation, for the score, CLI and report tests
of mitigations (import as ``from _mitigated_runs import ...``; pytest puts ``tests/`` on sys.path).

The :class:`ConventionReader` agent is the oracle when its system prompt holds the variant's
calling-convention sentences and the native-names script otherwise: on ``merge`` (one dispatcher
tool, native names hidden) it fails without the instruction (its first call names an unknown
tool) and succeeds with it; on ``native`` (no convention) it succeeds either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolprism import RunConfig, evaluate
from toolprism.backends import EpisodeContext, Message, ModelTurn, OracleBackend, ScriptedBackend

VARIANTS = ["native", "merge"]
"""garden has no convention under native; merge(by=full) hides every native name."""


class ConventionReader:
    """A scripted backend whose behaviour depends only on whether the prompt states the
    variant's calling convention (see the module's docstring)."""

    name = "reader"

    def settings(self) -> dict[str, object]:
        return {"backend": "reader"}

    def agent(self, context: EpisodeContext) -> _Agent:
        return _Agent(context)


class _Agent:
    def __init__(self, context: EpisodeContext) -> None:
        self._convention = context.variant.convention()
        self._oracle = OracleBackend().agent(context)
        self._native = ScriptedBackend.native_names().agent(context)

    async def respond(self, messages: Sequence[Message], tools: Sequence[object]) -> ModelTurn:
        told = bool(self._convention) and self._convention in str(messages[0]["content"])
        return await (self._oracle if told else self._native).respond(messages, tools)


def reader_run(run_dir: Path, mitigations: Sequence[str] = (), *, tasks: int = 2, seed: int = 0) -> Path:
    """garden, ``tasks`` tasks, native and merge, the :class:`ConventionReader`, under ``mitigations``."""
    config = RunConfig(
        model="reader", domains=["garden"], variants=VARIANTS, tasks=tasks, seed=seed, mitigations=list(mitigations)
    )
    evaluate(config, run_dir=run_dir, backend=ConventionReader())
    return run_dir
