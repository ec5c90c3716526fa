"""Episodes whose native calls a live MCP server executes (mcp-server-git on a repository the test
creates, reset for each episode by the server command): the oracle succeeds under native and
discovery; a tool's isError result is a reply the model sees; a broken server is a backend error."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys

import pytest
from _git_repo import git, make_repository  # tests/_git_repo.py

pytest.importorskip("mcp")
pytest.importorskip("mcp_server_git")

from toolprism.backends import OracleBackend  # noqa: E402
from toolprism.domains import PackServer  # noqa: E402
from toolprism.evaluation import score_episode  # noqa: E402
from toolprism.interop import mcp_pack  # noqa: E402
from toolprism.run import EpisodeSpec, run_episode  # noqa: E402
from toolprism.shaping import Variant  # noqa: E402

pytestmark = pytest.mark.mcp


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("mcp_env")
    seed = make_repository(root / "seed", {"a.txt": "a\n"})
    work = root / "work"
    server = shlex.join([sys.executable, "-m", "mcp_server_git", "--repository", str(work)])
    command = (
        f"rm -rf {shlex.quote(str(work))} && cp -r {shlex.quote(str(seed))} {shlex.quote(str(work))} && exec {server}"
    )
    r = str(work)
    lines = [
        {
            "query": f"Stage a.txt in {r}.",
            "gold": [{"name": "git_add", "arguments": {"repo_path": r, "files": ["a.txt"]}}],
        },
        {
            "query": f"Stage a.txt in {r}, then commit it with the message 'add a'.",
            "gold": [
                {"name": "git_add", "arguments": {"repo_path": r, "files": ["a.txt"]}},
                {"name": "git_commit", "arguments": {"repo_path": r, "message": "add a"}},
            ],
        },
        {
            "query": f"Switch {r} to the branch nope.",
            "gold": [{"name": "git_checkout", "arguments": {"repo_path": r, "branch_name": "nope"}}],
        },
    ]
    tasks = root / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    pack = mcp_pack(["sh", "-c", command], tasks, root / "packs")
    return {"pack": pack, "work": work}


def _episode(domain, task, spec: str):
    episode = EpisodeSpec(domain, task, Variant.build(spec, domain.action_space()), seed=0)
    return episode, asyncio.run(run_episode(episode, OracleBackend()))


@pytest.mark.parametrize("spec", ["native", "discovery"])
def test_live_server_executes_the_oracle_episodes(world: dict, spec: str) -> None:
    domain = world["pack"].domain()
    assert world["pack"].server is not None and world["pack"].server.kind == "mcp"
    for task in domain.tasks()[:2]:
        episode, trace = _episode(domain, task, spec)
        assert trace.end == "answered", trace.error
        assert [a.to_action() for a in trace.actions] == list(task.gold)
        result = score_episode(episode, trace)
        assert result.success and result.final_state_match
        replies = [c.reply for t in trace.turns for c in t.calls if c.outcome == "executed"]
        assert {"text": "Files staged successfully"} in replies  # the live server's words, not an acknowledgement
    assert git(world["work"], "log", "-1", "--format=%s") == "add a"  # the last episode's commit is real


def test_an_iserror_result_is_a_reply_not_a_backend_error(world: dict) -> None:
    domain = world["pack"].domain()
    task = domain.tasks()[2]
    episode, trace = _episode(domain, task, "native")
    assert trace.end == "answered" and trace.error is None
    calls = [c for t in trace.turns for c in t.calls]
    assert calls and all(c.outcome == "executed" for c in calls)
    assert "error" in calls[0].reply and "nope" in calls[0].reply["error"]
    assert trace.final_state_hash == domain.offline_environment().state_hash()  # the failed write changed nothing
    assert score_episode(episode, trace).final_state_match is False  # gold expects the write to have happened


def test_a_broken_server_ends_the_episode_as_a_backend_error(world: dict) -> None:
    pack = world["pack"].model_copy(
        update={"server": PackServer(command=[sys.executable, "-c", "import sys; sys.exit('gone')"])}
    )
    domain = pack.domain()
    task = domain.tasks()[0]
    _, trace = _episode(domain, task, "native")
    assert trace.end == "backend_error"
    assert not trace.scored
    assert "MCP server" in trace.error and "gone" in trace.error
