"""GRPO with TRL on toolprism's RL environment: an example configuration, documented, NOT run here.

The recipe is the one Action-Space Shaping found necessary for on-policy repair ("Training repairs
what it sees", appendix G.3), each condition set below:

1. the variants to repair are in the training mixture (``EnvConfig.variants``);
2. no KL penalty: ``GRPOConfig(beta=0.0)`` (KL 0.01 capped schema discovery at .25 vs .75);
3. the environment rejects invalid calls: ``EnvConfig(control="strict")`` (with ``"loose"``, which
   executes decodable invalid calls, the learning signal vanished: .49 -> .08 on a transfer variant).

Written against TRL 1.16 (``GRPOTrainer(rollout_func=...)``, an experimental TRL API: a function of
the per-process prompts and the trainer returning ``prompt_ids``, ``completion_ids``, ``logprobs``
and extra per-completion fields, which reach the reward functions; ``env_mask`` marks model tokens
1 and environment tokens 0). Generation here uses the policy model's own ``generate`` to stay
short; on real hardware use TRL's vLLM generation. Requires ``toolprism[rl]``, ``trl``,
``transformers`` and ``torch``; a chat model whose template renders ``tools`` and writes
``<tool_call>`` blocks (Qwen2.5/Qwen3 instruct models do).

Run (on a GPU machine): ``python examples/grpo_trl.py --model Qwen/Qwen3-4B --output runs/grpo``.
"""

from __future__ import annotations

import argparse

import torch
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from toolprism.train import EnvConfig, ToolEnv

# The training mixture: the variants to repair (1), rejections on (3). Hold out domains and
# variants for evaluation by leaving them out here and running `toolprism run` on them afterwards.
ENV = EnvConfig(
    domains={"smart_home": 1.0, "retail": 1.0, "calendar": 1.0, "navigation": 1.0},
    variants={
        "native": 1.0,
        "merge(by=full,args=flat)": 1.0,
        "transaction": 1.0,
        "discovery": 1.0,
    },
    conditions={"clean": 1.0},
    control="strict",
    reward="exact",  # the paper's reward: exact multiset match of decoded actions with the gold
    max_turns=20,
    action_format="hermes",  # <tool_call>{"name": ..., "arguments": {...}}</tool_call>
)

GRPO = dict(
    beta=0.0,  # (2) no KL penalty, as the paper found necessary
    num_generations=8,  # episodes per prompt (GRPO's group)
    per_device_train_batch_size=8,
    gradient_accumulation_steps=4,
    learning_rate=1e-6,
    max_completion_length=4096,  # the whole multi-turn completion (model and environment tokens)
    temperature=1.0,
    logging_steps=1,
    save_steps=200,
    bf16=True,
)


def prompts(episodes: int, seed: int = 0) -> Dataset:
    """One row per draw of the mixture: the prompt the policy sees, its system message carrying the
    draw's seed (``"seed"``, which chat templates ignore), so the rollout replays exactly that
    episode (``ToolEnv.reset(seed=...)`` is deterministic; two draws may share a prompt, since a
    variant changes the tools, not the messages)."""
    env = ToolEnv(ENV)
    rows = []
    for index in range(episodes):
        _, info = env.reset(seed=seed + index)
        system, user = info["messages"]
        rows.append({"prompt": [{**system, "seed": seed + index}, {**user, "seed": None}]})
    return Dataset.from_list(rows)


def episode(trainer: GRPOTrainer, env: ToolEnv, seed: int) -> dict:
    """One episode: the policy generates each turn, the environment answers it; returns the token
    ids of the whole exchange, the model tokens' log-probabilities, the mask and the reward."""
    tokenizer, model = trainer.processing_class, trainer.model
    _, info = env.reset(seed=seed)
    messages, tools = list(info["messages"]), info["tools"]
    prompt_ids = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True)
    ids, logprobs, mask, reward = [], [], [], 0.0
    for _ in range(ENV.max_turns):
        context = prompt_ids + ids
        with torch.no_grad():
            out = model.generate(
                torch.tensor([context], device=model.device),
                max_new_tokens=512,
                do_sample=True,
                temperature=GRPO["temperature"],
                output_scores=True,
                return_dict_in_generate=True,
            )
        new = out.sequences[0, len(context) :].tolist()
        steps = torch.stack(out.scores, dim=0)[:, 0].log_softmax(-1)
        ids += new
        logprobs += steps.gather(-1, torch.tensor(new, device=steps.device)[:, None])[:, 0].tolist()
        mask += [1] * len(new)
        text = tokenizer.decode(new, skip_special_tokens=True)
        _, reward, terminated, truncated, step = env.step(text)
        messages += [{"role": "assistant", "content": text}, *step["messages"]]
        if terminated or truncated:
            break
        # the environment's reply as the chat template renders it: the suffix after what is there
        rendered = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True)
        reply = rendered[len(prompt_ids) + len(ids) :]
        ids += reply
        logprobs += [0.0] * len(reply)
        mask += [0] * len(reply)
    return {"prompt_ids": prompt_ids, "completion_ids": ids, "logprobs": logprobs, "env_mask": mask, "reward": reward}


def rollout_func(batch: list, trainer: GRPOTrainer) -> dict:
    """TRL's rollout function: ``num_generations`` episodes of each prompt's draw."""
    env = ToolEnv(ENV)
    out: dict[str, list] = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [], "reward": []}
    for prompt in batch:
        seed = int(prompt[0]["seed"])
        for _ in range(trainer.num_generations):
            for key, value in episode(trainer, env, seed).items():
                out[key].append(value)
    return out


def environment_reward(completions, reward, **kwargs) -> list[float]:
    """The environment's reward (forwarded from the rollout function)."""
    return list(reward)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="Qwen/Qwen3-4B")
    parser.add_argument("--output", default="runs/grpo")
    parser.add_argument("--episodes", type=int, default=2000, help="prompts (the paper trains on 2,000 queries)")
    args = parser.parse_args()
    trainer = GRPOTrainer(
        model=args.model,
        reward_funcs=[environment_reward],
        args=GRPOConfig(output_dir=args.output, **GRPO),
        train_dataset=prompts(args.episodes),
        rollout_func=rollout_func,
    )
    trainer.train()


if __name__ == "__main__":
    main()
