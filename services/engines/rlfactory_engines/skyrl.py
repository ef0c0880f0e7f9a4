"""SkyRL: a `GeneratorInterface` whose trajectories come from the rlfactory rollout service.

    python -m rlfactory_engines.skyrl trainer.policy.model.path=Qwen/Qwen3-4B ...   (docs/skyrl.md)

SkyRL's trainer hands the generator a batch in which each prompt appears `n_samples_per_prompt`
times, tagged `TrajectoryID(instance_id, repetition_id)`. `RLFactoryGenerator.generate` sends every
instance once as a task (the whole task of `env_extras[i]["rlf_task"]`, else `prompts[i]`,
`env_extras[i]["reward_spec"]["ground_truth"]`, `data_source`, `extra_info` and the extras' task fields)
with `group_size` = its number of repetitions, routed to SkyRL's own inference endpoint (`inference.urls`:
the inference client's `proxy_url`, else its `server_urls`; engine `vllm`) with SkyRL's weight version (the
client's `weight_version`, else `batch_metadata.global_step`) as `policy_version`. Sample `k` of the group
fills the batch row of `TrajectoryID(instance, k)`, in input order:

  prompt_token_ids, response_ids   the service's ids, unchanged
  loss_masks                       the loss mask; all 0 when the row must not be trained on (outcome.py)
  rollout_logprobs                 the sampler's logprobs (0.0 on masked tokens)
  rewards                          the service's reward, one float per trajectory (0.0 on rows not trained);
                                   per token (credit.py) when `credit` is `turn` and a row has turn_rewards
  stop_reasons                     completed → "stop", truncated → "length", aborted → "abort",
                                   failed → "error" (SkyRL's own checks treat anything but "stop" as
                                   unfinished: `zero_reward_on_non_stop`, `apply_overlong_filtering`)
  trajectory_ids                   the input's
  trajectory_generation_times      the record's total_ms, in seconds
  rollout_metrics                  rlf/<status> counts, rlf/stale, rlf/unscored, rlf/mean_reward, ...
  env_metrics                      per row: status, status_reason, outcome, policy_version, tool calls

Settings (constructor arguments, else environment variables): `rollout_url` (RLF_ROLLOUT_URL, default
http://127.0.0.1:8091), `inference_urls` (RLF_INFERENCE_URLS), `inference_engine` (RLF_INFERENCE_ENGINE,
default vllm), `inference_logprobs_mode` (RLF_INFERENCE_LOGPROBS_MODE: `raw` | `processed`, what those
servers' logprobs are; default the service config's), `model` (RLF_MODEL), `credit` (RLF_CREDIT: `turn`,
the default, or `outcome`), `max_turns` (RLF_MAX_TURNS; `python -m rlfactory_engines.skyrl` passes SkyRL's
`generator.max_turns`), `timeout_s` (RLF_TIMEOUT_S, 3600). Sampling comes from the batch's `sampling_params`
(temperature, top_p, top_k, min_p, max_tokens per turn, repetition_penalty); stop strings are not forwarded
(the service's tool-call format decides where a turn ends).

The generator needs only the standard library; it subclasses SkyRL's `GeneratorInterface` when SkyRL
imports (on Python < 3.12 SkyRL 0.3.0 itself does not: see docs/skyrl.md).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from .client import DEFAULT_URL, RolloutServiceClient
from .credit import credit_mode, token_rewards
from .logprobs import check_rollout_logprobs, logprobs_mode
from .outcome import outcome_of, response_or_filler
from .records import Trajectory, TrajectoryGroup
from .tasks import RLF_TASK_KEY, ground_truth_of, plain, row_task, sampling_overrides, split_urls

try:
    from skyrl.train.generators.base import GeneratorInterface as _GeneratorBase
except Exception:
    _GeneratorBase = object

#: rollout service status -> SkyRL stop reason.
STOP_REASONS = {"completed": "stop", "truncated": "length", "aborted": "abort", "failed": "error"}

#: SkyRL sampling_params key (vLLM names, or its SamplingParams config) -> rollout service sampling key.
#: Stop strings are not forwarded: the service's tool-call format decides where a turn ends.
SAMPLING_NAMES = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "max_tokens": "max_tokens",
    "max_generate_length": "max_tokens",
    "repetition_penalty": "repetition_penalty",
    "seed": "seed",
}

ENV_SETTINGS = (
    "RLF_ROLLOUT_URL",
    "RLF_INFERENCE_URLS",
    "RLF_INFERENCE_ENGINE",
    "RLF_MODEL",
    "RLF_MAX_TURNS",
    "RLF_TIMEOUT_S",
    "RLF_CREDIT",
    "RLF_INFERENCE_LOGPROBS_MODE",
)


class RLFactoryGenerator(_GeneratorBase):  # type: ignore[misc,valid-type]
    def __init__(
        self,
        *,
        inference_engine_client: Any = None,
        tokenizer: Any = None,
        rollout_url: str | None = None,
        inference_urls: str | Sequence[str] | None = None,
        inference_engine: str | None = None,
        inference_logprobs_mode: str | None = None,
        model: str | None = None,
        max_turns: int | None = None,
        timeout_s: float | None = None,
        credit: str | None = None,
        client: RolloutServiceClient | None = None,
    ):
        env = os.environ.get
        self.inference_engine_client = inference_engine_client
        self.tokenizer = tokenizer
        self.inference_urls = split_urls(inference_urls or env("RLF_INFERENCE_URLS"))
        self.inference_engine = inference_engine or env("RLF_INFERENCE_ENGINE") or "vllm"
        self.inference_logprobs_mode = logprobs_mode(
            inference_logprobs_mode or env("RLF_INFERENCE_LOGPROBS_MODE"),
            "rlfactory_engines.skyrl inference_logprobs_mode",
        )
        self.model = model or env("RLF_MODEL")
        turns = max_turns or env("RLF_MAX_TURNS")
        self.max_turns = int(turns) if turns else None
        self.credit = credit_mode(credit or env("RLF_CREDIT"), "rlfactory_engines.skyrl credit")
        self.client = client or RolloutServiceClient(
            rollout_url or env("RLF_ROLLOUT_URL") or DEFAULT_URL,
            timeout_s=float(timeout_s or env("RLF_TIMEOUT_S") or 3600),
        )

    async def generate(self, input_batch: Mapping[str, Any]) -> dict[str, Any]:
        prompts = list(input_batch["prompts"])
        n = len(prompts)
        extras = list(input_batch.get("env_extras") or [{}] * n)
        ids = input_batch.get("trajectory_ids")
        keys = [(_instance_id(tid), _repetition_id(tid)) for tid in ids] if ids else [(f"p{i}", 0) for i in range(n)]
        positions: OrderedDict[str, dict[int, int]] = OrderedDict()
        for row, (instance, repetition) in enumerate(keys):
            slots = positions.setdefault(instance, {})
            if repetition in slots:
                raise ValueError(f"trajectory id {instance}_{repetition} appears twice in the batch")
            slots[repetition] = row
        for instance, slots in positions.items():
            if sorted(slots) != list(range(len(slots))):
                raise ValueError(f"instance {instance}: repetition ids {sorted(slots)} are not 0..{len(slots) - 1}")

        by_size: dict[int, list[dict[str, Any]]] = {}
        for instance, slots in positions.items():
            first = slots[0]
            by_size.setdefault(len(slots), []).append(task_of(instance, prompts[first], extras[first]))
        options = self._request_options(input_batch)
        answers = await asyncio.gather(
            *(self.client.arollout(tasks, group_size=size, **options) for size, tasks in by_size.items())
        )
        groups = [g for answer in answers for g in answer]
        rows: list[Trajectory | None] = [None] * n
        for group in groups:
            slots = positions.get(group.task_id)
            if slots is None:
                continue
            if len(group.trajectories) != len(slots):
                raise RuntimeError(_missing(group, len(slots)))
            for t in group.trajectories:
                rows[slots[t.sample_index]] = t
        missing = [keys[i] for i, t in enumerate(rows) if t is None]
        if missing:
            raise RuntimeError(f"the rollout service answered nothing for {missing[:5]}")
        output = generator_output(
            [t for t in rows if t is not None], filler_token_id=_filler_id(self.tokenizer), credit=self.credit
        )
        output["trajectory_ids"] = list(ids) if ids else None
        return output

    def _request_options(self, input_batch: Mapping[str, Any]) -> dict[str, Any]:
        metadata = input_batch.get("batch_metadata")
        version = getattr(self.inference_engine_client, "weight_version", None)
        if not isinstance(version, int):
            version = getattr(metadata, "global_step", None)
        return {
            "sampling": sampling_overrides(input_batch.get("sampling_params"), SAMPLING_NAMES),
            "max_turns": self.max_turns,
            "policy_version": version,
            "inference_urls": self.inference_urls or inference_urls_of(self.inference_engine_client),
            "inference_engine": self.inference_engine,
            "model": self.model,
            "inference_logprobs_mode": self.inference_logprobs_mode,
        }


def task_of(instance_id: str, prompt: Any, extras: Mapping[str, Any] | None) -> dict[str, Any]:
    """The service task of one SkyRL prompt and its env_extras (the dataset row's other columns): the whole
    task of `env_extras["rlf_task"]` (what `rlf data export --engine skyrl` writes), else the prompt,
    `reward_spec.ground_truth`, `data_source`, `extra_info` (else the other extras) and the task fields
    (`environment`, `tools`, `tool_aliases`, `turns`, `user_simulator`) found among the extras."""
    extras = dict(plain(extras or {}))
    info = extras.get("extra_info")
    if not isinstance(info, dict):
        skip = ("reward_spec", "data_source", "extra_info", RLF_TASK_KEY, *TASK_FIELDS_BESIDES_INFO)
        info = {k: v for k, v in extras.items() if k not in skip}
    return row_task(
        str(instance_id),
        whole=extras.get(RLF_TASK_KEY),
        row=extras,
        prompt=prompt,
        ground_truth=ground_truth_of(extras),
        data_source=extras.get("data_source"),
        extra_info=info,
    )


#: Task fields read from their own env_extras key, not folded into extra_info.
TASK_FIELDS_BESIDES_INFO = ("tools", "turns", "user_simulator", "environment", "tool_aliases", "ground_truth")


def inference_urls_of(client: Any) -> list[str]:
    """SkyRL's data-plane endpoint: `RemoteInferenceClient.proxy_url`, else its `server_urls`."""
    proxy = getattr(client, "proxy_url", None)
    if proxy:
        return split_urls([proxy])
    urls = split_urls(getattr(client, "server_urls", None))
    if urls:
        return urls
    raise ValueError(
        "rlfactory_engines.skyrl: no inference server URL: SkyRL's inference client has no proxy_url/server_urls "
        f"({type(client).__name__}); pass inference_urls= or set RLF_INFERENCE_URLS"
    )


def generator_output(
    trajectories: Sequence[Trajectory], *, filler_token_id: int | None = None, credit: str = "turn"
) -> dict[str, Any]:
    """SkyRL `GeneratorOutput` fields for trajectories in batch order (see the module doc). With credit
    `turn` and a batch in which some trajectory carries `turn_rewards`, `rewards` is per token
    (`List[List[float]]`, credit.py) for every row; otherwise one float per row."""
    per_token = credit == "turn" and any(t.turn_rewards is not None for t in trajectories)
    out: dict[str, Any] = {
        "prompt_token_ids": [],
        "response_ids": [],
        "rewards": [],
        "loss_masks": [],
        "stop_reasons": [],
        "rollout_logprobs": [],
        "trajectory_generation_times": [],
        "env_metrics": [],
    }
    check_rollout_logprobs(trajectories, "SkyRL")
    for t in trajectories:
        outcome = outcome_of(t)
        response, mask, logprobs = response_or_filler(t, filler_token_id)
        out["prompt_token_ids"].append(list(t.prompt_ids))
        out["response_ids"].append(response)
        out["loss_masks"].append(mask if outcome.trainable else [0] * len(mask))
        out["rollout_logprobs"].append(logprobs)
        if per_token:
            credited = token_rewards(t, outcome, len(response), credit=credit)
            out["rewards"].append(credited.values)
        else:
            out["rewards"].append(outcome.reward)
        out["stop_reasons"].append(STOP_REASONS[t.status])
        out["trajectory_generation_times"].append(float(t.timings.get("total_ms", 0.0)) / 1000.0)
        out["env_metrics"].append(
            {
                "rlf_status": t.status,
                "rlf_status_reason": t.status_reason,
                "rlf_outcome": outcome.why,
                "rlf_policy_version": t.policy_version,
                "rlf_num_tool_calls": len(t.tool_calls),
                "rlf_reward_components": dict(t.reward_components),
                "rlf_turn_rewards": t.turn_rewards,
            }
        )
    out["rollout_metrics"] = rollout_metrics(trajectories)
    out["trajectory_ids"] = None
    out["rollout_expert_indices"] = None
    out["is_last_step"] = None
    return out


def rollout_metrics(trajectories: Sequence[Trajectory]) -> dict[str, float]:
    n = max(len(trajectories), 1)
    metrics: dict[str, float] = {f"rlf/{status}": 0.0 for status in STOP_REASONS}
    for t in trajectories:
        metrics[f"rlf/{t.status}"] += 1
    outcomes = [outcome_of(t) for t in trajectories]
    metrics["rlf/stale"] = float(sum(o.why == "stale" for o in outcomes))
    metrics["rlf/unscored"] = float(sum(o.why == "unscored" for o in outcomes))
    scored = [t.reward for t in trajectories if t.reward is not None]
    metrics["rlf/mean_reward"] = sum(scored) / len(scored) if scored else 0.0
    metrics["rlf/mean_tool_calls"] = sum(len(t.tool_calls) for t in trajectories) / n
    metrics["rlf/mean_response_length"] = sum(len(t.response_ids) for t in trajectories) / n
    return metrics


def _missing(group: TrajectoryGroup, expected: int) -> str:
    if group.dropped_stale:
        return (
            f"the rollout service dropped task {group.task_id} as stale ({group.dropped_stale} trajectories); SkyRL "
            "needs every row: use the service's staleness `on_stale: flag` (stale rows are then not trained on)"
        )
    return f"task {group.task_id}: {len(group.trajectories)} trajectories, expected {expected}"


def _instance_id(tid: Any) -> str:
    return str(tid["instance_id"] if isinstance(tid, Mapping) else tid.instance_id)


def _repetition_id(tid: Any) -> int:
    return int(tid["repetition_id"] if isinstance(tid, Mapping) else tid.repetition_id)


def _filler_id(tokenizer: Any) -> int | None:
    value = getattr(tokenizer, "eos_token_id", None)
    return value if isinstance(value, int) else None


# --- entry point: SkyRL's PPO experiment with this generator ---------------------------------------


def _run_experiment(cfg: Any, settings: dict[str, str]) -> None:
    """Runs on a Ray worker (like SkyRL's own `skyrl_entrypoint`): BasePPOExp with our generator."""
    os.environ.update(settings)
    from skyrl.train.entrypoints.main_base import BasePPOExp

    class RLFactoryPPOExp(BasePPOExp):
        def get_generator(self, cfg: Any, tokenizer: Any, inference_engine_client: Any) -> RLFactoryGenerator:
            max_turns = int(os.environ.get("RLF_MAX_TURNS") or cfg.generator.max_turns)
            return RLFactoryGenerator(
                inference_engine_client=inference_engine_client, tokenizer=tokenizer, max_turns=max_turns
            )

    RLFactoryPPOExp(cfg).run()


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m rlfactory_engines.skyrl <SkyRL config overrides>`: SkyRL's main with RLFactoryGenerator."""
    import ray
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.entrypoints.main_base import validate_cfg
    from skyrl.train.utils import initialize_ray

    cfg = SkyRLTrainConfig.from_cli_overrides(list(argv if argv is not None else sys.argv[1:]))
    validate_cfg(cfg)
    initialize_ray(cfg)
    settings = {k: os.environ[k] for k in ENV_SETTINGS if k in os.environ}
    ray.get(ray.remote(num_cpus=1)(_run_experiment).remote(cfg, settings))


if __name__ == "__main__":
    main()
