"""Shared helpers of the engine adapters: tasks from engine rows, judge requests, gateway tool schemas."""

from __future__ import annotations

import dataclasses
import json

import pytest
from rlfactory_engines.credit import credit_mode, token_rewards
from rlfactory_engines.judge import (
    final_answer,
    gold_answers,
    judge_request,
    rule_requests,
)
from rlfactory_engines.outcome import int_versions, outcome_of
from rlfactory_engines.tasks import (
    RLF_TASK_KEY,
    ground_truth_of,
    messages_of,
    plain,
    row_task,
    sampling_overrides,
    split_urls,
    task_from,
)
from rlfactory_engines.verl import tool_schema_from_gateway
from support.recorded import groups


def test_plain_turns_parquet_values_into_json():
    np = pytest.importorskip("numpy")
    row = {"target": np.array(["a", "b"], dtype=object), "n": np.int64(3), "x": np.float32(0.5), "t": (1, 2)}
    assert plain(row) == {"target": ["a", "b"], "n": 3, "x": 0.5, "t": [1, 2]}
    assert type(plain(row)["n"]) is int


def test_a_string_prompt_is_one_user_message_and_a_bad_prompt_is_named():
    assert messages_of("hi") == [{"role": "user", "content": "hi"}]
    with pytest.raises(ValueError, match=r"prompt\[1\] must be a chat message"):
        messages_of([{"role": "user", "content": "a"}, "b"])
    with pytest.raises(ValueError, match="non-text content"):
        messages_of([{"role": "user", "content": [{"type": "image"}]}])
    with pytest.raises(ValueError, match="empty string"):
        messages_of("")


def test_ground_truth_comes_from_verl_skyrl_or_a_plain_column():
    assert ground_truth_of({"reward_model": {"style": "rule", "ground_truth": ["x"]}}) == ["x"]
    assert ground_truth_of({"reward_spec": {"method": "rule", "ground_truth": "y"}}) == "y"
    assert ground_truth_of({"ground_truth": {"target": ["z"]}}) == {"target": ["z"]}
    assert ground_truth_of({"other": 1}) is None


def test_task_from_builds_the_services_task_json():
    task = task_from("t1", "Q?", ground_truth=["A"], data_source="nq", extra_info={"split": "dev"})
    assert task == {
        "id": "t1",
        "prompt": [{"role": "user", "content": "Q?"}],
        "ground_truth": ["A"],
        "data_source": "nq",
        "extra_info": {"split": "dev"},
    }
    assert "extra_info" not in task_from("t2", "Q?", extra_info={})


def test_sampling_overrides_rename_and_drop_absent_values():
    assert sampling_overrides(
        {"max_new_tokens": 64, "top_p": None, "stop": []},
        {"max_new_tokens": "max_tokens", "top_p": "top_p", "stop": "stop"},
    ) == {"max_tokens": 64}


def test_split_urls_accepts_lists_commas_and_bare_addresses():
    assert split_urls("a:1, http://b:2,") == ["http://a:1", "http://b:2"]
    assert split_urls(None) == []


def test_outcomes_of_the_recorded_statuses():
    assert outcome_of(groups("completed")[0].trajectories[0]).trainable
    assert outcome_of(groups("stale_flag")[0].trajectories[0]).why == "stale"
    assert outcome_of(groups("failed")[0].trajectories[0]).why == "failed"
    assert outcome_of(groups("aborted")[0].trajectories[0]).why == "aborted"
    assert int_versions(groups("sglang")[0].trajectories[0]) == [12, 12]


def test_judge_requests_match_the_trainers_http_judge():
    assert gold_answers({"target": ["a", "b"]}) == ["a", "b"]
    assert final_answer("x <answer>1</answer> y <answer> 2 </answer>") == "2"
    assert final_answer("no tags ") == "no tags"
    body = judge_request(task="Q?", response="2", ground_truth={"target": ["two", "2"]}, rubric_id="qa")
    assert body == {"mode": "reference", "task": "Q?", "response": "2", "reference": "two | 2", "rubric_id": "qa"}
    assert judge_request(task="Q?", response="r")["mode"] == "pointwise"
    with pytest.raises(ValueError, match="needs the task"):
        judge_request(task="", response="r")
    assert [b["reference"] for b in rule_requests(response="r", ground_truth=["a", "b"], grader={})] == ["a", "b"]


def test_a_gateway_catalog_entry_becomes_an_openai_function_schema():
    entry = {
        "name": "search__search",
        "description": "Search passages",
        "input_schema_json": '{"type":"object","properties":{"query":{"type":"string","description":"q"},'
        '"top_k":{"type":"integer"},"mode":{"enum":["a","b"]}},"required":["query"]}',
    }
    schema = tool_schema_from_gateway(entry, name="search")
    assert schema["function"]["name"] == "search"
    assert schema["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "q"},
            "top_k": {"type": "integer"},
            "mode": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["query"],
    }


def test_row_task_sends_the_whole_rlf_task_else_the_rows_task_fields():
    whole = {
        "id": "multi_turn_base_0",
        "prompt": [{"role": "user", "content": "Make temp."}],
        "environment": {"server": "bfcl", "config": {}},
        "tool_aliases": {"mkdir": "bfcl__mkdir"},
        "turns": [{"content": "List it."}],
    }
    task = row_task("verl-0-x", whole=json.dumps(whole), prompt="ignored")
    assert task == {**whole, "id": "verl-0-x"}
    # no rlf_task: the engine's fields, plus the task fields found at the row's top level
    row = {"environment": {"server": "bfcl", "config": {}}, "tool_aliases": {"mkdir": "bfcl__mkdir"}, "other": 1}
    task = row_task("t", row=row, prompt="Q?", ground_truth=["A"], extra_info={"split": "x", RLF_TASK_KEY: None})
    assert task["environment"] == row["environment"] and task["tool_aliases"] == row["tool_aliases"]
    assert task["extra_info"] == {"split": "x"} and "other" not in task
    with pytest.raises(ValueError, match="fields a task does not"):
        row_task("t", whole={"prompt": "Q?", "bogus": 1})


def test_turn_credit_puts_each_turn_reward_on_its_last_token_beside_the_reward():
    t = groups("completed")[0].trajectories[0]
    turn_rewards = [0.25 if turn["kind"] == "sampled" else 0.0 for turn in t.turns]
    t = dataclasses.replace(t, turn_rewards=turn_rewards)
    outcome = outcome_of(t)
    n = len(t.response_ids)
    credited = token_rewards(t, outcome, n, credit="turn")
    ends = [turn["end"] - 1 for turn in t.turns if turn["kind"] == "sampled"]
    assert [i for i, _ in credited.turn_positions] == ends
    assert sum(credited.values) == pytest.approx(t.reward + sum(turn_rewards))
    assert credited.values[-1] == pytest.approx(t.reward + (0.25 if ends[-1] == n - 1 else 0.0))
    outcome_only = token_rewards(t, outcome, n, credit="outcome")
    assert outcome_only.values == [0.0] * (n - 1) + [t.reward] and outcome_only.turn_positions == []
    # a cut response drops the turns that end past it, and says how many
    cut = token_rewards(t, outcome, ends[0] + 1, credit="turn")
    assert cut.dropped == len(ends) - 1
    with pytest.raises(ValueError, match="credit must be one of turn, outcome"):
        credit_mode("per-token", "credit")


def test_rows_that_must_not_train_get_their_scalar_only():
    t = groups("failed")[0].trajectories[0]
    t = dataclasses.replace(t, turn_rewards=[0.5] * len(t.turns))
    credited = token_rewards(t, outcome_of(t), max(len(t.response_ids), 1), credit="turn")
    assert credited.turn_positions == [] and sum(credited.values) == 0.0
