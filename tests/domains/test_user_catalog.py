"""A user's own catalog and task file as a domain (``catalog_pack``, ``read_task_file``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolprism.domains import catalog_pack, read_task_file
from toolprism.errors import ConfigError

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "description": "Set an alarm.",
            "parameters": {
                "type": "object",
                "properties": {"time": {"type": "string"}, "label": {"type": "string"}},
                "required": ["time"],
            },
        },
    },
]
TASKS = [
    {
        "query": "What's the weather in Paris?",
        "gold": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        "replies": [{"temperature": 18}],
    },
    {"id": "alarm/7", "query": "Alarm at 07:30.", "gold": [{"name": "set_alarm", "arguments": {"time": "07:30"}}]},
    {
        "query": "Weather in Oslo, then an alarm at 06:00.",
        "gold": [
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
            {"name": "set_alarm", "arguments": {"time": "06:00"}},
        ],
        "hard": "Before I get up at six, what's it like in Oslo?",
    },
]


def write(tmp_path: Path, tools: object = TOOLS, tasks: list = TASKS) -> tuple[Path, Path]:
    catalog, task_file = tmp_path / "assistant.tools.json", tmp_path / "tasks.jsonl"
    catalog.write_text(json.dumps(tools))
    task_file.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return catalog, task_file


def test_tasks_ids_kinds_and_reads(tmp_path: Path) -> None:
    pack = catalog_pack(*write(tmp_path))
    assert pack.name == "assistant"
    assert {t.name: t.kind for t in pack.tools} == {"get_weather": "read", "set_alarm": "write"}
    tasks = pack.domain().tasks()
    assert [t.id for t in tasks] == [
        "assistant/task/0",
        "assistant/alarm/7",
        "assistant/task/2",
        "assistant/task/2/hard",
    ]
    assert [t.kind for t in tasks[:3]] == ["single", "single", "compound"]
    assert tasks[3].query == TASKS[2]["hard"]


def test_scripted_replies_answer_that_call_only(tmp_path: Path) -> None:
    domain = catalog_pack(*write(tmp_path)).domain()
    space, env = domain.action_space(), domain.environment(0)
    assert env.execute(space.action("get_weather", {"city": "Paris", "unit": "celsius"})) == {"temperature": 18}
    other = env.execute(space.action("get_weather", {"city": "Rome"}))
    assert other == {"status": "ok", "tool": "get_weather", "arguments": {"city": "Rome", "unit": "celsius"}}
    reference = domain.tasks()[0].reference
    assert [step.reply for step in reference] == [{"temperature": 18}]  # the task hash covers the reply


def test_same_call_scripted_twice_differently_is_refused(tmp_path: Path) -> None:
    twice = [TASKS[0], {**TASKS[0], "replies": [{"temperature": 3}]}]
    with pytest.raises(ConfigError, match="scripted with another reply by task 'task/0'"):
        catalog_pack(*write(tmp_path, tasks=twice))


def test_every_problem_of_a_task_file_is_listed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x", "gold": {}}\n\nnot json\n{"gold": [{"name": "a"}]}\n')
    with pytest.raises(ConfigError) as info:
        read_task_file(bad)
    text = str(info.value)
    assert "line 1: gold" in text and "line 3:" in text and "line 4: query" in text


def test_gold_calls_are_checked_against_the_catalog(tmp_path: Path) -> None:
    tasks = [
        {"query": "a", "gold": [{"name": "nope", "arguments": {}}]},
        {"query": "b", "gold": [{"name": "set_alarm", "arguments": {"hour": 7}}], "replies": [{"a": 1}, {"b": 2}]},
    ]
    with pytest.raises(ConfigError) as info:
        catalog_pack(*write(tmp_path, tasks=tasks))
    text = str(info.value)
    assert "unknown tool 'nope'" in text and "'time' is a required property" in text and "2 replies for 1" in text


def test_a_task_with_no_gold_call_is_solved_by_answering(tmp_path: Path) -> None:
    tasks = [*TASKS, {"query": "Tell me a joke.", "gold": []}]
    task = catalog_pack(*write(tmp_path, tasks=tasks)).domain().tasks()[3]
    assert task.query == "Tell me a joke." and task.gold == () and task.reference == ()


def test_names_bom_empty_hard_and_non_object_replies(tmp_path: Path) -> None:
    catalog, task_file = write(tmp_path)
    hyphenated = tmp_path / "my-tools.v2.json"
    hyphenated.write_text(catalog.read_text())
    assert catalog_pack(hyphenated, task_file).name == "my_tools"
    with pytest.raises(ConfigError, match="letters, digits and _ only"):
        catalog_pack(catalog, task_file, name="bad name")
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + task_file.read_bytes())
    assert len(read_task_file(bom)) == len(TASKS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x", "gold": [], "hard": ""}\n{"query": "y", "gold": [], "replies": ["text"]}\n')
    with pytest.raises(ConfigError) as info:
        read_task_file(bad)
    assert "line 1: hard" in str(info.value) and "line 2: replies.0" in str(info.value)


def test_empty_task_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ConfigError, match="no task"):
        read_task_file(empty)


def test_mcp_catalog_with_tasks(tmp_path: Path, external: Path) -> None:
    tasks = [
        {"query": "Time in Tokyo?", "gold": [{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}]}
    ]
    catalog, task_file = write(tmp_path, tasks=tasks)
    pack = catalog_pack(external / "mcp" / "time.tools_list.json", task_file, name="time")
    assert {t.name: t.kind for t in pack.tools}["get_current_time"] == "read"  # readOnlyHint
    assert [t.id for t in pack.domain().tasks()] == ["time/task/0"]
