"""``toolprism export tasks``: JSON lines and a Hugging Face directory round-trip to the same tasks,
encoded gold traces decode to the gold actions, and re-exports are byte-identical."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.interop import HF_COLUMNS, read_hf_records, task_from_json
from toolprism.schema import ToolCall
from toolprism.shaping import AdapterSession, Variant

runner = CliRunner()
VARIANTS = "native,transaction,merge|rename(style=opaque)"


def _tiny_pack(tmp_path: Path) -> str:
    """A one-tool pack (see tests/domains/test_catalog.py for the format)."""
    path = tmp_path / "lamps.json"
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
        for i in range(3)
    ]  # fmt: skip
    pack = {"name": "lamps", "source": {"dataset": "tests"}, "licence": "CC0-1.0", "policy": "Lamps.",
            "tools": [tool], "tasks": tasks}  # fmt: skip
    path.write_text(json.dumps({"format": "toolprism.domain/1", **pack}), encoding="utf-8")
    return str(path)


def _export(out: Path, fmt: str, domains: str, *extra: str) -> dict:
    args = ["export", "tasks", "--format", fmt, "--out", str(out), "-d", domains, "-v", VARIANTS, "--limit", "8"]
    result = runner.invoke(app, [*args, "--json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def domains(tmp_path: Path) -> str:
    return f"smart_home,{_tiny_pack(tmp_path)}"


def _check_records(records: list[dict], domains: str) -> None:
    """Records are the domains' tasks in order, and each encoding decodes to the task's gold."""
    loaded = {d.name: d for d in map(get_domain, domains.split(","))}
    variants = {(d.name, v): Variant.build(v, d.action_space()) for d in loaded.values() for v in VARIANTS.split(",")}
    expected = [t for domain in loaded.values() for t in domain.tasks(0, limit=8)]
    assert [task_from_json(r) for r in records] == expected
    for record, task in zip(records, expected, strict=True):
        domain = loaded[task.domain]
        assert sorted(record["encodings"]) == sorted(VARIANTS.split(","))  # keys sorted in the file
        for name, encoding in record["encodings"].items():
            variant = variants[task.domain, name]
            assert encoding["spec"] == variant.spec
            session = AdapterSession(variant, domain.environment(task.world_seed).execute)
            decisions = [session.handle(ToolCall(c["name"], c["arguments"])) for c in encoding["calls"]]
            assert [d.reply for d in decisions] == [c["reply"] for c in encoding["calls"]]
            assert Counter(d.action for d in decisions if d.action) == Counter(task.gold), (task.id, name)


def test_jsonl_round_trips_and_is_byte_identical(tmp_path: Path, domains: str) -> None:
    summary = _export(tmp_path / "a.jsonl", "jsonl", domains)
    records = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()]
    assert summary["tasks"] == len(records) and summary["domains"] == ["smart_home", "lamps"]
    _check_records(records, domains)
    _export(tmp_path / "b.jsonl", "jsonl", domains)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_hf_directory_loads_with_pyarrow_and_matches_jsonl(tmp_path: Path, domains: str) -> None:
    import pyarrow.parquet as pq

    summary = _export(tmp_path / "hf", "hf", domains)
    files = sorted(p.relative_to(tmp_path / "hf").as_posix() for p in (tmp_path / "hf").rglob("*") if p.is_file())
    assert files == ["README.md", "data/lamps.parquet", "data/smart_home.parquet"]
    assert summary["bytes"] == sum((tmp_path / "hf" / f).stat().st_size for f in files)
    table = pq.read_table(tmp_path / "hf" / "data" / "lamps.parquet")
    assert table.column_names == list(HF_COLUMNS) and table.num_rows == 6  # fewer than the limit
    records = read_hf_records(tmp_path / "hf")
    by_domain = {r["domain"]: [] for r in records}
    for r in records:
        by_domain[r["domain"]].append(r)
    _check_records(by_domain["smart_home"] + by_domain["lamps"], domains)
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    front = card.split("---")[1]
    for config in ("all", "smart_home", "lamps"):
        assert f"config_name: {config}" in front
    assert "split: test" in front and "path: data/lamps.parquet" in front and "license: other" in front
    _export(tmp_path / "hf2", "hf", domains)
    for f in files:
        assert (tmp_path / "hf" / f).read_bytes() == (tmp_path / "hf2" / f).read_bytes(), f


def test_existing_targets_need_overwrite(tmp_path: Path) -> None:
    pack = _tiny_pack(tmp_path)
    out = tmp_path / "t.jsonl"
    out.write_text("old\n")
    args = ["export", "tasks", "--out", str(out), "-d", pack]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "--overwrite" in result.output and out.read_text() == "old\n"
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0
    assert len(out.read_text().splitlines()) == 6


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--format", "csv"], "format must be one of"),
        (["-d", "no_such_domain"], "unknown domain 'no_such_domain'"),
        (["-v", "merge(by=nothing)"], "merge(by=nothing)"),
        (["--limit", "0"], "limit must be at least 1"),
    ],
)
def test_bad_options_are_clear_errors_and_write_nothing(tmp_path: Path, args: list[str], words: str) -> None:
    out = tmp_path / "x.jsonl"
    result = runner.invoke(app, ["export", "tasks", "--out", str(out), "-d", _tiny_pack(tmp_path), *args])
    assert result.exit_code == 2 and words in " ".join(result.output.split()), result.output
    assert not out.exists()
