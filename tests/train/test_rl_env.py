"""The RL environment (issue #17, item 4): gymnasium's checker, the smoke test over a few hundred
episodes with scripted policies (the oracle: reward 1.0, equal to the episode's score; native-name
calls under a renamed variant: rejected and not executed under ``strict``, executed under
``loose``), and the environment's loop against ``run_episode``."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

gymnasium = pytest.importorskip("gymnasium")
pytestmark = pytest.mark.rl

from gymnasium.utils.env_checker import check_env  # noqa: E402

from toolprism.backends import EpisodeContext, OracleBackend  # noqa: E402
from toolprism.errors import ConfigError, ToolprismError  # noqa: E402
from toolprism.run import run_episode  # noqa: E402
from toolprism.score import diagnose, score_actions  # noqa: E402
from toolprism.train import ENV_ID, OBSERVATION_CHARSET, EnvConfig, ToolEnv  # noqa: E402

MIXTURE = EnvConfig(
    domains={"smart_home": 2, "retail": 1, "calendar": 1},
    variants={"native": 2, "merge(by=full,args=flat)": 1, "transaction": 1, "rename(style=opaque)": 1},
    conditions={"clean": 3, "C2:medium": 1, "D2:medium": 1},
    tasks=40,
)
RENAMED = "merge(by=full,args=flat)"  # no native tool name is shown


def oracle_turn(env: ToolEnv, agent, form: str):
    """The oracle's next turn as an action: ``text`` (JSON calls / answer text) or ``message``
    (an OpenAI assistant message with the oracle's call ids)."""
    turn = asyncio.run(agent.respond(list(env.episode.messages), env.episode.tools))
    if form == "message":
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in turn.calls
        ]
        return {"role": "assistant", "content": turn.content, "tool_calls": calls}
    if not turn.calls:
        return turn.content
    return json.dumps([{"name": c.name, "arguments": json.loads(c.arguments)} for c in turn.calls])


def play_oracle(env: ToolEnv, seed: int, form: str = "message"):
    obs, info = env.reset(seed=seed)
    spec = env.episode.spec
    agent = OracleBackend().agent(EpisodeContext(spec.task, env.episode.variant, spec.seed, spec.perturbations))
    while True:
        obs, reward, terminated, truncated, step_info = env.step(oracle_turn(env, agent, form))
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            return reward, terminated, step_info


def native_gold_turns(env: ToolEnv) -> list[str]:
    """A policy that ignores the variant: each gold action as a native call, then an answer."""
    calls = [json.dumps({"name": a.op, "arguments": a.arguments}) for a in env.episode.spec.task.gold]
    return [*calls, "Done."]


@pytest.fixture(scope="module")
def env() -> ToolEnv:
    """One environment over the mixture (its domains generate their tasks once)."""
    return ToolEnv(MIXTURE)


def test_check_env_passes_on_the_environment_and_through_make(env):
    check_env(env)
    made = gymnasium.make(ENV_ID, config=MIXTURE)
    check_env(made.unwrapped)
    obs, info = made.reset(seed=1)
    assert json.loads(obs)["tools"] == info["tools"]


def test_reset_is_deterministic_in_its_seed_and_draws_the_mixture(env):
    draws = [env.reset(seed=s) for s in range(40)]
    other = ToolEnv(MIXTURE)
    again = [other.reset(seed=s) for s in reversed(range(40))][::-1]
    assert [o for o, _ in draws] == [o for o, _ in again]
    infos = [i for _, i in draws]
    assert {i["domain"] for i in infos} == set(MIXTURE.domains)
    assert {i["variant"] for i in infos} == set(MIXTURE.variants)
    assert {i["condition"] for i in infos} == {"", "C2:medium", "D2:medium"}
    first = infos[0]
    messages = json.loads(draws[0][0])["messages"]
    assert [m["role"] for m in messages] == ["system", "user"] and messages == first["messages"]
    assert first["episode_id"].startswith(first["task_id"] + "@" + first["variant"])
    assert set(draws[0][0]) <= OBSERVATION_CHARSET


def test_smoke_300_oracle_episodes_reward_equals_the_trace_score(env):
    started = time.perf_counter()
    rewards = []
    for seed in range(300):
        reward, terminated, info = play_oracle(env, seed, "message" if seed % 2 else "text")
        trace = env.trace()
        assert terminated and trace.end == "answered" == info["end"]
        assert reward == float(diagnose(trace).success) == float(info["score"]["success"])
        rewards.append(reward)
    elapsed = time.perf_counter() - started
    print(f"oracle smoke: 300 episodes in {elapsed:.2f} s ({300 / elapsed:.0f} episodes/s)")
    assert rewards == [1.0] * 300


@pytest.mark.parametrize("control", ["strict", "loose"])
def test_smoke_native_calls_under_a_renamed_variant(control):
    """150 episodes each of calls the variant does not show: rejected and never executed under
    strict (state hash as the world started), executed as native actions under loose (the paper's
    ablation)."""
    update = {"domains": {"smart_home": 1.0}, "variants": {RENAMED: 1.0}, "conditions": {"clean": 1.0}}
    env = ToolEnv(MIXTURE.model_copy(update=update | {"control": control}))
    outcomes, changed, writes = set(), 0, 0
    for seed in range(150):
        env.reset(seed=seed)
        spec = env.episode.spec
        fresh = spec.domain.environment(spec.task.world_seed).state_hash()
        for action in native_gold_turns(env):
            obs, reward, terminated, truncated, info = env.step(action)
            outcomes |= {c["outcome"] for c in info["calls"]}
            if info["calls"] and control == "strict":
                assert info["calls"][0]["rejection"] == "unknown_tool" and info["calls"][0]["action"] is None
                assert "error" in json.loads(json.loads(obs)["messages"][0]["content"])
        has_write = any(spec.domain.action_space().get(a.op).kind == "write" for a in spec.task.gold)
        writes += has_write
        if control == "strict":
            assert env.episode.environment.state_hash() == fresh and not env.episode.actions
            assert reward == 0.0
        else:
            changed += env.episode.environment.state_hash() != fresh
            assert [a.to_action() for a in env.episode.actions] == list(spec.task.gold)
            assert reward == 1.0  # the rejection signal is gone: the off-interface calls are rewarded
    assert outcomes == ({"rejected"} if control == "strict" else {"executed"})
    if control == "loose":
        assert writes > 0 and changed == writes


def test_the_loop_is_run_episodes(env):
    """The environment driven by the oracle records what run_episode records with the oracle
    backend, and its reward is the score of run_episode's trace."""
    for seed in range(12):
        reward, _, _ = play_oracle(env, seed, "message")
        ours = env.trace()
        theirs = asyncio.run(run_episode(env.episode.spec, OracleBackend(), max_turns=MIXTURE.max_turns))
        assert ours.messages == theirs.messages and ours.tools == theirs.tools
        assert ours.actions == theirs.actions and ours.final_state_hash == theirs.final_state_hash
        assert ours.end == theirs.end and ours.injections == theirs.injections
        assert reward == float(diagnose(theirs).success)


def test_partial_reward_and_truncation():
    config = EnvConfig(domains={"smart_home": 1}, max_turns=2, reward="partial")
    env = ToolEnv(config)
    for seed in range(50):
        env.reset(seed=seed)
        if len(env.episode.spec.task.gold) >= 3:
            break
    gold = list(env.episode.spec.task.gold)
    obs, reward, terminated, truncated, info = env.step({"name": gold[0].op, "arguments": gold[0].arguments})
    assert (reward, terminated, truncated) == (0.0, False, False) and info["calls"][0]["outcome"] == "executed"
    obs, reward, terminated, truncated, info = env.step('<tool_call>{"name": "no_such_tool"}</tool_call>')
    assert truncated and not terminated and info["end"] == "turn_limit" == env.trace().end
    score = score_actions(gold, [gold[0]], end="turn_limit")
    f1 = 2 * score.precision * score.recall / (score.precision + score.recall)
    assert reward == pytest.approx(f1) and 0 < reward < 1
    with pytest.raises(ToolprismError, match="reset"):
        env.step("Done.")


def test_rejections_are_observations_and_embedded_answers_are_read():
    env = ToolEnv(EnvConfig())
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('{"name": "no_such_tool", "arguments": {}}')
    (message,) = json.loads(obs)["messages"]
    assert message["role"] == "tool" and "unknown tool 'no_such_tool'" in message["content"]
    assert info["calls"][0]["outcome"] == "rejected" and not terminated
    obs, reward, terminated, truncated, info = env.step('{"answer": "All done."}')
    assert terminated and env.trace().messages[-1]["content"] == "All done."


def test_bad_configuration_lists_every_problem():
    with pytest.raises(ConfigError) as e:
        ToolEnv(
            EnvConfig(
                domains={"nowhere": 1, "smart_home": 0},
                variants={"merge(by=nothing)": 1},
                conditions={"Z9:medium": 1},
                max_turns=0,
            )
        )
    text = str(e.value)
    for needle in ("nowhere", "smart_home", "merge(by=nothing)", "Z9", "max_turns"):
        assert needle in text
    with pytest.raises(ConfigError, match="control"):
        ToolEnv(control="lenient")
    with pytest.raises(ConfigError, match="not both"):
        ToolEnv(EnvConfig(), max_turns=3)


def test_draw_is_the_episode_reset_starts(env):
    for seed in (0, 5, 17):
        spec = env.draw(seed)
        env.reset(seed=seed)
        assert spec.episode_id == env.episode.spec.episode_id
        assert spec.perturbations == env.episode.spec.perturbations
