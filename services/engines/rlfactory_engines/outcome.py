"""What an engine should do with one trajectory: train on it or not, and which reward to record.

slime, verl and SkyRL all need one row per sample they asked for, with a numeric reward, so a
trajectory the engine must not learn from is kept as a row whose loss mask is all 0. The rule, shared
by the three adapters (each maps it onto its own fields; see docs/*.md):

| trajectory                                   | trainable | reward recorded  | why        |
| -------------------------------------------- | --------- | ---------------- | ---------- |
| completed / truncated, scored, fresh         | yes       | its reward       | `ok`       |
| completed / truncated, `stale` (flag)        | no        | its reward       | `stale`    |
| completed / truncated, reward null (scoring  | no        | 0.0              | `unscored` |
|   failed: `reward_error`)                    |           |                  |            |
| aborted                                      | no        | 0.0              | `aborted`  |
| failed                                       | no        | 0.0              | `failed`   |

A stale trajectory keeps its reward: it was sampled and scored correctly, so it still belongs in its
group's baseline; only its gradient (from old weights) is withheld. The 0.0 of the other rows is a
placeholder the engine needs, never a judgement: the row has no loss, and `why` travels with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .records import Trajectory, TrajectoryGroup


@dataclass(frozen=True)
class Outcome:
    #: Its sampled tokens get a loss.
    trainable: bool
    #: The scalar reward the engine records for the row.
    reward: float
    #: ok | stale | unscored | aborted | failed
    why: str


def outcome_of(t: Trajectory) -> Outcome:
    if t.status in ("aborted", "failed"):
        return Outcome(False, 0.0, t.status)
    if t.reward is None:
        return Outcome(False, 0.0, "unscored")
    if t.stale:
        return Outcome(False, float(t.reward), "stale")
    return Outcome(True, float(t.reward), "ok")


def int_versions(t: Trajectory) -> list[int]:
    """The integer weight versions a trajectory was sampled under (turns first, else its own)."""
    versions = [v for v in t.weight_versions if v is not None]
    if not versions and t.policy_version is not None:
        versions = [t.policy_version]
    out = []
    for v in versions:
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            out.append(v)
        elif isinstance(v, str) and v.strip().lstrip("-").isdigit():
            out.append(int(v))
    return out


def response_or_filler(t: Trajectory, filler_token_id: int | None) -> tuple[list[int], list[int], list[float]]:
    """(response ids, loss mask, logprobs); a trajectory with no response (failed before its first
    token) becomes one masked filler token, since every engine indexes the response's last token."""
    response, mask, logprobs = list(t.response_ids), list(t.loss_mask), list(t.rollout_logprobs)
    if response:
        return response, mask, logprobs
    if filler_token_id is None:
        raise ValueError(
            f"trajectory {t.group_id}/{t.sample_index} ({t.status}: {t.status_reason}) has no response "
            "tokens; pass filler_token_id (the tokenizer's pad or EOS id) to keep it as a masked row"
        )
    return [int(filler_token_id)], [0], [0.0]


def only_trajectory(groups: Sequence[TrajectoryGroup], task_id: str, engine: str) -> Trajectory:
    """The one trajectory of a `group_size: 1` request; an error naming the fix when the service
    dropped it as stale (these engines need one row per sample)."""
    group = next((g for g in groups if g.task_id == task_id), None)
    if group is None:
        raise RuntimeError(f"the rollout service answered no group for task {task_id}")
    if not group.trajectories:
        raise RuntimeError(
            f"the rollout service dropped task {task_id} as stale ({group.dropped_stale} trajectories); {engine} "
            "needs one row per sample: use the service's staleness `on_stale: flag` (stale rows are then not "
            "trained on)"
        )
    return group.trajectories[0]
