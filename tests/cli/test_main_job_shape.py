"""The main job's shape: what ``toolprism run`` evaluates when told nothing (``MAIN_JOB``), that
options given replace only their own field, that ``--kinds`` filters the tasks, and that no
default variant's prompt can outgrow the embedded default model's context (the tokenizer only,
no generation; marked ``embedded``, skipped without the model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.backends._embedded import DEFAULT_MAX_TOKENS, MODELS, render_prompt, resolve_model_path
from toolprism.cli import app
from toolprism.errors import ConfigError
from toolprism.evaluation import MAIN_JOB, RunConfig, plan_run
from toolprism.run import MAX_TURNS, RunStore
from toolprism.run._episode import initial_messages
from toolprism.score import score_run, success_interval, wilson_interval

runner = CliRunner()
REPLY_BOUND = 512
"""Tokens allowed per tool reply or rejection message on top of each turn's ``max_tokens`` (the
garden's longest reply, ``get_garden``, is about 150 tokens)."""


def _run(tmp_path: Path, *args: str) -> RunStore:
    return _invoke(tmp_path, *args)[0]


def _invoke(tmp_path: Path, *args: str) -> tuple[RunStore, dict]:
    result = runner.invoke(app, ["run", "--model", "oracle", "--run-dir", str(tmp_path / "r"), "--json", *args])
    assert result.exit_code == 0, result.output
    return RunStore.open(tmp_path / "r"), json.loads(result.stdout)


def test_no_arguments_run_the_main_job(tmp_path: Path) -> None:
    store, summary = _invoke(tmp_path)
    config = store.header.config
    assert config.domains == MAIN_JOB["domains"] and config.variants == MAIN_JOB["variants"]
    assert config.task_kinds == MAIN_JOB["task_kinds"] and config.max_turns == MAIN_JOB["max_turns"]
    results = store.results()
    assert len(results) == len(MAIN_JOB["variants"]) * MAIN_JOB["tasks"] * len(MAIN_JOB["domains"])
    assert all(r.success for r in results)  # the oracle: the main job's tasks and variants agree
    kinds = {t["kind"] for t in store.stored_tasks()}
    assert kinds <= set(MAIN_JOB["task_kinds"])
    scored = {v.variant: v for v in score_run(tmp_path / "r").variants}
    for cell in summary["variants"]:  # each cell: its episodes and the interval score and the report give it
        low, high = success_interval([True] * cell["successes"] + [False] * (cell["episodes"] - cell["successes"]))
        assert cell["episodes"] == MAIN_JOB["tasks"] and (cell["ci_low"], cell["ci_high"]) == (low, high)
        assert (scored[cell["variant"]].ci_low, scored[cell["variant"]].ci_high) == (low, high)
        assert 0 < low < high == 1.0


def test_the_table_shows_episodes_and_intervals(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--model", "oracle", "-n", "2", "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "episodes" in result.stdout and "95% CI" in result.stdout
    low, _ = wilson_interval(2, 2)
    assert f"{low:.0%}-100%" in result.stdout


def test_options_given_replace_their_own_field_only(tmp_path: Path) -> None:
    config = _run(tmp_path, "--seed", "2", "-n", "2").header.config
    assert config.seed == 2 and config.tasks == 2 and config.variants == MAIN_JOB["variants"]
    assert config.max_turns == MAIN_JOB["max_turns"]


def test_domains_given_leave_the_main_job(tmp_path: Path) -> None:
    config = _run(tmp_path, "-d", "tv", "-n", "1").header.config
    assert config.domains == ["tv"] and config.variants is None and config.task_kinds is None
    assert config.max_turns == MAX_TURNS


@pytest.mark.parametrize("kinds", [["compound"], ["single", "compositional"]])
def test_kinds_filter_the_tasks(kinds: list[str]) -> None:
    specs, _ = plan_run(RunConfig(model="oracle", domains=["tv"], variants=["native"], tasks=4, task_kinds=kinds))
    assert len(specs) == 4 and {s.task.kind for s in specs} <= set(kinds)


def test_bad_kinds_are_listed(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--model", "oracle", "--kinds", "single,chained", "--run-dir", str(tmp_path)])
    assert result.exit_code != 0
    assert "unknown task kind 'chained'" in result.output and "Traceback" not in result.output


@pytest.mark.embedded
@pytest.mark.parametrize("model", ["smollm2", "qwen2.5-coder-0.5b"])
def test_no_main_job_prompt_can_outgrow_the_context(model: str) -> None:
    import llama_cpp

    spec = MODELS[model]
    try:
        path = resolve_model_path(spec)
    except ConfigError:
        pytest.skip(f"the {model} weights are not installed")
    vocab = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    n_ctx = min(spec.n_ctx_train, 8192)
    specs, _ = plan_run(RunConfig(**{**MAIN_JOB, "model": "oracle"}))
    assert {s.variant.name for s in specs} == set(MAIN_JOB["variants"])
    worst = {}
    for s in specs:
        prompt = render_prompt(initial_messages(s), s.variant.openai_tools)
        tokens = len(vocab.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
        worst[s.variant.name] = max(worst.get(s.variant.name, 0), tokens)
    growth = MAIN_JOB["max_turns"] * (DEFAULT_MAX_TOKENS + REPLY_BOUND)
    assert all(tokens + growth < n_ctx for tokens in worst.values()), json.dumps(worst)
