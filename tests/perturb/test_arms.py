"""Xu et al.'s fault arms: the site, the shared replayed prefix, and what each arm changes."""

from __future__ import annotations

import functools
import json
import re

import pytest
from typer.testing import CliRunner

from toolprism.cli import app
from toolprism.domains import get_domain
from toolprism.errors import ConfigError
from toolprism.perturb import ARMS, fault_arms, site_position
from toolprism.schema import canonical_json

TOOL = "get_order_details"


@functools.cache
def sites() -> list:
    domain = get_domain("retail")
    tasks = [t for t in domain.tasks(0) if t.form == "easy"]
    return [(t, fault_arms(domain, t, TOOL)) for t in tasks]


def test_the_site_is_the_first_call_of_the_tool_at_position_two_or_later() -> None:
    eligible = [(t, s) for t, s in sites() if s is not None]
    assert len(eligible) >= 0.6 * len(sites())
    for task, site in eligible:
        ops = [step.action.op for step in task.reference]
        assert site.position >= 1 and ops[site.position] == TOOL
        assert TOOL not in ops[1 : site.position]
    for task, site in sites():
        if site is None:
            assert site_position(task, TOOL) is None


def test_prefix_is_the_replayed_reference_and_the_clean_arm_is_the_true_return() -> None:
    for task, site in sites():
        if site is None:
            continue
        replayed = [(s["action"], canonical_json(s["reply"])) for s in site.prefix]
        reference = [(s.action.to_json(), canonical_json(s.reply)) for s in task.reference[: site.position]]
        assert replayed == reference
        assert canonical_json(site.arms["C"].payload) == canonical_json(task.reference[site.position].reply)


def test_the_database_is_untouched_by_the_substitutions() -> None:
    domain = get_domain("retail")
    for task, site in sites()[:20]:
        if site is None:
            continue
        env = domain.environment(task.world_seed)
        for step in task.reference[: site.position + 1]:
            env.execute(step.action)
        assert env.state_hash() == site.state_hash


def test_each_inconsistent_arm_changes_exactly_one_field_to_a_well_formed_value() -> None:
    statuses = {"pending", "processed", "delivered", "cancelled", "return requested", "exchange requested"}
    seen = {arm: 0 for arm in ARMS}
    for task, site in sites():
        if site is None:
            continue
        for name, arm in site.arms.items():
            seen[name] += 1
            if name in ("Ns", "Nm"):
                clean, changed = site.arms["C"].payload, arm.payload
                assert arm.true != arm.false
                diff = [k for k in clean if clean[k] != changed[k]]
                assert diff == [arm.field.split(".")[0].split("[")[0]]
            if name == "Ns":
                assert {arm.true, arm.false} <= statuses
                prefix = task.query + " " + " ".join(canonical_json(s["reply"]) for s in site.prefix)
                assert arm.policy_only == (arm.true not in prefix)
            if name == "Nm":
                assert re.sub(r"\d", "0", arm.true) == re.sub(r"\d", "0", arm.false)  # same shape
            if name == "F":
                assert set(arm.payload) == {"error"} and arm.payload["error"]
    assert all(seen[a] >= 30 for a in ARMS), seen


def test_arms_are_deterministic() -> None:
    domain = get_domain("retail")
    task, site = next((t, s) for t, s in sites() if s is not None)
    again = fault_arms(domain, task, TOOL)
    assert json.dumps(site.model_dump(mode="json"), sort_keys=True) == json.dumps(
        again.model_dump(mode="json"), sort_keys=True
    )


def test_fault_arms_command() -> None:
    result = CliRunner().invoke(app, ["fault-arms", "-d", "retail", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert len(document) == sum(s is not None for _, s in sites())
    bad = CliRunner().invoke(app, ["fault-arms", "-d", "smart_home"])
    assert bad.exit_code == 2 and "'get_order_details' is not a read operation of smart_home" in bad.output


def test_a_site_tool_that_is_not_a_read_is_refused() -> None:
    retail = get_domain("retail")
    task = retail.tasks(0)[0]
    for tool in ("cancel_order", "no_such_tool"):
        with pytest.raises(ConfigError, match="is not a read operation of retail"):
            fault_arms(retail, task, tool)
