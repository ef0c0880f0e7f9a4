"""Which logprobs a trajectory's `rollout_logprobs` are, and whether a trainer's importance sampling
can use them.

The rollout service records per trajectory `logprobs_kind` (what its inference servers return, config
`inference.logprobs_mode`) and `sampling_temperature`:

  raw        log_softmax(logits): the policy at temperature 1, before any sampling processor (vLLM's
             default `--logprobs-mode raw_logprobs`; SGLang with SGLANG_RETURN_ORIGINAL_LOGPROB=1)
  processed  of the distribution the token was drawn from, after temperature (vLLM
             `--logprobs-mode processed_logprobs`, SGLang's default)

verl, slime, SkyRL and TRL all recompute the policy's logprobs with the logits divided by the rollout
temperature and compare them with the rollout logprobs in their importance-sampling correction (TIS,
rollout correction). That comparison needs `processed` logprobs. `raw` ones at a temperature other
than 1 are of another distribution, and cannot be converted: log_softmax(logits / T) needs the whole
logit row, the record holds one logprob per token. See docs/training.md "Which logprobs".
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from .records import Trajectory

LOGPROBS_KINDS = ("raw", "processed")


class RolloutLogprobsWarning(UserWarning):
    """Rollout logprobs that a trainer's importance-sampling correction would misread."""


class RolloutLogprobsError(ValueError):
    """Rollout logprobs that a trainer's importance-sampling correction cannot use."""


def logprobs_mode(value: object, where: str) -> str | None:
    """An adapter's `inference_logprobs_mode` setting as the service takes it: `raw` | `processed`, also
    spelled as vLLM's `--logprobs-mode` values (`raw_logprobs`, `processed_logprobs`, which verl's rollout
    config uses); None when unset. Anything else is a ValueError naming `where`."""
    if value is None or value == "":
        return None
    text = str(value).strip().lower().removesuffix("_logprobs")
    if text not in LOGPROBS_KINDS:
        raise ValueError(
            f"{where}: {value!r} is not a logprobs mode: use raw or processed (vLLM's raw_logprobs / "
            "processed_logprobs are accepted too)"
        )
    return text


def tempered_logprobs_problem(t: Trajectory) -> str | None:
    """Why `t`'s rollout logprobs are not those of the distribution it was sampled from, or None
    when they are (processed, or raw at temperature 1) or the record does not say (older services)."""
    temperature = t.sampling_temperature
    if t.logprobs_kind != "raw" or temperature is None or temperature in (0.0, 1.0):
        return None
    return (
        f"the rollout logprobs are raw (temperature 1) but the tokens were sampled at temperature "
        f"{temperature:g}: an importance-sampling correction (TIS, rollout correction) that compares them "
        "with the trainer's logprobs at that temperature is biased. Serve processed logprobs (vLLM "
        "`--logprobs-mode processed_logprobs`; SGLang without SGLANG_RETURN_ORIGINAL_LOGPROB) and declare "
        "them in the rollout config (`inference.logprobs_mode: processed`), or sample at temperature 1"
    )


def check_rollout_logprobs(trajectories: Iterable[Trajectory], engine: str, *, strict: bool = False) -> None:
    """Warns (or, `strict`, raises `RolloutLogprobsError`) once per call when a trajectory's logprobs
    are raw at a temperature other than 1 (see `tempered_logprobs_problem`)."""
    for t in trajectories:
        problem = tempered_logprobs_problem(t)
        if problem is None:
            continue
        message = f"{engine}: {problem}"
        if strict:
            raise RolloutLogprobsError(message)
        warnings.warn(message, RolloutLogprobsWarning, stacklevel=3)
        return
