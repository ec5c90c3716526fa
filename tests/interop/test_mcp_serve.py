"""serve-mcp against a real MCP server (mcp-server-git on repositories the test creates): a client on
the SDK's ClientSession over stdio, driving the encoder's plans under discovery, reference and
transaction, leaves each repository exactly as the same native calls do (issue #18, "The MCP test")."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from _git_repo import git, make_repository  # tests/_git_repo.py

pytest.importorskip("mcp")
pytest.importorskip("mcp_server_git")

import anyio  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from toolprism.interop import list_server_tools, result_reply, server_space  # noqa: E402
from toolprism.schema import Action  # noqa: E402
from toolprism.shaping import Batch, Variant  # noqa: E402

pytestmark = pytest.mark.mcp
SRC = Path(__file__).resolve().parents[2] / "src"


def _repository(path: Path) -> Path:
    return make_repository(path, {"a.txt": "first file\n", "b.txt": "second file\n"})


def _upstream(repo: Path) -> list[str]:
    return [sys.executable, "-m", "mcp_server_git", "--repository", str(repo)]


def _native_actions(repo: Path) -> list[Action]:
    r = str(repo)
    calls = [
        ("git_add", {"repo_path": r, "files": ["a.txt"]}),
        ("git_commit", {"repo_path": r, "message": "add a"}),
        ("git_create_branch", {"repo_path": r, "branch_name": "feature"}),
        ("git_checkout", {"repo_path": r, "branch_name": "feature"}),
        ("git_add", {"repo_path": r, "files": ["b.txt"]}),
        ("git_commit", {"repo_path": r, "message": "add b"}),
    ]
    return [Action.of(op, args) for op, args in calls]


def _effects(repo: Path) -> dict[str, object]:
    """What the calls did to the repository, independent of its path and of commit times."""
    return {
        "tree": git(repo, "rev-parse", "HEAD^{tree}"),
        "branch": git(repo, "branch", "--show-current"),
        "branches": git(repo, "for-each-ref", "--format=%(refname:short) %(tree)", "refs/heads"),
        "messages": git(repo, "log", "--format=%s"),
        "status": git(repo, "status", "--porcelain"),
    }


def _serve(repo: Path, spec: str, control: str = "strict") -> StdioServerParameters:
    args = ["-m", "toolprism", "serve-mcp", "--upstream", shlex.join(_upstream(repo)), "--variant", spec]
    return StdioServerParameters(
        command=sys.executable, args=[*args, "--control", control], env={"PYTHONPATH": str(SRC)}
    )


async def _drive(params: StdioServerParameters, variant: Variant, actions: list[Action]) -> dict[str, object]:
    """Run each action's encoded plan through the server; return the tools shown and what came back."""
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        shown = sorted(t.name for t in (await session.list_tools()).tools)
        errors: list[str] = []

        async def call(tool_call) -> object:
            result = await session.call_tool(tool_call.name, dict(tool_call.arguments))
            raw = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            if result.is_error:
                errors.append(json.dumps(raw["content"]))
            return result_reply(raw)

        calls = 0
        for action in actions:
            plan = variant.plan(action)
            reply = None
            try:
                item = next(plan)
                while True:
                    if isinstance(item, Batch):
                        reply = [await call(c) for c in item.calls]
                        calls += len(item.calls)
                    else:
                        reply = await call(item)
                        calls += 1
                    item = plan.send(reply)
            except StopIteration:
                pass
        bad = await session.call_tool("no_such_tool", {})
        bad_text = bad.content[0].text if bad.content else ""
        return {"shown": shown, "errors": errors, "calls": calls, "bad": (bad.is_error, bad_text)}


@pytest.fixture(scope="module")
def native_tools(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict]]:
    repo = _repository(tmp_path_factory.mktemp("probe") / "repo")
    return list_server_tools(_upstream(repo))


@pytest.mark.parametrize("spec", ["native", "discovery", "reference", "transaction"])
def test_serve_mcp_variant_has_the_native_effects(spec: str, tmp_path: Path, native_tools) -> None:
    name, tools = native_tools
    space = server_space(name, tools)
    variant = Variant.build(spec, space)
    by_hand = _repository(tmp_path / "by_hand")  # the reference: the same changes made with git itself
    git(by_hand, "add", "a.txt")
    git(by_hand, "commit", "-q", "-m", "add a")
    git(by_hand, "branch", "feature")
    git(by_hand, "checkout", "-q", "feature")
    git(by_hand, "add", "b.txt")
    git(by_hand, "commit", "-q", "-m", "add b")

    repo = _repository(tmp_path / "served")
    seen = anyio.run(_drive, _serve(repo, spec), variant, _native_actions(repo))

    assert seen["shown"] == sorted(t["function"]["name"] for t in variant.openai_tools)
    assert seen["errors"] == []
    assert _effects(repo) == _effects(by_hand)
    assert seen["bad"][0] is True and "no_such_tool" in seen["bad"][1]  # rejected as an isError result
    if spec != "native":  # protocol calls were made, and answered by serve-mcp (the upstream knows none of them)
        assert seen["calls"] > len(_native_actions(repo))
