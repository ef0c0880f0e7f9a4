"""The TRL adapter's mapping, on recorded rollout-service answers: one completion per TRL prompt entry,
in order; loss mask → env_mask; statuses TRL can live with. (The training itself: test/engines.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rlfactory_engines.trl import (
    completions_of,
    make_rollout_func,
    prompt_blocks,
    rlf_reward,
    tasks_by_prompt,
)
from support import recorded

EOS = 151645


def test_trajectories_become_completions_unchanged():
    for scenario in ("completed", "truncated", "length", "sglang"):
        for g in recorded.groups(scenario):
            rows = completions_of(g, len(g.trajectories), EOS)
            for row, t in zip(rows, g.trajectories, strict=True):
                assert row["prompt_ids"] == t.prompt_ids
                assert row["completion_ids"] == t.response_ids
                assert row["logprobs"] == t.rollout_logprobs
                assert row["env_mask"] == t.loss_mask
                assert row["rlf_reward"] == t.reward
                assert row["rlf_status"] == t.status


def test_failed_and_aborted_trajectories_are_placeholders_with_no_loss_and_no_reward():
    for scenario in ("failed", "aborted"):
        for g in recorded.groups(scenario):
            for row in completions_of(g, len(g.trajectories), EOS):
                assert row["rlf_status"] == scenario
                assert row["rlf_reward"] is None
                assert row["completion_ids"]  # TRL reads the last id
                assert set(row["env_mask"]) == {0}
                assert len(row["logprobs"]) == len(row["completion_ids"])


def test_stale_trajectories_keep_their_reward_but_get_no_loss():
    rows = [r for g in recorded.groups("stale_flag") for r in completions_of(g, len(g.trajectories), EOS)]
    assert rows and all(r["rlf_status"] == "stale" and set(r["env_mask"]) == {0} for r in rows)
    assert all(r["rlf_reward"] is not None for r in rows)


def test_a_dropped_group_still_fills_its_places():
    g = recorded.groups("stale_drop")[0]
    assert g.dropped_stale > 0 and not g.trajectories
    rows = completions_of(g, 4, EOS)
    assert len(rows) == 4
    assert all(r["rlf_status"] == "dropped_stale" and r["rlf_reward"] is None for r in rows)


def test_trl_prompt_runs_become_one_task_each():
    a = [{"role": "user", "content": "a"}]
    b = [{"role": "user", "content": "b"}]
    assert prompt_blocks([a, a, a, b, b, b], 3) == [a, b]
    # not runs of num_generations: every entry is its own task
    assert prompt_blocks([a, b, a, b], 2) == [a, b, a, b]
    assert prompt_blocks(["x", "y"], 1) == ["x", "y"]


def test_tasks_by_prompt_finds_the_ground_truth_and_names_a_missing_prompt():
    rows = [{"prompt": [{"role": "user", "content": "Who?"}], "ground_truth": ["Ann"], "data_source": "nq"}]
    task = tasks_by_prompt(rows)([{"role": "user", "content": "Who?"}])
    assert task["ground_truth"] == ["Ann"] and task["data_source"] == "nq"
    with pytest.raises(KeyError, match="no dataset row"):
        tasks_by_prompt(rows)([{"role": "user", "content": "Other?"}])


def test_rlf_reward_passes_the_services_reward_through():
    assert rlf_reward(completions=[1, 2], rlf_reward=[0.5, None]) == [0.5, None]
    with pytest.raises(ValueError):
        rlf_reward(completions=[1])


class FakeService:
    """Stands in for RolloutServiceClient, answering from a recording (the adapter's own logic only)."""

    def __init__(self, scenario):
        self.groups = recorded.groups(scenario)
        self.calls = []

    def set_policy_version(self, v):
        self.calls.append(("version", v))

    def rollout(self, tasks, **options):
        self.calls.append(("rollout", tasks, options))
        by_index = []
        for task, g in zip(tasks, self.groups, strict=False):
            by_index.append(type(g)(task["id"], g.group_id, g.trajectories, g.stats, g.dropped_stale))
        return by_index


def test_rollout_func_sends_the_step_and_the_engines_server_and_answers_in_order():
    service = FakeService("completed")
    group = recorded.groups("completed")[0]
    n = len(group.trajectories)
    func = make_rollout_func(inference_urls=["http://gpu-0:8000"], client=service)
    trainer = SimpleNamespace(
        model=SimpleNamespace(training=True),
        num_generations=n,
        num_generations_eval=n,
        state=SimpleNamespace(global_step=7),
        temperature=0.9,
        top_p=1.0,
        top_k=0,
        min_p=None,
        repetition_penalty=1.0,
        max_completion_length=64,
        eos_token_ids=[EOS],
    )
    out = func(["q"] * n, trainer)
    assert service.calls[0] == ("version", 7)
    _, tasks, options = service.calls[1]
    assert len(tasks) == 1 and options["group_size"] == n and options["policy_version"] == 7
    assert options["inference_urls"] == ["http://gpu-0:8000"]
    assert options["sampling"] == {"temperature": 0.9, "top_p": 1.0, "repetition_penalty": 1.0, "max_tokens": 64}
    assert out["completion_ids"] == [t.response_ids for t in group.trajectories]
    assert all(len(v) == n for v in out.values())
