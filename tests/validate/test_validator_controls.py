"""The validator under each adapter control: the oracle round trip passes under ``strict``,
``paper`` and ``loose`` (valid calls execute the same under all three), and the negative checks
follow what each control does with an invalid call (mutants defined here only)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.schema import ToolCall
from toolprism.shaping import CONTROLS, Forward, NativeLayer, Variant
from toolprism.shaping.operators import Rename
from toolprism.validate import Suite, validate, validate_variant

VARIANTS = [
    "native",
    "merge(by=full)",
    "merge(by=class)",
    "split",
    "split(interval=brightness:50)",
    "transaction",
    "reference",
    "discovery",
    "nest",
    "rename(style=opaque)",
    "merge(by=class)|transaction",
]
RETAIL_VARIANTS = ["merge(by=full)", "transaction", "reference", "discovery"]  # free-string ids, handles


@cache
def suite(domain: str) -> Suite:
    return Suite.from_domain(get_domain(domain), limit=3)


@pytest.mark.parametrize("control", CONTROLS)
def test_the_oracle_round_trip_and_the_negatives_pass_under_every_control(control: str) -> None:
    for domain, variants in (("smart_home", VARIANTS), ("retail", RETAIL_VARIANTS)):
        report = validate([domain], variants, limit=3, control=control)
        assert report.passed, report.failures[:1]
        assert report.control == control and {s.control for s in report.summaries} == {control}
        assert report.checks_by_kind["negative"] > 0 and report.checks_by_kind["state_hash"] == 3 * len(variants)


def test_an_unknown_control_is_a_config_error() -> None:
    from toolprism.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown control 'hard'"):
        validate(["smart_home"], ["native"], control="hard")  # type: ignore[arg-type]


@dataclass(frozen=True)
class GuessingRename(Rename):
    """Under the paper and loose controls, 'repairs' an invalid enumerated value into the first
    valid one: an invalid call then runs a valid action and changes the state."""

    def decode_unchecked(self, call: ToolCall, state: Any, control: Any) -> Forward:
        decoded = self.decode(call, state)
        tool = self.below.tool(decoded.call.name)
        args = dict(decoded.call.arguments)
        for name, schema in tool.parameters.get("properties", {}).items():
            if isinstance(schema.get("enum"), list) and name in args and args[name] not in schema["enum"]:
                args[name] = schema["enum"][0]
        return Forward(ToolCall(decoded.call.name, args))


def test_an_invalid_call_that_changes_the_state_is_caught_under_paper_and_loose() -> None:
    native = NativeLayer(get_domain("smart_home").action_space())
    top = GuessingRename(style="opaque").over(native)
    variant = Variant("rename-guessing", top.spec(), (native, top))
    strict = validate_variant(variant, suite("smart_home"), control="strict")
    assert strict.failures == []  # strict never calls decode_unchecked
    for control in ("paper", "loose"):
        report = validate_variant(variant, suite("smart_home"), control=control)
        assert report.failure_kinds == ["negative"], control
        assert {f.task_id.split(":")[0] for f in report.failures} == {"wrong_enum", "wrong_type"}
        assert all("changed the state" in f.message for f in report.failures)


def test_cli_validate_under_a_control() -> None:
    result = CliRunner().invoke(
        app, ["validate", "-d", "smart_home", "-v", "merge(by=full),transaction", "--limit", "1", "--control", "paper",
              "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["passed"] is True and document["control"] == "paper"
    table = CliRunner().invoke(
        app, ["validate", "-d", "smart_home", "-v", "native", "--limit", "1", "--control", "loose"]
    )
    assert table.exit_code == 0 and "control loose" in table.stdout
    bad = CliRunner().invoke(app, ["validate", "-d", "smart_home", "--control", "hard"])
    assert bad.exit_code == 2


@pytest.mark.parametrize("control", CONTROLS)
def test_the_paper_suite_validates_under_every_control(control: str) -> None:
    """Every paper variant: its per-domain variants on two device domains, its whole-catalog arms on
    whole_catalog (three tasks each; the slow suite validates every task)."""
    from toolprism.shaping import CATALOG_DOMAIN, PAPER_VARIANTS

    per_domain = [v.name for v in PAPER_VARIANTS if v.scope == "domain"]
    arms = [v.name for v in PAPER_VARIANTS if v.scope == "catalog"]
    for domains, variants in ((["tv", "calendar"], per_domain), ([CATALOG_DOMAIN], arms)):
        report = validate(domains, variants, limit=3, control=control)
        assert report.passed, report.failures[:1]
        assert {s.variant for s in report.summaries} == set(variants)


@pytest.mark.slow
@pytest.mark.parametrize("control", CONTROLS)
def test_the_paper_suite_validates_on_every_device_domain(control: str) -> None:
    from toolprism.evaluation import DEVICE_DOMAINS
    from toolprism.shaping import CATALOG_DOMAIN, PAPER_VARIANTS

    per_domain = [v.name for v in PAPER_VARIANTS if v.scope == "domain"]
    arms = [v.name for v in PAPER_VARIANTS if v.scope == "catalog"]
    assert validate(list(DEVICE_DOMAINS), per_domain, limit=10, control=control).passed
    assert validate([CATALOG_DOMAIN], arms, limit=10, control=control).passed
