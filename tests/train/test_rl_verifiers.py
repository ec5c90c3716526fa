"""The verifiers adapter of the RL environment: real ``vf.MultiTurnEnv`` rollouts (verifiers'
own loop, stop conditions and rubric) with a scripted model in place of the client: the oracle
earns 1.0, the reward the gymnasium environment gives the same draw; native-name calls under a
merged variant are rejected and earn 0.0; calls written as text get their replies as text."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("gymnasium")
vf = pytest.importorskip("verifiers")
if not hasattr(vf, "MultiTurnEnv"):
    pytest.skip("the adapter needs verifiers 0.2.x (vf.MultiTurnEnv)", allow_module_level=True)
pytestmark = pytest.mark.vf

from toolprism.backends import EpisodeContext, OracleBackend  # noqa: E402
from toolprism.train import EnvConfig, ToolEnv  # noqa: E402
from toolprism.train._verifiers import ToolprismVerifiersEnv  # noqa: E402

CONFIG = EnvConfig(
    domains={"smart_home": 1, "retail": 1},
    variants={"native": 1, "transaction": 1, "merge(by=full,args=flat)": 1},
    conditions={"clean": 2, "C2:medium": 1},
    tasks=30,
)


class Scripted(ToolprismVerifiersEnv):
    """The model is a policy of the test: ``oracle`` (native tool calls), ``oracle-text`` (the
    same calls as JSON text), or ``native-names`` (each gold action as a native call, then an answer)."""

    policy = "oracle"

    async def get_model_response(self, state, prompt, **kwargs):
        episode = self._episodes[state["trajectory_id"]].state
        if self.policy == "native-names":
            done = len(episode.turns)
            gold = episode.spec.task.gold
            calls = [(f"n{done}", gold[done].op, json.dumps(gold[done].arguments))] if done < len(gold) else []
            content = None if calls else "Done."
        else:
            if "_agent" not in state:
                context = EpisodeContext(
                    episode.spec.task, episode.variant, episode.spec.seed, episode.spec.perturbations
                )
                state["_agent"] = OracleBackend().agent(context)
            turn = await state["_agent"].respond(list(episode.messages), episode.tools)
            calls = [(c.id, c.name, c.arguments) for c in turn.calls]
            content = turn.content
            if self.policy == "oracle-text" and calls:
                content = json.dumps([{"name": n, "arguments": json.loads(a)} for _, n, a in calls])
                calls = []
        tool_calls = [vf.ToolCall(id=i, name=n, arguments=a) for i, n, a in calls] or None
        finish = "tool_calls" if tool_calls else "stop"
        message = vf.ResponseMessage(content=content, tool_calls=tool_calls, finish_reason=finish, is_truncated=False)
        return vf.Response(id="scripted", created=0, model="scripted", message=message)


def rollouts(env: ToolprismVerifiersEnv, n: int) -> list:
    client = vf.ClientConfig(api_base_url="http://127.0.0.1:9/v1")  # never called: the model is scripted

    async def run():
        states = []
        for index in range(n):
            row = env.dataset[index]
            state = await env.rollout({**row, "example_id": index}, client, "scripted")
            await env.rubric.score_rollout(state)
            states.append(state)
        return states

    return asyncio.run(run())


@pytest.fixture(scope="module")
def env() -> Scripted:
    return Scripted(CONFIG, episodes=24, seed=100)


def test_rows_are_the_gymnasium_draws(env):
    gym = ToolEnv(CONFIG)
    for index in (0, 7, 23):
        row = env.dataset[index]
        obs, info = gym.reset(seed=100 + index)
        assert [m["content"] for m in row["prompt"]] == [m["content"] for m in info["messages"]]
        assert json.loads(row["info"])["tool_defs"] == [t["function"] for t in info["tools"]]


def test_oracle_rollouts_earn_the_episode_reward(env):
    env.policy = "oracle"
    states = rollouts(env, 24)
    assert [s["reward"] for s in states] == [1.0] * 24
    assert all(s["toolprism"]["end"] == "answered" and s["toolprism"]["score"]["success"] for s in states)
    assert not env._episodes  # every rollout let its episode go
    completion = states[0]["completion"]
    assert any(m.role == "tool" for m in completion) and completion[-1].role == "assistant"


def test_text_calls_get_text_replies(env):
    env.policy = "oracle-text"
    states = rollouts(env, 6)
    assert [s["reward"] for s in states] == [1.0] * 6
    roles = {m.role for s in states for m in s["completion"]}
    assert "tool" not in roles and "user" in roles


def test_native_names_under_a_merged_variant_are_rejected():
    env = Scripted(CONFIG.model_copy(update={"variants": {"merge(by=full,args=flat)": 1.0}}), episodes=6)
    env.policy = "native-names"
    states = rollouts(env, 6)
    assert [s["reward"] for s in states] == [0.0] * 6
    replies = [m.content for s in states for m in s["completion"] if m.role == "tool"]
    assert replies and all("call rejected: unknown tool" in r for r in replies)
