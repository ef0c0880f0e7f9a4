"""Shared helpers of the engine adapters: tasks from engine rows, judge requests, gateway tool schemas."""

from __future__ import annotations

import pytest
from rlfactory_engines.judge import (
    final_answer,
    gold_answers,
    judge_request,
    rule_requests,
)
from rlfactory_engines.outcome import int_versions, outcome_of
from rlfactory_engines.tasks import (
    ground_truth_of,
    messages_of,
    plain,
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
