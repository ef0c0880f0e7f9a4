"""A BFCL task row in each engine's own dataset format (as `rlf data export` writes it) through that engine's
adapter to a live rollout service (support/bfcl_live.py: replayed ground-truth calls, `rlf env bfcl` behind
the gateway, `bfcl_state` + a per-call process reward): the adapter sends the whole task (its environment,
tool aliases and later user turns), so the episode starts, the environment's tools answer, `bfcl_state`
is scored, and the per-turn rewards arrive where the engine takes them.

  verl   verl's RLHFDataset reads the Parquet row; `RLFactoryAgentLoop` (built as AgentLoopWorker builds
         it); verl's own `_agent_loop_postprocess` pads the output and `RLFactoryAgentLoopWorker._postprocess`
         makes the batch: `rm_scores` holds each turn's reward on its last token, the reward on the last.
  slime  the JSONL row as slime's `--input-key prompt --label-key label --metadata-key metadata` makes a
         `Sample` (support/slime_sample.py); `generate`: one scalar reward, the turn rewards in metadata.
  SkyRL  the Parquet row read as SkyRL's PromptDataset reads it (prompt popped, the rest env_extras) into a
         real `GeneratorInput`; `RLFactoryGenerator.generate`: `rewards` per token.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from support import skyrl_classes

# before the adapter import, so RLFactoryGenerator subclasses the real GeneratorInterface (test_skyrl.py
# checks that, and pytest imports this module first)
SKYRL, HOW_LOADED = skyrl_classes.load()

from rlfactory_engines import skyrl as skyrl_adapter  # noqa: E402
from rlfactory_engines import slime as slime_adapter  # noqa: E402
from rlfactory_engines.client import RolloutServiceClient  # noqa: E402
from rlfactory_engines.records import Trajectory  # noqa: E402
from rlfactory_engines.tasks import RLF_TASK_KEY  # noqa: E402
from support.bfcl_live import TOOL_SUCCESS, bfcl_stack, bfcl_tasks, export  # noqa: E402
from support.slime_sample import Sample, train_row  # noqa: E402
from support.tokenizer import qwen3  # noqa: E402


def check_bfcl_episode(reward_components: dict, tool_calls: list, reward: float) -> None:
    """The episode ran: the environment's tools answered every call (no UNKNOWN_TOOL, no missing
    episode) and its final state was scored (`bfcl_state` needs the episode's snapshot)."""
    assert tool_calls, "no tool call reached the environment"
    assert [c.get("error_code") for c in tool_calls] == [None] * len(tool_calls), tool_calls
    assert reward_components.get("bfcl_state") == 1.0, reward_components
    assert reward == 1.0


# --- verl ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def verl_classes():
    return pytest.importorskip("verl.experimental.agent_loop.agent_loop", reason="verl is not installed")


def verl_rows(tmp_path) -> list[dict]:
    """The exported Parquet as verl's RLHFDataset hands its rows to the agent loop."""
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    config = OmegaConf.create(
        {"prompt_key": "prompt", "filter_overlong_prompts": False, "cache_dir": str(tmp_path / "verl-cache")}
    )
    dataset = RLHFDataset(data_files=str(export("verl")), tokenizer=qwen3(), config=config)
    return [dataset[i] for i in range(len(dataset))]


def padded(verl_classes, loop, output, row):
    """verl's own AgentLoopWorker._agent_loop_postprocess (padding to the rollout lengths), on a worker
    holding just what that method reads."""
    from rlfactory_engines.verl import RLFactoryAgentLoopWorker

    worker = RLFactoryAgentLoopWorker.__new__(RLFactoryAgentLoopWorker)
    worker.tokenizer = loop.tokenizer
    worker.processor = None
    worker.mm_processor_kwargs = None
    worker.rollout_config = loop.rollout_config
    worker.reward_loop_worker_handles = None
    worker.distillation_enabled = False
    return worker, asyncio.run(worker._agent_loop_postprocess(output, validate=False, **row))


def test_verl_row_runs_its_bfcl_episode_and_turn_rewards_land_in_rm_scores(verl_classes, tmp_path):
    from support.verl_loop import VERL_SAMPLING, agent_loop

    stack = bfcl_stack()
    rows = verl_rows(tmp_path)
    assert json.loads(rows[0]["extra_info"][RLF_TASK_KEY]) == bfcl_tasks()[0]
    loop = agent_loop(
        verl_classes,
        tmp_path,
        rollout={"prompt_length": 8192, "response_length": 8192, "multi_turn": {"max_assistant_turns": 32}},
        rollout_url=stack.service_url,
        inference_urls=[stack.sim_url],
    )
    output = asyncio.run(loop.run(VERL_SAMPLING, **rows[0]))
    extra = output.extra_fields
    assert extra["rlf_status"] == "completed", extra["rlf_status_reason"]
    assert extra["rlf_num_tool_calls"] > 0
    assert extra["rlf_reward_components"] == {"bfcl_state": 1.0}
    assert output.reward_score == 1.0
    # tool_success per successful call: each turn with calls earns 0.1 per call, on its last token
    pairs = extra["rlf_turn_rewards"]
    assert pairs and sum(r for _, r in pairs) == pytest.approx(TOOL_SUCCESS * extra["rlf_num_tool_calls"])

    worker, internal = padded(verl_classes, loop, output, rows[0])
    batch = worker._postprocess([internal])
    scores = batch.batch["rm_scores"][0]
    last = len(output.response_ids) - 1
    expected = [0.0] * scores.shape[0]
    expected[last] += 1.0
    for index, reward in pairs:
        assert output.response_mask[index] == 1  # a sampled turn's last token
        expected[index] += reward
    assert scores.tolist() == pytest.approx(expected)
    assert scores.sum().item() == pytest.approx(1.0 + TOOL_SUCCESS * extra["rlf_num_tool_calls"])


def test_verl_credit_outcome_keeps_the_reward_on_the_last_token_only(verl_classes, tmp_path):
    from support.verl_loop import VERL_SAMPLING, agent_loop

    stack = bfcl_stack()
    loop = agent_loop(
        verl_classes,
        tmp_path,
        rollout={"prompt_length": 8192, "response_length": 8192, "multi_turn": {"max_assistant_turns": 32}},
        rollout_url=stack.service_url,
        inference_urls=[stack.sim_url],
        credit="outcome",
    )
    row = verl_rows(tmp_path)[1]
    output = asyncio.run(loop.run(VERL_SAMPLING, **row))
    assert output.extra_fields["rlf_reward_components"]["bfcl_state"] == 1.0
    assert output.extra_fields["rlf_turn_rewards"] == []
    worker, internal = padded(verl_classes, loop, output, row)
    scores = worker._postprocess([internal]).batch["rm_scores"][0]
    assert scores.sum().item() == pytest.approx(1.0) and scores[len(output.response_ids) - 1].item() == 1.0


# --- slime -----------------------------------------------------------------------------------------


def slime_samples() -> list[Sample]:
    """The exported JSONL as slime's dataset makes Samples of it (`--input-key prompt --label-key label
    --metadata-key metadata`)."""
    rows = [json.loads(line) for line in export("slime").read_text().splitlines() if line.strip()]
    return [
        Sample(group_index=i, index=i, prompt=r["prompt"], label=r["label"], metadata=r["metadata"])
        for i, r in enumerate(rows)
    ]


def test_slime_sample_runs_its_bfcl_episode_with_the_turn_rewards_in_its_metadata():
    stack = bfcl_stack()
    sample = slime_samples()[0]
    args = SimpleNamespace(
        rlf_rollout_url=stack.service_url,
        rlf_inference_urls=stack.sim_url,
        rlf_max_tokens_per_turn=2048,
        rlf_filler_token_id=151645,
        apply_chat_template=False,
        reward_key=None,
    )
    sampling = {"temperature": 0.0, "top_p": 1.0, "max_new_tokens": 2048}
    sample = asyncio.run(slime_adapter.generate(args, sample, sampling))
    rlf = sample.metadata["rlf"]
    assert sample.status == Sample.Status.COMPLETED, rlf["status_reason"]
    check_bfcl_episode(rlf["reward_components"], rlf["tool_calls"], sample.reward)
    row = train_row(sample)
    assert row["reward"] == 1.0
    # slime takes one reward per sample: the per-turn values ride along, each on its turn's last token
    turn_rewards = rlf["turn_rewards"]
    assert sum(turn_rewards) == pytest.approx(TOOL_SUCCESS * len(rlf["tool_calls"]))
    positions = rlf["turn_reward_positions"]
    assert [r for _, r in positions] == [r for r in turn_rewards if r != 0.0]
    assert all(sample.loss_mask[i] == 1 for i, _ in positions)


# --- SkyRL -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def skyrl():
    if SKYRL is None:
        pytest.skip(HOW_LOADED)
    return SKYRL


def skyrl_prompts() -> list[tuple[list, dict]]:
    """The exported Parquet as SkyRL's PromptDataset reads it: (prompt, env_extras) per row."""
    datasets = pytest.importorskip("datasets")
    rows = datasets.load_dataset("parquet", data_files=str(export("skyrl")), keep_in_memory=True)["train"]
    out = []
    for row in rows:
        row = dict(row)
        prompt = row.pop("prompt")
        row.pop("env_class", None)
        out.append((prompt, row))
    return out


def test_skyrl_batch_runs_its_bfcl_episodes_with_per_token_rewards(skyrl):
    stack = bfcl_stack()
    prompts = skyrl_prompts()
    n_samples = 1
    batch = skyrl.GeneratorInput(
        prompts=[p for p, _ in prompts for _ in range(n_samples)],
        env_classes=[None] * len(prompts) * n_samples,
        env_extras=[e for _, e in prompts for _ in range(n_samples)],
        sampling_params={"temperature": 0.0, "top_p": 1.0, "max_generate_length": 2048},
        trajectory_ids=[skyrl.TrajectoryID(instance_id=str(i), repetition_id=0) for i in range(len(prompts))],
        batch_metadata=skyrl.BatchMetadata(global_step=3, training_phase="train"),
    )
    generator = skyrl_adapter.RLFactoryGenerator(
        rollout_url=stack.service_url, inference_urls=[stack.sim_url], tokenizer=SimpleNamespace(eos_token_id=151645)
    )
    out = asyncio.run(generator.generate(batch))
    assert out["stop_reasons"] == ["stop"] * len(prompts)
    for i, metrics in enumerate(out["env_metrics"]):
        assert metrics["rlf_num_tool_calls"] > 0
        assert metrics["rlf_reward_components"] == {"bfcl_state": 1.0}
        rewards, response, mask = out["rewards"][i], out["response_ids"][i], out["loss_masks"][i]
        assert isinstance(rewards, list) and len(rewards) == len(response)
        turn_rewards = metrics["rlf_turn_rewards"]
        assert sum(turn_rewards) == pytest.approx(TOOL_SUCCESS * metrics["rlf_num_tool_calls"])
        assert sum(rewards) == pytest.approx(1.0 + sum(turn_rewards))
        assert rewards[-1] == pytest.approx(1.0)  # the answer turn makes no call: the reward alone
        placed = [j for j, r in enumerate(rewards) if r != 0.0 and j != len(rewards) - 1]
        assert placed and all(mask[j] == 1 for j in placed)


def test_a_whole_task_without_its_environment_would_not_have_reached_the_bfcl_tools():
    """The control: the same BFCL prompt sent as verl's old adapter sent it (prompt, ground truth, data
    source, extra_info only) finds none of the environment's tools."""
    stack = bfcl_stack()
    task = bfcl_tasks()[0]
    thin = {k: task[k] for k in ("id", "prompt", "ground_truth", "data_source", "extra_info") if k in task}
    [group] = RolloutServiceClient(stack.service_url).rollout(
        [thin], group_size=1, inference_urls=[stack.sim_url], max_turns=4
    )
    t: Trajectory = group.trajectories[0]
    assert t.reward is None or t.reward_components.get("bfcl_state") != 1.0
    assert any(c.get("error_code") for c in t.tool_calls) or not t.tool_calls
