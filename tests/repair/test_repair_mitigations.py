"""A repaired episode re-runs under the mitigations its trace records (the instruction stays in
its system prompt)."""

from __future__ import annotations

import asyncio

from toolprism.backends import OracleBackend
from toolprism.domains import get_domain
from toolprism.repair._repair import spec_of
from toolprism.run import EpisodeSpec, initial_messages, run_episode
from toolprism.shaping import Variant


def test_spec_of_keeps_the_mitigations() -> None:
    domain = get_domain("garden")
    task = domain.tasks(0)[0]
    variant = Variant.build("merge", domain.action_space())
    for mitigations in ((), ("instruction",)):
        spec = EpisodeSpec(domain, task, variant, 0, mitigations=mitigations)
        trace = asyncio.run(run_episode(spec, OracleBackend()))
        rebuilt = spec_of(trace, domain)
        assert rebuilt.mitigations == mitigations
        assert initial_messages(rebuilt) == initial_messages(spec) == trace.messages[:2]
