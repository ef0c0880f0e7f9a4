"""slime adapter: recorded rollout-service answers mapped into slime's `Sample`, and `generate` run
against a live rollout service.

slime cannot be installed from PyPI (see support/slime_sample.py), so `Sample` is the faithful
description of slime's class and `train_row` restates the checks of slime's training-data conversion.
"""

from __future__ import annotations

import argparse
import asyncio
import warnings

import pytest
from rlfactory_engines import slime as adapter
from rlfactory_engines.logprobs import RolloutLogprobsWarning
from support.live import SIM_WEIGHT_VERSION, live_stack
from support.recorded import all_pairs, groups, raw
from support.slime_sample import Sample, train_row
from support.stack import HOTPOT_SYSTEM, QUESTIONS
from support.tokenizer import qwen3

EOS = 151645  # Qwen3 <|im_end|>
PAIRS = all_pairs()


def not_trained(r: dict) -> bool:
    return r["status"] in ("aborted", "failed") or r["reward"] is None or bool(r.get("stale"))


@pytest.mark.parametrize(
    ("scenario", "t", "r"), PAIRS, ids=[f"{s}-{r['group_id']}-{r['sample_index']}" for s, _, r in PAIRS]
)
def test_every_recorded_trajectory_becomes_a_sample_slime_can_train_on(scenario, t, r):
    sample = adapter.fill_sample(Sample(prompt="q"), t, filler_token_id=EOS)
    row = train_row(sample)

    response = r["response_ids"] or [EOS]
    assert row["tokens"] == r["prompt_ids"] + response
    assert row["response"] == response
    assert sample.rollout_log_probs == (r["rollout_logprobs"] or [0.0])
    assert sample.status.value == r["status"]
    assert row["truncated"] == (1 if r["status"] == "truncated" else 0)
    assert sample.remove_sample == not_trained(r)
    if not_trained(r):
        assert row["loss_mask"] == [0] * len(response)
    else:
        assert row["loss_mask"] == r["loss_mask"]
        assert 1 in row["loss_mask"]
    expected_reward = r["reward"] if r["status"] not in ("aborted", "failed") and r["reward"] is not None else 0.0
    assert row["reward"] == expected_reward
    assert sample.metadata["rlf"]["status_reason"] == r["status_reason"]


def test_weight_versions_are_the_sglang_versions_of_the_sampled_turns():
    [t] = groups("sglang")[0].trajectories[:1]
    turns = raw("sglang")["response"]["groups"][0]["trajectories"][0]["turns"]
    reported = [str(turn["policy_version"]) for turn in turns if turn["kind"] == "sampled"]
    assert len(reported) >= 2 and set(reported) == {"12"}

    sample = adapter.fill_sample(Sample(), t, filler_token_id=EOS)
    assert sample.weight_versions == reported


def test_a_server_that_reports_no_version_gets_the_requests_policy_version_per_sampled_turn():
    t = groups("completed")[0].trajectories[0]
    request_version = raw("completed")["request"]["policy_version"]
    sampled = [turn for turn in t.turns if turn["kind"] == "sampled"]
    assert all(turn.get("policy_version") is None for turn in sampled)

    sample = adapter.fill_sample(Sample(), t, filler_token_id=EOS)
    assert sample.weight_versions == [str(request_version)] * len(sampled)


def test_with_reward_key_the_reward_is_a_dict_of_components():
    t = groups("completed")[0].trajectories[0]
    components = raw("completed")["response"]["groups"][0]["trajectories"][0]["reward_components"]
    sample = adapter.fill_sample(Sample(), t, reward_key="exact_match", filler_token_id=EOS)
    assert train_row(sample, reward_key="exact_match")["reward"] == components["exact_match"]
    assert sample.reward["reward"] == t.reward


def test_a_trajectory_without_response_tokens_needs_a_filler_token():
    t = groups("failed")[0].trajectories[0]
    assert t.response_ids == []
    with pytest.raises(ValueError, match="filler_token_id"):
        adapter.fill_sample(Sample(), t)


def test_a_group_the_service_dropped_as_stale_is_an_error_naming_the_setting():
    [group] = groups("stale_drop")
    assert group.trajectories == [] and group.dropped_stale > 0
    with pytest.raises(RuntimeError, match="on_stale: flag"):
        adapter.only_trajectory([group], group.task_id, "slime")


def test_task_of_a_sample_sends_messages_label_and_metadata_without_slimes_tool_copy():
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "Who wrote Dune?"}]
    sample = Sample(
        group_index=3,
        index=7,
        prompt=messages,
        label="Frank Herbert",
        metadata={"data_source": "nq", "tools": [{"type": "function"}], "split": "train"},
    )
    task = adapter.task_of(sample)
    assert task["prompt"] == messages
    assert task["ground_truth"] == "Frank Herbert"
    assert task["data_source"] == "nq"
    assert task["extra_info"] == {"data_source": "nq", "split": "train"}
    assert task["id"].startswith("slime-3-7-")


def test_a_search_r1_reward_model_label_gives_its_ground_truth():
    label = {"style": "rule", "ground_truth": {"target": ["Paris"]}}
    task = adapter.task_of(Sample(prompt="Capital of France?", label=label))
    assert task["ground_truth"] == {"target": ["Paris"]}


def test_slime_sampling_params_become_the_services_per_request_sampling_without_stop_strings():
    params = {
        "temperature": 0.7,
        "top_p": 0.9,
        "top_k": -1,
        "max_new_tokens": 512,
        "stop": "</answer>",
        "stop_token_ids": [151645],
        "skip_special_tokens": False,
        "no_stop_trim": True,
        "spaces_between_special_tokens": False,
        "sampling_seed": 42,
    }
    sampling = adapter.sampling_overrides(params, adapter.SAMPLING_NAMES)
    assert sampling == {"temperature": 0.7, "top_p": 0.9, "top_k": -1, "max_tokens": 512, "seed": 42}


def test_generate_refuses_a_prompt_slime_already_rendered_with_the_chat_template():
    args = argparse.Namespace(apply_chat_template=True, sglang_router_ip="127.0.0.1", sglang_router_port=1)
    with pytest.raises(ValueError, match="--apply-chat-template"):
        asyncio.run(adapter.generate(args, Sample(prompt="<|im_start|>user\nhi<|im_end|>\n"), {}))


# --- against a live rollout service -----------------------------------------------------------------


@pytest.fixture(scope="module")
def stack():
    return live_stack()


def slime_args(stack, **extra) -> argparse.Namespace:
    host, port = stack.sim_url.removeprefix("http://").rsplit(":", 1)
    return argparse.Namespace(
        sglang_router_ip=host,
        sglang_router_port=int(port),
        apply_chat_template=False,
        reward_key=None,
        rlf_rollout_url=stack.service_url,
        rlf_max_turns=3,
        rlf_filler_token_id=EOS,
        **extra,
    )


SLIME_SAMPLING = {
    "temperature": 0.8,
    "top_p": 1.0,
    "top_k": -1,
    "max_new_tokens": 128,
    "stop": None,
    "stop_token_ids": None,
    "skip_special_tokens": False,
    "no_stop_trim": True,
    "spaces_between_special_tokens": False,
}


def hotpot_sample(**extra) -> Sample:
    _, question, answers = QUESTIONS[0]
    return Sample(
        group_index=0,
        index=0,
        label=answers[0],
        metadata={"data_source": "hotpotqa"},
        prompt=[{"role": "system", "content": HOTPOT_SYSTEM}, {"role": "user", "content": question}],
        **extra,
    )


def test_generate_fills_the_sample_from_a_tool_rollout_on_slimes_sglang_server(stack):
    tok = qwen3()
    sample = hotpot_sample()
    out = asyncio.run(adapter.generate(slime_args(stack), sample, dict(SLIME_SAMPLING)))

    assert out is sample
    assert sample.status == Sample.Status.COMPLETED and not sample.remove_sample
    row = train_row(sample)
    response_text = tok.decode(row["response"])
    assert "<tool_call>" in response_text and "<tool_response>" in response_text and "<answer>" in response_text
    sampled_text = tok.decode([i for i, m in zip(row["response"], sample.loss_mask, strict=True) if m == 1])
    assert "<answer>" in sampled_text and "<tool_response>" not in sampled_text
    prompt_text = tok.decode(row["tokens"][: len(row["tokens"]) - sample.response_length])
    assert QUESTIONS[0][1] in prompt_text
    sampled_turns = sample.metadata["rlf"]["num_turns"]
    assert sample.weight_versions == [SIM_WEIGHT_VERSION] * sampled_turns and sampled_turns >= 2
    components = sample.metadata["rlf"]["reward_components"]
    assert row["reward"] == pytest.approx(components["exact_match"] + 0.1 * components["format"])


def test_generate_on_a_dead_inference_server_returns_a_failed_sample_slime_does_not_train_on(stack):
    sample = hotpot_sample()
    asyncio.run(adapter.generate(slime_args(stack, rlf_inference_urls=stack.dead_url), sample, dict(SLIME_SAMPLING)))
    assert sample.status == Sample.Status.FAILED
    assert sample.remove_sample
    assert "could not be reached" in sample.metadata["rlf"]["status_reason"]
    row = train_row(sample)
    assert row["response"] == [EOS] and row["loss_mask"] == [0] and row["reward"] == 0.0


def test_an_aborted_partial_sample_slime_hands_back_restarts_from_its_prompt(stack):
    sample = hotpot_sample(
        tokens=[1, 2, 3, 4],
        response="par",
        response_length=2,
        loss_mask=[1, 1],
        rollout_log_probs=[-0.1, -0.2],
        status=Sample.Status.ABORTED,
    )
    asyncio.run(adapter.generate(slime_args(stack), sample, dict(SLIME_SAMPLING)))
    assert sample.status == Sample.Status.COMPLETED
    assert sample.tokens[:4] != [1, 2, 3, 4]
    assert len(sample.loss_mask) == sample.response_length > 2


@pytest.mark.parametrize(("mode", "warned"), [(None, False), ("processed", False), ("raw", True)])
def test_the_declared_logprobs_mode_reaches_the_service_and_decides_the_warning(stack, mode, warned):
    """slime samples at 0.8 here from SGLang, whose logprobs are processed unless declared otherwise
    (SGLANG_RETURN_ORIGINAL_LOGPROB=1 makes them raw: then the adapter warns)."""
    extra = {} if mode is None else {"rlf_inference_logprobs_mode": mode}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(adapter.generate(slime_args(stack, **extra), hotpot_sample(), dict(SLIME_SAMPLING)))
    assert any(issubclass(w.category, RolloutLogprobsWarning) for w in caught) is warned


def test_vllms_spelling_of_the_mode_is_accepted_and_anything_else_refused(stack):
    settings = adapter.SlimeSettings.from_args(slime_args(stack, rlf_inference_logprobs_mode="raw_logprobs"))
    assert settings.inference_logprobs_mode == "raw"
    with pytest.raises(ValueError, match="rlf_inference_logprobs_mode: 'sampled' is not a logprobs mode"):
        adapter.SlimeSettings.from_args(slime_args(stack, rlf_inference_logprobs_mode="sampled"))
