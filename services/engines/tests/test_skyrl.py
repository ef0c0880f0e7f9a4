"""SkyRL adapter: recorded rollout-service answers mapped into a `GeneratorOutput` checked against
SkyRL's real TypedDict, and `RLFactoryGenerator.generate` run on a real `GeneratorInput` (SkyRL's
`TrajectoryID` / `BatchMetadata`) against a live rollout service.

SkyRL's classes come from the installed `skyrl` 0.3.0 (support/skyrl_classes.py explains how on
Python 3.11). `check_generator_output` restates the checks of SkyRL's `validate_generator_output`
(skyrl/train/utils/trainer_utils.py), whose module needs Ray, torchdata and the training backends.
"""

from __future__ import annotations

import asyncio
import typing
import warnings
from types import SimpleNamespace

import pytest
from support import skyrl_classes
from support.live import live_stack
from support.recorded import SCENARIOS, groups, raw_trajectories, trajectories
from support.stack import HOTPOT_SYSTEM, QUESTIONS
from support.tokenizer import qwen3

SKYRL, HOW_LOADED = skyrl_classes.load()  # before the adapter import, so it subclasses the real interface

from rlfactory_engines import skyrl as adapter  # noqa: E402
from rlfactory_engines.logprobs import RolloutLogprobsWarning  # noqa: E402

EOS = 151645


@pytest.fixture(scope="module")
def skyrl():
    if SKYRL is None:
        pytest.skip(HOW_LOADED)
    return SKYRL


def check_generator_output(out: dict, n: int, skyrl_base) -> None:
    """SkyRL's validate_generator_output, restated, plus the keys of its GeneratorOutput TypedDict."""
    declared = typing.get_type_hints(skyrl_base.GeneratorOutput)
    assert set(out) <= set(declared), f"keys SkyRL does not declare: {set(out) - set(declared)}"
    assert {"prompt_token_ids", "response_ids", "rewards", "loss_masks"} <= set(out)
    assert len(out["response_ids"]) == len(out["prompt_token_ids"]) == n
    for key in ("response_ids", "loss_masks", "rewards", "rollout_logprobs", "stop_reasons", "trajectory_ids"):
        if isinstance(out.get(key), list):
            assert len(out[key]) == n, key
    for i, (ids, mask, reward) in enumerate(zip(out["response_ids"], out["loss_masks"], out["rewards"], strict=True)):
        assert len(ids) == len(mask) > 0, i
        assert len(out["rollout_logprobs"][i]) == len(ids), i
        assert isinstance(reward, float), i


def all_recorded():
    ts, rs = [], []
    for scenario in SCENARIOS:
        ts.extend(trajectories(scenario))
        rs.extend(raw_trajectories(scenario))
    return ts, rs


def test_the_recorded_trajectories_become_a_generator_output_skyrl_accepts(skyrl):
    ts, rs = all_recorded()
    out = adapter.generator_output(ts, filler_token_id=EOS)
    check_generator_output(out, len(rs), skyrl)
    for i, r in enumerate(rs):
        response = r["response_ids"] or [EOS]
        not_trained = r["status"] in ("aborted", "failed") or r["reward"] is None or bool(r.get("stale"))
        assert out["prompt_token_ids"][i] == r["prompt_ids"]
        assert out["response_ids"][i] == response
        assert out["loss_masks"][i] == ([0] * len(response) if not_trained else r["loss_mask"])
        assert out["rollout_logprobs"][i] == (r["rollout_logprobs"] or [0.0])
        assert out["rewards"][i] == (
            0.0 if r["status"] in ("aborted", "failed") or r["reward"] is None else r["reward"]
        )
        assert (
            out["stop_reasons"][i]
            == {"completed": "stop", "truncated": "length", "aborted": "abort", "failed": "error"}[r["status"]]
        )
        assert out["env_metrics"][i]["rlf_status_reason"] == r["status_reason"]
    assert out["rollout_metrics"]["rlf/failed"] == sum(r["status"] == "failed" for r in rs)
    assert out["rollout_metrics"]["rlf/stale"] == sum(bool(r.get("stale")) for r in rs)


def test_a_trajectory_without_response_tokens_needs_a_filler_token():
    with pytest.raises(ValueError, match="filler_token_id"):
        adapter.generator_output(groups("failed")[0].trajectories)


def test_the_generator_is_a_skyrl_generator_interface(skyrl):
    assert issubclass(adapter.RLFactoryGenerator, skyrl.GeneratorInterface)


def test_the_inference_url_is_skyrls_data_plane_proxy_else_its_servers():
    # fields of SkyRL's RemoteInferenceClient (skyrl/backends/skyrl_train/inference_servers/remote_inference_client.py)
    assert adapter.inference_urls_of(SimpleNamespace(proxy_url="http://router:8080", server_urls=["http://a:1"])) == [
        "http://router:8080"
    ]
    assert adapter.inference_urls_of(SimpleNamespace(proxy_url="", server_urls=["a:1", "b:2"])) == [
        "http://a:1",
        "http://b:2",
    ]
    with pytest.raises(ValueError, match="RLF_INFERENCE_URLS"):
        adapter.inference_urls_of(None)


def test_task_of_reads_skyrls_reward_spec_and_extra_info():
    task = adapter.task_of(
        "7",
        [{"role": "user", "content": "Q?"}],
        {
            "data_source": "nq",
            "reward_spec": {"method": "rule", "ground_truth": ["A"]},
            "extra_info": {"split": "train"},
        },
    )
    assert task == {
        "id": "7",
        "prompt": [{"role": "user", "content": "Q?"}],
        "ground_truth": ["A"],
        "data_source": "nq",
        "extra_info": {"split": "train"},
    }


# --- against a live rollout service -----------------------------------------------------------------


@pytest.fixture(scope="module")
def stack():
    return live_stack()


def generator_input(skyrl, n_samples: int, global_step: int, sampling_params: dict | None):
    """What SkyRL's prepare_generator_input builds: each prompt repeated n_samples times, consecutive."""
    prompts, extras, ids = [], [], []
    for uid, (_, question, answers) in enumerate(QUESTIONS):
        for rep in range(n_samples):
            prompts.append([{"role": "system", "content": HOTPOT_SYSTEM}, {"role": "user", "content": question}])
            extras.append({"data_source": "hotpotqa", "reward_spec": {"method": "rule", "ground_truth": answers}})
            ids.append(skyrl.TrajectoryID(instance_id=str(uid), repetition_id=rep))
    return {
        "prompts": prompts,
        "env_classes": ["rlfactory"] * len(prompts),
        "env_extras": extras,
        "sampling_params": sampling_params,
        "trajectory_ids": ids,
        "batch_metadata": skyrl.BatchMetadata(global_step=global_step, training_phase="train"),
    }


VLLM_SAMPLING = {
    "min_tokens": 1,
    "skip_special_tokens": True,
    "include_stop_str_in_output": True,
    "max_tokens": 128,
    "temperature": 0.8,
    "top_p": 1.0,
    "top_k": -1,
    "min_p": 0.0,
    "logprobs": 1,
    "stop": None,
}


def test_generate_answers_every_row_of_a_grpo_batch_in_input_order(skyrl, stack):
    tok = qwen3()
    generator = adapter.RLFactoryGenerator(
        inference_engine_client=SimpleNamespace(proxy_url=stack.sim_url, server_urls=[]),
        tokenizer=tok,
        rollout_url=stack.service_url,
        max_turns=3,
    )
    batch = generator_input(skyrl, n_samples=2, global_step=5, sampling_params=VLLM_SAMPLING)
    out = asyncio.run(generator.generate(batch))

    check_generator_output(out, len(batch["prompts"]), skyrl)
    assert out["trajectory_ids"] == batch["trajectory_ids"]
    for i, tid in enumerate(batch["trajectory_ids"]):
        question = QUESTIONS[int(tid.instance_id)][1]
        assert question in tok.decode(out["prompt_token_ids"][i])
        text = tok.decode(out["response_ids"][i])
        assert "<tool_response>" in text and "<answer>" in text
        assert out["stop_reasons"][i] == "stop"
        assert out["env_metrics"][i]["rlf_policy_version"] == 5  # batch_metadata.global_step
        components = out["env_metrics"][i]["rlf_reward_components"]
        assert out["rewards"][i] == pytest.approx(components["exact_match"] + 0.1 * components["format"])
    assert out["rollout_metrics"]["rlf/completed"] == len(batch["prompts"])


def test_generate_prefers_the_inference_clients_weight_version(skyrl, stack):
    generator = adapter.RLFactoryGenerator(
        inference_engine_client=SimpleNamespace(proxy_url=stack.sim_url, server_urls=[], weight_version=11),
        tokenizer=qwen3(),
        rollout_url=stack.service_url,
        max_turns=3,
    )
    out = asyncio.run(generator.generate(generator_input(skyrl, n_samples=1, global_step=5, sampling_params=None)))
    assert [m["rlf_policy_version"] for m in out["env_metrics"]] == [11, 11]


def test_generate_on_a_dead_inference_server_gives_masked_error_rows(skyrl, stack):
    generator = adapter.RLFactoryGenerator(
        tokenizer=qwen3(), rollout_url=stack.service_url, inference_urls=[stack.dead_url]
    )
    out = asyncio.run(generator.generate(generator_input(skyrl, n_samples=2, global_step=0, sampling_params=None)))
    check_generator_output(out, 4, skyrl)
    assert out["stop_reasons"] == ["error"] * 4
    assert out["loss_masks"] == [[0]] * 4 and out["rewards"] == [0.0] * 4


@pytest.mark.parametrize(("mode", "warned"), [("processed", False), ("raw", True), (None, True)])
def test_the_declared_logprobs_mode_reaches_the_service_and_decides_the_warning(skyrl, stack, mode, warned):
    """SkyRL samples at 0.8 here: logprobs declared processed are those of that distribution; raw ones
    (the vLLM default the service assumes when nothing is declared) are not, and the adapter says so."""
    generator = adapter.RLFactoryGenerator(
        inference_engine_client=SimpleNamespace(proxy_url=stack.sim_url, server_urls=[]),
        tokenizer=qwen3(),
        rollout_url=stack.service_url,
        max_turns=3,
        inference_logprobs_mode=mode,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(generator.generate(generator_input(skyrl, 1, 1, VLLM_SAMPLING)))
    assert any(issubclass(w.category, RolloutLogprobsWarning) for w in caught) is warned


def test_a_logprobs_mode_that_is_not_one_is_refused_naming_the_setting():
    with pytest.raises(ValueError, match="inference_logprobs_mode: 'tempered' is not a logprobs mode"):
        adapter.RLFactoryGenerator(inference_logprobs_mode="tempered")
