"""Adapters between RL training engines (slime, verl, SkyRL, TRL) and the rlfactory rollout service.

The engine keeps its weights, inference servers and gradient step; the rollout service
(`rlf rollout serve`) runs the multi-turn tool rollouts against the engine's inference servers and
returns token-level trajectories (ids, loss mask, rollout logprobs, reward, GRPO advantage).
"""

from .client import RolloutServiceClient, RolloutServiceError
from .records import Trajectory, TrajectoryGroup, TrajectoryRecordError

__all__ = [
    "RolloutServiceClient",
    "RolloutServiceError",
    "Trajectory",
    "TrajectoryGroup",
    "TrajectoryRecordError",
]
