"""A faithful description of slime's `Sample` for the tests: slime cannot be installed here.

slime (THUDM/slime) is not published on PyPI: the PyPI project `slime` (0.0.0) is an unrelated
statistics package ("Simple linear mixed effects model"), and slime itself installs from source next to
Megatron-LM and SGLang. So the tests check the adapter against this description of the fields it
writes and slime reads, taken from THUDM/slime at commit 624b824 (2026-08-21):

- `slime/utils/types.py` `Sample`: a dataclass with the fields below (others omitted: multimodal,
  top-p replay, routed experts, spec/prefix-cache info), and the nested `Sample.Status` enum
  (pending, completed, truncated, aborted, failed). `_validate_response_metadata_lengths` requires
  `len(loss_mask) == response_length` and `len(rollout_log_probs) == response_length`.
- `slime/ray/rollout.py` (`_convert_samples_to_train_data`): reads `tokens`, `response_length`,
  `reward` (through `get_reward_value`: the value itself, or `reward[args.reward_key]`),
  `status == TRUNCATED`, `index`, `rollout_id`; asserts the mask length; a sample with
  `remove_sample` gets an all-zero loss mask. The response is `tokens[-response_length:]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


@dataclass
class Sample:
    group_index: int | None = None
    index: int | None = None
    rollout_id: int | None = None
    prompt: str | list[dict[str, str]] = ""
    tokens: list[int] = field(default_factory=list)
    response: str = ""
    response_length: int = 0
    label: str | None = None
    reward: float | dict[str, Any] | None = None
    loss_mask: list[int] | None = None
    weight_versions: list[str] = field(default_factory=list)
    rollout_log_probs: list[float] | None = None
    remove_sample: bool = False

    class Status(Enum):
        PENDING = "pending"
        COMPLETED = "completed"
        TRUNCATED = "truncated"
        ABORTED = "aborted"
        FAILED = "failed"

    status: Status = Status.PENDING
    metadata: dict = field(default_factory=dict)
    session_id: str | None = None


def train_row(sample: Sample, reward_key: str | None = None) -> dict[str, Any]:
    """What slime's `_convert_samples_to_train_data` takes from one sample, with its checks."""
    n = sample.response_length
    assert n > 0, "a response of length 0 would make tokens[-0:] the whole sequence"
    assert sample.loss_mask is not None and len(sample.loss_mask) == n, (
        f"loss mask length {None if sample.loss_mask is None else len(sample.loss_mask)} != response length {n}"
    )
    assert sample.rollout_log_probs is not None and len(sample.rollout_log_probs) == n
    reward = sample.reward[reward_key] if reward_key else sample.reward
    assert isinstance(reward, (int, float)) and not isinstance(reward, bool), f"reward {reward!r} is not a number"
    return {
        "tokens": sample.tokens,
        "response": sample.tokens[-n:],
        "response_length": n,
        "reward": float(reward),
        "truncated": 1 if sample.status == Sample.Status.TRUNCATED else 0,
        "loss_mask": [0] * n if sample.remove_sample else list(sample.loss_mask),
    }
