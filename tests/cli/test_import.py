"""``toolprism import toolschemaspace`` on the release sample in ../shared/external (skipped when
absent): every domain imported, counts equal the files', the oracle scores 100%, bad input is a
clear error that writes nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolprism.backends import OracleBackend
from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.run import EpisodeSpec, run_episode
from toolprism.score import score_actions
from toolprism.shaping import Variant

runner = CliRunner()


@pytest.fixture
def release(external: Path) -> Path:
    return external / "toolschemaspace"


_IMPORTED: dict[Path, dict] = {}


@pytest.fixture
def imported(release: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The import summary (``--json``) of the whole sample, imported once per session."""
    if release not in _IMPORTED:
        out = tmp_path_factory.mktemp("packs")
        result = runner.invoke(
            app,
            ["import", "toolschemaspace", "--tools", str(release / "tools.json"),
             "--queries", str(release / "queries.sample.jsonl"), "--out", str(out), "--json"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        _IMPORTED[release] = json.loads(result.stdout)
    return _IMPORTED[release]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_domain_is_imported_with_the_files_counts(release: Path, imported: dict) -> None:
    rows = _lines(release / "queries.sample.jsonl")
    tools = json.loads((release / "tools.json").read_text(encoding="utf-8"))
    groups = sorted({t["group"] for t in tools})
    assert sorted(r["domain"] for r in imported["domains"]) == [f"tss_{g}" for g in groups]
    for row in imported["domains"]:
        group = row["domain"].removeprefix("tss_")
        assert row["tasks"] == sum(r["domain"] == group for r in rows)
        assert row["tools"] == sum(t["group"] == group for t in tools)
        assert row["by_kind"] == {
            k: sum(r["domain"] == group and r["type"] == k for r in rows)
            for k in ("single", "compound", "compositional")
        }


def test_imported_tasks_keep_the_release_phrasings_and_gold(release: Path, imported: dict) -> None:
    by_id = {r["id"]: r for r in _lines(release / "queries.sample.jsonl")}
    for row in imported["domains"]:
        domain = get_domain(row["path"])
        tasks = domain.tasks(0)
        assert len(tasks) == 2 * row["tasks"]
        pack = json.loads(Path(row["path"]).read_text(encoding="utf-8"))
        assert pack["format"] == "toolprism.domain/1" and pack["licence"] == "CC-BY-4.0"
        for entry, easy, hard in zip(pack["tasks"], tasks[: row["tasks"]], tasks[row["tasks"] :], strict=True):
            source = by_id[entry["source_id"]]
            assert easy.query == (source.get("query_easy") or source.get("query_llm") or source["query"])
            assert hard.query == source["query"] and hard.form == "hard" and easy.kind == source["type"]
            assert easy.gold == tuple(
                domain.action_space().action(c["name"], c["arguments"]) for c in source["gold_calls"]
            )
            assert domain.policy == source["system"]


@pytest.mark.parametrize("variant_name", ["native", "merge", "split"])
def test_the_oracle_scores_every_imported_task(imported: dict, variant_name: str) -> None:
    async def run_all() -> list[tuple]:
        backend, outcomes = OracleBackend(), []
        for row in imported["domains"]:
            domain = get_domain(row["path"])
            variant = Variant.build(variant_name, domain.action_space())
            for task in [t for t in domain.tasks(0) if t.form == "easy"]:
                trace = await run_episode(EpisodeSpec(domain, task, variant, 0), backend)
                score = score_actions(task.gold, [a.to_action() for a in trace.actions])
                outcomes.append((task.id, score.success, trace.rejected_calls, trace.end))
        return outcomes

    outcomes = asyncio.run(run_all())
    assert len(outcomes) == sum(r["tasks"] for r in imported["domains"])
    failures = [o for o in outcomes if o[1:] != (True, 0, "answered")]
    assert not failures, failures[:3]


def test_run_accepts_a_pack(imported: dict, tmp_path: Path) -> None:
    pack = imported["domains"][0]["path"]
    result = runner.invoke(
        app, ["run", "--model", "oracle", "-d", pack, "-n", "3", "-v", "native,split", "--json",
              "--run-dir", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 6 and all(v["success_rate"] == 1.0 for v in summary["variants"])


def test_validate_and_variants_show_accept_a_pack(imported: dict) -> None:
    pack = imported["domains"][0]["path"]
    result = runner.invoke(app, ["validate", "-d", pack, "-v", "merge,split", "--seeds", "0", "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["passed"] is True
    shown = runner.invoke(app, ["variants", "show", "native", "-d", pack])
    assert shown.exit_code == 0 and len(json.loads(shown.stdout)) == imported["domains"][0]["tools"]


def test_one_domain_only(release: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["import", "toolschemaspace", "--tools", str(release / "tools.json"),
         "--queries", str(release / "queries.sample.jsonl"), "--out", str(tmp_path), "-d", "tv,laundry"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tss_laundry.json", "tss_tv.json"]
    assert "tss_tv" in result.stdout and "toolprism run" in result.stdout


def test_reimport_is_byte_identical(release: Path, tmp_path: Path, imported: dict) -> None:
    result = runner.invoke(
        app,
        ["import", "toolschemaspace", "--tools", str(release / "tools.json"),
         "--queries", str(release / "queries.sample.jsonl"), "--out", str(tmp_path / "again")],
    )  # fmt: skip
    assert result.exit_code == 0
    for row in imported["domains"]:
        assert (tmp_path / "again" / Path(row["path"]).name).read_bytes() == Path(row["path"]).read_bytes()


def _broken_queries(release: Path, path: Path) -> list[int]:
    """A copy of the sample with three bad lines; returns their 1-based numbers."""
    lines = (release / "queries.sample.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    bad_arg = {**first, "gold_calls": [{**first["gold_calls"][0], "arguments": {"room": "moon"}}]}
    lines[0] = json.dumps(bad_arg)
    lines[2] = "{this is not json"
    lines[4] = json.dumps({**json.loads(lines[4]), "type": "multi", "domain": json.loads(lines[4])["domain"]})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [1, 3, 5]


def test_malformed_queries_list_every_bad_line_and_write_nothing(release: Path, tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    numbers = _broken_queries(release, queries)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["import", "toolschemaspace", "--tools", str(release / "tools.json"), "--queries", str(queries),
              "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert not out.exists()
    text = " ".join(result.output.split())
    assert "3 problem(s)" in text
    for number in numbers:
        assert f"queries.jsonl:{number}:" in text
    assert "moon" in text and "not JSON" in text and "'type' must be one of" in text


@pytest.mark.parametrize(
    ("tools_text", "words"),
    [
        ("[", "is not JSON"),
        ('[{"type": "function"}]', "not a ToolSchemaSpace tool"),
        ("{}", "non-empty list"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),  # issue #14: a RecursionError traceback
    ],
)
def test_malformed_tools_are_a_clear_error(release: Path, tmp_path: Path, tools_text: str, words: str) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(tools_text, encoding="utf-8")
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["import", "toolschemaspace", "--tools", str(tools), "--queries",
              str(release / "queries.sample.jsonl"), "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 2 and words in " ".join(result.output.split())
    assert not out.exists()


def test_non_utf8_tools_are_a_clear_error(release: Path, tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_bytes('[{"uid": "caf\u00e9"}]'.encode("latin-1"))
    result = runner.invoke(
        app, ["import", "toolschemaspace", "--tools", str(tools), "--queries",
              str(release / "queries.sample.jsonl"), "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 2 and "is not JSON" in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)


def test_unknown_domain_and_missing_file(release: Path, tmp_path: Path) -> None:
    args = ["import", "toolschemaspace", "--tools", str(release / "tools.json"), "--out", str(tmp_path / "o")]
    result = runner.invoke(app, [*args, "--queries", str(release / "queries.sample.jsonl"), "-d", "toaster"])
    assert result.exit_code == 2 and "no tool group 'toaster'" in result.output
    result = runner.invoke(app, [*args, "--queries", str(tmp_path / "absent.jsonl")])
    assert result.exit_code == 2 and "cannot read" in result.output
    assert not (tmp_path / "o").exists()


def test_whole_catalog_is_one_pack_over_every_group(release: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["import", "toolschemaspace", "--tools", str(release / "tools.json"),
         "--queries", str(release / "queries.sample.jsonl"), "--out", str(tmp_path), "--whole-catalog", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["domains"]
    tools = json.loads((release / "tools.json").read_text(encoding="utf-8"))
    rows = _lines(release / "queries.sample.jsonl")
    assert row["domain"] == "tss_whole_catalog" and row["tools"] == len(tools) == 168 and row["tasks"] == len(rows)
    domain = get_domain(row["path"])
    space = domain.action_space()
    assert [(op.name, op.group) for op in space.operations] == [
        (f"{t['group']}__{t['name']}", t["group"]) for t in tools
    ]
    easy = [t for t in domain.tasks(0) if t.form == "easy"]
    by_id = {r["id"]: r for r in rows}
    for task, entry in zip(easy, json.loads(Path(row["path"]).read_text(encoding="utf-8"))["tasks"], strict=True):
        source = by_id[entry["source_id"]]
        group = source["domain"]
        assert task.query.startswith(f"{group.replace('_', ' ')}: ")
        assert [a.op for a in task.gold] == [f"{group}__{c['name']}" for c in source["gold_calls"]]
        assert source["system"] in domain.policy

    async def run_all(spec: str) -> list[tuple]:
        backend, variant = OracleBackend(), Variant.build(spec, space)
        outcomes = []
        for task in easy[::8]:
            trace = await run_episode(EpisodeSpec(domain, task, variant, 0), backend)
            score = score_actions(task.gold, [a.to_action() for a in trace.actions])
            outcomes.append((task.id, score.success, trace.rejected_calls, trace.end))
        return outcomes

    for spec in ["native", "rename(style=flat)", "rename(style=namespaced)", "merge(by=class,args=flat)", "discovery"]:
        outcomes = asyncio.run(run_all(spec))
        assert outcomes and all(o[1:] == (True, 0, "answered") for o in outcomes), (spec, outcomes[:3])


# ---------------------------------------------------------------------------------------------
# QA reproductions on small files written here (no release sample needed)

_SYSTEM = "You are a smart-home assistant."


def _tool(group: str, name: str, properties: dict, required: list[str]) -> dict:
    return {
        "uid": f"{group}::{name}",
        "group": group,
        "name": name,
        "description": f"{name} tool.",
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


def _query(group: str, template: str, index: int, kind: str, gold: list[dict], system: str = _SYSTEM) -> dict:
    return {
        "id": f"{group}__{template}__{index}",
        "domain": group,
        "system": system,
        "type": kind,
        "query": f"hard {template} {index}",
        "query_easy": f"easy {template} {index}",
        "gold_calls": gold,
    }


@pytest.fixture
def renamed_files(tmp_path: Path) -> tuple[Path, Path]:
    """A tools file holding only ``smart_home``, with a dotted and a non-ASCII tool name, and queries
    of ``smart_home`` (gold in the original names) and of two groups the tools file lacks."""
    tools = [
        _tool("smart_home", "set.room_light", {"room": {"type": "string"}, "on": {"type": "boolean"}}, ["room", "on"]),
        _tool("smart_home", "réglér_brightness", {"level": {"type": "integer"}}, ["level"]),
        _tool("smart_home", "get_status", {}, []),
    ]
    light = {"name": "set.room_light", "arguments": {"room": "kitchen", "on": True}}
    queries = [
        _query("smart_home", "light", 0, "single", [light]),
        _query(
            "smart_home", "bright", 0, "compound", [{"name": "réglér_brightness", "arguments": {"level": 5}}, light]
        ),  # noqa: E501
        _query("smart_home", "status", 0, "single", [{"name": "get_status", "arguments": {}}]),
        *[_query("calendar", "meet", i, "single", [{"name": "add_event", "arguments": {}}], "cal") for i in range(3)],
        _query("tv", "volume", 0, "single", [{"name": "set_volume", "arguments": {"level": 3}}], "tv"),
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools, ensure_ascii=False), encoding="utf-8")
    lines = [json.dumps(q, ensure_ascii=False) for q in queries]
    (tmp_path / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "tools.json", tmp_path / "queries.jsonl"


def _import(files: tuple[Path, Path], out: Path, *extra: str) -> Any:
    tools, queries = files
    return runner.invoke(
        app, ["import", "toolschemaspace", "--tools", str(tools), "--queries", str(queries), "--out", str(out), *extra]
    )


def test_renamed_tools_map_the_gold_calls_and_the_pack_runs(renamed_files: tuple[Path, Path], tmp_path: Path) -> None:
    """QA: dotted / non-ASCII tool names were renamed in the pack's tools but not in its gold calls,
    so every run of the pack failed ("gold call 0 réglér_brightness: unknown_tool")."""
    result = _import(renamed_files, tmp_path / "out", "-d", "smart_home")
    assert result.exit_code == 0, result.output
    assert "note: tss_smart_home: tool 'set.room_light': renamed 'set_room_light'" in result.stderr
    assert "note: tss_smart_home: tool 'réglér_brightness': renamed 'regler_brightness_" in result.stderr
    pack_path = tmp_path / "out" / "tss_smart_home.json"
    pack = json.loads(pack_path.read_text(encoding="utf-8"))
    tool_names = [t["name"] for t in pack["tools"]]
    assert tool_names[0] == "set_room_light" and tool_names[1].startswith("regler_brightness_")
    assert [[c["name"] for c in t["gold"]] for t in pack["tasks"]] == [
        ["set_room_light"],
        [tool_names[1], "set_room_light"],
        ["get_status"],
    ]
    domain = get_domain(str(pack_path))
    assert len(domain.tasks(0)) == 6
    run = runner.invoke(
        app, ["run", "--model", "oracle", "-d", str(pack_path), "-n", "6", "-v", "native,split", "--json",
              "--run-dir", str(tmp_path / "run")],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout)
    assert summary["episodes"] == 12 and all(v["success_rate"] == 1.0 for v in summary["variants"])


def test_renamed_tools_in_the_whole_catalog_and_the_json_notes(
    renamed_files: tuple[Path, Path], tmp_path: Path
) -> None:
    result = _import(renamed_files, tmp_path / "out", "-d", "smart_home", "--whole-catalog", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    notes = summary["notes"]
    assert len(notes) == 2 and all(n.startswith("tss_whole_catalog: group 'smart_home'") for n in notes)
    domain = get_domain(summary["domains"][0]["path"])
    assert [a.op for a in domain.tasks(0)[0].gold] == ["smart_home__set_room_light"]
    run = runner.invoke(
        app, ["run", "--model", "oracle", "-d", summary["domains"][0]["path"], "--json",
              "--run-dir", str(tmp_path / "run")],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert all(v["success_rate"] == 1.0 for v in json.loads(run.stdout)["variants"])


def test_a_pack_that_would_not_load_is_never_written(
    renamed_files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import reads each pack back as ``toolprism run`` does before writing: with the gold calls
    left in the catalog's original names (the QA bug), it is an error and nothing is written."""
    from toolprism.interop import _toolschemaspace as tss

    real = tss._gold

    def unmapped(calls: Any, space: Any, found: list[str]) -> list:
        gold = real(calls, space, found)
        return [c.model_copy(update={"name": raw["name"]}) for c, raw in zip(gold, calls, strict=True)]

    monkeypatch.setattr(tss, "_gold", unmapped)
    out = tmp_path / "out"
    result = _import(renamed_files, out, "-d", "smart_home")
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "does not load back" in text and "pack tss_smart_home:" in text and "réglér_brightness" in text
    assert not out.exists()


def test_domains_skip_the_tasks_of_other_groups(renamed_files: tuple[Path, Path], tmp_path: Path) -> None:
    """QA: ``-d smart_home`` with a tools file of smart_home only and the full queries file failed
    with one problem per task of every other group."""
    result = _import(renamed_files, tmp_path / "out", "-d", "smart_home", "--json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["domains"]
    assert row["domain"] == "tss_smart_home" and row["tasks"] == 3
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["tss_smart_home.json"]


def test_without_domains_absent_groups_are_one_problem_each(renamed_files: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _import(renamed_files, out)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "2 problem(s)" in text
    assert "3 task(s) of domain 'calendar' (first at" in text and "queries.jsonl:4)" in text
    assert "1 task(s) of domain 'tv'" in text and "pass --domains" in text
    assert text.count("calendar") == 1 and "calendar__meet__1" not in text
    assert not out.exists()


def test_import_help_documents_the_task_selection() -> None:
    result = CliRunner().invoke(app, ["import", "toolschemaspace", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert "the tasks of other groups are skipped" in text and "one line per such domain" in text
    assert "note:" in text
