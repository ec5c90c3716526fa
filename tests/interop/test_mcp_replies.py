"""Without the mcp SDK: how a tools/call result becomes a reply, and the install hint when the SDK is absent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolprism.errors import ConfigError
from toolprism.interop import McpConnection, result_reply, split_command

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize(
    ("raw", "reply"),
    [
        ({"content": [{"type": "text", "text": "Files staged"}]}, {"text": "Files staged"}),
        ({"content": [{"type": "text", "text": '{"a": 1}'}]}, {"a": 1}),
        ({"content": [{"type": "text", "text": "[1, 2]"}]}, {"text": "[1, 2]"}),  # JSON, but not an object
        ({"content": [{"type": "text", "text": "x"}], "structuredContent": {"b": 2}}, {"b": 2}),
        ({"content": [], "structuredContent": [1, 2]}, {"result": [1, 2]}),
        ({"content": [{"type": "text", "text": "no such branch"}], "isError": True}, {"error": "no such branch"}),
        (
            {"content": [{"type": "text", "text": "bad"}], "structuredContent": {"b": 2}, "isError": True},
            {"error": "bad"},  # an error result is an error whatever else it carries
        ),
        (
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        ),
    ],
)
def test_result_reply_is_always_an_object(raw: dict, reply: dict) -> None:
    assert result_reply(raw) == reply


def test_split_command_refuses_empty_and_unbalanced() -> None:
    assert split_command("mcp-server-git --repository '/a b'") == ["mcp-server-git", "--repository", "/a b"]
    for bad in ("", "  ", "sh -c 'unclosed"):
        with pytest.raises(ConfigError):
            split_command(bad)


def test_missing_sdk_is_an_install_hint() -> None:
    probe = (
        "import sys; sys.modules['mcp'] = None\n"
        "from toolprism.interop import McpConnection\n"
        "from toolprism.errors import ConfigError\n"
        "try:\n    McpConnection(['mcp-server-time'])\nexcept ConfigError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)})
    assert "pip install 'toolprism[mcp]'" in out.stdout, out.stderr
    assert McpConnection  # the class imports without the SDK
