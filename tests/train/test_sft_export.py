"""``toolprism export sft``: the round trip (every row's calls, replayed through a fresh adapter of
its variant, decode to its task's gold actions as a multiset), splits that keep held-out tasks and
domains out of train, seeded mixtures, byte-identical re-exports and clear errors."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.run import EpisodeSpec, initial_messages
from toolprism.score import score_actions
from toolprism.shaping import PAPER_INSTRUCTION, Variant
from toolprism.train import SftOptions, export_sft, read_sft, replay_sft

runner = CliRunner()
DOMAINS = ("smart_home", "calendar")
VARIANTS = (
    "native",
    "merge",
    "transaction",
    "reference",
    "discovery",
    "split",
    "fully-merged",
    "schema-discovery",
    "reference-resolution",
    "merge+rename-opaque",
    "split+transaction",
    "rename-opaque+discovery",
)


def _tasks(limit: int | None = None, domains: tuple[str, ...] = DOMAINS) -> dict[str, object]:
    return {t.id: t for d in domains for t in get_domain(d).tasks(0, limit)}


def _check_round_trip(out: Path, tasks: dict) -> list:
    """Every row replays to its task's gold (multiset), unrejected, with the replies it stores, and
    shows the run's system prompt, the query and the variant's tools."""
    replays = replay_sft(out)
    examples = list(read_sft(out))
    assert replays and len(replays) == len(examples)
    for replay, example in zip(replays, examples, strict=True):
        row, task = replay.row, tasks[replay.row.task_id]
        assert row.task_hash == task.content_hash and row.domain == task.domain
        score = score_actions(task.gold, replay.actions)
        assert score.success, (row.task_id, row.variant, score.missing, score.extra)
        assert replay.rejected == 0 and replay.replies_match, (row.task_id, row.variant)
        domain = get_domain(json.loads((out / "manifest.json").read_text())["domain_sources"][row.domain])
        variant = Variant.build(row.variant_spec, domain.action_space())
        assert example.tools == variant.openai_tools
        instruction = json.loads((out / "manifest.json").read_text())["instruction"]
        spec = EpisodeSpec(domain, task, variant, task.world_seed, instruction=instruction)
        assert example.messages[:2] == initial_messages(spec)
        assert example.messages[-1]["role"] == "assistant" and "tool_calls" not in example.messages[-1]
    return replays


@pytest.mark.parametrize("fmt", ["openai", "hf"])
def test_every_row_of_every_variant_replays_to_the_gold(tmp_path: Path, fmt: str) -> None:
    options = SftOptions(variants=VARIANTS, domains=DOMAINS, format=fmt, limit=6)
    summary = export_sft(tmp_path / "out", options)
    tasks = _tasks(6)
    replays = _check_round_trip(tmp_path / "out", tasks)
    pairs = Counter((r.row.task_id, r.row.variant) for r in replays)
    assert pairs == Counter({(t, v): 1 for t in tasks for v in VARIANTS})  # every task in every variant, once
    assert summary.skipped == 0 and sum(summary.rows.values()) == len(tasks) * len(VARIANTS)
    assert summary.manifest["train"]["variants"] == list(VARIANTS)


def test_mixture_over_every_task_kind_replays_to_the_gold(tmp_path: Path) -> None:
    """Whole domains (single, compound and compositional tasks), each task in one drawn variant."""
    mix = tuple(f"{v}=1" for v in VARIANTS)
    export_sft(tmp_path / "out", SftOptions(domains=DOMAINS, mix=mix, seed=3))
    tasks = _tasks()
    replays = _check_round_trip(tmp_path / "out", tasks)
    assert Counter(r.row.task_id for r in replays) == Counter(list(tasks))  # each task once
    assert {r.row.variant for r in replays} == set(VARIANTS)
    kinds = Counter((tasks[r.row.task_id].kind, r.row.variant) for r in replays)
    assert all(kinds[k, v] for k in ("single", "compound", "compositional") for v in ("reference", "discovery"))


def _lamp_pack(tmp_path: Path, n: int = 10) -> str:
    """A one-tool domain pack of ``n`` tasks, each with a hard form (format: tests/domains/test_catalog.py)."""
    tool = {
        "name": "set_lamp",
        "group": "lamps",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"lamp": {"type": "string", "enum": ["desk", "floor"]}, "level": {"type": "integer"}},
            "required": ["lamp", "level"],
        },
    }
    tasks = [
        {"id": f"lamp/{i}", "kind": "single", "easy": f"desk lamp to {i}", "hard": f"uh, desk at {i}",
         "gold": [{"name": "set_lamp", "arguments": {"lamp": "desk", "level": i}}]}
        for i in range(n)
    ]  # fmt: skip
    pack = {"format": "toolprism.domain/1", "name": "lamps", "source": {"dataset": "tests"}, "licence": "CC0-1.0",
            "policy": "Lamps.", "tools": [tool], "tasks": tasks}  # fmt: skip
    path = tmp_path / "lamps.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    return str(path)


def test_task_split_is_disjoint_seeded_and_keeps_hard_forms_with_their_task(tmp_path: Path) -> None:
    pack = _lamp_pack(tmp_path)
    domains = {"smart_home": "smart_home", "lamps": pack}
    everything = {t.id: t for d in domains.values() for t in get_domain(d).tasks(0)}
    assert sum(t.endswith("/hard") for t in everything) == len(everything) // 2
    manifests = {}
    for seed in (0, 1):
        export_sft(tmp_path / str(seed), SftOptions(domains=tuple(domains.values()), test_fraction=0.25, seed=seed))
        manifests[seed] = json.loads((tmp_path / str(seed) / "manifest.json").read_text())
        train, test = (set(manifests[seed][s]["tasks"]) for s in ("train", "test"))
        assert train and test and not train & test and train | test == set(everything)
        groups = {s: {t.removesuffix("/hard") for t in manifests[seed][s]["tasks"]} for s in ("train", "test")}
        assert not groups["train"] & groups["test"]  # a task and its hard form on one side
        for name in domains:
            units = {t.removesuffix("/hard") for t, task in everything.items() if task.domain == name}
            held = {g for g in groups["test"] if everything[g].domain == name}
            assert round(0.25 * len(units)) == len(held)  # the fraction, per domain
        for example in read_sft(tmp_path / str(seed)):
            assert example.row.task_id in manifests[seed][example.row.split]["tasks"]
    assert manifests[0]["test"]["tasks"] != manifests[1]["test"]["tasks"]
    assert manifests[0]["domain_sources"] == domains
    _check_round_trip(tmp_path / "0", everything)  # a pack replays from the path the manifest names


def test_paper_instruction_gives_the_paper_runs_system_prompt(tmp_path: Path) -> None:
    options = SftOptions(variants=("merge",), domains=("tv",), limit=2, instruction="paper")
    summary = export_sft(tmp_path / "out", options)
    assert summary.manifest["instruction"] == "paper"
    examples = list(read_sft(tmp_path / "out"))
    assert examples and all(e.messages[0]["content"].endswith(PAPER_INSTRUCTION) for e in examples)


def test_domain_split_holds_the_test_domains_out_whole(tmp_path: Path) -> None:
    options = SftOptions(variants=("native", "merge"), domains=(*DOMAINS, "tv"), split="domain",
                         test_domains=("tv",), limit=5)  # fmt: skip
    summary = export_sft(tmp_path / "out", options)
    manifest = summary.manifest
    assert manifest["test"]["domains"] == ["tv"] and manifest["train"]["domains"] == list(DOMAINS)
    assert manifest["split_method"] == "domain" and manifest["test_domains"] == ["tv"]
    rows = [e.row for e in read_sft(tmp_path / "out")]
    assert {r.domain for r in rows if r.split == "test"} == {"tv"}
    assert "tv" not in {r.domain for r in rows if r.split == "train"}
    assert summary.rows == {"train": 2 * 5 * 2, "test": 5 * 2}


def test_mixture_is_deterministic_by_seed_and_weighted(tmp_path: Path) -> None:
    def drawn(seed: int, limit: int | None, name: str) -> dict[str, str]:
        export_sft(
            tmp_path / name, SftOptions(domains=("smart_home",), mix=(("native", 1), "merge=3"), seed=seed, limit=limit)
        )
        return {e.row.task_id: e.row.variant for e in read_sft(tmp_path / name)}

    first, again, other = drawn(5, 130, "a"), drawn(5, 130, "b"), drawn(6, 130, "c")
    assert first == again and first != other
    share = Counter(first.values())["merge"] / len(first)
    assert 0.6 < share < 0.9, share  # 0.75 expected over 130 tasks (4 standard deviations either side)
    assert (tmp_path / "a" / "train.jsonl").read_bytes() == (tmp_path / "b" / "train.jsonl").read_bytes()
    few = drawn(5, 10, "d")  # a task's draw does not depend on which other tasks are exported
    assert few == {t: first[t] for t in few}


@pytest.mark.parametrize("fmt", ["openai", "hf"])
def test_same_options_write_the_same_bytes(tmp_path: Path, fmt: str) -> None:
    options = SftOptions(variants=("native", "discovery"), domains=DOMAINS, format=fmt, limit=4, mix=None)
    first = export_sft(tmp_path / "a", options)
    export_sft(tmp_path / "b", options)
    names = sorted(f.relative_to(tmp_path / "a").as_posix() for f in first.files)
    expected = {
        "openai": ["manifest.json", "test.jsonl", "test.meta.jsonl", "train.jsonl", "train.meta.jsonl"],
        "hf": ["README.md", "data/test.parquet", "data/train.parquet", "manifest.json"],
    }[fmt]
    assert names == expected
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


@pytest.mark.parametrize("sequential", [True, False])
def test_openai_lines_hold_only_the_fine_tuning_keys(tmp_path: Path, sequential: bool) -> None:
    """Keys of OpenAI's per-line chat fine-tuning input. The oracle batches a transaction's
    independent calls into one turn: kept with ``sequential=False`` (``parallel_tool_calls`` true
    exactly there), else one call per turn, each answered before the next, replaying the same."""
    options = SftOptions(variants=("native", "transaction"), domains=DOMAINS, limit=3, sequential=sequential)
    export_sft(tmp_path / "out", options)
    lines = (tmp_path / "out" / "train.jsonl").read_text().splitlines()
    assert len(lines) == len((tmp_path / "out" / "train.meta.jsonl").read_text().splitlines())
    parallel = Counter()
    for line in lines:
        record = json.loads(line)
        assert set(record) == {"messages", "tools", "parallel_tool_calls"}
        several = any(len(m.get("tool_calls", ())) > 1 for m in record["messages"])
        assert record["parallel_tool_calls"] is several
        parallel[several] += 1
        for message, after in zip(record["messages"], record["messages"][1:], strict=False):
            for call in message.get("tool_calls", ()):
                assert isinstance(json.loads(call["function"]["arguments"]), dict) and "content" not in message
            if sequential and message.get("tool_calls"):
                assert after == {**after, "role": "tool", "tool_call_id": message["tool_calls"][0]["id"]}
    assert parallel == Counter({False: len(lines)}) if sequential else parallel[True] and parallel[False]
    _check_round_trip(tmp_path / "out", _tasks(3))


def _cli(*args: str) -> object:
    return runner.invoke(app, ["export", "sft", *args])


def test_cli_json_summary_matches_the_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _cli("-o", str(out), "-d", ",".join(DOMAINS), "-v", "native,merge", "--limit", "5", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["rows"] == {"train": 16, "test": 4} and document["skipped"] == 0
    assert document["bytes"] == sum(Path(f).stat().st_size for f in document["files"])
    assert document["train"]["variants"] == ["native", "merge"]
    assert len((out / "test.jsonl").read_text().splitlines()) == document["test"]["rows"]
    again = ("-o", str(out), "-d", "tv", "--limit", "4", "--mix", "native=1,merge|rename(style=opaque)=1", "--json")
    assert _cli(*again).exit_code == 2 and "--overwrite" in _cli(*again).output
    mixed = _cli(*again, "--overwrite")
    assert mixed.exit_code == 0, mixed.output
    document = json.loads(mixed.stdout)
    assert sum(document["rows"].values()) == 4 and set(document["train"]["variants"]) <= {
        "native",
        "merge|rename(style=opaque)",
    }
    assert not (out / "train.jsonl").read_text().count("smart_home")  # the earlier export is replaced


def test_bad_options_are_listed_together_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _cli(
        *("-o", str(out), "-d", "smart_home,no_such_domain", "-v", "native,merge(by=nothing)", "--format", "csv"),
        *("--split", "domain", "--test-fraction", "0.3", "--test-domains", "tv", "--mix", "native=-1", "--limit", "0"),
    )
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    for words in (
        "format must be one of openai, hf",
        "unknown domain 'no_such_domain'",
        "merge(by=nothing)",
        "--test-fraction goes with --split task",
        "test domain 'tv' is not among the exported domains",
        "mixture weight of 'native' must be a positive number",
        "limit must be at least 1",
        "--mix names native but --variants names",
    ):
        assert words in text, words
    assert not out.exists()
    for extra, words in (
        (["--mix", "native"], "is not <variant>=<weight>"),
        (["--split", "domain", "--test-domains", "smart_home"], "every exported domain is held out"),
        (["--split", "domain"], "--split domain needs --test-domains"),
        (["--test-fraction", "1"], "test fraction must be at least 0 and below 1"),
        (["--instruction", "terse"], "instruction must be one of toolprism, paper"),
        (["--seed", "-1", "--task-seed", "-1"], "seed must be at least 0, got -1 - task-seed must be at least 0"),
    ):
        result = _cli("-o", str(out), "-d", "smart_home", *extra)
        assert result.exit_code == 2 and words in " ".join(result.output.split()), result.output
        assert not out.exists()
    (tmp_path / "afile").write_text("")
    result = _cli("-o", str(tmp_path / "afile" / "out"), "-d", "smart_home")
    assert result.exit_code == 2 and "afile is a file, not a directory" in result.output
    assert "episodes" not in result.output  # refused before any episode ran


@pytest.mark.sft
def test_hf_export_loads_with_datasets(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    export_sft(tmp_path / "hf", SftOptions(variants=("native", "reference"), domains=DOMAINS, format="hf", limit=5))
    loaded = datasets.load_dataset(str(tmp_path / "hf"))
    assert set(loaded) == {"train", "test"} and loaded["train"].num_rows == 16 and loaded["test"].num_rows == 4
    row = loaded["train"][0]
    assert isinstance(row["tools"], str) and json.loads(row["tools"])[0]["type"] == "function"
    assert [m["role"] for m in row["messages"]][:3] == ["system", "user", "assistant"]
    assert row["split"] == "train" and row["variant"] in ("native", "reference")


def test_episodes_that_miss_the_gold_are_skipped_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two turns the oracle finishes single-call tasks only; the rest are skipped, listed in
    the manifest with their cause, and absent from the data."""
    import toolprism.train._sft as sft

    monkeypatch.setattr(sft, "ORACLE_MAX_TURNS", 2)
    summary = export_sft(tmp_path / "out", SftOptions(variants=("native",), domains=("smart_home",), limit=40))
    skipped = summary.manifest["skipped"]
    tasks = _tasks(40, ("smart_home",))
    assert summary.skipped == len(skipped) > 0 and sum(summary.rows.values()) + len(skipped) == len(tasks)
    assert all(s["why"] == "episode ended turn_limit" for s in skipped)
    assert {s["task_id"] for s in skipped} == {t for t, task in tasks.items() if len(task.gold) > 1}
    written = {e.row.task_id for e in read_sft(tmp_path / "out")}
    assert not written & {s["task_id"] for s in skipped}


@pytest.mark.slow
def test_every_variant_of_the_suite_replays_to_the_gold(tmp_path: Path) -> None:
    """The whole suite (``all``: 64 variants) on 2 domains: 6 tasks in every variant, and every task
    of both domains in one variant each."""
    from toolprism.evaluation import expand_variants

    variants = tuple(expand_variants(["all"]))
    export_sft(tmp_path / "cross", SftOptions(variants=variants, domains=DOMAINS, limit=6))
    cross = _check_round_trip(tmp_path / "cross", _tasks(6))
    assert {r.row.variant for r in cross} == set(variants) and len(cross) == 2 * 6 * len(variants)
    export_sft(tmp_path / "mix", SftOptions(domains=DOMAINS, mix=tuple((v, 1.0) for v in variants)))
    assert len(_check_round_trip(tmp_path / "mix", _tasks())) == len(_tasks())
