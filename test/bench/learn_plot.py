"""One figure for several runs of the learning benchmark (e.g. the stateful task's two reward arms):

    services/engines/.venv/bin/python test/bench/learn_plot.py --out docs/img/learn-stateful.png \\
        [--rates success_rate,lookup_rate] per-turn.json outcome.json

First panel: each run's training reward per GRPO step (what it trained on). Then one panel per rate of
`--rates` (fields of the reports' steps and evaluations; default the task's success): the rate over the
step's training rollouts, with the held-out rate before (at step 0) and after (past the last step) where
the report has them. A report a run left behind when stopped early (`*.partial.json`) draws its steps.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

TITLES = {
    "success_rate": "success",
    "lookup_rate": "a valid lookup",
    "tool_call_rate": "lookup and transfer both ran",
    "state_rate": "right transfer in the final state",
}


def label(report: dict) -> str:
    config = report["config"]
    cut = ", stopped early" if report.get("after") is None else ""
    return f"{config.get('reward_arm', 'reward')}, groups of {config['group']}{cut}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--rates", default="success_rate", help="comma-separated step fields, one panel each")
    p.add_argument("--title", default="SmolLM2-135M-Instruct, TRL GRPO through rlf rollout serve on CPU")
    p.add_argument("reports", nargs="+")
    args = p.parse_args()
    reports = [json.loads(Path(r).read_text()) for r in args.reports]
    rates = [r for r in args.rates.split(",") if r]

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 1 + len(rates), figsize=(5.2 * (1 + len(rates)), 4), dpi=120)
    left, panels = axes[0], axes[1:]
    for i, report in enumerate(reports):
        color, name = f"C{i}", label(report)
        steps = [s["step"] for s in report["steps"]]
        top = sum(c["weight"] for c in report["config"]["reward"] if c["weight"] > 0)
        rewards = [s["reward_mean"] for s in report["steps"]]
        left.plot(steps, rewards, color=color, marker="o", ms=3, label=f"{name} (max {top:g})")
        for panel, rate in zip(panels, rates, strict=True):
            panel.plot(steps, [s.get(rate) for s in report["steps"]], color=color, marker="o", ms=3, label=name)
            before, after = report.get("before") or {}, report.get("after") or {}
            if rate in before and rate in after:
                last = (steps[-1] + 1) if steps else 0
                held_out = f"held-out {before[rate]:.2f} → {after[rate]:.2f}"
                ends = [before[rate], after[rate]]
                panel.plot([0, last], ends, color=color, ls=":", marker="s", ms=6, label=held_out)
    left.set_xlabel("GRPO step")
    left.set_ylabel("mean training reward")
    left.set_title("training reward (one task a step)")
    left.grid(alpha=0.3)
    left.legend(loc="best", fontsize=7)
    for panel, rate in zip(panels, rates, strict=True):
        panel.set_ylim(-0.03, 1.05)
        panel.set_xlabel("GRPO step")
        panel.set_ylabel("rate (training rollouts; held-out: squares)")
        panel.set_title(TITLES.get(rate, rate))
        panel.grid(alpha=0.3)
        panel.legend(loc="best", fontsize=7)
    fig.suptitle(args.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out)
    plt.close(fig)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
