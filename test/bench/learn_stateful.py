"""The stateful task family of the learning benchmark (`npm run bench -- learn --task stateful`).

Each task: "Send 250 to Maria, then tell me my new balance." The episode (test/bench/bank_environment.py,
served by `rlf env python`) knows three people with random 5-digit account numbers and a random
balance. Three dependent steps:

    bank__lookup {"name": "Maria"}                       -> {"account":"48213"}   a read ...
    bank__transfer {"account": "48213", "amount": 250}   -> {"balance":3172}      ... whose result this write needs
    <answer>3172</answer>                                                          the write's result

Training tasks use one pool of names, held-out tasks another (and another seed): every held-out value
(name, account, amount, balance) is unseen. Success: the final state has exactly the one right
transfer (`state_match` against `extra_info.final_state`) and the answer is the new balance
(`exact_match`).

The two arms (`--reward`), identical but for the trained component:

    per-turn   ftrl_solve: FTRL's per-turn solve reward, the mean over the sampled turns: a turn's calls
               score when their output holds a still-unsolved sub-answer (the lookup: the account; the
               transfer: the new balance), the answer turn when it holds the new balance
    outcome    0.5 x state_match (the final state) + 0.5 x exact_match (the answer)

Both report every component (weight 0 where not trained on) and add the same shaping (SHAPING).
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from rlfactory_engines.client import make_task

HERE = Path(__file__).resolve().parent
SERVER = "bank"
LOOKUP, TRANSFER = f"{SERVER}__lookup", f"{SERVER}__transfer"
TOOLS = [LOOKUP, TRANSFER]

SYSTEM = (
    "You are a bank assistant. Find a person's account number with "
    f'<tool_call>{{"name": "{LOOKUP}", "arguments": {{"name": "..."}}}}</tool_call>, then send the money with '
    f'<tool_call>{{"name": "{TRANSFER}", "arguments": {{"account": "...", "amount": N}}}}</tool_call>. '
    "Each result comes back in a tool message. Then give the new balance as <answer>NUMBER</answer>."
)


def call(name: str, arguments: str) -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {arguments}}}</tool_call>'


# One worked example as chat messages (SmolLM2's template renders no tools); the tool messages are the
# texts the gateway returns for these calls.
EXAMPLE = [
    {"role": "user", "content": "Send 120 to Alex, then tell me my new balance."},
    {"role": "assistant", "content": call(LOOKUP, '{"name": "Alex"}')},
    {"role": "tool", "content": '{"account":"30517"}'},
    {"role": "assistant", "content": call(TRANSFER, '{"account": "30517", "amount": 120}')},
    {"role": "tool", "content": '{"balance":4410}'},
    {"role": "assistant", "content": "<answer>4410</answer>"},
]

TRAIN_NAMES = [
    "Maria", "Omar", "Lena", "Ivan", "Sofia", "Yuki", "Ravi", "Nora", "Diego", "Amara",
    "Felix", "Hana", "Jonas", "Leila", "Mateo", "Priya", "Tariq", "Zoe", "Elena", "Kofi",
]  # fmt: skip
EVAL_NAMES = [
    "Anya", "Bruno", "Chen", "Dalia", "Emil", "Farah", "Goran", "Ines", "Jamal", "Kira",
    "Luca", "Mina", "Nils", "Olga", "Pablo", "Rosa", "Sami", "Tess", "Uma", "Viktor",
]  # fmt: skip

# The same in both arms: a small bonus for calls that ran without error and for a well-formed ending,
# so that groups of an untrained model are not all zero.
SHAPING = [
    {"type": "tool_precision", "weight": 0.2},
    {"type": "format", "weight": 0.1},
]
STATE = {"type": "state_match", "expected_from": "extra_info.final_state"}
REWARDS = {
    "per-turn": [
        {"type": "ftrl_solve", "weight": 1.0},
        {**STATE, "weight": 0.0},
        {"type": "exact_match", "weight": 0.0},
        *SHAPING,
    ],
    "outcome": [
        {"type": "ftrl_solve", "weight": 0.0},
        {**STATE, "weight": 0.5},
        {"type": "exact_match", "weight": 0.5},
        *SHAPING,
    ],
}
DEFAULT_REWARD = "per-turn"


# An episode lives from its group's start to its last call; on a busy 2-core machine one batch of turns
# took over 10 minutes (the default idle timeout of the gateway and of `rlf env python`) and episodes
# expired mid-rollout. An hour, on both sides.
IDLE_TIMEOUT_MS = 3_600_000


def servers(node: str, rlf: Path) -> dict[str, Any]:
    """The gateway's servers: the bank class served by `rlf env python` over stdio (one worker)."""
    module = HERE / "bank_environment.py"
    args = [str(rlf), "env", "python", "--module", str(module), "--class", "Bank", "--name", SERVER]
    return {
        SERVER: {
            "command": node,
            "args": [*args, "--stdio", "--workers", "1", "--idle-timeout-ms", str(IDLE_TIMEOUT_MS)],
            "policy": {"episodes": {"idle_timeout_ms": IDLE_TIMEOUT_MS}},
        }
    }


def make_tasks(seed: int, n: int, prefix: str, exclude: set[str], held_out: bool) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    pool = EVAL_NAMES if held_out else TRAIN_NAMES
    tasks: list[dict[str, Any]] = []
    while len(tasks) < n:
        people = rng.sample(pool, 3)
        directory = {name: str(rng.randint(10000, 99999)) for name in people}
        balance = rng.randint(1000, 9999)
        amount = rng.randint(10, 999)
        name = rng.choice(people)
        question = f"Send {amount} to {name}, then tell me my new balance."
        key = f"{question} {directory} {balance}"
        if key in exclude:
            continue
        exclude.add(key)
        account, new_balance = directory[name], balance - amount
        tasks.append(
            make_task(
                f"{prefix}-{len(tasks)}",
                [{"role": "system", "content": SYSTEM}, *EXAMPLE, {"role": "user", "content": question}],
                ground_truth=str(new_balance),
                data_source="bank",
                extra_info={
                    "final_state": {"transfers": [{"to": account, "amount": amount}], "balance": new_balance},
                    # ftrl_solve: what each tool's output must hold to solve its step
                    "unsolved_set": {LOOKUP: [account], TRANSFER: [str(new_balance)]},
                },
                environment={"server": SERVER, "config": {"directory": directory, "balance": balance}},
            )
        )
    return tasks


def ran(t: Any, name: str) -> bool:
    return any(c.get("name") == name and not c.get("is_error") and not c.get("error_code") for c in t.tool_calls)


def made_call(t: Any) -> bool:
    """Both steps ran: a lookup and a transfer the environment accepted."""
    return ran(t, LOOKUP) and ran(t, TRANSFER)


def succeeded(t: Any) -> bool:
    return t.reward_components.get("state_match") == 1 and t.reward_components.get("exact_match") == 1


def summarize(trajectories: list[Any]) -> dict[str, Any]:
    n = len(trajectories)

    def rate(pred) -> float:
        return round(sum(1 for t in trajectories if pred(t)) / n, 4) if n else 0.0

    def mean(values) -> float:
        values = list(values)
        return round(statistics.fmean(values), 4) if values else 0.0

    return {
        "trajectories": n,
        # the right transfer in the final state and the new balance answered
        "success_rate": rate(succeeded),
        "state_rate": rate(lambda t: t.reward_components.get("state_match") == 1),
        "answer_rate": rate(lambda t: t.reward_components.get("exact_match") == 1),
        # both calls ran without error (the lookup, then a transfer to an existing account)
        "tool_call_rate": rate(made_call),
        "lookup_rate": rate(lambda t: ran(t, LOOKUP)),
        "calls_per_task": mean(len(t.tool_calls) for t in trajectories),
        "valid_calls_per_task": mean(
            sum(1 for c in t.tool_calls if not c.get("is_error") and not c.get("error_code")) for t in trajectories
        ),
        "ftrl_solve": mean(t.reward_components.get("ftrl_solve", 0.0) for t in trajectories),
        "mean_turns": mean(len(t.turns) for t in trajectories),
        "mean_reward": mean(t.reward or 0.0 for t in trajectories),
        "reward_errors": sum(1 for t in trajectories if t.reward_error),
        "statuses": dict(Counter(t.status for t in trajectories)),
    }


STEP_FIELDS = ["success_rate", "state_rate", "tool_call_rate", "lookup_rate", "calls_per_task", "ftrl_solve"]
