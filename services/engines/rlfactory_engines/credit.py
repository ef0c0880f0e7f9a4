"""Per-turn rewards as per-token rewards: how a trajectory's `turn_rewards` reach an engine's credit assignment.

The rollout service scores a trajectory twice over when per-turn rewards are configured (docs/trajectory.md
"Per-turn rewards"): `reward`, the scalar every GRPO baseline uses (per-turn components enter it as their
mean, or sum), and `turn_rewards`, one value per turn (0 on observation turns). An engine that takes
per-token rewards (verl's `rm_scores`, SkyRL's `rewards` as `List[List[float]]`) gets both:

  credit "turn"     the scalar `reward` on the response's last token, plus `turn_rewards[i]` on the last
                    token of turn i (`Trajectory.turn_reward_positions`). A row's return (the sum of its
                    token rewards) is reward + sum(turn_rewards); an estimator that discounts returns
                    token by token (REINFORCE++, GAE) gives each turn the credit of its own value and the
                    ones after it, an outcome estimator (GRPO, RLOO) sees the return.
  credit "outcome"  the scalar `reward` on the last token only: what the engine gets without per-turn rewards.

A trajectory without `turn_rewards` gets the same tokens either way. A row that must not be trained on
(outcome.py) gets its recorded scalar only. Turns that end past a cut response (verl's
`rollout.response_length`) lose their per-turn value; the count is reported (`dropped`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .outcome import Outcome
from .records import Trajectory

CREDITS = ("turn", "outcome")
DEFAULT_CREDIT = "turn"


def credit_mode(value: str | None, setting: str) -> str:
    """A credit setting checked: `turn` (the default when unset) or `outcome`."""
    if value in (None, ""):
        return DEFAULT_CREDIT
    mode = str(value).strip().lower()
    if mode not in CREDITS:
        raise ValueError(f"{setting} must be one of {', '.join(CREDITS)}, got {value!r}")
    return mode


@dataclass(frozen=True)
class TokenRewards:
    #: One reward per response token.
    values: list[float]
    #: (index in the response, per-turn reward) placed besides the scalar, in turn order.
    turn_positions: list[tuple[int, float]]
    #: Per-turn values whose turn ended past the response's (cut) end.
    dropped: int = 0


def token_rewards(t: Trajectory, outcome: Outcome, length: int, *, credit: str) -> TokenRewards:
    """Per-token rewards for a response of `length` tokens (the trajectory's response, maybe cut or
    replaced by one filler token): see the module doc."""
    if length < 1:
        raise ValueError(f"trajectory {t.group_id}/{t.sample_index}: a response needs at least one token")
    values = [0.0] * length
    values[-1] = outcome.reward
    if credit == "outcome" or outcome.why not in ("ok", "stale"):
        return TokenRewards(values, [])
    placed: list[tuple[int, float]] = []
    dropped = 0
    for index, reward in t.turn_reward_positions():
        if reward == 0.0:
            continue
        if index >= length or index < 0:
            dropped += 1
            continue
        values[index] += reward
        placed.append((index, reward))
    return TokenRewards(values, placed, dropped)
