"""slime: a `--custom-generate-function-path` that gets each sample's rollout from the rollout service.

    --custom-generate-function-path rlfactory_engines.slime.generate
    --custom-config-path rlf-slime.yaml      # rlf_rollout_url: http://127.0.0.1:8091  (see docs/slime.md)

slime keeps its SGLang servers, weights and training step. For every sample slime's rollout loop
asks for, `generate` sends one task (the whole task of `Sample.metadata["rlf_task"]`, else
`Sample.prompt` as chat messages, `Sample.label` as ground truth, `Sample.metadata` as extra_info)
with `group_size: 1` to `rlf rollout serve`, routed to slime's own SGLang router
(`args.sglang_router_ip:sglang_router_port`, engine `sglang`). The service runs the multi-turn tool rollout
there and scores it; `fill_sample` writes the answer into the `Sample`:

  tokens             prompt_ids + response_ids (the service's ids, never re-tokenized)
  response_length    len(response_ids)
  loss_mask          the service's mask (1 sampled, 0 tool/template tokens), response part only
  rollout_log_probs  the sampler's logprobs (0.0 on masked tokens)
  reward             the service's reward (a dict of reward components + "reward" with --reward-key)
  weight_versions    SGLang's `weight_version` of each sampled turn, as slime records them
  status             completed → COMPLETED, truncated → TRUNCATED, aborted → ABORTED, failed → FAILED
  remove_sample      True when the row must not be trained on (outcome.py): failed, aborted,
                     unscored, stale; slime then zeroes its loss mask but keeps its reward in the
                     group's advantage normalisation (slime's own `--rollout-sample-filter-path` rule)
  metadata["rlf"]    status_reason, policy_version, reward components/error, tool calls, timings,
                     turn_rewards and turn_reward_positions (slime's reward is one value per sample)

Weight version: slime does not hand the generate function its weight version; SGLang reports it with
every `/generate` answer (`meta_info.weight_version`, set by slime at each weight update) and the
service records it per sampled turn, so `weight_versions` holds exactly what slime's own generate would.
`rlf_policy_version` (settings below) overrides it for servers that report none.

Settings: an attribute of `args` (put them in the YAML of `--custom-config-path`), else an
environment variable, else the default:

  rlf_rollout_url          RLF_ROLLOUT_URL          http://127.0.0.1:8091
  rlf_inference_urls       RLF_INFERENCE_URLS       http://{sglang_router_ip}:{sglang_router_port}
  rlf_inference_engine     RLF_INFERENCE_ENGINE     sglang
  rlf_inference_logprobs_mode  RLF_INFERENCE_LOGPROBS_MODE  (the service config's; SGLang's are processed)
  rlf_model                RLF_MODEL                (the service's: asked from the server)
  rlf_max_turns            RLF_MAX_TURNS            (the service config's rollout.max_turns)
  rlf_max_tokens_per_turn  RLF_MAX_TOKENS_PER_TURN  slime's max_new_tokens (--rollout-max-response-len)
  rlf_policy_version       RLF_POLICY_VERSION       (none: SGLang's weight_version is recorded)
  rlf_timeout_s            RLF_TIMEOUT_S            3600
  rlf_filler_token_id      RLF_FILLER_TOKEN_ID      (the tokenizer's EOS id; used outside slime only)

slime is not on PyPI (the `slime` there is an unrelated statistics package), so nothing here imports
it: the `Sample` class and its `Status` enum are taken from the sample slime passes in.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import Any

from .client import DEFAULT_URL, RolloutServiceClient
from .credit import token_rewards
from .logprobs import check_rollout_logprobs, logprobs_mode
from .outcome import only_trajectory, outcome_of, response_or_filler
from .records import Trajectory
from .tasks import RLF_TASK_KEY, plain, row_task, sampling_overrides, split_urls

#: slime sampling_params key -> rollout service sampling key (slime/rollout/sglang_rollout.py GenerateState).
#: Stop strings are not forwarded: the service's tool-call format and its config's `rollout.sampling.stop`
#: decide where a turn ends (slime's --rollout-stop belongs to slime's own loop).
SAMPLING_NAMES = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "max_new_tokens": "max_tokens",
    "repetition_penalty": "repetition_penalty",
    "sampling_seed": "seed",
}

#: rollout service status -> slime `Sample.Status` member name.
STATUS_NAMES = {"completed": "COMPLETED", "truncated": "TRUNCATED", "aborted": "ABORTED", "failed": "FAILED"}


@dataclass(frozen=True)
class SlimeSettings:
    rollout_url: str
    inference_urls: list[str]
    inference_engine: str
    model: str | None
    inference_logprobs_mode: str | None
    max_turns: int | None
    max_tokens_per_turn: int | None
    policy_version: int | str | None
    timeout_s: float
    filler_token_id: int | None

    @classmethod
    def from_args(cls, args: Any) -> SlimeSettings:
        def get(name: str) -> Any:
            value = getattr(args, name, None)
            return value if value not in (None, "") else os.environ.get(name.upper()) or None

        urls = split_urls(get("rlf_inference_urls"))
        if not urls:
            ip, port = getattr(args, "sglang_router_ip", None), getattr(args, "sglang_router_port", None)
            if ip is None or port is None:
                raise ValueError(
                    "rlfactory_engines.slime: no inference server: slime's args.sglang_router_ip/port are "
                    "unset and rlf_inference_urls (RLF_INFERENCE_URLS) is not given"
                )
            urls = [f"http://{ip}:{port}"]
        version = get("rlf_policy_version")
        if isinstance(version, str) and version.strip().lstrip("-").isdigit():
            version = int(version)
        return cls(
            rollout_url=str(get("rlf_rollout_url") or DEFAULT_URL),
            inference_urls=urls,
            inference_engine=str(get("rlf_inference_engine") or "sglang"),
            model=get("rlf_model"),
            inference_logprobs_mode=logprobs_mode(get("rlf_inference_logprobs_mode"), "rlf_inference_logprobs_mode"),
            max_turns=_int_or_none(get("rlf_max_turns"), "rlf_max_turns"),
            max_tokens_per_turn=_int_or_none(get("rlf_max_tokens_per_turn"), "rlf_max_tokens_per_turn"),
            policy_version=version,
            timeout_s=float(get("rlf_timeout_s") or 3600.0),
            filler_token_id=_int_or_none(get("rlf_filler_token_id"), "rlf_filler_token_id"),
        )


_clients: dict[tuple[str, float], RolloutServiceClient] = {}


def _client(settings: SlimeSettings) -> RolloutServiceClient:
    key = (settings.rollout_url, settings.timeout_s)
    if key not in _clients:
        _clients[key] = RolloutServiceClient(settings.rollout_url, timeout_s=settings.timeout_s)
    return _clients[key]


async def generate(args: Any, sample: Any, sampling_params: dict[str, Any], evaluation: bool = False) -> Any:
    """slime's custom generate function: one rollout of `sample` through the rollout service."""
    if getattr(args, "apply_chat_template", False):
        raise ValueError(
            "rlfactory_engines.slime: run slime without --apply-chat-template: the rollout service renders "
            "the chat template itself and needs Sample.prompt as chat messages (--input-key a messages column)"
        )
    settings = SlimeSettings.from_args(args)
    restart_from_prompt(sample)
    task = task_of(sample)
    sampling = sampling_overrides(sampling_params, SAMPLING_NAMES)
    if settings.max_tokens_per_turn is not None:
        sampling["max_tokens"] = settings.max_tokens_per_turn
    groups = await _client(settings).arollout(
        [task],
        group_size=1,
        sampling=sampling,
        max_turns=settings.max_turns,
        policy_version=settings.policy_version,
        inference_urls=settings.inference_urls,
        inference_engine=settings.inference_engine,
        model=settings.model,
        inference_logprobs_mode=settings.inference_logprobs_mode,
    )
    trajectory = only_trajectory(groups, task["id"], "slime")
    tokenizer = _slime_tokenizer(args)
    return fill_sample(
        sample,
        trajectory,
        tokenizer=tokenizer,
        reward_key=getattr(args, "reward_key", None),
        filler_token_id=getattr(tokenizer, "eos_token_id", None) if tokenizer is not None else settings.filler_token_id,
    )


def task_of(sample: Any) -> dict[str, Any]:
    """The service task of a slime `Sample`: the whole task of `Sample.metadata["rlf_task"]` (what `rlf data
    export --engine slime` writes, read with `--metadata-key metadata`); else the prompt messages, the label
    as ground truth (its `ground_truth` when slime read a verl/Search-R1 `reward_model` column), metadata as
    extra_info and the task fields (`environment`, `tools`, `tool_aliases`, `turns`, `user_simulator`)
    found in the metadata."""
    metadata = dict(plain(getattr(sample, "metadata", None) or {}))
    metadata.pop("rlf", None)
    whole = metadata.pop(RLF_TASK_KEY, None)
    # slime's --tool-key copy is tool schemas for its own chat template; the service shows its own tools
    fields = {k: v for k, v in metadata.items() if k != "tools" or _is_tool_names(v)}
    metadata.pop("tools", None)
    group_index, index = getattr(sample, "group_index", None), getattr(sample, "index", None)
    label = plain(getattr(sample, "label", None))
    if isinstance(label, dict) and "ground_truth" in label:  # --label-key reward_model (verl/Search-R1 rows)
        label = label["ground_truth"]
    return row_task(
        f"slime-{group_index}-{index}-{uuid.uuid4().hex[:8]}",
        whole=whole,
        row=fields,
        prompt=sample.prompt,
        ground_truth=label,
        data_source=metadata.get("data_source"),
        extra_info={k: v for k, v in metadata.items() if k not in TASK_ONLY_FIELDS},
    )


#: Task fields that travel as themselves, not inside extra_info, when found in `Sample.metadata`.
TASK_ONLY_FIELDS = ("turns", "user_simulator", "environment", "tool_aliases")


def _is_tool_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def restart_from_prompt(sample: Any) -> None:
    """A sample slime hands back after an abort (partial rollout) restarts from its prompt: the service
    cannot continue another engine's partial response."""
    if getattr(sample, "response_length", 0) or getattr(sample, "tokens", None):
        sample.tokens = []
        sample.response = ""
        sample.response_length = 0
        sample.loss_mask = None
        sample.rollout_log_probs = None
        sample.weight_versions = []
        sample.reward = None
    sample.status = type(sample).Status.PENDING
    sample.remove_sample = False


def fill_sample(
    sample: Any,
    t: Trajectory,
    *,
    tokenizer: Any = None,
    reward_key: str | None = None,
    filler_token_id: int | None = None,
) -> Any:
    """Writes trajectory `t` into slime `Sample` `sample` (see the module doc); returns the sample.

    A trajectory with no response tokens (a failure before the first token) gets one `filler_token_id`
    with loss mask 0: slime slices the response as `tokens[-response_length:]`, which a length of 0
    would turn into the whole sequence.
    """
    check_rollout_logprobs([t], "slime")
    outcome = outcome_of(t)
    response, mask, logprobs = response_or_filler(t, filler_token_id)
    sample.tokens = list(t.prompt_ids) + response
    sample.response_length = len(response)
    sample.loss_mask = mask
    sample.rollout_log_probs = logprobs
    sample.response = tokenizer.decode(response) if tokenizer is not None and t.response_ids else ""
    if reward_key:
        sample.reward = {**t.reward_components, "reward": outcome.reward}
        if reward_key not in sample.reward:
            sample.reward[reward_key] = outcome.reward
    else:
        sample.reward = outcome.reward
    sample.status = getattr(type(sample).Status, STATUS_NAMES[t.status])
    sample.weight_versions = weight_versions_of(t)
    sample.remove_sample = not outcome.trainable
    rlf = summary_of(t, outcome.why)
    # slime's reward is one value per sample: the per-turn values ride along for a custom loss or reward
    # post-process (docs/slime.md "Tasks and per-turn rewards")
    rlf["turn_reward_positions"] = [
        [i, r] for i, r in token_rewards(t, outcome, len(response), credit="turn").turn_positions
    ]
    sample.metadata = {**(getattr(sample, "metadata", None) or {}), "rlf": rlf}
    return sample


def weight_versions_of(t: Trajectory) -> list[str]:
    """One version string per sampled turn, as slime's `Sample.weight_versions` (SGLang's values)."""
    versions = t.weight_versions
    if t.policy_version is not None:
        versions = [t.policy_version if v is None else v for v in versions]
    return [str(v) for v in versions if v is not None]


def summary_of(t: Trajectory, why: str) -> dict[str, Any]:
    """What slime's logs and filters may want from the record, without the tool results' text."""
    return {
        "status": t.status,
        "status_reason": t.status_reason,
        "outcome": why,
        "stale": t.stale,
        "policy_version": t.policy_version,
        "group_id": t.group_id,
        "reward": t.reward,
        "reward_components": dict(t.reward_components),
        "reward_error": t.reward_error,
        "turn_rewards": t.turn_rewards,
        "num_turns": t.num_turns,
        "tool_calls": [
            {"name": c.get("name"), "error_code": c.get("error_code"), "latency_ms": c.get("latency_ms")}
            for c in t.tool_calls
        ],
        "timings": dict(t.timings),
    }


def _slime_tokenizer(args: Any) -> Any:
    """slime's tokenizer (loaded once by its rollout state), or None outside slime."""
    try:
        from slime.rollout.sglang_rollout import GenerateState
    except ImportError:
        return None
    return GenerateState(args).tokenizer


def _int_or_none(value: Any, name: str) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"rlfactory_engines.slime: {name} must be an integer, got {value!r}") from None
