"""verl: an agent loop backed by the rollout service, and for teams that keep verl's own loop, a tool
backed by the tool gateway and a reward function backed by the judge. See docs/verl.md.

`RLFactoryAgentLoop` (registered as agent `rlfactory`): verl runs one agent loop per sample; `run`
sends that sample as one task with `group_size: 1` (the whole task of `extra_info.rlf_task`, else
`raw_prompt`, `reward_model.ground_truth`, `data_source`, `extra_info` and the row's task fields) to
`rlf rollout serve`, routed to the inference server verl's own load balancer picks for it (`inference.urls`:
`http://<server address>`, engine `actor_rollout_ref.rollout.name`), with that server's weight version
(`global_steps`) as `policy_version`. The answer becomes an `AgentLoopOutput`:

  prompt_ids, response_ids    the service's ids, unchanged (response cut to rollout.response_length,
                              as verl's ToolAgentLoop does)
  response_mask               the loss mask; all 0 when the row must not be trained on (outcome.py)
  response_logprobs           the sampler's logprobs (0.0 on masked tokens)
  reward_score                the service's reward (0.0 on rows that are not trained on)
  extra_fields rlf_turn_rewards  [response index, reward] of each turn's last token (credit `turn`), which
                              `RLFactoryAgentLoopWorker` (via `RLFactoryAgentLoopManager`) adds to rm_scores
  num_turns                   turns + 1, verl's count (user prompt + assistant turns + tool turns)
  metrics                     generate/tool seconds from the record's timings
  extra_fields                min/max_global_steps (verl's staleness metrics), rlf_status,
                              rlf_status_reason, rlf_outcome, rlf_policy_version, rlf_reward_components

verl has no status field: completed and truncated rows train; aborted, failed, unscored and stale rows
keep their place in the batch with `response_mask` all 0 (verl needs `n` rows per prompt); their status
travels in `extra_fields["rlf_status"]`.

`GatewayTool` (a `BaseTool`, for verl's `ToolAgentLoop`): calls one gateway tool over the gateway's
HTTP call surface (`POST /v1/tools/{name}:call`); its schema comes from the gateway when the tool
config gives none.

`compute_score` (verl `reward.custom_reward_function`, async): asks the judge service (`POST
/v1/judge`) to grade the final `<answer>` of the response against the ground truth.

The verl classes are defined only when verl imports; the mapping helpers (`agent_loop_fields`, ...)
and `compute_score` need only the standard library.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .client import DEFAULT_URL, RolloutServiceClient
from .credit import credit_mode, token_rewards
from .gateway import DEFAULT_ADMIN_URL, GatewayClient, GatewayError
from .judge import (
    ANSWER_PATTERN,
    DEFAULT_JUDGE_URL,
    JudgeClient,
    JudgeError,
    final_answer,
    judge_request,
    rule_requests,
)
from .logprobs import check_rollout_logprobs, logprobs_mode
from .outcome import int_versions, only_trajectory, outcome_of, response_or_filler
from .records import Trajectory
from .tasks import RLF_TASK_KEY, ground_truth_of, plain, row_task, sampling_overrides, split_urls

logger = logging.getLogger(__name__)

#: verl sampling_params key -> rollout service sampling key (AgentLoopWorker.generate_sequences).
SAMPLING_NAMES = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "repetition_penalty": "repetition_penalty",
    "min_p": "min_p",
    "max_tokens": "max_tokens",
    "max_new_tokens": "max_tokens",
    "seed": "seed",
}

# --- mapping (standard library only) ------------------------------------------------------------


def agent_loop_fields(
    t: Trajectory,
    *,
    response_length: int | None = None,
    prompt_length: int | None = None,
    filler_token_id: int | None = None,
    credit: str = "turn",
) -> dict[str, Any]:
    """`AgentLoopOutput` keyword arguments (all but `metrics`) for trajectory `t` (see the module doc).

    `response_length` / `prompt_length` are verl's `rollout.response_length` / `rollout.prompt_length`:
    a longer response is cut there (still trained on, a prefix of what was sampled); a longer prompt
    is left-truncated like verl's own loops do, and the row is then not trained on (its logprobs were
    computed on the whole prompt). An empty response (failure before the first token) becomes one
    `filler_token_id` with mask 0, since verl puts the reward on the last response token.

    `credit` (credit.py): with `turn`, `extra_fields["rlf_turn_rewards"]` lists `[response index, reward]`
    of each turn's last token, which `RLFactoryAgentLoopWorker` adds to verl's `rm_scores` beside
    `reward_score` (on the last token); with `outcome` it is empty.
    """
    check_rollout_logprobs([t], "verl")
    outcome = outcome_of(t)
    trainable, why = outcome.trainable, outcome.why
    prompt = list(t.prompt_ids)
    if prompt_length is not None and len(prompt) > prompt_length:
        prompt = prompt[-prompt_length:]
        if trainable:
            trainable, why = False, "prompt_too_long"
    response, mask, logprobs = response_or_filler(t, filler_token_id)
    cut = response_length is not None and len(response) > response_length
    if cut:
        response, mask, logprobs = response[:response_length], mask[:response_length], logprobs[:response_length]
    if not trainable:
        mask = [0] * len(mask)
    credited = token_rewards(t, outcome, len(response), credit=credit)
    versions = int_versions(t)
    return {
        "prompt_ids": prompt,
        "response_ids": response,
        "response_mask": mask,
        "response_logprobs": logprobs,
        "reward_score": outcome.reward,
        "num_turns": len(t.turns) + 1,
        "extra_fields": {
            "min_global_steps": min(versions) if versions else None,
            "max_global_steps": max(versions) if versions else None,
            "rlf_status": t.status,
            "rlf_status_reason": t.status_reason,
            "rlf_outcome": why,
            "rlf_response_cut": cut,
            "rlf_policy_version": t.policy_version,
            "rlf_reward_components": dict(t.reward_components),
            "rlf_reward_error": t.reward_error,
            "rlf_num_tool_calls": len(t.tool_calls),
            "rlf_turn_rewards": [[index, reward] for index, reward in credited.turn_positions],
            "rlf_turn_rewards_dropped": credited.dropped,
            "turn_scores": [],
            "tool_rewards": [],
        },
    }


def task_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The service task of one verl sample (the agent loop's keyword arguments: the parquet row's
    columns plus `raw_prompt` and `index`): the whole task of `extra_info.rlf_task` (what `rlf data export
    --engine verl` writes; a top-level `rlf_task` column is read too), else `raw_prompt`,
    `reward_model.ground_truth`, `data_source`, `extra_info` and the task fields found among the columns."""
    info = plain(row.get("extra_info"))
    whole = info.get(RLF_TASK_KEY) if isinstance(info, dict) else None
    if whole is None:
        whole = row.get(RLF_TASK_KEY)
    return row_task(
        f"verl-{plain(row.get('index'))}-{uuid.uuid4().hex[:8]}",
        whole=whole,
        row={k: v for k, v in row.items() if k != "raw_prompt"},
        prompt=row.get("raw_prompt"),
        ground_truth=ground_truth_of(row),
        data_source=row.get("data_source"),
        extra_info=info,
    )


def add_turn_rewards(rm_scores: Any, turn_rewards: Sequence[Any]) -> int:
    """Adds each row's `[response index, reward]` pairs (`extra_fields["rlf_turn_rewards"]`) to verl's
    `rm_scores` (batch × response length, right-padded); returns how many were added."""
    added = 0
    for row, pairs in enumerate(turn_rewards):
        for index, reward in pairs or ():
            rm_scores[row, int(index)] += float(reward)
            added += 1
    return added


def loop_metrics(t: Trajectory) -> dict[str, Any]:
    """`AgentLoopMetrics` fields (seconds) from the record's timings (milliseconds)."""
    return {
        "generate_sequences": float(t.timings.get("generate_ms", 0.0)) / 1000.0,
        "tool_calls": float(t.timings.get("tool_ms", 0.0)) / 1000.0,
        "num_preempted": -1,
    }


def server_url(server_address: str) -> str:
    """An inference server URL from verl's server address (`ip:port`, `[ipv6]:port`, or a URL)."""
    address = str(server_address).strip()
    return address if "://" in address else f"http://{address}"


def tool_schema_from_gateway(tool: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """An OpenAI function-tool schema (verl's `OpenAIFunctionToolSchema` shape) from a gateway catalog entry."""
    try:
        schema = json.loads(tool.get("input_schema_json") or "{}")
    except ValueError:
        schema = {}
    properties = {}
    for key, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        entry: dict[str, Any] = {"type": prop.get("type") or "string"}
        if prop.get("description"):
            entry["description"] = str(prop["description"])
        if isinstance(prop.get("enum"), list):
            entry["enum"] = prop["enum"]
        properties[str(key)] = entry
    return {
        "type": "function",
        "function": {
            "name": name or str(tool["name"]),
            "description": str(tool.get("description") or tool.get("title") or tool["name"]),
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": [str(r) for r in schema.get("required") or []],
            },
        },
    }


# --- reward function: the judge service ----------------------------------------------------------


async def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    *,
    judge_url: str | None = None,
    rubric: str | None = None,
    rubric_id: str | None = None,
    grader: Mapping[str, Any] | None = None,
    judged: str = "answer",
    answer_pattern: str | None = ANSWER_PATTERN,
    question_key: str = "question",
    deadline_ms: int | None = None,
    on_error: str = "raise",
    error_score: float = 0.0,
    timeout_s: float = 120.0,
    **_: Any,
) -> dict[str, float]:
    """verl reward function: the judge's score of the response's final answer, `{"score", "judge_failed"}`.

    Configure with `reward.custom_reward_function.path=pkg://rlfactory_engines.verl`, `name=compute_score`
    and `reward_kwargs` (`judge_url`, `rubric` / `rubric_id`, or `grader` for a rule grader; docs/verl.md).
    The task is `extra_info[question_key]`. A failed judgment raises `JudgeError` (`on_error="raise"`, the
    default: never a silent score) or, with `on_error="score"`, scores `error_score` and sets
    `judge_failed` to 1.0 so it shows in verl's reward metrics.
    """
    info = plain(extra_info) or {}
    truth = plain(ground_truth)
    response = final_answer(solution_str, answer_pattern) if judged == "answer" else solution_str
    task = str(info.get(question_key) or "") if isinstance(info, dict) else ""
    client = JudgeClient(judge_url or os.environ.get("RLF_JUDGE_URL") or DEFAULT_JUDGE_URL, timeout_s=timeout_s)
    try:
        if grader is not None:
            bodies = rule_requests(response=response, ground_truth=truth, grader=plain(grader), task=task)
            judgments = [await asyncio.to_thread(client.judge, body) for body in bodies]
            score = max(j.score for j in judgments)
        else:
            body = judge_request(
                task=task,
                response=response,
                ground_truth=truth,
                rubric=rubric,
                rubric_id=rubric_id,
                deadline_ms=deadline_ms,
            )
            score = (await asyncio.to_thread(client.judge, body)).score
    except JudgeError as e:
        if on_error != "score":
            raise
        logger.warning("judge failed for %s (%s); scoring %s", data_source, e, error_score)
        return {"score": float(error_score), "judge_failed": 1.0}
    return {"score": score, "judge_failed": 0.0}


# --- verl classes ----------------------------------------------------------------------------------

_VERL_IMPORT_ERROR: ImportError | None = None

try:
    from verl.experimental.agent_loop.agent_loop import (
        AgentLoopBase,
        AgentLoopManager,
        AgentLoopMetrics,
        AgentLoopOutput,
        AgentLoopWorker,
        register,
    )
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
except ImportError as e:  # verl is not installed: the helpers above still work
    _VERL_IMPORT_ERROR = e
else:

    @register("rlfactory")
    class RLFactoryAgentLoop(AgentLoopBase):
        """Agent loop `rlfactory`: the sample's rollout comes from the rlfactory rollout service.

        Keyword arguments (from the entry in `actor_rollout_ref.rollout.agent.agent_loop_config_path`)
        win over environment variables: `rollout_url` (RLF_ROLLOUT_URL, default http://127.0.0.1:8091),
        `inference_urls` (RLF_INFERENCE_URLS; default: the server verl's load balancer picks),
        `inference_engine` (default `actor_rollout_ref.rollout.name`), `inference_logprobs_mode`
        (RLF_INFERENCE_LOGPROBS_MODE; default `actor_rollout_ref.rollout.logprobs_mode`, which verl's own
        servers run with: `processed_logprobs` unless changed), `model` (RLF_MODEL), `max_turns`
        (RLF_MAX_TURNS; default `multi_turn.max_assistant_turns`, else the service's), `max_tokens_per_turn`
        (RLF_MAX_TOKENS_PER_TURN; default `rollout.response_length`), `policy_version` (RLF_POLICY_VERSION;
        default the server's `global_steps`), `timeout_s` (RLF_TIMEOUT_S, default 3600), `credit` (RLF_CREDIT:
        `turn`, the default, or `outcome`; credit.py).
        """

        def __init__(
            self,
            *args: Any,
            rollout_url: str | None = None,
            inference_urls: str | Sequence[str] | None = None,
            inference_engine: str | None = None,
            inference_logprobs_mode: str | None = None,
            model: str | None = None,
            max_turns: int | None = None,
            max_tokens_per_turn: int | None = None,
            policy_version: int | str | None = None,
            timeout_s: float | None = None,
            credit: str | None = None,
            tools: Any = None,
            **kwargs: Any,
        ):
            super().__init__(*args, **kwargs)
            env = os.environ.get
            self.rollout_url = rollout_url or env("RLF_ROLLOUT_URL") or DEFAULT_URL
            self.inference_urls = split_urls(inference_urls or env("RLF_INFERENCE_URLS"))
            self.inference_engine = inference_engine or env("RLF_INFERENCE_ENGINE") or self.rollout_config.name
            # what the servers' logprobs are, so the service records it (docs/training.md "Which logprobs")
            self.inference_logprobs_mode = logprobs_mode(
                inference_logprobs_mode
                or env("RLF_INFERENCE_LOGPROBS_MODE")
                or getattr(self.rollout_config, "logprobs_mode", None),
                "rlfactory_engines.verl inference_logprobs_mode",
            )
            self.model = model or env("RLF_MODEL")
            multi_turn = getattr(self.rollout_config, "multi_turn", None)
            self.max_turns = _int(max_turns or env("RLF_MAX_TURNS") or getattr(multi_turn, "max_assistant_turns", None))
            self.max_tokens_per_turn = _int(
                max_tokens_per_turn or env("RLF_MAX_TOKENS_PER_TURN") or self.rollout_config.response_length
            )
            self.policy_version = policy_version if policy_version is not None else _version(env("RLF_POLICY_VERSION"))
            self.credit = credit_mode(credit or env("RLF_CREDIT"), "rlfactory_engines.verl credit")
            self.client = RolloutServiceClient(
                self.rollout_url, timeout_s=float(timeout_s or env("RLF_TIMEOUT_S") or 3600)
            )

        async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
            task = task_of(kwargs)
            sampling = sampling_overrides(sampling_params, SAMPLING_NAMES)
            sampling.pop("max_tokens", None)
            if self.max_tokens_per_turn:
                sampling["max_tokens"] = self.max_tokens_per_turn
            urls, handle, release = await self._inference_target(task["id"])
            try:
                version = self.policy_version
                if version is None and handle is not None:
                    version = await _global_steps(handle)
                groups = await self.client.arollout(
                    [task],
                    group_size=1,
                    sampling=sampling,
                    max_turns=self.max_turns,
                    policy_version=version,
                    inference_urls=urls,
                    inference_engine=self.inference_engine,
                    model=self.model,
                    inference_logprobs_mode=self.inference_logprobs_mode,
                )
            finally:
                release()
            t = only_trajectory(groups, task["id"], "verl")
            fields = agent_loop_fields(
                t,
                response_length=self.rollout_config.response_length,
                prompt_length=self.rollout_config.prompt_length,
                filler_token_id=_filler_id(self.tokenizer),
                credit=self.credit,
            )
            if fields["extra_fields"]["rlf_turn_rewards"] and not _TURN_REWARD_WORKERS:
                _warn_no_turn_reward_worker()
            return AgentLoopOutput(**fields, metrics=AgentLoopMetrics(**loop_metrics(t)))

        async def _inference_target(self, request_id: str) -> tuple[list[str], Any, Callable[[], None]]:
            """The inference server(s) for this sample, the server's Ray handle (or None), and a release."""
            if self.inference_urls:
                return self.inference_urls, None, lambda: None
            manager = self.server_manager
            acquire = getattr(manager, "_acquire_server", None)
            if acquire is not None:  # verl >= 0.9: LLMServerClient and its global load balancer
                server_id, handle = await acquire(request_id)

                def release() -> None:
                    manager._release_server(server_id, request_id=request_id)

                return [server_url(server_id)], handle, release
            choose = getattr(manager, "_choose_server", None)
            if choose is not None:  # verl 0.5 - 0.8: AsyncLLMServerManager
                handle = choose(request_id)
                host, port = await handle.get_server_address.remote()
                host = f"[{host}]" if ":" in str(host) else host
                return [f"http://{host}:{port}"], handle, lambda: None
            raise RuntimeError(
                "rlfactory agent loop: cannot find verl's inference servers on this server manager "
                f"({type(manager).__name__}); pass inference_urls in the agent loop config or RLF_INFERENCE_URLS"
            )

    class RLFactoryAgentLoopWorker(AgentLoopWorker):
        """verl's `AgentLoopWorker` that also puts each turn's reward on the turn's last token of `rm_scores`
        (`extra_fields["rlf_turn_rewards"]`, written by `RLFactoryAgentLoop`); rows without any are as verl
        makes them."""

        def __init__(self, *args: Any, **kwargs: Any):
            global _TURN_REWARD_WORKERS
            _TURN_REWARD_WORKERS = True
            super().__init__(*args, **kwargs)

        def _postprocess(self, inputs: list[Any], *args: Any, **kwargs: Any) -> Any:
            data = super()._postprocess(inputs, *args, **kwargs)
            if "rm_scores" in data.batch.keys():  # noqa: SIM118 - a TensorDict refuses `in`
                add_turn_rewards(data.batch["rm_scores"], [i.extra_fields.get("rlf_turn_rewards") for i in inputs])
            return data

    class RLFactoryAgentLoopManager(AgentLoopManager):
        """verl's `AgentLoopManager` with `RLFactoryAgentLoopWorker` workers: set
        `actor_rollout_ref.rollout.agent.agent_loop_manager_class=rlfactory_engines.verl.RLFactoryAgentLoopManager`
        for per-turn rewards in `rm_scores`."""

        def __init__(self, *args: Any, **kwargs: Any):
            import ray

            self.agent_loop_workers_class = ray.remote(RLFactoryAgentLoopWorker)
            super().__init__(*args, **kwargs)

    class GatewayTool(BaseTool):
        """A verl tool that calls one rlfactory gateway tool. Tool config (`tool_config_path` YAML):

        tools:
          - class_name: rlfactory_engines.verl.GatewayTool
            config: {type: native, gateway_url: "http://127.0.0.1:8080", gateway_tool: search__search,
                     name: search, deadline_ms: 10000, api_key_env: RLF_API_KEY}
            # tool_schema: optional; default: the gateway's catalog entry, named `name`
        """

        def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema | None = None):
            config = dict(config or {})
            url = config.get("gateway_url") or os.environ.get("RLF_GATEWAY_URL") or DEFAULT_ADMIN_URL
            self.gateway = GatewayClient(
                url, api_key_env=config.get("api_key_env"), timeout_s=float(config.get("timeout_s", 120))
            )
            self.gateway_tool = str(config.get("gateway_tool") or (tool_schema.function.name if tool_schema else ""))
            if not self.gateway_tool:
                raise ValueError("GatewayTool: config.gateway_tool (the gateway's `server__tool` name) is required")
            self.deadline_ms = int(config.get("deadline_ms") or 0) or None
            if tool_schema is None:
                tool_schema = OpenAIFunctionToolSchema.model_validate(
                    tool_schema_from_gateway(self._catalog_entry(), config.get("name"))
                )
            super().__init__(config, tool_schema)

        def _catalog_entry(self) -> dict[str, Any]:
            for tool in self.gateway.list_tools():
                if tool.get("name") == self.gateway_tool:
                    return tool
            raise ValueError(f"GatewayTool: the gateway at {self.gateway.admin_url} has no tool {self.gateway_tool!r}")

        async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any):
            try:
                result = await asyncio.to_thread(
                    self.gateway.call,
                    self.gateway_tool,
                    plain(parameters) or {},
                    deadline_ms=self.deadline_ms,
                    trajectory_id=instance_id,
                )
            except GatewayError as e:
                return (
                    ToolResponse(text="Error: the tool gateway is unavailable"),
                    0.0,
                    {"error_code": "GATEWAY_UNAVAILABLE", "is_error": False, "message": str(e)},
                )
            metrics = {
                "error_code": result.error_code,
                "is_error": result.is_error,
                "latency_ms": result.latency_ms,
                "cache_hit": result.cache_hit,
                "truncated": result.truncated,
            }
            return ToolResponse(text=result.text), 0.0, metrics


#: Set in a process whose agent loops run in an `RLFactoryAgentLoopWorker` (per-turn rewards reach rm_scores).
_TURN_REWARD_WORKERS = False
_warned_no_turn_reward_worker = False


def _warn_no_turn_reward_worker() -> None:
    global _warned_no_turn_reward_worker
    if not _warned_no_turn_reward_worker:
        _warned_no_turn_reward_worker = True
        logger.warning(
            "rlfactory agent loop: trajectories carry per-turn rewards, but verl's own AgentLoopWorker puts only "
            "reward_score in rm_scores; set actor_rollout_ref.rollout.agent.agent_loop_manager_class="
            "rlfactory_engines.verl.RLFactoryAgentLoopManager (or credit: outcome to silence this)"
        )


def __getattr__(name: str) -> Any:
    verl_names = ("RLFactoryAgentLoop", "GatewayTool", "RLFactoryAgentLoopWorker", "RLFactoryAgentLoopManager")
    if name in verl_names and _VERL_IMPORT_ERROR is not None:
        raise ImportError(
            f"rlfactory_engines.verl.{name} needs verl (see services/engines/requirements-engines.txt): "
            f"{_VERL_IMPORT_ERROR}"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


async def _global_steps(handle: Any) -> int | None:
    """The weight version (`global_steps`) verl last set on this inference server, or None."""
    try:
        ref = handle.__ray_call__.remote(lambda server: getattr(server, "global_steps", None))
        value = await asyncio.wait_for(_awaited(ref), timeout=10)
    except Exception as e:
        logger.warning("rlfactory agent loop: could not read global_steps from the inference server: %s", e)
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _filler_id(tokenizer: Any) -> int | None:
    for name in ("pad_token_id", "eos_token_id"):
        value = getattr(tokenizer, name, None)
        if isinstance(value, int):
            return value
    return None


def _int(value: Any) -> int | None:
    return None if value in (None, "") else int(value)


def _version(value: str | None) -> int | str | None:
    if not value:
        return None
    return int(value) if value.strip().lstrip("-").isdigit() else value
