"""Real-world catalog shapes: loaders (``$defs``/``$ref``, ``$schema``, nullable fields, type lists,
BFCL's dotted names and Python types, ToolSchemaSpace groups) and every operator round-tripping on
them. Minimized fixtures in tests/fixtures/catalogs always run; the real files under
``../shared/external`` run when present.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import jsonschema
import pytest

from toolprism.errors import ConfigError
from toolprism.schema import ActionSpace, bfcl_tool_name, load_catalog
from toolprism.schema._synth import synthesize_arguments
from toolprism.shaping import VARIANTS, Variant

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "catalogs"

_spec = importlib.util.spec_from_file_location("catalog_roundtrip", ROOT / "benchmarks" / "catalog_roundtrip.py")
roundtrip_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(roundtrip_tool)  # type: ignore[union-attr]

GOOD = {
    "tau2": ("tau2_like.openai.json", {}),
    "mcp": ("mcp_like.tools_list.json", {}),
    "bfcl-entry-0": ("bfcl_like.json", {"entry": "fx_0"}),
    "bfcl-entry-1": ("bfcl_like.json", {"entry": 1}),
    "bfcl-func-doc": ("bfcl_like_func_doc.json", {}),
    "toolschemaspace": ("toolschemaspace_like.json", {}),
    "toolschemaspace-group": ("toolschemaspace_like.json", {"group": "vacuum"}),
}


def fixture(key: str) -> ActionSpace:
    name, kwargs = GOOD[key]
    return load_catalog(FIXTURES / name, **kwargs)


def schema_of(space: ActionSpace, tool: str, param: str) -> dict:
    return dict(space.get(tool).param(param).schema)  # type: ignore[union-attr]


# --- loaders ---------------------------------------------------------------------------------


def test_tau2_defs_and_refs_are_inlined() -> None:
    space = fixture("tau2")
    legs = schema_of(space, "book_trip", "legs")
    assert legs["items"]["anyOf"][0]["required"] == ["code", "date"]
    cabin = space.get("book_trip").param("cabin")
    assert cabin.schema["enum"] == ["economy", "business"] and cabin.schema["default"] == "economy"
    assert cabin.description == "Cabin class."
    payment = schema_of(space, "book_trip", "payment")
    assert payment["properties"]["method"]["enum"] == ["card", "voucher"]  # a $ref inside a $def
    text = json.dumps([t.parameters for t in space.tools()])
    assert "$ref" not in text and "$defs" not in text
    # tau2 (pydantic) writes "default": null on a plain string: dropped, since no call could pass it
    assert "default" not in schema_of(space, "add_note", "tag")
    assert space.action("add_note", {"text": "x"}).arguments == {"text": "x"}
    assert space.action("book_trip", {"user_id": "u", "legs": [], "payment": {"amount": 1, "method": "card"}})


def test_ref_beside_constraints_keeps_both() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "t",
                "parameters": {
                    "$defs": {"Short": {"type": "string", "maxLength": 3}},
                    "type": "object",
                    "properties": {"code": {"$ref": "#/$defs/Short", "maxLength": 5, "default": "ab"}},
                },
            },
        }
    ]
    schema = schema_of(ActionSpace.from_openai_tools(tools), "t", "code")
    assert schema["allOf"] == [{"type": "string", "maxLength": 3}] and schema["maxLength"] == 5
    jsonschema.Draft202012Validator.check_schema(schema)


def test_unresolvable_refs_name_tool_parameter_and_reason() -> None:
    with pytest.raises(ConfigError) as info:
        load_catalog(FIXTURES / "bad_refs.openai.json")
    problems = "\n".join(info.value.problems)
    assert "tool 'broken', parameter 'missing': unresolvable $ref '#/$defs/Nope': no 'Nope'" in problems
    assert "parameter 'remote': unresolvable $ref 'https://example.com/schema.json': only local" in problems
    assert "parameter 'tree': unresolvable $ref '#/$defs/Node': it is recursive" in problems
    assert "'fine'" not in problems


def test_mcp_shapes() -> None:
    space = fixture("mcp")
    assert space.get("get-env").params == () and space.get("get-env").kind == "read"
    assert space.action("get-env", {}).arguments == {}
    assert schema_of(space, "git_log", "since")["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert schema_of(space, "git_log", "author")["type"] == ["string", "null"]
    assert schema_of(space, "git_log", "order")["type"] == ["string", "null"]  # OpenAPI nullable
    assert "nullable" not in schema_of(space, "git_log", "order")
    assert schema_of(space, "read_file", "range") == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "integer"}],
        "items": False,
    }
    assert "$schema" not in json.dumps([t.parameters for t in space.tools()])
    action = space.action("read_file", {"path": "a", "mode": "text", "range": [1.0, 2]})
    assert action.arguments["range"] == [1, 2]  # integers normalised inside prefixItems


def test_bfcl_names_and_types() -> None:
    space = fixture("bfcl-entry-0")
    assert [op.name for op in space.operations] == ["math_factorial", "geometry_area_circle"]
    assert bfcl_tool_name("geometry.area.circle") == "geometry_area_circle"
    op = space.get("geometry_area_circle")
    assert "BFCL name: geometry.area.circle" in op.description and op.group == "geometry_area"
    assert op.param("radius").schema["type"] == "number" and op.param("units").schema["type"] == "string"
    plot = fixture("bfcl-entry-1").get("plot_points")
    assert plot.param("point").schema == {"type": "array", "items": {"type": "number"}}
    assert plot.param("style").schema["type"] == "object"
    assert plot.param("style").schema["properties"]["width"] == {"type": "integer"}  # "None" default dropped
    assert "type" not in plot.param("payload").schema  # any
    assert plot.param("limit").schema == {"type": "integer"} and not plot.param("limit").required
    assert plot.param("tags").schema["items"] == {"type": "string"}  # "String"


def test_bfcl_union_refuses_conflicting_definitions() -> None:
    with pytest.raises(ConfigError) as info:
        load_catalog(FIXTURES / "bfcl_like.json")
    assert "tool 'math.factorial': defined differently in entries 'fx_0' and 'fx_2'" in str(info.value)


def test_bfcl_name_collisions_and_unknown_types() -> None:
    with pytest.raises(ConfigError) as info:
        load_catalog(FIXTURES / "bfcl_collision.json")
    problems = "\n".join(info.value.problems)
    # a name that is already valid keeps it; the dotted one that would take it is refused (BFCL's rule)
    assert "tool 'solve.quadratic': its tool name 'solve_quadratic' is already taken by 'solve_quadratic'" in problems
    assert "tool 'bad_types', parameter 'x': unknown type 'complex'" in problems


def test_toolschemaspace_groups() -> None:
    whole = fixture("toolschemaspace")
    assert [op.name for op in whole.operations] == ["tv__set_power", "tv__set_volume", "vacuum__set_power"]
    assert [op.group for op in whole.operations] == ["tv", "tv", "vacuum"]
    one = fixture("toolschemaspace-group")
    assert [op.name for op in one.operations] == ["set_power"]
    with pytest.raises(ConfigError, match="no group 'fridge'"):
        load_catalog(FIXTURES / "toolschemaspace_like.json", group="fridge")


def test_load_catalog_refuses_unknown_shapes(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"hello": 1}')
    with pytest.raises(ConfigError):
        load_catalog(tmp_path / "x.json")
    (tmp_path / "y.json").write_text("not json\n")
    with pytest.raises(ConfigError, match="neither JSON nor JSON lines"):
        load_catalog(tmp_path / "y.json")
    with pytest.raises(ConfigError, match="cannot read"):
        load_catalog(tmp_path / "absent.json")


# --- synthesizer -----------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(GOOD))
def test_synthesized_calls_are_valid_and_deterministic(key: str) -> None:
    space = fixture(key)
    for op in space.operations:
        schema = op.tool().parameters
        for seed in range(5):
            value = synthesize_arguments(schema, random.Random(seed))
            jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator)
            assert value == synthesize_arguments(schema, random.Random(seed))


def test_synthesizer_shapes() -> None:
    rng = random.Random(0)
    for schema in [
        {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 3},
        {"type": "number", "minimum": 1, "maximum": 1},
        {"type": "string", "minLength": 4, "maxLength": 4},
        {"type": "array", "minItems": 2, "maxItems": 2, "uniqueItems": True, "items": {"enum": [1, 2]}},
        {"allOf": [{"type": "object", "properties": {"a": {"const": 1}}, "required": ["a"]}, {"required": []}]},
        {"oneOf": [{"type": "null"}, {"type": "boolean"}]},
        {"type": "string", "format": "date"},
    ]:
        jsonschema.validate(synthesize_arguments(schema, rng), schema, cls=jsonschema.Draft202012Validator)
    with pytest.raises(ValueError, match="cannot synthesize"):
        synthesize_arguments({"type": "string", "pattern": "^[0-9]{5}$"}, rng)


# --- operators on the fixtures -----------------------------------------------------------------


@pytest.mark.parametrize("label,spec", roundtrip_tool.specs())
@pytest.mark.parametrize("key", sorted(GOOD))
def test_every_variant_round_trips_or_refuses(key: str, label: str, spec: str) -> None:
    space = fixture(key)
    for seed in range(3):
        try:
            problems = roundtrip_tool.check(spec, space, seed)
        except ConfigError as e:
            assert e.problems and all(p.startswith(("tool", "tools")) for p in e.problems), e.problems
            return
        assert problems == []


@pytest.mark.parametrize("spec", ["split|merge", "merge|split", "split|transaction|rename(style=opaque)"])
@pytest.mark.parametrize("key", ["tau2", "mcp", "toolschemaspace"])
def test_compositions_round_trip(key: str, spec: str) -> None:
    assert roundtrip_tool.check(spec, fixture(key)) == []


def test_split_keeps_false_and_zero_apart() -> None:
    space = load_catalog(FIXTURES / "bfcl_mixed_enum.json")
    assert roundtrip_tool.check("native", space) == []
    assert roundtrip_tool.check("split(on=all)", space) == []
    assert roundtrip_tool.roundtrip(Variant.build("split", space), space.action("set_mode", {"level": False})) is None


# --- the real catalogs -------------------------------------------------------------------------


def test_every_external_catalog_loads(external: Path) -> None:
    loaded = dict(roundtrip_tool.catalogs(external))
    assert any(k.startswith("tau2/") for k in loaded) and any(k.startswith("mcp/") for k in loaded)
    assert any(k.startswith("bfcl/") for k in loaded)
    for label, spaces in loaded.items():
        assert spaces and all(space.operations for space in spaces), label
        for space in spaces:
            for tool in space.tools():
                jsonschema.Draft202012Validator.check_schema(tool.parameters)
                assert "$ref" not in json.dumps(tool.parameters), (label, tool.name)


def test_bfcl_multi_turn_entries_point_to_func_docs(external: Path) -> None:
    with pytest.raises(ConfigError, match="multi_turn_func_doc"):
        load_catalog(external / "bfcl" / "BFCL_v4_multi_turn_base.json")


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS.names())
def test_external_catalogs_round_trip(external: Path, name: str) -> None:
    """Every named variant on every real catalog: ConfigError naming a tool, or a clean round trip
    (BFCL entry files: the first 25 entries, to keep this quick; the benchmark runs them all)."""
    spec = VARIANTS.get(name)
    for label, spaces in roundtrip_tool.catalogs(external):
        for space in spaces[:25]:
            try:
                problems = roundtrip_tool.check(spec, space)
            except ConfigError as e:
                assert all(p.startswith(("tool", "tools")) for p in e.problems), (label, e.problems)
                continue
            assert problems == [], (label, space.name, problems[:5])
