"""Tasks for the rollout service built from an engine's dataset row (prompt, label, metadata).

Engines hand their adapters what their own data loaders produced: verl rows come out of a parquet file
as numpy arrays and numpy scalars (`reward_model.ground_truth` of Search-R1 data is a numpy array of
strings), SkyRL puts the ground truth under `reward_spec`, slime under `Sample.label`. `plain` turns
all of that into JSON values; `task_from` builds the service's task (see `client.make_task`) and
refuses a prompt the service could not render, naming what is wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .client import TASK_FIELDS, make_task

#: The dataset column (TRL), `extra_info` key (verl), `Sample.metadata` key (slime) or `env_extras` key
#: (SkyRL) that carries a whole rlfactory task, as a JSON object or its JSON text (`rlf data export`).
RLF_TASK_KEY = "rlf_task"


def plain(value: Any) -> Any:
    """`value` as plain JSON types: numpy arrays/scalars (anything with `tolist`) become lists/numbers."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return plain(tolist())
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", errors="replace")
    return str(value)


def messages_of(prompt: Any, *, where: str = "prompt") -> list[dict[str, Any]]:
    """Chat messages from a prompt: a string is one user message; a list must hold {role, content} dicts."""
    prompt = plain(prompt)
    if isinstance(prompt, str):
        if not prompt:
            raise ValueError(f"{where} is an empty string")
        return [{"role": "user", "content": prompt}]
    if not isinstance(prompt, list) or not prompt:
        raise ValueError(f"{where} must be a string or a non-empty list of chat messages, got {type(prompt).__name__}")
    messages = []
    for i, message in enumerate(prompt):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError(f"{where}[{i}] must be a chat message with a string 'role', got {str(message)[:120]}")
        if not isinstance(message.get("content"), str):
            raise ValueError(
                f"{where}[{i}] ({message['role']}) has non-text content; the rollout service takes text messages"
            )
        messages.append(message)
    return messages


def ground_truth_of(row: Mapping[str, Any]) -> Any:
    """The ground truth of a dataset row: verl `reward_model.ground_truth`, SkyRL
    `reward_spec.ground_truth`, or a top-level `ground_truth`; None when absent."""
    for holder in ("reward_model", "reward_spec"):
        spec = row.get(holder)
        if isinstance(spec, Mapping) and spec.get("ground_truth") is not None:
            return plain(spec["ground_truth"])
    value = row.get("ground_truth")
    return None if value is None else plain(value)


def whole_task(value: Any, *, where: str = RLF_TASK_KEY) -> dict[str, Any]:
    """A whole task from an engine row's `rlf_task` value (an object, or its JSON text); refused when it
    is not an object with a prompt."""
    value = plain(value)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as e:
            raise ValueError(f"{where} is not JSON: {e}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a task object, got {type(value).__name__}")
    unknown = sorted(set(value) - set(TASK_FIELDS))
    if unknown:
        raise ValueError(f"{where} has fields a task does not: {', '.join(unknown)}")
    if "prompt" not in value:
        raise ValueError(f"{where} has no prompt")
    task = {k: v for k, v in value.items() if v is not None}
    task["prompt"] = messages_of(task["prompt"], where=f"{where}.prompt")
    return task


def task_fields_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The task fields a row carries: its `rlf_task` (whole), else the task's fields found at the row's top
    level (`environment`, `tools`, `tool_aliases`, `turns`, `user_simulator`, ...); None values left out."""
    if row.get(RLF_TASK_KEY) is not None:
        return whole_task(row[RLF_TASK_KEY])
    return {name: plain(row[name]) for name in TASK_FIELDS if row.get(name) is not None}


def task_from(
    task_id: str,
    prompt: Any,
    *,
    ground_truth: Any = None,
    data_source: Any = None,
    extra_info: Any = None,
) -> dict[str, Any]:
    """The service's task JSON (`{id, prompt, ground_truth?, data_source?, extra_info?}`)."""
    info = plain(extra_info) if extra_info is not None else None
    if info is not None and not isinstance(info, dict):
        info = {"value": info}
    source = plain(data_source)
    return make_task(
        task_id,
        messages_of(prompt),
        ground_truth=plain(ground_truth),
        data_source=str(source) if source else None,
        extra_info=info or None,
    )


#: Task fields beyond the prompt, ground truth, data source and extra_info: what the engines' own columns
#: do not carry and a row passes through from its `rlf_task` or its top-level fields.
ENVIRONMENT_FIELDS = ("tools", "turns", "user_simulator", "environment", "tool_aliases")


def row_task(
    task_id: str,
    *,
    whole: Any = None,
    row: Mapping[str, Any] | None = None,
    prompt: Any = None,
    ground_truth: Any = None,
    data_source: Any = None,
    extra_info: Any = None,
) -> dict[str, Any]:
    """The service task of one engine row, with id `task_id`.

    `whole` is the row's `rlf_task` where the engine keeps it (verl `extra_info.rlf_task`, slime
    `Sample.metadata["rlf_task"]`, SkyRL `env_extras["rlf_task"]`, a TRL column): then that task is sent
    whole. Without one, the task is built from the engine's prompt, ground truth, data source and
    extra_info (without any `rlf_task` key), plus every other task field found at the row's top level
    (`environment`, `tools`, `tool_aliases`, `turns`, `user_simulator`).
    """
    if whole is not None:
        task = whole_task(whole)
        task["id"] = task_id
        return task
    info = plain(extra_info) if extra_info is not None else None
    if isinstance(info, dict):
        info = {k: v for k, v in info.items() if k != RLF_TASK_KEY}
    task = task_from(task_id, prompt, ground_truth=ground_truth, data_source=data_source, extra_info=info)
    fields = {k: v for k, v in (row or {}).items() if k != RLF_TASK_KEY}
    for name, value in task_fields_of(fields).items():
        if name in ENVIRONMENT_FIELDS:
            task[name] = value
    return task


def sampling_overrides(params: Mapping[str, Any] | None, names: Mapping[str, str]) -> dict[str, Any]:
    """The service's `sampling` block from an engine's sampling params, renaming keys by `names`
    (engine name -> service name); absent or None values are left out."""
    out: dict[str, Any] = {}
    for engine_name, service_name in names.items():
        value = (params or {}).get(engine_name)
        if value is None:
            continue
        if service_name == "stop":
            value = [value] if isinstance(value, str) else list(value)
            if not value:
                continue
        out[service_name] = plain(value)
    return out


def first_present(*values: Any) -> Any:
    """The first value that is not None."""
    for value in values:
        if value is not None:
            return value
    return None


def split_urls(value: str | Sequence[str] | None) -> list[str]:
    """Inference server URLs from a list or a comma-separated string; `host:port` gets `http://`."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    urls = []
    for item in items:
        item = str(item).strip()
        if not item:
            continue
        urls.append(item if "://" in item else f"http://{item}")
    return urls
