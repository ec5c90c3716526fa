"""CatalogDomain and domain packs on a tiny hand-written pack: acknowledgement replies, an
action-log state, gold checked against the tools, tasks the same for every seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolprism.domains import domain_names, get_domain
from toolprism.domains._catalog import PACK_FORMAT, DomainPack, kind_from_name, load_pack, read_pack
from toolprism.errors import ConfigError


def tiny_pack(**changes: Any) -> dict[str, Any]:
    """A two-tool pack as a JSON document; ``changes`` replace top-level fields."""
    pack = {
        "format": PACK_FORMAT,
        "name": "tiny",
        "source": {"dataset": "hand-written for the tests"},
        "licence": "CC0-1.0",
        "policy": "You control two lamps.",
        "tools": [
            {
                "name": "set_lamp",
                "description": "Switch a lamp.",
                "group": "lamps",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "lamp": {"type": "string", "enum": ["desk", "floor"]},
                        "level": {"type": "integer", "minimum": 0, "maximum": 10, "default": 5},
                    },
                    "required": ["lamp"],
                },
            },
            {
                "name": "get_lamp",
                "group": "lamps",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"lamp": {"type": "string"}}, "required": ["lamp"]},
            },
        ],
        "tasks": [
            {
                "id": "one_lamp/0",
                "kind": "single",
                "easy": "Set the desk lamp to 7.",
                "hard": "It is dark here; the desk lamp at 7 please.",
                "gold": [{"name": "set_lamp", "arguments": {"lamp": "desk", "level": 7}}],
            },
            {
                "id": "two_lamps/0",
                "kind": "compound",
                "easy": "Switch on the floor lamp and set the desk lamp to 2.",
                "gold": [
                    {"name": "set_lamp", "arguments": {"lamp": "floor"}},
                    {"name": "set_lamp", "arguments": {"lamp": "desk", "level": 2}},
                ],
            },
        ],
    }
    return {**pack, **changes}


@pytest.fixture
def pack_path(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(tiny_pack()), encoding="utf-8")
    return path


def test_replies_acknowledge_with_normalised_arguments(pack_path: Path) -> None:
    domain = load_pack(pack_path)
    env = domain.environment(0)
    reply = env.execute(domain.action_space().action("set_lamp", {"lamp": "floor"}))
    assert reply == {"status": "ok", "tool": "set_lamp", "arguments": {"lamp": "floor", "level": 5}}
    assert env.execute(domain.action_space().action("get_lamp", {"lamp": "x"}))["tool"] == "get_lamp"


def test_writes_change_the_state_hash_and_reads_do_not(pack_path: Path) -> None:
    domain = load_pack(pack_path)
    space = domain.action_space()
    env = domain.environment(0)
    hashes = [env.state_hash()]
    for op, args in [("set_lamp", {"lamp": "desk"}), ("get_lamp", {"lamp": "desk"}), ("set_lamp", {"lamp": "desk"})]:
        env.execute(space.action(op, args))
        hashes.append(env.state_hash())
    assert hashes[1] != hashes[0]  # a write
    assert hashes[2] == hashes[1]  # a read
    assert hashes[3] not in hashes[:3]  # the same write again is a new entry of the log
    assert [a.tool for a in env.state.actions] == ["set_lamp", "set_lamp"]


def test_operations_keep_kinds_groups_and_schemas(pack_path: Path) -> None:
    space = load_pack(pack_path).action_space()
    assert [(op.name, op.kind, op.group) for op in space.operations] == [
        ("set_lamp", "write", "lamps"),
        ("get_lamp", "read", "lamps"),
    ]
    assert space.get("set_lamp").param("level").schema["maximum"] == 10


def test_tasks_are_the_same_for_every_seed_and_carry_the_pack_ids(pack_path: Path) -> None:
    domain = load_pack(pack_path)
    first, other = domain.tasks(0), domain.tasks(5)
    assert [t.id for t in first] == ["tiny/one_lamp/0", "tiny/two_lamps/0", "tiny/one_lamp/0/hard"]
    assert [t.form for t in first] == ["easy", "easy", "hard"]
    assert {t.world_seed for t in other} == {5}
    strip = [(t.id, t.query, t.gold, t.reference, t.kind, t.form) for t in first]
    assert strip == [(t.id, t.query, t.gold, t.reference, t.kind, t.form) for t in other]
    assert len(first[1].reference) == 2 and first[1].reference[0].reply["arguments"] == {"lamp": "floor", "level": 5}
    assert domain.tasks(0, limit=1) == first[:1]


def test_bad_gold_is_rejected_with_every_problem_listed() -> None:
    data = tiny_pack()
    data["tasks"] = [
        {"id": "a/0", "kind": "single", "easy": "x", "gold": [{"name": "set_lamps", "arguments": {}}]},
        {"id": "b/0", "kind": "single", "easy": "x", "gold": [{"name": "set_lamp", "arguments": {"lamp": "attic"}}]},
        {"id": "c/0", "kind": "single", "easy": "x", "gold": [{"name": "set_lamp", "arguments": {"level": 11}}]},
        {"id": "no-index", "kind": "single", "easy": "x", "gold": [{"name": "get_lamp", "arguments": {"lamp": "a"}}]},
        {"id": "a/0", "kind": "single", "easy": "x", "gold": []},
    ]
    with pytest.raises(ConfigError) as caught:
        DomainPack.model_validate(data).domain()
    problems = caught.value.problems
    assert len(problems) == 5, problems  # one line per bad call, every violation of that call in it
    expected = [
        ("'a/0'", "unknown tool 'set_lamps'"),
        ("'b/0'", "attic"),
        ("'c/0'", "'lamp' is a required property"),
        ("'c/0'", "11 is greater than the maximum"),
        ("'no-index'", "<template>/<index>"),
        ("'a/0'", "more than once"),
    ]
    for task, words in expected:
        assert any(task in p and words in p for p in problems), (task, words, problems)


def test_a_pack_path_is_a_domain_name_but_not_a_built_in(pack_path: Path) -> None:
    domain = get_domain(str(pack_path))
    assert domain.name == "tiny" and domain.policy == "You control two lamps."
    assert "tiny" not in domain_names()
    assert read_pack(pack_path) == DomainPack.model_validate_json(read_pack(pack_path).dumps())


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "cannot read"),
        ("{not json", "is not JSON"),
        (json.dumps({**tiny_pack(), "format": "toolprism.domain/0"}), "toolprism.domain/1"),
        (json.dumps({**tiny_pack(), "licence": 3, "extra": 1}), "licence"),
        (json.dumps(tiny_pack(name="has space")), "name"),
    ],
)
def test_malformed_packs_are_config_errors(tmp_path: Path, content: str | None, words: str) -> None:
    path = tmp_path / "pack.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        get_domain(str(path))
    assert words in str(caught.value)


def test_a_directory_is_not_a_pack(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        get_domain(str(tmp_path) + "/")


def test_pack_text_is_deterministic() -> None:
    a, b = DomainPack.model_validate(tiny_pack()), DomainPack.model_validate(json.loads(json.dumps(tiny_pack())))
    assert a.dumps() == b.dumps() and a.dumps().endswith("}\n")


@pytest.mark.parametrize(
    ("name", "kind"),
    [("get_status", "read"), ("List_items", "read"), ("query_db", "read"), ("set_light", "write"), ("target", "write")],
)
def test_read_write_rule_from_names(name: str, kind: str) -> None:
    assert kind_from_name(name) == kind
