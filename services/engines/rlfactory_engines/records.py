"""Trajectories and groups as the rollout service sends them (its HTTP JSON; docs/trajectory.md).

The record is defined once, in @rlfactory/contracts; its JSON Schema is proto/schema/trajectory.schema.json,
and tests/test_records_schema.py checks this dataclass against it field by field. Parsed once at the edge
and checked for the invariants every engine relies on: one loss-mask value and one logprob per response
id, mask 0/1, logprob 0.0 wherever the mask is 0, a known status. A record that breaks one is refused
with `TrajectoryRecordError`, never patched. `to_json` writes a parsed record back exactly (JSONL round-trips).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1
STATUSES = ("completed", "truncated", "aborted", "failed")
LOGPROBS_KINDS = ("raw", "processed")

#: The record's optional keys, each with the value an absent key reads as. `to_json` writes a key when
#: the parsed JSON had it (`json_keys`) or when its value differs from that.
OPTIONAL_FIELDS: dict[str, Any] = {
    "logprobs_kind": None,
    "sampling_temperature": None,
    "reward_error": None,
    "turn_rewards": None,
    "advantage": None,
    "stale": False,
    "metadata": {},
    "images": None,
}


class TrajectoryRecordError(ValueError):
    """A trajectory or group from the rollout service that breaks the record's contract."""


PolicyVersion = int | str | None


@dataclass(frozen=True)
class Trajectory:
    task_id: str
    group_id: str
    sample_index: int
    #: Weights the rollout started with: a trainer step (int) or an engine's version string.
    policy_version: PolicyVersion
    prompt_ids: list[int]
    #: Every token after the prompt: sampled turns (mask 1) and observation turns (mask 0), in order.
    response_ids: list[int]
    loss_mask: list[int]
    #: The sampler's logprob per sampled id; 0.0 on observation ids.
    rollout_logprobs: list[float]
    turns: list[dict[str, Any]]
    tool_calls: list[dict[str, Any]]
    #: None when not scored or scoring failed (see reward_error).
    reward: float | None
    reward_components: dict[str, float]
    #: completed | truncated | aborted | failed
    status: str
    status_reason: str | None
    #: Why scoring failed ({component, code, message}); None: it did not, or the service did not say.
    reward_error: dict[str, str] | None = None
    #: GRPO group-normalised advantage; None when the group could not be normalised.
    advantage: float | None = None
    #: Sampled too many versions behind the trainer's current one (rollout service staleness: flag).
    stale: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: raw (temperature 1) | processed (after temperature) | None (the service did not say); see logprobs.py.
    logprobs_kind: str | None = None
    #: The temperature the sampled turns were drawn at; None: not recorded.
    sampling_temperature: float | None = None
    #: One per entry of `turns` (0.0 on observation turns): process rewards + weighted per-turn
    #: components (`ftrl_solve`); None when the service computed none. A trainer puts entry i on the
    #: last token of turn i (`turn_reward_positions`).
    turn_rewards: list[float] | None = None
    #: Tool-result images in context order ({sha256, mime_type, path, width, height, shown, tool_call,
    #: turn, start?, end?, source_sha256?}): the bytes at `path` under the run directory, a shown
    #: image's `<|image_pad|>` tokens at response_ids[start:end] (mask 0); None: the record has none.
    images: list[dict[str, Any]] | None = None
    #: Which of OPTIONAL_FIELDS the JSON it was parsed from carried (so `to_json` writes the record back
    #: exactly: an `advantage: null` stays, an absent one stays absent). Not part of the record.
    json_keys: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The record as the rollout service writes it (one JSONL line, `json.dumps`-able)."""
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "task_id": self.task_id,
            "group_id": self.group_id,
            "sample_index": self.sample_index,
            "policy_version": self.policy_version,
            "prompt_ids": list(self.prompt_ids),
            "response_ids": list(self.response_ids),
            "loss_mask": list(self.loss_mask),
            "rollout_logprobs": list(self.rollout_logprobs),
            "turns": list(self.turns),
            "tool_calls": list(self.tool_calls),
            "reward": self.reward,
            "reward_components": dict(self.reward_components),
            "status": self.status,
            "status_reason": self.status_reason,
            "timings": dict(self.timings),
        }
        for name, absent in OPTIONAL_FIELDS.items():
            value = getattr(self, name)
            if name in self.json_keys or value != absent:
                out[name] = value
        return out

    def turn_reward_positions(self) -> list[tuple[int, float]]:
        """(index in response_ids of the turn's last token, reward) for each turn with a turn reward;
        [] when the trajectory carries none."""
        if self.turn_rewards is None:
            return []
        return [(int(turn["end"]) - 1, r) for turn, r in zip(self.turns, self.turn_rewards, strict=True)]

    @property
    def num_turns(self) -> int:
        """Sampled (model) turns."""
        return sum(1 for t in self.turns if t.get("kind") == "sampled")

    @property
    def weight_versions(self) -> list[PolicyVersion]:
        """The weight version each sampled turn reported (None where the sampler reported none)."""
        return [t.get("policy_version") for t in self.turns if t.get("kind") == "sampled"]

    @property
    def trainable(self) -> bool:
        """Has tokens to train on and a reward signal: not aborted/failed/stale, advantage set."""
        return (
            self.status in ("completed", "truncated")
            and self.advantage is not None
            and not self.stale
            and any(self.loss_mask)
        )

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Trajectory:
        where = f"trajectory {raw.get('task_id')!r}/{raw.get('sample_index')!r}"
        if not isinstance(raw, dict):
            raise TrajectoryRecordError("a trajectory must be a JSON object")
        if raw.get("schema_version") != SCHEMA_VERSION:
            raise TrajectoryRecordError(
                f"{where}: schema_version {raw.get('schema_version')!r}, this adapter reads {SCHEMA_VERSION}"
            )
        try:
            prompt_ids = _ints(raw["prompt_ids"], "prompt_ids", where)
            response_ids = _ints(raw["response_ids"], "response_ids", where)
            loss_mask = _ints(raw["loss_mask"], "loss_mask", where)
            logprobs = [float(x) for x in raw["rollout_logprobs"]]
            status = raw["status"]
        except KeyError as e:
            raise TrajectoryRecordError(f"{where}: missing field {e.args[0]}") from None
        except (TypeError, ValueError) as e:
            raise TrajectoryRecordError(f"{where}: {e}") from None
        if not prompt_ids:
            raise TrajectoryRecordError(f"{where}: prompt_ids is empty")
        n = len(response_ids)
        if len(loss_mask) != n or len(logprobs) != n:
            raise TrajectoryRecordError(
                f"{where}: {n} response ids but {len(loss_mask)} mask values and {len(logprobs)} logprobs"
            )
        for i, (m, lp) in enumerate(zip(loss_mask, logprobs, strict=True)):
            if m not in (0, 1):
                raise TrajectoryRecordError(f"{where}: loss_mask[{i}] is {m}, not 0 or 1")
            if m == 0 and lp != 0.0:
                raise TrajectoryRecordError(f"{where}: rollout_logprobs[{i}] is {lp} on an observation token")
            if math.isnan(lp) or lp > 0:
                raise TrajectoryRecordError(f"{where}: rollout_logprobs[{i}] is {lp}, not a logprob")
        if status not in STATUSES:
            raise TrajectoryRecordError(f"{where}: status {status!r} is not one of {', '.join(STATUSES)}")
        kind = raw.get("logprobs_kind")
        if kind not in (None, *LOGPROBS_KINDS):
            raise TrajectoryRecordError(f"{where}: logprobs_kind {kind!r} is not raw or processed")
        temperature = raw.get("sampling_temperature")
        turn_rewards = raw.get("turn_rewards")
        if turn_rewards is not None:
            try:
                turn_rewards = [float(x) for x in turn_rewards]
            except (TypeError, ValueError) as e:
                raise TrajectoryRecordError(f"{where}: turn_rewards: {e}") from None
            if len(turn_rewards) != len(raw.get("turns", [])):
                raise TrajectoryRecordError(
                    f"{where}: {len(turn_rewards)} turn_rewards but {len(raw.get('turns', []))} turns"
                )
            if any(not math.isfinite(x) for x in turn_rewards):
                raise TrajectoryRecordError(f"{where}: turn_rewards holds a value that is not finite")
        return cls(
            task_id=str(raw["task_id"]),
            group_id=str(raw["group_id"]),
            sample_index=int(raw["sample_index"]),
            policy_version=raw.get("policy_version"),
            prompt_ids=prompt_ids,
            response_ids=response_ids,
            loss_mask=loss_mask,
            rollout_logprobs=logprobs,
            turns=list(raw.get("turns", [])),
            tool_calls=list(raw.get("tool_calls", [])),
            reward=raw.get("reward"),
            reward_components=dict(raw.get("reward_components", {})),
            reward_error=raw.get("reward_error"),
            advantage=raw.get("advantage"),
            status=status,
            status_reason=raw.get("status_reason"),
            stale=bool(raw.get("stale", False)),
            timings=dict(raw.get("timings", {})),
            metadata=dict(raw.get("metadata", {})),
            logprobs_kind=kind,
            sampling_temperature=None if temperature is None else float(temperature),
            turn_rewards=turn_rewards,
            images=None if raw.get("images") is None else [dict(x) for x in raw["images"]],
            json_keys=frozenset(k for k in OPTIONAL_FIELDS if k in raw),
        )


@dataclass(frozen=True)
class TrajectoryGroup:
    task_id: str
    group_id: str
    #: Sorted by sample_index.
    trajectories: list[Trajectory]
    stats: dict[str, Any]
    #: Trajectories the service dropped as stale (staleness on_stale: drop); then `trajectories` is empty.
    dropped_stale: int = 0

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> TrajectoryGroup:
        if not isinstance(raw, dict) or "trajectories" not in raw:
            raise TrajectoryRecordError(f"not a trajectory group: {str(raw)[:200]}")
        trajectories = sorted((Trajectory.from_json(t) for t in raw["trajectories"]), key=lambda t: t.sample_index)
        return cls(
            task_id=str(raw["task_id"]),
            group_id=str(raw["group_id"]),
            trajectories=trajectories,
            stats=dict(raw.get("stats", {})),
            dropped_stale=int(raw.get("dropped_stale", 0)),
        )


def _ints(values: Any, name: str, where: str) -> list[int]:
    if not isinstance(values, list):
        raise TrajectoryRecordError(f"{where}: {name} must be a list")
    out = []
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise TrajectoryRecordError(f"{where}: {name} holds {v!r}, not a non-negative integer")
        out.append(v)
    return out
