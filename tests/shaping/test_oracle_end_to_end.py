"""The end-to-end proof: the oracle scores 100% on every task under every operator, through the
real episode loop, adapter and environments (DESIGN.md principle 5)."""

from __future__ import annotations

import asyncio

import pytest
from _sampling import sample_tasks  # tests/_sampling.py

from toolprism.backends import OracleBackend
from toolprism.domains import domain_names, get_domain
from toolprism.run import MAX_TURNS, EpisodeSpec, run_episode
from toolprism.shaping import CATALOG_DOMAIN, SUITES, VARIANTS, Variant, variant_scope

COMPOSITIONS = [
    "merge(by=full,args=flat)|rename(style=opaque)",
    "split|transaction",
    "transaction|split",
    "rename(style=namespaced)|merge(by=class)",
    "split|merge|transaction|rename(style=opaque)",
    "merge|merge",
    "transaction|transaction",
    "split|split",
]
"""Stacked protocols need more turns than one operator: these run with a larger turn limit."""
SAMPLE = 8
"""Tasks per domain checked under each variant in the default suite, one of each of 8 templates
chosen by the variant (about a third of a device domain's; across the variants every template is
met, ``test_the_variants_samples_meet_every_template``); the ``slow`` suite checks every task."""


def _pairs() -> list[tuple[str, str]]:
    """(domain, variant): the paper's whole-catalog arms on the whole catalog; every other named
    variant and composition on every other domain; on the whole catalog, the paper's per-domain
    variants too (the extended suite is not run there)."""
    pairs = []
    for domain in domain_names():
        for name in VARIANTS.names() + COMPOSITIONS:
            if variant_scope(name) == "catalog":
                keep = domain == CATALOG_DOMAIN
            else:
                keep = domain != CATALOG_DOMAIN or name in SUITES["paper"]
            if keep:
                pairs.append((domain, name))
    return pairs


@pytest.mark.parametrize("domain_name", domain_names())
def test_oracle_scores_every_task_natively(domain_name: str, oracle_scores_every_task) -> None:  # noqa: ANN001
    oracle_scores_every_task(domain_name, "native")


@pytest.mark.parametrize(("domain_name", "variant_name"), _pairs())
def test_oracle_scores_sampled_tasks_under_every_variant(
    domain_name: str, variant_name: str, oracle_scores_every_task
) -> None:  # noqa: ANN001, E501
    oracle_scores_every_task(domain_name, variant_name, MAX_TURNS if variant_name in VARIANTS else 64, sample=SAMPLE)


@pytest.mark.slow
@pytest.mark.parametrize(("domain_name", "variant_name"), _pairs())
def test_oracle_scores_every_task_under_every_variant(
    domain_name: str, variant_name: str, oracle_scores_every_task
) -> None:  # noqa: ANN001, E501
    oracle_scores_every_task(domain_name, variant_name, MAX_TURNS if variant_name in VARIANTS else 64)


def test_every_registered_domain_is_covered() -> None:
    assert {"smart_home", "retail"} <= set(domain_names())


@pytest.mark.parametrize("domain_name", domain_names())
def test_the_variants_samples_meet_every_template(domain_name: str) -> None:
    # what makes the default suite's SAMPLE per variant enough: over the variants run on a domain,
    # the samples reach every template of its tasks
    tasks = [t for t in get_domain(domain_name).tasks(0) if t.form == "easy"]
    met = {t.id.rsplit("/", 1)[0] for d, v in _pairs() if d == domain_name for t in sample_tasks(tasks, SAMPLE, v)}
    assert met == {t.id.rsplit("/", 1)[0] for t in tasks}


def test_transaction_oracle_uses_the_id_it_was_given() -> None:
    domain = get_domain("smart_home")
    variant = Variant.build("transaction-shared", domain.action_space())
    task = domain.tasks(0)[0]
    trace = asyncio.run(run_episode(EpisodeSpec(domain, task, variant, 0), OracleBackend()))
    calls = [c for t in trace.turns for c in t.calls]
    begins = [c.reply["txn_id"] for c in calls if c.name.startswith("begin_")]
    used = [c.arguments["txn_id"] for c in calls if c.name.startswith(("set_", "commit_"))]
    assert begins == [f"txn_{i}" for i in range(1, len(task.gold) + 1)]
    assert set(used) == set(begins)
    # each transaction is begun and committed under its own operation's name
    assert [c.name for c in calls if c.name.startswith("begin_")] == [f"begin_{a.op}" for a in task.gold]
    assert [c.name for c in calls if c.name.startswith("commit_")] == [f"commit_{a.op}" for a in task.gold]
