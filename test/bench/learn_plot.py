"""One figure for several runs of the learning benchmark (e.g. the stateful task's two reward arms):

    services/engines/.venv/bin/python test/bench/learn_plot.py --out docs/img/learn-stateful.png \\
        per-turn.json outcome.json

Left: each run's training reward per GRPO step (what it trained on). Right: the training success rate
per step (the task's own success: for `--task stateful` the right transfer in the final state and the
new balance answered), with each run's held-out success before (step 0) and after (its last step).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def label(report: dict) -> str:
    config = report["config"]
    return f"{config.get('reward_arm', 'reward')} ({config.get('task', 'calculator')})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--title", default="SmolLM2-135M-Instruct, TRL GRPO through rlf rollout serve on CPU")
    p.add_argument("reports", nargs="+")
    args = p.parse_args()
    reports = [json.loads(Path(r).read_text()) for r in args.reports]

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), dpi=120)
    for i, report in enumerate(reports):
        color = f"C{i}"
        steps = [s["step"] for s in report["steps"]]
        top = sum(c["weight"] for c in report["config"]["reward"] if c["weight"] > 0)
        name = label(report)
        left.plot(steps, [s["reward_mean"] for s in report["steps"]], color=color, marker="o", ms=3,
                  label=f"{name}, max {top:g}")  # fmt: skip
        right.plot(steps, [s["success_rate"] for s in report["steps"]], color=color, marker="o", ms=3,
                   label=f"{name}: training success")  # fmt: skip
        if report.get("before") and report.get("after"):
            before, after = report["before"]["success_rate"], report["after"]["success_rate"]
            last = (steps[-1] + 1) if steps else 0
            right.plot([0, last], [before, after], color=color, ls=":", marker="s", ms=6,
                       label=f"{name}: held-out {before:.2f} → {after:.2f}")  # fmt: skip
    left.set_xlabel("GRPO step")
    left.set_ylabel("mean training reward")
    left.set_title("training reward (8 rollouts a step)")
    left.grid(alpha=0.3)
    left.legend(loc="upper left", fontsize=8)
    right.set_ylim(-0.03, 1.03)
    right.set_xlabel("GRPO step")
    right.set_ylabel("success rate")
    right.set_title("success: right transfer in the final state + new balance answered")
    right.grid(alpha=0.3)
    right.legend(loc="upper left", fontsize=8)
    fig.suptitle(args.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out)
    plt.close(fig)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
