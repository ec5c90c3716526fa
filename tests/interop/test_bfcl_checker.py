"""BFCL's checker semantics on hand-made entries (no data needed): type coercions, optional
parameters, string standardisation, order-free parallel calls, irrelevance, names mapped back."""

from __future__ import annotations

import pytest

from toolprism.errors import ConfigError
from toolprism.interop import BfclTask, bfcl_check
from toolprism.schema import ActionSpace, ToolCall

DOC = {
    "name": "geo.area",
    "description": "Area of a shape.",
    "parameters": {
        "type": "dict",
        "properties": {
            "shape": {"type": "string", "description": "Shape name."},
            "size": {"type": "float", "description": "Size."},
            "count": {"type": "integer", "description": "How many."},
            "sides": {"type": "array", "items": {"type": "float"}, "description": "Side lengths."},
            "unit": {"type": "string", "description": "Unit.", "default": "m"},
        },
        "required": ["shape", "size"],
    },
}
ANSWER = {"geo.area": {"shape": ["Square"], "size": [2.0], "count": [3, ""], "sides": [[1.5, 2.0], ""], "unit": [""]}}
OTHER = {
    "name": "geo.perimeter",
    "description": "Perimeter.",
    "parameters": {"type": "dict", "properties": {"n": {"type": "integer", "description": "n"}}, "required": ["n"]},
}


def task(category: str = "simple_python", functions=(DOC,), answers=(ANSWER,)) -> BfclTask:
    return BfclTask("x_0", category, "q", tuple(functions), tuple(answers), ActionSpace.from_bfcl(functions, name="x"))


def check(arguments: dict, name: str = "geo_area", t: BfclTask | None = None):
    return bfcl_check(t or task(), [ToolCall(name, arguments)])


def test_a_right_call_passes_under_the_tool_safe_name_and_the_bfcl_name() -> None:
    assert check({"shape": "square", "size": 2.0}).valid
    assert check({"shape": "square", "size": 2.0}, name="geo.area").valid


@pytest.mark.parametrize(
    ("arguments", "valid", "error_type"),
    [
        ({"shape": "square", "size": 2}, True, ""),  # an int is accepted for a float
        ({"shape": "square", "size": 2.0, "count": 3.0}, False, "type_error:simple"),  # never a float for an int
        ({"shape": "square", "size": 2.0, "count": True}, False, "type_error:simple"),  # a bool is no int
        ({"shape": "  S-Q_U.A,R/E*^ ", "size": 2.0}, True, ""),  # strings standardised
        ({"shape": "circle", "size": 2.0}, False, "value_error:string"),
        ({"shape": "square"}, False, "simple_function_checker:missing_required"),
        ({"shape": "square", "size": 2.0, "colour": "red"}, False, "simple_function_checker:unexpected_param"),
        ({"shape": "square", "size": 2.0, "unit": "m"}, False, "value_error:string"),  # only leaving it out passes
        ({"shape": "square", "size": 2.0, "sides": [1.5, 2.0]}, True, ""),
        ({"shape": "square", "size": 2.0, "sides": [1.5, 2]}, True, ""),  # "" acceptable: BFCL skips the nested check
        ({"shape": "square", "size": 2.0, "sides": [2.0, 1.5]}, False, "value_error:list/tuple"),  # order kept
        ({"shape": "square", "size": 3.0}, False, "value_error:others"),
    ],
)
def test_bfcl_semantics_of_one_call(arguments: dict, valid: bool, error_type: str) -> None:
    verdict = check(arguments)
    assert (verdict.valid, verdict.error_type) == (valid, error_type), verdict.message


def test_an_answer_parameter_without_empty_string_must_be_given() -> None:
    answer = {"geo.area": {"shape": ["square"], "size": [2.0], "count": [3]}}
    verdict = check({"shape": "square", "size": 2.0}, t=task(answers=(answer,)))
    assert verdict.error_type == "simple_function_checker:missing_optional"


def test_wrong_name_and_wrong_count() -> None:
    assert check({"n": 1}, name="geo_perimeter", t=task(functions=(DOC, OTHER))).error_type == (
        "simple_function_checker:wrong_func_name"
    )
    assert bfcl_check(task(), []).error_type == "simple_function_checker:wrong_count"


def test_parallel_calls_match_in_any_order_and_count() -> None:
    answers = ({"geo.perimeter": {"n": [1]}}, {"geo.perimeter": {"n": [2]}})
    t = task("parallel", functions=(OTHER,), answers=answers)
    one, two = ToolCall("geo_perimeter", {"n": 1}), ToolCall("geo_perimeter", {"n": 2})
    assert bfcl_check(t, [two, one]).valid
    assert bfcl_check(t, [one, one]).error_type == "parallel_function_checker_no_order:cannot_find_match"
    assert bfcl_check(t, [one, two, two]).error_type == "parallel_function_checker_no_order:wrong_count"


def test_irrelevance_is_no_call() -> None:
    t = task("irrelevance", answers=())
    assert bfcl_check(t, []).valid
    assert bfcl_check(t, [ToolCall("geo_area", {})]).error_type == "irrelevance_error:decoder_success"


def test_no_coercion_inside_arrays_unless_json_numbers_are_asked_for() -> None:
    answer = {"geo.area": {"shape": ["square"], "size": [2.0], "sides": [[1.5, 2.0]]}}
    calls = [ToolCall("geo_area", {"shape": "square", "size": 2, "sides": [1.5, 2]})]
    assert bfcl_check(task(answers=(answer,)), calls).error_type == "type_error:nested"
    assert bfcl_check(task(answers=(answer,)), calls, numbers="json").valid


def test_an_answer_naming_a_missing_function_is_a_config_error() -> None:
    t = task("multiple", answers=({"geo.volume": {}},))
    with pytest.raises(ConfigError, match="geo.volume"):
        bfcl_check(t, [ToolCall("geo_area", {})])


def test_score_refuses_an_unknown_way_of_reading_numbers(tmp_path) -> None:
    from typer.testing import CliRunner

    from toolprism.cli import app

    result = CliRunner().invoke(app, ["score", str(tmp_path), "--bfcl", str(tmp_path), "--bfcl-numbers", "perl"])
    assert result.exit_code != 0 and "--bfcl-numbers must be python or json" in result.output
    assert "Traceback" not in result.output


def test_a_doc_type_bfcl_does_not_know_is_a_config_error() -> None:
    doc = {"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "array"}}, "required": []}}
    t = task(functions=(doc,), answers=({"f": {"x": [[1]]}},))
    with pytest.raises(ConfigError, match="not a BFCL Python type"):
        bfcl_check(t, [ToolCall("f", {"x": [1]})])
