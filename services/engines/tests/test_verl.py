"""verl adapter: recorded rollout-service answers mapped into verl's real `AgentLoopOutput`; the agent
loop, the gateway tool and the judge reward function loaded the way verl loads them (hydra from an
agent-loop config file, verl's tool registry, verl's custom reward loader) and run against live services.

verl 0.9.1 is installed with --no-deps plus the few packages its agent-loop module imports
(requirements-engines.txt); without it the class tests are skipped and the mapping tests still run.
"""

from __future__ import annotations

import asyncio
import inspect
import warnings

import pytest
from rlfactory_engines import verl as adapter
from rlfactory_engines.judge import JudgeError
from rlfactory_engines.logprobs import RolloutLogprobsWarning
from support.live import live_stack
from support.recorded import all_pairs, groups, raw
from support.stack import QUESTIONS
from support.tokenizer import qwen3
from support.verl_loop import VERL_SAMPLING, agent_loop, dataset_row

EOS = 151645
PAIRS = all_pairs()
IDS = [f"{s}-{r['group_id']}-{r['sample_index']}" for s, _, r in PAIRS]


def not_trained(r: dict) -> bool:
    return r["status"] in ("aborted", "failed") or r["reward"] is None or bool(r.get("stale"))


@pytest.fixture(scope="module")
def verl_classes():
    agent_loop = pytest.importorskip("verl.experimental.agent_loop.agent_loop", reason="verl is not installed")
    return agent_loop


@pytest.mark.parametrize(("scenario", "t", "r"), PAIRS, ids=IDS)
def test_every_recorded_trajectory_becomes_a_real_agent_loop_output(verl_classes, scenario, t, r):
    fields = adapter.agent_loop_fields(t, response_length=4096, prompt_length=4096, filler_token_id=EOS)
    output = verl_classes.AgentLoopOutput(**fields, metrics=verl_classes.AgentLoopMetrics(**adapter.loop_metrics(t)))

    response = r["response_ids"] or [EOS]
    assert output.prompt_ids == r["prompt_ids"]
    assert output.response_ids == response
    assert output.response_logprobs == (r["rollout_logprobs"] or [0.0])
    assert output.response_mask == ([0] * len(response) if not_trained(r) else r["loss_mask"])
    expected_reward = r["reward"] if r["status"] not in ("aborted", "failed") and r["reward"] is not None else 0.0
    assert output.reward_score == expected_reward
    assert output.num_turns == len(r["turns"]) + 1
    assert output.extra_fields["rlf_status"] == r["status"]
    assert output.metrics.generate_sequences == pytest.approx(r["timings"].get("generate_ms", 0) / 1000)

    # verl's own conversion to tensors (used by its TransferQueue trainer): the reward on the last token
    tensors = output.as_dict()
    assert tensors["responses"].tolist() == response
    assert tensors["response_mask"].tolist() == output.response_mask
    assert tensors["rm_scores"][-1].item() == pytest.approx(expected_reward)
    assert tensors["rm_scores"][:-1].abs().sum().item() == 0


def test_global_steps_extra_fields_carry_the_trajectorys_weight_versions():
    sglang = groups("sglang")[0].trajectories[0]
    fields = adapter.agent_loop_fields(sglang, filler_token_id=EOS)["extra_fields"]
    assert (fields["min_global_steps"], fields["max_global_steps"]) == (12, 12)

    stale = groups("stale_flag")[0].trajectories[0]
    request_version = raw("stale_flag")["request"]["policy_version"]
    fields = adapter.agent_loop_fields(stale, filler_token_id=EOS)["extra_fields"]
    assert fields["min_global_steps"] == fields["max_global_steps"] == request_version
    assert fields["rlf_outcome"] == "stale"


def test_a_response_longer_than_verls_response_length_is_cut_and_still_trained_on():
    t = groups("completed")[0].trajectories[0]
    fields = adapter.agent_loop_fields(t, response_length=40, filler_token_id=EOS)
    assert fields["response_ids"] == t.response_ids[:40]
    assert fields["response_mask"] == t.loss_mask[:40] and 1 in fields["response_mask"]
    assert fields["extra_fields"]["rlf_response_cut"] is True


def test_a_prompt_longer_than_verls_prompt_length_is_kept_as_an_untrained_row():
    t = groups("completed")[0].trajectories[0]
    fields = adapter.agent_loop_fields(t, prompt_length=100, filler_token_id=EOS)
    assert fields["prompt_ids"] == t.prompt_ids[-100:]
    assert set(fields["response_mask"]) == {0}
    assert fields["extra_fields"]["rlf_outcome"] == "prompt_too_long"
    assert fields["reward_score"] == t.reward


def test_an_empty_response_needs_a_filler_token():
    with pytest.raises(ValueError, match="filler_token_id"):
        adapter.agent_loop_fields(groups("aborted")[0].trajectories[0])


def test_a_group_dropped_as_stale_is_an_error_naming_the_setting():
    [group] = groups("stale_drop")
    with pytest.raises(RuntimeError, match="on_stale: flag"):
        adapter.only_trajectory([group], group.task_id, "verl")


@pytest.mark.parametrize(
    ("address", "url"),
    [
        ("10.0.0.5:40123", "http://10.0.0.5:40123"),
        ("[fe80::1]:8000", "http://[fe80::1]:8000"),
        ("http://h:1", "http://h:1"),
    ],
)
def test_verl_server_addresses_become_inference_urls(address, url):
    assert adapter.server_url(address) == url


def test_the_agent_loop_registers_under_its_name_for_hydra(verl_classes):
    assert verl_classes._agent_loop_registry["rlfactory"] == {"_target_": "rlfactory_engines.verl.RLFactoryAgentLoop"}


# --- against live services ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stack():
    return live_stack()


def test_the_agent_loop_runs_a_tool_rollout_through_the_service(verl_classes, stack, tmp_path):
    np = pytest.importorskip("numpy")
    tok = qwen3()
    loop = agent_loop(
        verl_classes, tmp_path, rollout_url=stack.service_url, inference_urls=[stack.sim_url], policy_version=7
    )
    output = asyncio.run(loop.run(dict(VERL_SAMPLING), **dataset_row(np)))

    assert isinstance(output, verl_classes.AgentLoopOutput)
    text = tok.decode(output.response_ids)
    assert "<tool_call>" in text and "<tool_response>" in text and "<answer>" in text
    sampled = tok.decode([i for i, m in zip(output.response_ids, output.response_mask, strict=True) if m])
    assert "<answer>" in sampled and "<tool_response>" not in sampled
    assert QUESTIONS[0][1] in tok.decode(output.prompt_ids)
    assert len(output.response_logprobs) == len(output.response_ids)
    assert output.extra_fields["rlf_status"] == "completed"
    assert output.extra_fields["rlf_policy_version"] == 7
    assert output.extra_fields["min_global_steps"] == output.extra_fields["max_global_steps"] == 7
    components = output.extra_fields["rlf_reward_components"]
    assert output.reward_score == pytest.approx(components["exact_match"] + 0.1 * components["format"])
    assert output.num_turns >= 4  # prompt + assistant + tool + assistant


def test_the_agent_loop_keeps_a_failed_rollout_as_a_masked_row(verl_classes, stack, tmp_path):
    np = pytest.importorskip("numpy")
    loop = agent_loop(verl_classes, tmp_path, rollout_url=stack.service_url, inference_urls=[stack.dead_url])
    output = asyncio.run(loop.run(dict(VERL_SAMPLING), **dataset_row(np)))
    assert output.extra_fields["rlf_status"] == "failed"
    assert output.response_mask == [0] * len(output.response_ids) and len(output.response_ids) == 1
    assert output.reward_score == 0.0


def gateway_tool_config(tmp_path, **config):
    from omegaconf import OmegaConf

    path = tmp_path / "tools.yaml"
    path.write_text(
        OmegaConf.to_yaml(
            {"tools": [{"class_name": "rlfactory_engines.verl.GatewayTool", "config": {"type": "native", **config}}]}
        )
    )
    return str(path)


def test_the_gateway_tool_loads_through_verls_tool_registry_and_calls_the_gateway(verl_classes, stack, tmp_path):
    from verl.tools.tool_registry import initialize_tools_from_config

    [tool] = initialize_tools_from_config(
        gateway_tool_config(
            tmp_path,
            gateway_url=stack.gateway_admin_url,
            gateway_tool="search__search",
            name="search",
            deadline_ms=5000,
        )
    )
    schema = tool.get_openai_tool_schema()
    assert schema.function.name == "search"
    assert "query" in schema.function.parameters.properties

    response, reward, metrics = asyncio.run(tool.execute("trajectory-1", {"query": "Ed Wood"}))
    assert "Ed Wood" in response.text and response.text.startswith("Doc 1")
    assert metrics["error_code"] == "OK" and metrics["is_error"] is False
    assert reward == 0.0


def test_a_failed_gateway_call_reaches_the_model_as_a_short_error_line(verl_classes, stack, tmp_path):
    from verl.tools.schemas import OpenAIFunctionToolSchema

    schema = OpenAIFunctionToolSchema.model_validate(
        {
            "type": "function",
            "function": {"name": "lookup", "description": "d", "parameters": {"type": "object", "properties": {}}},
        }
    )
    tool = adapter.GatewayTool(
        {"type": "native", "gateway_url": stack.gateway_admin_url, "gateway_tool": "search__nope"}, schema
    )
    response, _, metrics = asyncio.run(tool.execute("t", {}))
    assert metrics["error_code"] == "UNKNOWN_TOOL"
    assert response.text.startswith("Error: tool call failed (UNKNOWN_TOOL)")
    assert "Traceback" not in response.text


def test_an_unreachable_gateway_is_an_error_line_not_an_exception(verl_classes, stack):
    from verl.tools.schemas import OpenAIFunctionToolSchema

    schema = OpenAIFunctionToolSchema.model_validate(
        {"type": "function", "function": {"name": "search", "description": "d"}}
    )
    tool = adapter.GatewayTool(
        {"type": "native", "gateway_url": stack.dead_url, "gateway_tool": "search__search"}, schema
    )
    response, _, metrics = asyncio.run(tool.execute("t", {"query": "x"}))
    assert response.text == "Error: the tool gateway is unavailable"
    assert metrics["error_code"] == "GATEWAY_UNAVAILABLE" and "cannot reach" in metrics["message"]


def test_a_gateway_tool_for_a_tool_the_gateway_lacks_is_refused_at_load(verl_classes, stack):
    with pytest.raises(ValueError, match="no tool 'search__nope'"):
        adapter.GatewayTool({"type": "native", "gateway_url": stack.gateway_admin_url, "gateway_tool": "search__nope"})


def verl_reward_fn(**reward_kwargs):
    """compute_score as verl loads it: reward.custom_reward_function with path pkg://..., reward_kwargs."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    config = OmegaConf.create(
        {
            "reward": {
                "custom_reward_function": {
                    "path": "pkg://rlfactory_engines.verl",
                    "name": "compute_score",
                    "reward_kwargs": reward_kwargs,
                }
            }
        }
    )
    return get_custom_reward_fn(config)


def test_compute_score_is_an_async_reward_function_verl_loads(verl_classes):
    assert inspect.iscoroutinefunction(adapter.compute_score)
    assert verl_reward_fn(judge_url="http://127.0.0.1:1") is not None


def test_compute_score_grades_the_final_answer_with_the_judges_rule_grader(verl_classes, stack):
    fn = verl_reward_fn(judge_url=stack.judge_url, grader={"type": "string_check", "operation": "ieq"})
    truth = {"target": ["Chief of Protocol", "chief of protocol of the US"]}
    right = asyncio.run(
        fn(
            data_source="hotpotqa",
            solution_str="<think>..</think><answer> chief of protocol </answer>",
            ground_truth=truth,
            extra_info={},
        )
    )
    wrong = asyncio.run(
        fn(data_source="hotpotqa", solution_str="<answer>Ambassador</answer>", ground_truth=truth, extra_info={})
    )
    assert right == {"score": 1.0, "judge_failed": 0.0}
    assert wrong == {"score": 0.0, "judge_failed": 0.0}


def test_a_failed_judgment_raises_by_default_and_is_flagged_when_asked_to_score(verl_classes, stack):
    fn = verl_reward_fn(judge_url=stack.judge_url)  # model mode; this judge has no model backend
    kwargs = {
        "data_source": "nq",
        "solution_str": "<answer>Paris</answer>",
        "ground_truth": ["Paris"],
        "extra_info": {"question": "What is the capital of France?"},
    }
    with pytest.raises(JudgeError) as failure:
        asyncio.run(fn(**kwargs))
    assert failure.value.code == "BACKEND_UNAVAILABLE"
    flagged = verl_reward_fn(judge_url=stack.judge_url, on_error="score", error_score=0.0)
    assert asyncio.run(flagged(**kwargs)) == {"score": 0.0, "judge_failed": 1.0}


@pytest.mark.parametrize(
    ("rollout", "entry", "warned"),
    [
        ({"logprobs_mode": "processed_logprobs"}, {}, False),  # verl's own default for its servers
        ({"logprobs_mode": "raw_logprobs"}, {}, True),
        ({"logprobs_mode": "raw_logprobs"}, {"inference_logprobs_mode": "processed"}, False),  # the entry wins
        ({}, {}, True),  # nothing declared: the service assumes vLLM's raw
    ],
)
def test_the_agent_loop_declares_the_logprobs_mode_verls_servers_run(
    verl_classes, stack, tmp_path, rollout, entry, warned
):
    """verl samples at 0.8 here: the mode its rollout config gives its servers reaches the service, which
    records it; raw logprobs at 0.8 are warned about, processed ones are what TIS compares with."""
    np = pytest.importorskip("numpy")
    loop = agent_loop(
        verl_classes, tmp_path, rollout=rollout, rollout_url=stack.service_url, inference_urls=[stack.sim_url], **entry
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(loop.run(dict(VERL_SAMPLING), **dataset_row(np)))
    assert any(issubclass(w.category, RolloutLogprobsWarning) for w in caught) is warned
