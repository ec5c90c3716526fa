"""The RL environment for the ``verifiers`` library: a ``vf.MultiTurnEnv`` over toolprism episodes.

Written against verifiers 0.2.x, the last line whose public API is ``vf.MultiTurnEnv``
(``env_response``, stop conditions checked by ``is_completed``, a ``vf.Rubric`` of reward
functions); 0.3 moved it to ``verifiers.legacy`` and 0.4 replaced it (``verifiers.v1``), so the
extra ``toolprism[vf]`` pins ``verifiers>=0.2,<0.3``.

Each dataset row is one draw of the environment's mixture (:meth:`ToolEnv.draw` with seed
``seed + row``): its ``prompt`` is the system prompt and the user query, its ``info`` (JSON text)
the seed, the episode id and the variant's tools as ``tool_defs``, so verifiers shows each
rollout the tools of its variant. A rollout runs one :class:`ToolEpisode`: each model turn is
taken by the same episode loop as ``toolprism run`` when the stop condition
:meth:`ToolprismVerifiersEnv.episode_over` sees it (the model's native tool calls, or, without
them, its text read under :attr:`EnvConfig.action_format`), and :meth:`env_response` returns the
tool replies and rejections as the model is shown them (native calls: ``tool`` messages; calls
read from text: ``user`` messages in the text format's convention,
:func:`toolprism.backends.to_text_messages`). The rubric's one reward function,
:func:`toolprism_reward`, is the episode's reward (:data:`toolprism.train.Reward`).
"""

from __future__ import annotations

import json
from typing import Any

import verifiers as vf
from datasets import Dataset

from toolprism.backends import Message, to_text_messages
from toolprism.run import EpisodeState
from toolprism.train._gym import EnvConfig, ToolEnv, ToolEpisode


def toolprism_reward(state: vf.State, **_: Any) -> float:
    """The reward of the rollout's toolprism episode, recorded in ``state["toolprism"]`` when the
    rollout ended (0.0 when none was recorded, e.g. the rollout failed before its first turn)."""
    record = state.get("toolprism") or {}
    return float(record.get("reward", 0.0))


class ToolprismVerifiersEnv(vf.MultiTurnEnv):
    """toolprism episodes as a verifiers multi-turn environment.

    Args:
        config: the mixture and the episode settings (default :class:`EnvConfig`).
        episodes: dataset rows (draws of the mixture).
        seed: the first row's draw seed.
        **kwargs: passed to ``vf.MultiTurnEnv`` (``eval_dataset``, ``sampling_args``, ...).

    Raises:
        ConfigError: a bad ``config`` (see :class:`ToolEnv`).
    """

    def __init__(self, config: EnvConfig | None = None, *, episodes: int = 512, seed: int = 0, **kwargs: Any):
        self.toolprism = ToolEnv(config or EnvConfig())
        self.config = self.toolprism.config
        rows = [self._row(seed + index) for index in range(episodes)]
        rubric = vf.Rubric(funcs=[toolprism_reward], weights=[1.0])
        super().__init__(dataset=Dataset.from_list(rows), rubric=rubric, max_turns=self.config.max_turns, **kwargs)
        self._episodes: dict[str, ToolEpisode] = {}

    def _row(self, seed: int) -> dict[str, Any]:
        episode = EpisodeState.start(self.toolprism.draw(seed))
        info = {
            "seed": seed,
            "episode_id": episode.spec.episode_id,
            "tool_defs": [tool["function"] for tool in episode.tools],
        }
        return {"prompt": episode.messages, "answer": "", "info": json.dumps(info)}

    async def setup_state(self, state: vf.State) -> vf.State:
        """Start the row's episode (the same draw as the row's prompt)."""
        spec = self.toolprism.draw(int(state["info"]["seed"]))
        self._episodes[state["trajectory_id"]] = ToolEpisode(EpisodeState.start(spec), self.config)
        state["toolprism_replies"] = []
        return state

    @vf.stop(priority=50)
    async def episode_over(self, state: vf.State) -> bool:
        """Take the model's newest turn, if not taken yet, and say whether the episode ended
        (an answer, nothing generated, or the turn limit)."""
        episode = self._episodes.get(state["trajectory_id"])
        if episode is None:
            return True
        if episode.end is None and len(state["trajectory"]) > len(episode.state.turns):
            completion = state["trajectory"][-1]["completion"]
            assistant = next((m for m in reversed(completion) if m.role == "assistant"), None)
            native, action = _action(assistant)
            info = episode.act(action)
            added = info["messages"]
            if not native and info["calls"]:
                added = self._as_text(episode, added)
            state["toolprism_replies"] = added
        return episode.end is not None

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """The replies to the model's last turn (tool results and rejections, as shown to it)."""
        return [_vf_message(m) for m in state.get("toolprism_replies") or []]

    @vf.cleanup
    async def record_episode(self, state: vf.State) -> None:
        """Record the episode's end, score and reward in ``state["toolprism"]`` and let it go."""
        episode = self._episodes.pop(state["trajectory_id"], None)
        if episode is None:
            return
        episode.end = episode.end or "turn_limit"
        state["toolprism"] = {
            "episode_id": episode.state.spec.episode_id,
            "end": episode.end,
            "reward": episode.reward(),
            "score": episode.score().model_dump(),
        }

    def _as_text(self, episode: ToolEpisode, replies: list[Message]) -> list[Message]:
        """Replies to calls read from text, as the text format shows them (user messages)."""
        style = "json" if self.config.action_format == "auto" else self.config.action_format
        assistant = episode.state.messages[-len(replies) - 1]
        rendered = to_text_messages([assistant, *replies], [], style)  # system (added), assistant, user
        return rendered[[m["role"] for m in rendered].index("assistant") + 1 :]


def _action(message: Any) -> tuple[bool, str | dict[str, Any]]:
    """(native calls?, the action) for a verifiers assistant message."""
    if message is None:
        return False, ""
    content = message.content
    if isinstance(content, list):
        content = "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    calls = getattr(message, "tool_calls", None) or []
    if not calls:
        return False, content or ""
    tool_calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
    ]
    return True, {"role": "assistant", "content": content, "tool_calls": tool_calls}


def _vf_message(message: Message) -> vf.Message:
    if message["role"] == "tool":
        return vf.ToolMessage(tool_call_id=message["tool_call_id"], content=message["content"])
    return vf.UserMessage(content=message["content"])


def load_verifiers_environment(config: EnvConfig | dict[str, Any] | None = None, **kwargs: Any) -> vf.Environment:
    """The entry point verifiers' loaders call (``load_environment``): a
    :class:`ToolprismVerifiersEnv` from an :class:`EnvConfig` or its fields as a dict."""
    if isinstance(config, dict):
        config = EnvConfig(**config)
    return ToolprismVerifiersEnv(config, **kwargs)
