"""The episode loop as a gymnasium environment over text actions (issue #17, item 4).

Action-Space Shaping ("Training repairs what it sees", appendix G.3) repairs a variant with
on-policy GRPO under three conditions: the variant is in the training data, no KL penalty, and an
environment that *rejects* invalid calls (with rejections executed instead, the learning signal
vanishes). :class:`ToolEnv` is that environment: each episode samples a domain, a task, a variant
and a perturbation condition from a configured mixture (:class:`EnvConfig`), and every model turn
goes through the same adapter and environment as ``toolprism run``
(:class:`toolprism.run.EpisodeState`, the loop :func:`toolprism.run.run_episode` drives).

Spaces (both :class:`gymnasium.spaces.Text`):

- observation: one JSON document, compact, keys sorted, ``ensure_ascii`` (so its characters are
  the printable ASCII ``' '`` to ``'~'``, :data:`OBSERVATION_CHARSET`): at ``reset``
  ``{"messages": [system, user], "tools": [...]}``, at ``step`` ``{"messages": [...]}``, the
  messages the turn added after the model's own (a ``tool`` message per call, its content the
  reply or the rejection exactly as the model is shown it, or a ``user`` message when the turn
  could not be read; none when the turn ended the episode).
- action: the model's text for one turn (:data:`ACTION_CHARSET`: printable ASCII, tab, newline,
  carriage return; ``step`` accepts any ``str``, non-ASCII included). It is read with
  :func:`toolprism.backends.parse_output` under :attr:`EnvConfig.action_format` (default
  ``auto``: ``{"name": ..., "arguments": {...}}`` or a list of them, as the embedded backend
  and the ``json`` format write calls; ``<tool_call>`` blocks; Llama and Mistral forms); any other
  text is the final answer. ``step`` also takes a call as a dict, ``{"name", "arguments"}`` or an
  OpenAI tool call ``{"id", "type": "function", "function": {"name", "arguments"}}``, a list of
  them, or an OpenAI assistant message ``{"role": "assistant", "content", "tool_calls"}``. The
  embedded backend's answer form ``{"answer": "..."}`` is read as that answer.

Rewards come only when the episode ends (:data:`Reward`); the per-step reward is 0.0.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolprism.backends import ModelTurn, RawCall, parse_output
from toolprism.domains import Domain, Task, get_domain
from toolprism.errors import ConfigError, ToolprismError
from toolprism.perturb import Instance, Perturbation, expected_gold, parse_perturbations, plan, rereads
from toolprism.run import MAX_TURNS, EpisodeEnd, EpisodeSpec, EpisodeState, Trace
from toolprism.schema import JSON
from toolprism.score import ActionScore, score_actions
from toolprism.shaping import Control, Variant

ENV_ID = "toolprism/ToolEnv-v0"
"""The id :func:`gymnasium.make` knows the environment by (``gymnasium.make(ENV_ID, config=EnvConfig(...))``)."""
OBSERVATION_CHARSET = frozenset(chr(c) for c in range(0x20, 0x7F))
"""Characters of every observation: JSON with ``ensure_ascii`` escapes everything else."""
ACTION_CHARSET = OBSERVATION_CHARSET | frozenset("\t\n\r")
"""Characters of the action space (what ``action_space.sample()`` draws from; ``step`` reads any text)."""
_WHAT = "RL environment configuration"
CLEAN = "clean"
"""The condition without perturbations, as :attr:`EnvConfig.conditions` names it."""
POLICY = {"backend": "policy"}
"""The ``model`` field of the environment's traces: the policy is outside it."""

Reward = Literal["exact", "partial"]
"""The reward at an episode's end:

- ``exact`` (the paper's): 1.0 when the multiset of decoded native actions equals the gold
  (under perturbations the perturbations' expected gold, extra re-reads they tolerate removed;
  an empty gold needs the episode to have answered), else 0.0: exactly the success
  :func:`toolprism.score.score_actions` and :func:`toolprism.score.diagnose` give the episode's
  trace (the run's headline also asks a stated result where a domain fixes one, ToolRobustBench;
  that is not part of this reward).
- ``partial`` (ours): 1.0 on an exact match, else the multiset F1 of decoded against gold
  actions, 2·|gold ∩ decoded| / (|gold| + |decoded|), which is below 1 whenever the multisets
  differ; 0.0 for an empty gold matched without an answer.
"""


class EnvConfig(BaseModel):
    """The mixture episodes are drawn from, and how they run.

    Weights are relative (any positive numbers); each reset draws a domain, a variant and a
    condition independently by weight, then a task uniformly among the domain's tasks the
    condition applies to (:func:`toolprism.perturb.plan` skips none).

    Attributes:
        domains: domain name -> weight.
        variants: variant name or spec (``native``, ``merge(by=full,args=flat)``...) -> weight.
        conditions: ``clean`` or a perturbation condition (``C2:medium``, ``A3:medium+C4:medium``)
            -> weight.
        control: the adapter control (``strict``, ``paper``, ``loose``; see
            :data:`toolprism.shaping.Control`); ``loose`` executes decodable invalid calls (the
            paper's ablation).
        max_turns: model turns before the episode is truncated.
        reward: see :data:`Reward`.
        seed: the task-generation and perturbation-planning seed (a run's ``--seed``), so each
            sampled episode is the episode ``toolprism run`` poses for that task and condition;
            ``reset(seed=...)`` seeds only the sampling.
        tasks: the first ``tasks`` tasks of each domain (None: all).
        action_format: how text actions are read (see :func:`toolprism.backends.parse_output`).
        instruction: the calling instruction in the system prompt (``toolprism`` or ``paper``).
        max_observation_chars / max_action_chars: the Text spaces' length limits.
    """

    model_config = ConfigDict(extra="forbid")

    domains: dict[str, float] = Field(default_factory=lambda: {"smart_home": 1.0})
    variants: dict[str, float] = Field(default_factory=lambda: {"native": 1.0})
    conditions: dict[str, float] = Field(default_factory=lambda: {CLEAN: 1.0})
    control: Control = "strict"
    max_turns: int = MAX_TURNS
    reward: Reward = "exact"
    seed: int = 0
    tasks: int | None = None
    action_format: Literal["auto", "json", "hermes", "llama", "mistral"] = "auto"
    instruction: Literal["toolprism", "paper"] = "toolprism"
    max_observation_chars: int = 1 << 20
    max_action_chars: int = 1 << 14


def _weights(kind: str, weights: dict[str, float]) -> list[str]:
    problems = [] if weights else [f"{kind}: at least one is needed"]
    for name, weight in weights.items():
        if not (isinstance(weight, (int, float)) and math.isfinite(weight) and weight > 0):
            problems.append(f"{kind} {name!r}: weight must be a positive number, got {weight!r}")
    return problems


class ToolEnv(gymnasium.Env):
    """A toolprism episode per gymnasium episode; one ``step`` per model turn.

    ``reset`` returns the prompt and the tools; ``step`` takes the model's turn, runs its calls
    through the adapter (rejections are shown, never executed, except that ``control='loose'``
    executes what it can decode) and returns the new messages. ``terminated`` when the model
    answers without a call (or produced nothing); ``truncated`` at ``max_turns``. The episode so
    far is :meth:`trace` (a :class:`toolprism.run.Trace`, timings zero: the environment does not
    time the policy), which ``toolprism.score`` scores like any stored episode.

    Raises:
        ConfigError: every unknown domain, bad variant or condition, bad weight and bad number.
    """

    metadata = {"render_modes": []}

    def __init__(self, config: EnvConfig | None = None, **options: Any) -> None:
        if config is not None and options:
            raise ConfigError(f"give a config or its fields, not both (fields: {', '.join(options)})", what=_WHAT)
        try:
            config = config or EnvConfig(**options)
        except ValidationError as e:
            raise ConfigError([f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()], what=_WHAT) from None
        problems = [*_weights("domain", config.domains), *_weights("variant", config.variants)]
        problems += _weights("condition", config.conditions)
        for name, low in (("max_turns", 1), ("max_observation_chars", 1 << 12), ("max_action_chars", 1)):
            if getattr(config, name) < low:
                problems.append(f"{name} must be at least {low}, got {getattr(config, name)}")
        if config.tasks is not None and config.tasks < 1:
            problems.append(f"tasks must be at least 1, got {config.tasks}")
        self._domains: dict[str, Domain] = {}
        for name in config.domains:
            try:
                self._domains[name] = get_domain(name)
            except ConfigError as e:
                problems += e.problems
        self._variants: dict[tuple[str, str], Variant] = {}
        for domain_name, domain in self._domains.items():
            for name in config.variants:
                try:
                    self._variants[domain_name, name] = Variant.build(name, domain.action_space())
                except ConfigError as e:
                    problems += [f"variant {name!r} on {domain_name}: {p}" for p in e.problems]
        self._conditions: dict[str, list[Perturbation]] = {}
        for name in config.conditions:
            try:
                self._conditions[name] = [] if name == CLEAN else parse_perturbations(name.replace("+", ","))
            except ConfigError as e:
                problems += [f"condition {name!r}: {p}" for p in e.problems]
        if problems:
            raise ConfigError(problems, what=_WHAT)
        self.config = config
        self.observation_space = spaces.Text(config.max_observation_chars, min_length=0, charset=OBSERVATION_CHARSET)
        self.action_space = spaces.Text(config.max_action_chars, min_length=0, charset=ACTION_CHARSET)
        self._current: ToolEpisode | None = None

    @property
    def episode(self) -> EpisodeState | None:
        """The running (or last) episode's state: spec, environment, messages, turns, actions."""
        return self._current.state if self._current is not None else None

    # --- gymnasium API ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Draw and start an episode; deterministic given ``seed`` (None: the next draw of the
        generator a previous seed started).

        Returns:
            The observation ``{"messages": [system, user], "tools": [...]}`` (JSON text) and
            ``info``: ``episode_id``, ``domain``, ``task_id``, ``variant``, ``spec`` (the variant's
            pipeline), ``condition`` (``""`` when clean), ``control``, ``messages`` and ``tools``
            (as objects).

        Raises:
            ToolprismError: no task of the drawn domain admits the drawn condition.
        """
        super().reset(seed=seed)
        self._current = ToolEpisode(EpisodeState.start(self._draw(self.np_random)), self.config)
        info = self._current.describe()
        return self._observe({"messages": info["messages"], "tools": info["tools"]}), info

    def step(self, action: str | dict[str, Any] | list[dict[str, Any]]) -> tuple[str, float, bool, bool, dict]:
        """Take one model turn (see :meth:`ToolEpisode.act`).

        Returns:
            ``(observation, reward, terminated, truncated, info)``: the messages the turn added
            (JSON text), the reward (0.0 before the end, see :data:`Reward`), whether the model
            answered (or produced nothing), whether the turn limit was hit, and ``info``:
            ``turn`` (from 0), ``calls`` (per call: ``id``, ``name``, ``outcome`` executed |
            answered | rejected | failed, ``rejection``, ``action``, the decoded native action as
            text, or None), ``error`` (why the turn could not be read, or None) and ``messages``;
            at the end also ``end`` and ``score`` (success, precision, recall, missing, extra).

        Raises:
            ToolprismError: no episode is running (call ``reset``), or ``action`` is neither text
                nor a call.
        """
        if self._current is None or self._current.end is not None:
            raise ToolprismError("no episode is running: call reset() first (and again after it ends)")
        info = self._current.act(action)
        terminated = info.get("end") in ("answered", "no_output")
        truncated = info.get("end") == "turn_limit"
        reward = self._current.reward() if "end" in info else 0.0
        return self._observe({"messages": info["messages"]}), reward, terminated, truncated, info

    # --- beyond gymnasium ------------------------------------------------------------------------

    def draw(self, seed: int) -> EpisodeSpec:
        """The episode ``reset(seed=seed)`` starts, without starting it (deterministic)."""
        return self._draw(seeding.np_random(seed)[0])

    def trace(self) -> Trace:
        """The episode so far as a trace (see :meth:`ToolEpisode.trace`).

        Raises:
            ToolprismError: no episode was started.
        """
        if self._current is None:
            raise ToolprismError("no episode was started: call reset() first")
        return self._current.trace()

    # --- internals -------------------------------------------------------------------------------

    def _draw(self, rng: np.random.Generator) -> EpisodeSpec:
        domain_name = _pick(rng, self.config.domains)
        variant_name = _pick(rng, self.config.variants)
        condition = _pick(rng, self.config.conditions)
        domain, variant = self._domains[domain_name], self._variants[domain_name, variant_name]
        terms = self._conditions[condition]
        key = "+".join(t.key for t in terms)
        tasks = domain.tasks(self.config.seed, self.config.tasks)
        for index in rng.permutation(len(tasks)):
            task: Task = tasks[int(index)]
            if not domain.assigned(task, key):
                continue
            instances, skipped = plan(task, domain.action_space(), terms, self.config.seed, variant)
            if not skipped:
                return self._spec(domain, task, variant, tuple(instances))
        raise ToolprismError(f"no task of {domain_name} admits condition {condition!r} under variant {variant_name!r}")

    def _spec(self, domain: Domain, task: Task, variant: Variant, instances: tuple[Instance, ...]) -> EpisodeSpec:
        config = self.config
        return EpisodeSpec(domain, task, variant, config.seed, instances, config.control, config.instruction)

    def _observe(self, document: dict[str, JSON]) -> str:
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        if len(text) > self.config.max_observation_chars:
            raise ToolprismError(
                f"an observation of {len(text)} characters exceeds max_observation_chars "
                f"({self.config.max_observation_chars}); raise it in the EnvConfig"
            )
        return text


@dataclass
class ToolEpisode:
    """One episode of the environment, stepped by the policy's actions: :class:`ToolEnv` runs one
    at a time, the ``verifiers`` adapter one per rollout.

    Attributes:
        state: the episode loop's state (:class:`toolprism.run.EpisodeState`).
        config: the environment's configuration (action format, turn limit, reward).
        end: how the episode ended (``answered``, ``no_output``, ``turn_limit``), None while it runs.
        calls: calls numbered so far (ids ``call_<n>`` for calls that bring none).
    """

    state: EpisodeState
    config: EnvConfig
    end: EpisodeEnd | None = None
    calls: int = 0

    def describe(self) -> dict[str, Any]:
        """The episode as :meth:`ToolEnv.reset`'s ``info`` gives it."""
        spec = self.state.spec
        return {
            "episode_id": spec.episode_id,
            "domain": spec.domain.name,
            "task_id": spec.task.id,
            "variant": spec.variant.name,
            "spec": spec.variant.spec,
            "condition": spec.condition,
            "control": spec.control,
            "messages": list(self.state.messages),
            "tools": self.state.tools,
        }

    def act(self, action: object) -> dict[str, Any]:
        """Take one model turn through the episode loop (:meth:`toolprism.run.EpisodeState.take`)
        and return what :meth:`ToolEnv.step` gives as ``info`` (``end`` and ``score`` once it ends)."""
        turn = self._turn(action)
        before = len(self.state.messages) + 1  # after the assistant message
        end = self.state.take(turn)
        record = self.state.turns[-1]
        if end is None and len(self.state.turns) >= self.config.max_turns:
            end = "turn_limit"
        info: dict[str, Any] = {
            "turn": record.index,
            "calls": [
                {
                    "id": c.id,
                    "name": c.name,
                    "outcome": c.outcome,
                    "rejection": str(c.rejection) if c.rejection else None,
                    "action": str(c.action.to_action()) if c.action else None,
                }
                for c in record.calls
            ],
            "error": record.error,
            "messages": self.state.messages[before:],
        }
        if end is not None:
            self.end = end
            info |= {"end": end, "score": self.score().model_dump()}
        return info

    def trace(self) -> Trace:
        """The episode so far as a trace (end ``turn_limit`` while it runs); timings are zero
        (the environment does not time the policy)."""
        end = self.end or "turn_limit"
        return self.state.trace(dict(POLICY), end, max_turns=self.config.max_turns, duration_ms=0.0)

    def score(self) -> ActionScore:
        """The episode's multiset score so far (:func:`toolprism.score.score_actions` against the
        perturbations' expected gold, tolerating their re-reads, with the episode's end)."""
        instances = self.state.spec.perturbations
        return score_actions(
            expected_gold(self.state.spec.task.gold, instances),
            [a.to_action() for a in self.state.actions],
            tolerate=rereads(instances),
            end=self.end or "turn_limit",
        )

    def reward(self) -> float:
        """The reward under :attr:`EnvConfig.reward` (see :data:`Reward`) of the score so far."""
        score = self.score()
        if score.success:
            return 1.0
        if self.config.reward == "exact" or score.precision + score.recall == 0:
            return 0.0
        f1 = 2 * score.precision * score.recall / (score.precision + score.recall)
        return 0.0 if f1 >= 1.0 else f1  # equal multisets that do not count (empty gold, no answer)

    def _turn(self, action: object) -> ModelTurn:
        """The action as a model turn (call ids ``call_<n>``, numbered over the episode)."""
        if isinstance(action, str):
            parsed = parse_output(action, self.config.action_format, id_prefix="call")
            calls = tuple(RawCall(self._call_id(), c.name, c.arguments) for c in parsed.calls)
            return ModelTurn(raw=action, content=_answer(parsed.content), calls=calls, error=parsed.error)
        if isinstance(action, dict) and action.get("role") == "assistant":
            calls = tuple(self._raw_call(c) for c in action.get("tool_calls") or ())
            return ModelTurn(raw=_text(action), content=action.get("content"), calls=calls)
        if isinstance(action, dict):
            action = [action]
        if isinstance(action, (list, tuple)) and action and all(isinstance(c, dict) for c in action):
            return ModelTurn(raw=_text(list(action)), calls=tuple(self._raw_call(c) for c in action))
        raise ToolprismError(f"an action is the model's text, a call or an assistant message, not {action!r:.80}")

    def _raw_call(self, call: dict[str, Any]) -> RawCall:
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        name, arguments = function.get("name"), function.get("arguments", {})
        if not isinstance(name, str):
            raise ToolprismError(f"a call needs a string 'name', got {call!r:.80}")
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)
        call_id = call.get("id") if isinstance(call.get("id"), str) else self._call_id()
        return RawCall(call_id, name, text)

    def _call_id(self) -> str:
        self.calls += 1
        return f"call_{self.calls}"


def _pick(rng: np.random.Generator, weights: dict[str, float]) -> str:
    names = list(weights)
    total = sum(weights.values())
    return names[int(rng.choice(len(names), p=[weights[n] / total for n in names]))]


def _answer(content: str | None) -> str | None:
    """The answer text: the embedded backend's ``{"answer": "..."}`` unwrapped, other text as it is."""
    if content is None or not content.startswith("{"):
        return content
    try:
        value = json.loads(content)
    except ValueError:
        return content
    return value["answer"] if isinstance(value, dict) and set(value) == {"answer"} else content


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=ToolEnv)
