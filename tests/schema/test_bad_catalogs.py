"""Real-world catalogs and edge cases (issue #14, item 10, catalog side): each class of bad input is
refused with a ConfigError listing every problem, or read the documented way with a record; never a
traceback. Each class is reproduced through the Python API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.errors import ConfigError
from toolprism.schema import ActionSpace, load_catalog, safe_tool_name
from toolprism.schema._loaders import load_data
from toolprism.schema._tools import MAX_DEPTH, too_deep
from toolprism.shaping import Variant
from toolprism.validate import ValidationReport, validate

runner = CliRunner()


def _tool(name: str, props: dict[str, Any], required: Any = None) -> dict[str, Any]:
    required = list(props) if required is None else required
    parameters = {"type": "object", "properties": props, "required": required}
    return {"type": "function", "function": {"name": name, "description": "d", "parameters": parameters}}


def _write(tmp_path: Path, data: Any, name: str = "catalog.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _problems(call: Any) -> str:
    with pytest.raises(ConfigError) as info:
        call()
    return "\n".join(info.value.problems)


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


# unknown type names next to a default (ToolBench / StableToolBench) -----------------------------

TOOLBENCH = [
    _tool(
        "search",
        {
            "query": {"type": "STRING", "default": "pizza"},
            "limit": {"type": "NUMBER", "default": 5},
            "safe": {"type": "BOOLEAN", "default": True},
        },
        required=["query"],
    )
]


def test_upper_case_type_names_are_read_case_insensitively_with_a_record(tmp_path: Path) -> None:
    space = load_catalog(_write(tmp_path, TOOLBENCH))
    params = {p.name: p.schema for p in space.get("search").params}
    assert params == {
        "query": {"type": "string", "default": "pizza"},
        "limit": {"type": "number", "default": 5},
        "safe": {"type": "boolean", "default": True},
    }
    assert "tool 'search', parameter 'query': type 'STRING' read as 'string'" in space.notes
    assert len(space.notes) == 3
    assert space.action("search", {"query": "x"}).arguments == {"query": "x", "limit": 5, "safe": True}


def test_unknown_type_names_next_to_a_default_are_a_config_error() -> None:
    tools = [_tool("t", {"a": {"type": "ENUM", "default": "x"}, "b": {"type": "DATE", "default": "2024-01-01"}})]
    problems = _problems(lambda: ActionSpace.from_openai_tools(tools))
    assert "tool 't', parameter 'a': unknown type 'ENUM'" in problems
    assert "tool 't', parameter 'b': unknown type 'DATE'" in problems


def test_cli_reads_toolbench_types_and_refuses_unknown_ones(tmp_path: Path) -> None:
    result = _cli("variants", "show", "native", "--catalog", str(_write(tmp_path, TOOLBENCH)))
    assert result.exit_code == 0
    assert "type 'STRING' read as 'string'" in result.stderr
    bad = _write(tmp_path, [_tool("t", {"a": {"type": "ENUM", "default": "x"}})], "bad.json")
    result = _cli("validate", "--catalog", str(bad))
    assert result.exit_code == 2 and "unknown type 'ENUM'" in result.stderr


# encodings ----------------------------------------------------------------------------------------


def test_non_utf8_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps([_tool("t", {"a": {"type": "string", "description": "café"}})], ensure_ascii=False)
                     .encode("latin-1"))  # fmt: skip
    problems = _problems(lambda: load_catalog(path))
    assert "not UTF-8 text (byte 0xe9" in problems
    for command in (["validate", "--catalog", str(path)], ["variants", "show", "native", "--catalog", str(path)]):
        result = _cli(*command)
        assert result.exit_code == 2 and "not UTF-8 text" in result.stderr


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_byte_order_marked_files_load(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(json.dumps([_tool("t", {"a": {"type": "string"}})], ensure_ascii=False).encode(encoding))
    assert [op.name for op in load_catalog(path).operations] == ["t"]


# depth --------------------------------------------------------------------------------------------


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    return schema


def test_json_nested_beyond_the_parser_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in _problems(lambda: load_catalog(path))
    result = _cli("validate", "--catalog", str(path))
    assert result.exit_code == 2 and "nested too deeply" in result.stderr


def test_schemas_nested_a_hundred_levels_are_a_config_error(tmp_path: Path) -> None:
    tools = [_tool("deep", {"x": _nested(100)}), _tool("ok", {"y": {"type": "integer"}})]
    assert f"tool 'deep': nested more than {MAX_DEPTH} levels deep" in _problems(
        lambda: ActionSpace.from_openai_tools(tools)
    )
    assert "nested more than" in _problems(lambda: load_catalog(_write(tmp_path, tools)))
    items: dict[str, Any] = {"type": "string"}
    for _ in range(100):
        items = {"type": "array", "items": items}
    assert "nested more than" in _problems(lambda: ActionSpace.from_mcp_tools_list([
        {"name": "deep", "inputSchema": {"type": "object", "properties": {"x": items}}}
    ]))  # fmt: skip
    result = _cli("validate", "--catalog", str(_write(tmp_path, tools)))
    assert result.exit_code == 2 and "nested more than" in result.stderr


def test_the_deepest_accepted_schema_goes_through_variants_and_validation(tmp_path: Path) -> None:
    levels = max(n for n in range(40) if not too_deep(_tool("deep", {"x": _nested(n)})))
    tools = [_tool("deep", {"x": _nested(levels)}), _tool("pick", {"m": {"type": "string", "enum": ["p", "q"]}})]
    variants = ["native", "nest", "split", "merge(by=full,args=nested)", "transaction", "reference", "discovery"]
    report = validate(variants=variants, catalog=_write(tmp_path, tools))
    assert report.passed and not report.skipped, (report.failures[:1], report.skipped)
    assert all(s.traces == 2 for s in report.summaries)


# required -----------------------------------------------------------------------------------------


def test_required_entries_that_are_not_strings_are_each_listed(tmp_path: Path) -> None:
    tools = [_tool("r", {"x": {"type": "string"}}, required=["x", {"a": 1}, 3, None, ["x"]])]
    problems = _problems(lambda: load_catalog(_write(tmp_path, tools)))
    for bad in ("{'a': 1}", "3", "None", "['x']"):
        assert f"'required' entry {bad} is not a string" in problems
    result = _cli("validate", "--catalog", str(_write(tmp_path, tools)))
    assert result.exit_code == 2 and "is not a string" in result.stderr


# unsatisfiable schemas ----------------------------------------------------------------------------


def test_unsatisfiable_schemas_fail_at_load_with_every_problem_listed(tmp_path: Path) -> None:
    tools = [
        _tool("u", {"n": {"type": "integer", "enum": ["a", "b"]}}),
        _tool("v", {"s": {"type": "string", "minLength": 5, "maxLength": 2}, "k": {"type": "integer", "enum": []}}),
        _tool("w", {"x": {"type": "number", "minimum": 10, "maximum": 1}, "no": False}),
        _tool("p", {"s": {"type": "string", "enum": ["ok", None]}}),
        _tool("q", {"o": {"type": "object", "properties": {"inner": {"type": "boolean", "const": "yes"}}}}),
    ]
    problems = _problems(lambda: load_catalog(_write(tmp_path, tools)))
    for fragment in [
        "tool 'u', parameter 'n': enum value(s) ['a', 'b'] all refused by type 'integer': no value can satisfy it",
        "tool 'v', parameter 's': minLength 5 is above maxLength 2",
        "tool 'v', parameter 'k': 'enum' is empty",
        "tool 'w', parameter 'x': minimum 10 is above maximum 1",
        "tool 'w', parameter 'no': required, but its schema is false",
        "tool 'p', parameter 's': enum value(s) [None] refused by type 'string': no call could pass them",
        "tool 'q', parameter 'o': const value(s) ['yes'] all refused by type 'boolean'",
    ]:
        assert fragment in problems, (fragment, problems)
    result = _cli("validate", "--catalog", str(_write(tmp_path, tools)))
    assert result.exit_code == 2 and "all refused by type 'integer'" in result.stderr


def test_unsatisfiable_branches_of_any_of_and_not_are_legitimate() -> None:
    tools = [
        _tool("a", {"v": {"anyOf": [{"type": "integer", "enum": ["x"]}, {"type": "string"}]}}),
        _tool("b", {"v": {"type": "string", "not": {"type": "integer", "minimum": 5, "maximum": 1}}}),
    ]
    space = ActionSpace.from_openai_tools(tools)
    assert space.action("a", {"v": "s"}).arguments == {"v": "s"}


# tool names ---------------------------------------------------------------------------------------


def test_dotted_and_non_ascii_names_are_renamed_reversibly(tmp_path: Path) -> None:
    tools = [
        _tool("math.add", {"x": {"type": "integer"}}),
        _tool("天气", {"city": {"type": "string"}}),
        _tool("café", {}),
        _tool("cafe", {}),
        _tool("fs/read", {}),
        _tool("fs_read", {}),
        _tool("x" * 80, {}),
    ]
    space = load_catalog(_write(tmp_path, tools))
    names = [op.name for op in space.operations]
    assert names[0] == "math_add" and names[3] == "cafe" and names[5] == "fs_read"
    assert len(set(names)) == len(names) and all(len(n) <= 64 for n in names)
    originals = [op.source_name for op in space.operations]
    assert originals == [t["function"]["name"] for t in tools]
    assert names[4] != "fs_read" and names[4].startswith("fs_read_")  # a valid name keeps its own
    for op in space.operations:
        assert space.get(op.source_name) is op  # the original name finds the renamed tool
    action = space.action("math.add", {"x": 2})
    assert action.op == "math_add"
    assert space.source_call(action).name == "math.add"
    assert "(original name: 天气)" in space.get("天气").description
    assert any("renamed" in n for n in space.notes)
    mcp = ActionSpace.from_mcp_tools_list({"tools": [{"name": "github.create_issue", "inputSchema": {}}]})
    assert mcp.operations[0].name == "github_create_issue" and mcp.operations[0].original == "github.create_issue"


def test_safe_tool_name_rule() -> None:
    assert safe_tool_name("ok_name-1") == "ok_name-1"
    assert safe_tool_name("math.add") == "math_add"  # BFCL's rule on ASCII
    assert safe_tool_name("café").startswith("cafe_") and safe_tool_name("café") != safe_tool_name("cafe")
    assert safe_tool_name("天气").startswith("tool_")
    assert len(safe_tool_name("a." * 50)) == 64


def test_cli_validates_a_catalog_with_renamed_tools(tmp_path: Path) -> None:
    tools = [_tool("math.add", {"x": {"type": "integer"}}), _tool("天气", {"city": {"type": "string"}})]
    result = _cli("validate", "--catalog", str(_write(tmp_path, tools)), "-v", "native,rename,merge", "--jobs", "1")
    assert result.exit_code == 0, result.stdout
    assert "renamed 'math_add'" in result.stdout and "PASSED" in result.stdout


# split with clashing suffixes; validate with nothing checked ---------------------------------------


def test_split_disambiguates_enum_values_with_one_suffix(tmp_path: Path) -> None:
    tools = [_tool("s", {"m": {"type": "string", "enum": ["a b", "a-b", "c"]}})]
    for spec in ("split", "split(on=all)", "split(style=paper)"):
        names = [t["function"]["name"] for t in Variant.build(spec, ActionSpace.from_openai_tools(tools)).openai_tools]
        assert len(set(names)) == 3, (spec, names)
    report = validate(variants=["split", "split-all", "split-all-enums"], catalog=_write(tmp_path, tools))
    assert report.passed and report.checks > 3, report.failures[:1]


def test_split_names_fold_non_ascii_values_as_tool_names_do() -> None:
    tools = [_tool("s", {"m": {"type": "string", "enum": ["ä b", "b", "été", "天气"]}})]
    names = [t["function"]["name"] for t in Variant.build("split", ActionSpace.from_openai_tools(tools)).openai_tools]
    assert names[:3] == ["s__a_b", "s__b", "s__ete"]  # no letter dropped: "ä b" is not "b"
    assert names[3].startswith("s__v") and len(set(names)) == 4  # nothing left to fold: a short hash


def test_a_named_variant_that_cannot_be_built_fails_validate(tmp_path: Path) -> None:
    tools = [_tool("s", {"m": {"type": "string", "enum": ["x", "y"]}}), _tool("s__x", {})]
    path = _write(tmp_path, tools)
    report = validate(variants=["split"], catalog=path)
    assert not report.passed and report.failures[0].kind == "build"
    assert "already taken" in report.failures[0].message
    result = _cli("validate", "--catalog", str(path), "-v", "split", "--jobs", "1")
    assert result.exit_code == 1 and "FAILED" in result.stdout and "already taken" in result.stdout


def test_a_validation_that_ran_no_trace_does_not_pass() -> None:
    empty = ValidationReport(
        suites=["c"], variants=["split"], checks=0, checks_by_kind={}, seconds=0.0, summaries=[], failures=[]
    )
    assert not empty.passed and "no reference trace ran" in empty.verdict


def test_cli_validate_fails_when_every_variant_is_skipped(tmp_path: Path) -> None:
    # the catalog's only tool needs a value no synthesizer can produce: nothing can be checked
    tools = [_tool("t", {"a": {"type": "string", "pattern": "^(?=x)y$"}})]
    result = _cli("validate", "--catalog", str(_write(tmp_path, tools)), "-v", "native", "--jobs", "1")
    assert result.exit_code == 1, result.stdout
    assert "no reference trace ran" in result.stdout


# fuzz ---------------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)
KEYWORDS = ["type", "enum", "const", "default", "items", "properties", "required", "minimum", "maximum",
            "minLength", "maxLength", "anyOf", "allOf", "not", "$ref", "nullable", "prefixItems", "$defs",
            "additionalProperties", "description", "format", "pattern"]  # fmt: skip
TYPE_NAMES = st.sampled_from(["string", "STRING", "Number", "integer", "object", "array", "null", "boolean", "ENUM"])
SCHEMAS = st.recursive(
    st.dictionaries(st.sampled_from(KEYWORDS), JSON_VALUES | TYPE_NAMES, max_size=3)
    | st.fixed_dictionaries({"type": TYPE_NAMES | st.lists(TYPE_NAMES, max_size=3)}),
    lambda children: st.dictionaries(
        st.sampled_from(KEYWORDS),
        children
        | st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=4), children, max_size=3)
        | JSON_VALUES
        | TYPE_NAMES,
        max_size=4,
    ),
    max_leaves=20,
)
NAMES = st.text(max_size=10) | st.sampled_from(["a", "b.c", "天气", "x" * 70, ""])
TOOLS = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("function"),
            "function": st.fixed_dictionaries(
                {
                    "name": NAMES,
                    "parameters": st.fixed_dictionaries(
                        {"type": st.just("object"), "properties": st.dictionaries(NAMES, SCHEMAS, max_size=3)},
                        optional={"required": st.lists(NAMES | JSON_VALUES, max_size=3)},
                    ),
                }
            ),
        }
    ),
    max_size=3,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _load_or_refuse(data: Any) -> ActionSpace | None:
    try:
        space = load_data(data, name="fuzz")
    except ConfigError:
        return None
    for op in space.operations:  # a loaded catalog is usable: its tools and a variant build
        op.tool().openai()
    return space


@FUZZ
@given(JSON_VALUES)
def test_fuzz_arbitrary_json_is_a_catalog_or_a_config_error(data: Any) -> None:
    _load_or_refuse(data)


@FUZZ
@given(TOOLS)
def test_fuzz_tool_shaped_json_is_a_catalog_or_a_config_error(data: Any) -> None:
    space = _load_or_refuse(data)
    if space is not None and space.operations:
        names = [op.name for op in space.operations]
        assert len(set(names)) == len(names)
        assert all(space.get(op.source_name) is op for op in space.operations)


@FUZZ
@given(st.binary(max_size=200))
def test_fuzz_arbitrary_bytes_as_a_catalog_file(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "catalog.json"
    path.write_bytes(raw)
    try:
        load_catalog(path)
    except ConfigError:
        pass
