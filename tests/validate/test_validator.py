"""The equivalence validator: a sampled validation of the whole suite passes, external catalogs
validate on a stub environment, and deliberately broken operator layers are caught by the check
one expects (the mutants are defined here only; nothing is registered globally)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.domains import domain_names, get_domain
from toolprism.errors import RejectionKind
from toolprism.schema import ToolCall
from toolprism.shaping import VARIANTS, Forward, NativeLayer, Variant
from toolprism.shaping.operators import Discovery, Merge, Reference, Reorder, Split, Transaction
from toolprism.validate import (
    CHECK_KINDS,
    Failure,
    Suite,
    ValidationReport,
    VariantReport,
    negatives,
    validate,
    validate_variant,
)

CATALOGS = Path(__file__).resolve().parents[1] / "fixtures" / "catalogs"


@cache
def suite(domain: str) -> Suite:
    return Suite.from_domain(get_domain(domain))


# -- mutants: each a subclass of a real operator with one deliberate bug -----------------------


@dataclass(frozen=True)
class OffByOneSplit(Split):
    """Decodes each split tool to its sibling's enum value (the next piece of the same tool)."""

    def decode(self, call: ToolCall, state: Any) -> Forward:
        piece = self._table[call.name]
        siblings = self._by_tool[piece.tool]
        wrong = siblings[(siblings.index(piece) + 1) % len(siblings)]
        return Forward(ToolCall(piece.tool, {**call.arguments, **dict(wrong.fixed)}))


@dataclass(frozen=True)
class SwappingReorder(Reorder):
    """Swaps the values of a tool's first two shown arguments when decoding."""

    def decode(self, call: ToolCall, state: Any) -> Forward:
        args = dict(call.arguments)
        shown = [p for p in self.tool_index[call.name].parameters.get("properties", {}) if p in args]
        if len(shown) >= 2:
            a, b = shown[:2]
            args[a], args[b] = args[b], args[a]
        return Forward(ToolCall(call.name, args))


@dataclass(frozen=True)
class DroppingTransaction(Transaction):
    """Forgets the last argument written to a transaction when it commits."""

    def decode(self, call: ToolCall, state: Any) -> Any:
        decoded = super().decode(call, state)
        if isinstance(decoded, Forward) and decoded.call.arguments:
            args = dict(decoded.call.arguments)
            args.pop(list(args)[-1])
            return Forward(ToolCall(decoded.call.name, args))
        return decoded


@dataclass(frozen=True)
class CollapsingMerge(Merge):
    """Routes the second operation of every dispatcher to the first one."""

    def decode(self, call: ToolCall, state: Any) -> Any:
        decoded = super().decode(call, state)
        dispatcher = self._dispatchers.get(call.name)
        if dispatcher is not None and len(dispatcher.members) >= 2:
            first, second = dispatcher.members[0].name, dispatcher.members[1].name
            if decoded.call.name == second:
                return Forward(ToolCall(first, decoded.call.arguments))
        return decoded


@dataclass(frozen=True)
class WrongHandleReference(Reference):
    """Resolves every handle after the first to the value behind the handle issued before it."""

    def decode(self, call: ToolCall, state: Any) -> Any:
        if call.name in self._resolvers:
            return super().decode(call, state)
        args = dict(call.arguments)
        for key, handle in call.arguments.items():
            if key.endswith("_handle") and isinstance(handle, str) and handle.startswith("h_"):
                previous = f"h_{int(handle[2:]) - 1}"
                if previous in state.handles and state.handles[previous][0] == state.handles.get(handle, ("",))[0]:
                    args[key] = previous
        return super().decode(ToolCall(call.name, args), state)


def mutant(domain: str, layer: Any, name: str) -> Variant:
    native = NativeLayer(get_domain(domain).action_space())
    top = layer.over(native)
    return Variant(name, top.spec(), (native, top))


def report_of(variant: Variant, domain: str) -> VariantReport:
    return validate_variant(variant, suite(domain))


# -- the real suite -----------------------------------------------------------------------------


def test_sampled_suite_is_equivalent() -> None:
    report = validate(limit=3, seeds=(0,))
    assert isinstance(report, ValidationReport)
    assert report.passed, [f.model_dump() for f in report.failures[:3]]
    assert sorted(report.suites) == domain_names()
    assert len(report.summaries) == len(domain_names()) * len(VARIANTS.names())
    assert all(s.traces == 3 and s.negatives > 0 and s.failures == 0 for s in report.summaries)
    assert set(report.checks_by_kind) == set(CHECK_KINDS)
    assert report.checks == sum(s.checks for s in report.summaries) == sum(report.checks_by_kind.values())


def test_report_models_forbid_extra_fields() -> None:
    with pytest.raises(ValueError):
        Failure(kind="plan", suite="s", variant="v", spec="v", task_id="t", message="m", bogus=1)


@pytest.mark.parametrize(
    ("variant", "protocol"),
    [
        ("transaction", {"unknown_transaction", "commit_without_writes"}),
        ("split+transaction", {"unknown_transaction", "commit_without_writes"}),
        ("reference", {"stale_handle"}),
        ("reference+merge-class", {"stale_handle"}),
        ("discovery(style=gated)", {"invoke_before_discovery"}),
        ("rename(style=opaque)|discovery(style=gated)", {"invoke_before_discovery"}),
    ],
)
def test_protocol_negatives_are_derived(variant: str, protocol: set[str]) -> None:
    s = suite("retail")
    kinds = {c.id.split(":")[0] for c in negatives(Variant.build(variant, s.space), s)}
    assert {"unknown_tool", "missing_required", "wrong_type"} | protocol <= kinds


def test_the_papers_discovery_has_no_invoke_before_listing_negative() -> None:
    s = suite("retail")
    kinds = {c.id.split(":")[0] for c in negatives(Variant.build("discovery(style=paper)", s.space), s)}
    assert "invoke_before_discovery" not in kinds and "unknown_tool" in kinds


def test_native_has_no_protocol_negatives() -> None:
    s = suite("smart_home")
    kinds = {c.id.split(":")[0] for c in negatives(Variant.build("native", s.space), s)}
    assert kinds == {"unknown_tool", "missing_required", "wrong_type", "wrong_enum"}


@pytest.mark.parametrize("catalog", ["mcp_like.tools_list.json", "tau2_like.openai.json", "toolschemaspace_like.json"])
def test_external_catalog_validates_on_a_stub_environment(catalog: str) -> None:
    report = validate(variants=["native", "merge", "split-all", "transaction", "reference", "discovery"],
                      catalog=CATALOGS / catalog)  # fmt: skip
    assert report.passed, [f.model_dump() for f in report.failures[:3]]
    assert len(report.suites) == 1
    assert all(s.traces > 0 for s in report.summaries)


# -- mutation tests: each broken layer is caught, by the check one expects -------------------------


TRACE = ["action_sequence", "action_multiset", "reply", "step_state", "state_hash"]
"""A wrong action that runs: every trace check but rejection_free fails (CHECK_KINDS order below)."""


def kinds(*names: str) -> list[str]:
    return [k for k in CHECK_KINDS if k in names]


def test_off_by_one_split_is_caught_by_the_decoded_actions() -> None:
    report = report_of(mutant("smart_home", OffByOneSplit(), "split-off-by-one"), "smart_home")
    assert report.failure_kinds == kinds(*TRACE)
    failure = next(f for f in report.failures if f.kind == "action_sequence")
    assert failure.spec == "split" and failure.calls and failure.expected_actions != failure.decoded_actions
    state = next(f for f in report.failures if f.kind == "state_hash")
    assert state.state_path and state.state_path.startswith("$.")
    assert state.expected_at_path != state.actual_at_path


def test_swapped_reorder_argument_is_caught_as_rejected_native_calls() -> None:
    report = report_of(mutant("smart_home", SwappingReorder(seed=0), "reorder-swapped"), "smart_home")
    assert report.failure_kinds == kinds(*TRACE, "rejection_free")
    rejected = next(f for f in report.failures if f.kind == "rejection_free")
    assert any(c.rejection == RejectionKind.INVALID_ARGUMENTS for c in rejected.calls)


def test_transaction_dropping_the_last_write_is_caught() -> None:
    report = report_of(mutant("retail", DroppingTransaction(), "transaction-drops-write"), "retail")
    assert report.failure_kinds == kinds(*TRACE, "rejection_free")
    assert report.summary.failures and all(f.task_id.startswith("retail/") for f in report.failures)


def test_merge_routing_two_operations_to_one_is_caught() -> None:
    # the collapsed operation's arguments do not fit the operation it is routed to: rejected, so the
    # state is untouched, but the action is missing and the reply is an error
    report = report_of(mutant("smart_home", CollapsingMerge(), "merge-collapsed"), "smart_home")
    assert report.failure_kinds == kinds("action_sequence", "action_multiset", "rejection_free", "reply")


def test_reference_resolving_to_the_wrong_value_is_caught() -> None:
    report = report_of(mutant("retail", WrongHandleReference(), "reference-wrong-value"), "retail")
    # retail's policy reads an order before changing it, so the wrong value lands on a read: the
    # decoded actions and their replies differ, the state does not
    assert report.failure_kinds == kinds("action_sequence", "action_multiset", "reply")
    failure = next(f for f in report.failures if f.kind == "action_sequence")
    assert [c.name for c in failure.calls].count("resolve_order_id") >= 2


@dataclass(frozen=True)
class LenientDiscovery(Discovery):
    """Lets a model invoke a class it never listed under gated discovery: traces still pass, only
    negatives catch it."""

    style: str = "gated"

    def decode(self, call: ToolCall, state: Any) -> Any:
        state.listed.add(call.arguments["class"])
        return super().decode(call, state)


def test_lenient_discovery_is_caught_only_by_the_negative_checks() -> None:
    report = report_of(mutant("smart_home", LenientDiscovery(), "discovery-lenient"), "smart_home")
    assert report.failure_kinds == ["negative"]
    assert {f.task_id.split(":")[0] for f in report.failures} == {"invoke_before_discovery"}
    assert all("executed" in f.message or "answered" in f.message for f in report.failures)


def test_unbroken_operators_built_by_hand_pass() -> None:
    for layer, domain in [(Split(), "smart_home"), (Transaction(), "retail"), (Reference(), "retail")]:
        report = report_of(mutant(domain, layer, layer.name), domain)
        assert report.failures == [], report.failures[:1]


# -- the command ------------------------------------------------------------------------------------


def test_cli_validate_json() -> None:
    result = CliRunner().invoke(
        app, ["validate", "--domains", "smart_home", "--variants", "native,merge(by=class,args=flat)", "--limit",
              "2", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["passed"] is True and document["checks"] > 0
    assert [s["variant"] for s in document["summaries"]] == ["native", "merge(by=class,args=flat)"]


def test_cli_validate_table() -> None:
    result = CliRunner().invoke(app, ["validate", "-d", "retail", "-v", "transaction", "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert "PASSED" in result.stdout and "transaction" in result.stdout


@pytest.mark.slow
def test_full_suite_is_equivalent() -> None:
    report = validate(seeds=(0, 1), jobs=2)
    assert report.passed, [f.model_dump() for f in report.failures[:3]]
    assert report.checks > 1_000_000


@pytest.mark.parametrize(
    ("expected", "actual", "found"),
    [
        ({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]}, None),
        ({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]}, ("$.a[1].b", "x", "y")),
        ({"on": True}, {"on": 1}, ("$.on", True, 1)),  # equal in Python, not in JSON
        ({"t": 1}, {"t": 1.0}, ("$.t", 1, 1.0)),
        ({"t": 0.0}, {"t": -0.0}, ("$.t", 0.0, -0.0)),
        ({"t": float("nan")}, {"t": float("nan")}, None),  # written alike
    ],
)
def test_first_difference_compares_as_json(expected: Any, actual: Any, found: Any) -> None:
    from toolprism.validate._core import _first_difference

    assert _first_difference(expected, actual) == found
