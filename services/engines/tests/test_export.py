"""`rlf data export`: BFCL tasks (`rlf data bfcl`) written as each engine's dataset and read back the way
that engine reads it; every row's `rlf_task` is the task of the input file, field for field.

  verl   Parquet, read with pyarrow (verl's RLHFDataset reads it with HF datasets / pandas)
  skyrl  Parquet, read with `datasets.load_dataset("parquet")`, as SkyRL's PromptDataset does
  trl    JSONL, read with `datasets.load_dataset("json")`
  slime  JSONL, read line by line (slime's `--prompt-data` JSONL)
"""

from __future__ import annotations

import json

import pytest
from rlfactory_engines.tasks import RLF_TASK_KEY, whole_task
from support.bfcl_live import bfcl_tasks, export


def test_verl_parquet_carries_each_task_in_extra_info_and_selects_the_rlfactory_agent_loop():
    pq = pytest.importorskip("pyarrow.parquet")
    tasks = bfcl_tasks()
    rows = pq.read_table(export("verl")).to_pylist()
    assert [json.loads(r["extra_info"][RLF_TASK_KEY]) for r in rows] == tasks
    for i, (row, task) in enumerate(zip(rows, tasks, strict=True)):
        assert row["agent_name"] == "rlfactory"
        assert row["data_source"] == task["data_source"]
        assert row["prompt"] == [{"role": m["role"], "content": m["content"]} for m in task["prompt"]]
        assert json.loads(row["reward_model"]["ground_truth"]) == task["ground_truth"]
        assert row["extra_info"]["index"] == i and row["extra_info"]["task_id"] == task["id"]


def test_skyrl_parquet_carries_each_task_in_a_column_skyrl_hands_over_as_env_extras():
    datasets = pytest.importorskip("datasets")
    tasks = bfcl_tasks()
    rows = list(datasets.load_dataset("parquet", data_files=str(export("skyrl")), keep_in_memory=True)["train"])
    assert [json.loads(r[RLF_TASK_KEY]) for r in rows] == tasks
    # SkyRL's PromptDataset: the prompt and env_class are popped, every other column is env_extras
    extras = [{k: v for k, v in r.items() if k not in ("prompt", "env_class")} for r in rows]
    assert all(whole_task(e[RLF_TASK_KEY])["environment"]["server"] == "bfcl" for e in extras)
    assert [r["prompt"][0]["content"] for r in rows] == [t["prompt"][0]["content"] for t in tasks]


def test_trl_jsonl_loads_with_datasets_and_carries_each_task_in_a_column():
    datasets = pytest.importorskip("datasets")
    tasks = bfcl_tasks()
    ds = datasets.load_dataset("json", data_files=str(export("trl")), keep_in_memory=True)["train"]
    assert set(ds.column_names) == {"prompt", RLF_TASK_KEY}
    assert [json.loads(text) for text in ds[RLF_TASK_KEY]] == tasks


def test_slime_jsonl_carries_each_task_in_the_metadata_column():
    tasks = bfcl_tasks()
    rows = [json.loads(line) for line in export("slime").read_text().splitlines() if line.strip()]
    assert [json.loads(r["metadata"][RLF_TASK_KEY]) for r in rows] == tasks
    assert [r["label"] for r in rows] == [t["ground_truth"] for t in tasks]
    assert all(isinstance(m["content"], str) for r in rows for m in r["prompt"])
