"""The rollout service's recorded answers (tests/recorded/*.json, written by scripts/record_responses.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlfactory_engines.records import Trajectory, TrajectoryGroup

RECORDED = Path(__file__).resolve().parents[1] / "recorded"
SCENARIOS = ("completed", "truncated", "length", "failed", "sglang", "stale_flag", "stale_drop", "aborted")


def raw(scenario: str) -> dict[str, Any]:
    """`{"scenario", "request", "response"}` as recorded."""
    return json.loads((RECORDED / f"{scenario}.json").read_text())


def groups(scenario: str) -> list[TrajectoryGroup]:
    return [TrajectoryGroup.from_json(g) for g in raw(scenario)["response"]["groups"]]


def trajectories(scenario: str) -> list[Trajectory]:
    return [t for g in groups(scenario) for t in g.trajectories]


def raw_trajectories(scenario: str) -> list[dict[str, Any]]:
    """The trajectories' JSON as the service sent it, sorted like `trajectories` (group, sample index)."""
    out = []
    for g in raw(scenario)["response"]["groups"]:
        out.extend(sorted(g["trajectories"], key=lambda t: t["sample_index"]))
    return out


def all_pairs() -> list[tuple[str, Trajectory, dict[str, Any]]]:
    """(scenario, parsed trajectory, its raw JSON) for every recorded trajectory."""
    pairs = []
    for scenario in SCENARIOS:
        for t, r in zip(trajectories(scenario), raw_trajectories(scenario), strict=True):
            pairs.append((scenario, t, r))
    return pairs
