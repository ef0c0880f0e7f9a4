"""TRL: a `rollout_func` for `GRPOTrainer` that gets its completions from the rlfactory rollout service.

    from rlfactory_engines.trl import make_rollout_func, rlf_reward, tasks_by_prompt

    rollout_func = make_rollout_func(
        "http://127.0.0.1:8091",                    # rlf rollout serve
        inference_urls=["http://127.0.0.1:8000"],   # the server answering from the policy's CURRENT weights
        task_for=tasks_by_prompt(train_rows),       # prompt -> the whole task (environment, tools, turns, ...)
    )
    trainer = GRPOTrainer(model=..., reward_funcs=[rlf_reward], rollout_func=rollout_func, ...)

TRL hands `rollout_func` its prompt list with each prompt repeated `num_generations` times in a row
and wants one completion per entry: each run becomes one task of the service with group_size =
num_generations, and the completions come back in the same order.

Per call, the trainer's step (`trainer.state.global_step`) is the policy version: it is sent to the
service (`PUT /v1/policy_version`, and on the request), so every trajectory records the weights it was
sampled under. The service runs the multi-turn tool rollouts (generation on `inference_urls`, tool
calls through the gateway, rewards) and returns token ids: the prompt as the service's chat template
rendered it, then the response (sampled turns + observation turns), which become TRL's `prompt_ids`
and `completion_ids` unchanged; the loss mask becomes `env_mask` (TRL multiplies it into its
completion mask, so observation tokens get no loss), the sampled-token logprobs become `logprobs`.
TRL's vLLM importance-sampling correction compares those with its own logprobs at the sampling
temperature, so it needs processed logprobs (vLLM `--logprobs-mode processed_logprobs`, declared in the
service config as `inference.logprobs_mode: processed`): with the correction on, trajectories whose
logprobs are raw at a temperature other than 1 are refused (`RolloutLogprobsError`; logprobs.py).

Statuses, in TRL's terms (the number of completions per prompt must stay `num_generations`):
  completed   trained on as is.
  truncated   trained on as is (a limit cut it: the last id is not EOS, so TRL's
              `mask_truncated_completions=True` drops it from the loss if you ask for that).
  aborted,    kept as a placeholder: `env_mask` all 0 and reward None, so TRL leaves it out of the group
  failed      baseline and gives it no loss. An empty response becomes one EOS id (TRL needs one).
  stale       (service staleness `flag`) `env_mask` all 0; its reward still counts in the group baseline.
  dropped     (service staleness `drop`) num_generations placeholders like `failed`.
The service's reward reaches TRL through the `rlf_reward` reward function (extra field `rlf_reward`);
TRL computes its own group advantages from it.

Per-turn rewards: TRL's GRPO takes one reward per completion, so per-turn credit cannot reach its
gradient. The scalar is the service's `reward`, in which every per-turn component (`ftrl_solve`) enters
as the mean of its sampled turns' values (`aggregate: sum` in the service's reward config for the sum)
and process rewards (`reward.process`) do not enter at all: the same scalar every adapter records. The
per-turn values themselves come back per completion as `rlf_turn_rewards` (one per turn, 0 on
observation turns; None without per-turn rewards), which TRL hands to reward functions and logs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .client import DEFAULT_URL, RolloutServiceClient, make_task
from .logprobs import check_rollout_logprobs
from .records import Trajectory, TrajectoryGroup
from .tasks import RLF_TASK_KEY, task_fields_of

Prompt = str | list[dict[str, Any]]
TaskFor = Callable[[Prompt], dict[str, Any]]


def prompt_key(prompt: Prompt) -> str:
    """A canonical text of a prompt (string or chat messages), for looking tasks up by prompt."""
    return prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True, ensure_ascii=False)


def tasks_by_prompt(
    rows: Sequence[dict[str, Any]],
    *,
    prompt_field: str = "prompt",
    ground_truth_field: str = "ground_truth",
    data_source_field: str = "data_source",
) -> TaskFor:
    """`task_for` from dataset rows: TRL hands `rollout_func` only the prompts; the service needs the
    whole task. A row's `rlf_task` column (what `rlf data export --engine trl` writes: the task as JSON
    text) is the task; without one, every task field the row has is sent (`environment`, `tools`,
    `tool_aliases`, `turns`, `user_simulator`, `extra_info`, `ground_truth`, `data_source`)."""
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        table[prompt_key(row[prompt_field])] = row

    def task_for(prompt: Prompt) -> dict[str, Any]:
        row = table.get(prompt_key(prompt))
        if row is None:
            raise KeyError(f"no dataset row has this prompt: {prompt_key(prompt)[:200]}")
        fields = task_fields_of(row)
        if RLF_TASK_KEY not in row:
            fields.pop("prompt", None)
            if row.get(ground_truth_field) is not None:
                fields["ground_truth"] = row[ground_truth_field]
            if row.get(data_source_field) is not None:
                fields["data_source"] = row[data_source_field]
        fields.pop("id", None)
        fields["prompt"] = fields.get("prompt", prompt)
        return make_task("unset", **fields)

    return task_for


def rlf_reward(completions: list[Any] | None = None, rlf_reward: list[Any] | None = None, **_: Any) -> list[Any]:
    """TRL reward function: the reward the rollout service computed (None: unscored, left out of the baseline)."""
    if rlf_reward is None:
        raise ValueError("rlf_reward needs the rollout_func from rlfactory_engines.trl.make_rollout_func")
    return list(rlf_reward)


def make_rollout_func(
    service_url: str = DEFAULT_URL,
    *,
    inference_urls: Sequence[str],
    inference_engine: str = "vllm",
    model: str | None = None,
    inference_logprobs_mode: str | None = None,
    task_for: TaskFor | None = None,
    sampling: dict[str, Any] | None = None,
    max_turns: int | None = None,
    report_policy_version: bool = True,
    client: RolloutServiceClient | None = None,
) -> Callable[[list[Prompt], Any], dict[str, list[Any]]]:
    """Builds the `rollout_func`; `sampling` overrides what is read from the trainer's args.
    `inference_logprobs_mode`: `processed` when `inference_urls` run `--logprobs-mode processed_logprobs`
    (what TRL's `trl vllm-serve` recommends), `raw` for vLLM's default; None: the service config's."""
    if not inference_urls:
        raise ValueError("inference_urls: give the inference server(s) that serve the policy's current weights")
    service = client or RolloutServiceClient(service_url)
    to_task = task_for or (lambda prompt: make_task("unset", prompt))

    def rollout_func(prompts: list[Prompt], trainer: Any) -> dict[str, list[Any]]:
        training = bool(getattr(getattr(trainer, "model", None), "training", True))
        generations = int(trainer.num_generations if training else trainer.num_generations_eval)
        step = int(trainer.state.global_step)
        if report_policy_version:
            service.set_policy_version(step)
        blocks = prompt_blocks(prompts, generations)
        group_size = len(prompts) // len(blocks)
        tasks = []
        for i, block in enumerate(blocks):
            task = dict(to_task(block))
            task["id"] = f"trl-step{step}-{i}"
            tasks.append(task)
        groups = service.rollout(
            tasks,
            group_size=group_size,
            sampling={**sampling_from(trainer), **(sampling or {})},
            max_turns=max_turns,
            policy_version=step,
            inference_urls=inference_urls,
            inference_engine=inference_engine,
            model=model,
            inference_logprobs_mode=inference_logprobs_mode,
        )
        rollout_func.last_groups = groups
        check_rollout_logprobs(
            (t for g in groups for t in g.trajectories), "TRL", strict=corrects_importance_sampling(trainer)
        )
        by_task = {g.task_id: g for g in groups}
        eos = eos_id(trainer)
        out: dict[str, list[Any]] = {key: [] for key in ROW_KEYS}
        for task in tasks:
            group = by_task.get(task["id"])
            if group is None:
                raise RuntimeError(f"the rollout service sent no group for task {task['id']}")
            for row in completions_of(group, group_size, eos):
                for key, value in row.items():
                    out[key].append(value)
        return out

    rollout_func.last_groups = []  # type: ignore[attr-defined]
    return rollout_func


ROW_KEYS = (
    "prompt_ids",
    "completion_ids",
    "logprobs",
    "env_mask",
    "rlf_reward",
    "rlf_status",
    "rlf_policy_version",
    "rlf_num_turns",
    "rlf_turn_rewards",
)


def prompt_blocks(prompts: list[Prompt], generations: int) -> list[Prompt]:
    """The distinct tasks in TRL's prompt list. TRL's sampler repeats each prompt `num_generations`
    times in a row and wants one completion per entry: each run of identical prompts becomes one task
    with group_size = num_generations. A list not made of such runs is rolled out one prompt each."""
    n = len(prompts)
    if n == 0:
        raise ValueError("rollout_func got no prompts")
    if generations > 1 and n % generations == 0:
        runs = [prompts[i : i + generations] for i in range(0, n, generations)]
        if all(all(prompt_key(p) == prompt_key(run[0]) for p in run) for run in runs):
            return [run[0] for run in runs]
    return list(prompts)


def sampling_from(trainer: Any) -> dict[str, Any]:
    """The trainer's sampling settings in the service's names (max_tokens: per model turn)."""
    sampling: dict[str, Any] = {
        "temperature": getattr(trainer, "temperature", None),
        "top_p": getattr(trainer, "top_p", None),
        "min_p": getattr(trainer, "min_p", None),
        "repetition_penalty": getattr(trainer, "repetition_penalty", None),
        "max_tokens": getattr(trainer, "max_completion_length", None),
    }
    top_k = getattr(trainer, "top_k", None)
    if top_k is not None and top_k > 0:
        sampling["top_k"] = int(top_k)
    return {k: v for k, v in sampling.items() if v is not None}


def corrects_importance_sampling(trainer: Any) -> bool:
    """TRL feeds `logprobs` into its vLLM importance-sampling correction (`vllm_importance_sampling_correction`,
    on by default when generating with vLLM): then raw logprobs at a temperature other than 1 are refused."""
    args = getattr(trainer, "args", None)
    key = "vllm_importance_sampling_correction"
    on = getattr(trainer, key, getattr(args, key, False))
    use_vllm = getattr(trainer, "use_vllm", getattr(args, "use_vllm", True))
    return bool(on) and bool(use_vllm)


def eos_id(trainer: Any) -> int:
    ids = getattr(trainer, "eos_token_ids", None)
    if ids:
        return int(list(ids)[0])
    tokenizer = getattr(trainer, "processing_class", None)
    tokenizer = getattr(tokenizer, "tokenizer", tokenizer)
    return int(tokenizer.eos_token_id)


def completions_of(group: TrajectoryGroup, group_size: int, eos: int) -> list[dict[str, Any]]:
    """The group's trajectories as TRL completion rows, always `group_size` of them (see the module doc)."""
    if group.dropped_stale:
        return [_placeholder(None, eos, "dropped_stale") for _ in range(group_size)]
    if len(group.trajectories) != group_size:
        raise RuntimeError(f"group {group.group_id}: {len(group.trajectories)} trajectories, expected {group_size}")
    return [_row(t, eos) for t in group.trajectories]


def _row(t: Trajectory, eos: int) -> dict[str, Any]:
    if t.status in ("aborted", "failed") or not t.response_ids:
        return _placeholder(t, eos, t.status)
    keep = 0 if t.stale else 1
    return {
        "prompt_ids": list(t.prompt_ids),
        "completion_ids": list(t.response_ids),
        "logprobs": list(t.rollout_logprobs),
        "env_mask": [m * keep for m in t.loss_mask],
        "rlf_reward": t.reward,
        "rlf_status": "stale" if t.stale else t.status,
        "rlf_policy_version": t.policy_version,
        "rlf_num_turns": t.num_turns,
        "rlf_turn_rewards": t.turn_rewards,
    }


def _placeholder(t: Trajectory | None, eos: int, status: str) -> dict[str, Any]:
    ids = list(t.response_ids) if t is not None and t.response_ids else [eos]
    return {
        "prompt_ids": list(t.prompt_ids) if t is not None else [eos],
        "completion_ids": ids,
        "logprobs": [0.0] * len(ids),
        "env_mask": [0] * len(ids),
        "rlf_reward": None,
        "rlf_status": status,
        "rlf_policy_version": t.policy_version if t is not None else None,
        "rlf_num_turns": t.num_turns if t is not None else 0,
        "rlf_turn_rewards": None,
    }
