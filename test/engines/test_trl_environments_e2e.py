"""TRL trains through the TRL adapter, as docs/training.md documents it, on tasks that run in their own
environments: a BFCL multi_turn_base task (`rlf data bfcl`, `rlf env bfcl` behind the gateway) and a task
of the shipped FTRL bundle (examples/ftrl-hotpotqa, `rlf env serve` behind the gateway), on CPU.

    rlf data export --engine trl ──▶ datasets.load_dataset("json") ──▶ GRPOTrainer(train_dataset=...)
    rollout_func = make_rollout_func(..., task_for=tasks_by_prompt(dataset))   # rlf_task: the whole task
          │
          └──▶ rlf rollout serve ──▶ gateway ──▶ the task's environment (episode per group)
                      └── generation: the live-policy server (this process, the trainer's weights)

The policy is a tiny randomly initialised Qwen3-architecture model, first taught for a few seconds to
answer the task's prompt (exactly as the service renders it, tools included) with the task's first
ground-truth call, so that sampling from it calls the environment's tools. One GRPO step.

Asserted: the adapter sent the whole task (environment, tool aliases); every trajectory ran in an episode
whose tools answered (a successful call, no UNKNOWN_TOOL); `bfcl_state` / `ftrl_solve` scored (non-null,
no reward_error); the per-turn rewards are in what the adapter returned (`rlf_turn_rewards`, one per
turn), and TRL took its GRPO step on the service's rewards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT / "services" / "engines" / "tests")]

from policy_server import PolicyServer  # noqa: E402
from rlfactory_engines.client import RolloutServiceClient, make_task  # noqa: E402
from rlfactory_engines.trl import make_rollout_func, rlf_reward, tasks_by_prompt  # noqa: E402
from support.bfcl_live import BFCL_VENV, bfcl_tasks  # noqa: E402
from support.stack import Child, find_node, free_port, json_line_with, wait_ok  # noqa: E402
from tiny_policy import load_tokenizer, tiny_model  # noqa: E402

RLF = ROOT / "services" / "cli" / "bin" / "rlf.js"
FTRL_TASKS = ROOT / "examples" / "ftrl-hotpotqa" / "tasks.jsonl"
FTRL_BUNDLE = ROOT / "examples" / "ftrl-hotpotqa" / "bundle"
GROUP = 2
TOOL_SUCCESS = 0.1

#: Per environment: the gateway server, its command after `rlf`, the reward config, the scored component.
ENVIRONMENTS = {
    "bfcl": {
        "server": ["env", "bfcl", "--stdio"],
        "reward": {"components": [{"type": "bfcl_state", "weight": 1}], "process": {"tool_success": TOOL_SUCCESS}},
        "component": "bfcl_state",
    },
    "ftrl": {
        "server": ["env", "serve", str(FTRL_BUNDLE), "--stdio"],
        "reward": {"components": [{"type": "ftrl_solve", "weight": 1}]},
        "component": "ftrl_solve",
    },
}


def first_task(name: str) -> dict:
    if name == "bfcl":
        if not any(BFCL_VENV.glob("lib/*/site-packages/bfcl_eval/eval_checker")):
            pytest.skip(f"bfcl-eval is not installed in {BFCL_VENV} (npm run setup:environments)")
        return bfcl_tasks()[0]
    return json.loads(FTRL_TASKS.read_text().splitlines()[0])


def first_call(task: dict) -> dict:
    """A call the policy is taught: the task's first ground-truth call, by the name the model sees (FTRL:
    the first hop's tool with a short query, which a tiny model learns in a few seconds)."""
    if isinstance(task.get("ground_truth"), list) and task["ground_truth"]:
        return task["ground_truth"][0]  # BFCL: the first user turn's calls
    return {"name": task["extra_info"]["actions"][0][0]["name"], "arguments": {"query": "step 1.1"}}


def hermes_call(call: dict) -> str:
    return f"<tool_call>\n{json.dumps({'name': call['name'], 'arguments': call['arguments']})}\n</tool_call>"


def teach(model, prompt_ids: list[int], target_ids: list[int], steps: int = 100, lr: float = 1e-2) -> None:
    """Plain cross-entropy on the target tokens after the prompt (nothing of it is asserted)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    ids = torch.tensor([prompt_ids + target_ids])
    start = len(prompt_ids)
    for _ in range(steps):
        logits = model(input_ids=ids, logits_to_keep=len(target_ids) + 1).logits[0, :-1]
        loss = torch.nn.functional.cross_entropy(logits.float(), ids[0, start:])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@pytest.fixture(scope="module", params=list(ENVIRONMENTS))
def run(request, tmp_path_factory):
    name, env = request.param, ENVIRONMENTS[request.param]
    node, why = find_node()
    if node is None:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp(f"trl-{name}")
    task = first_task(name)
    tasks_file = tmp / "tasks.jsonl"
    tasks_file.write_text(json.dumps(task) + "\n")
    trl_file = tmp / "train.jsonl"
    subprocess.run(
        [node, str(RLF), "data", "export", "--engine", "trl", "--in", str(tasks_file), "--out", str(trl_file)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    dataset = datasets.load_dataset("json", data_files=str(trl_file), keep_in_memory=True)["train"]

    gateway_config = tmp / "gateway.json"
    gateway_config.write_text(
        json.dumps(
            {
                "grpc": {"host": "127.0.0.1", "port": 0},
                "admin": {"host": "127.0.0.1", "port": 0},
                "servers": {task["environment"]["server"]: {"command": node, "args": [str(RLF), *env["server"]]}},
            }
        )
    )
    gateway = Child(f"gateway {name}", [node, str(RLF), "gateway", "--config", str(gateway_config)])
    children = [gateway]
    tokenizer = load_tokenizer()
    torch.manual_seed(0)
    model = tiny_model(len(tokenizer), seed=0)
    policy = PolicyServer(model, tokenizer).start()
    try:
        listening = gateway.wait_for(json_line_with("gateway listening"), timeout_s=120)
        wait_ok(f"{listening['admin'].rstrip('/')}/readyz", timeout_s=120)
        config = tmp / "rollout.json"
        config.write_text(
            json.dumps(
                {
                    # the service's own inference server is a dead port: generation comes from the policy
                    "inference": {"engine": "vllm", "url": f"http://127.0.0.1:{free_port()}", "retries": 0},
                    "gateway": {"address": listening["grpc"], "deadline_ms": 30000},
                    "tokenizer": {"path": "qwen3"},
                    "format": "hermes",
                    "rollout": {
                        "group_size": GROUP,
                        "max_turns": 3,
                        "max_concurrency": 4,
                        "max_context_tokens": 16384,
                        "max_tool_response_tokens": 256,
                        "sampling": {"temperature": 1.0, "top_p": 1.0, "max_tokens": 96},
                    },
                    "reward": env["reward"],
                    "staleness": {"max_staleness": 1, "on_stale": "flag"},
                    "seed": 5,
                }
            )
        )
        service = Child(
            f"rollout serve {name}",
            [node, str(RLF), "rollout", "serve", "--config", str(config), "--grpc-port", "0", "--http-port", "0"],
        )
        children.append(service)
        service_url = service.wait_for(json_line_with("rollout service listening"), timeout_s=120)["http"].rstrip("/")

        # the prompt exactly as the service renders it (tools included), from a one-token rollout
        probe = make_task("probe", task["prompt"], **{k: task[k] for k in ("environment", "tool_aliases", "tools")})
        [group] = RolloutServiceClient(service_url).rollout(
            [probe], group_size=1, max_turns=1, sampling={"max_tokens": 1}, inference_urls=[policy.url]
        )
        prompt_ids = group.trajectories[0].prompt_ids
        target = tokenizer.encode(hermes_call(first_call(task)), add_special_tokens=False)
        teach(model, prompt_ids, target + [tokenizer.convert_tokens_to_ids("<|im_end|>")])

        rollout_func = make_rollout_func(
            service_url, inference_urls=[policy.url], model="tiny-policy", task_for=tasks_by_prompt(dataset)
        )
        calls = []

        def recording_rollout(prompts, trainer):
            out = rollout_func(prompts, trainer)
            calls.append({"prompts": prompts, "groups": rollout_func.last_groups, "out": out})
            return out

        args = trl.GRPOConfig(
            output_dir=str(tmp / "trl"),
            per_device_train_batch_size=GROUP,
            num_generations=GROUP,
            max_steps=1,
            learning_rate=5e-3,
            beta=0.0,
            bf16=False,
            temperature=1.0,
            top_p=1.0,
            max_completion_length=96,
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            use_cpu=True,
            seed=0,
            dataloader_num_workers=0,
        )
        os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
        trainer = trl.GRPOTrainer(
            model=model,
            reward_funcs=[rlf_reward],
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            rollout_func=recording_rollout,
        )
        trainer.train()
        yield {
            "name": name,
            "env": env,
            "task": task,
            "calls": calls,
            "trainer": trainer,
            "logs": lambda: "\n".join(f"--- {c.name}\n" + "\n".join(c.lines[-30:]) for c in children),
        }
    finally:
        for child in reversed(children):
            child.stop()
        policy.close()


def trajectories(run):
    return [t for call in run["calls"] for g in call["groups"] for t in g.trajectories]


def test_the_adapter_sends_the_whole_task_from_the_exported_dataset(run):
    assert run["calls"], run["logs"]()
    ts = trajectories(run)
    assert len(ts) == GROUP
    # the service echoes nothing of the task but its id; the environment and aliases show in the calls
    for t in ts:
        assert t.status in ("completed", "truncated"), (t.status, t.status_reason)


def test_every_trajectory_ran_in_an_episode_whose_tools_answered(run):
    ts = trajectories(run)
    aliases = run["task"]["tool_aliases"]
    calls = [c for t in ts for c in t.tool_calls]
    # a random model's later text may hold malformed calls (no name); every call it names is a task tool
    named = [c for c in calls if c["name"]]
    assert all(c["name"] in aliases for c in named), [c["name"] for c in named]
    assert not [c for c in named if c.get("error_code") == "UNKNOWN_TOOL"], named
    ok = [c for c in named if c.get("error_code") is None and not c.get("is_error")]
    assert ok, f"no successful call to the environment's tools: {calls[:3]}\n{run['logs']()}"


def test_the_environments_reward_is_scored(run):
    component = run["env"]["component"]
    for t in trajectories(run):
        assert t.reward_error is None, t.reward_error
        assert t.reward_components.get(component) is not None, t.reward_components
        assert t.reward is not None


def test_per_turn_rewards_are_in_what_the_adapter_returns(run):
    for call in run["calls"]:
        out = call["out"]
        assert len(out["rlf_turn_rewards"]) == len(out["completion_ids"]) == GROUP
        ts = [t for g in call["groups"] for t in g.trajectories]
        for turn_rewards, t in zip(out["rlf_turn_rewards"], ts, strict=True):
            assert turn_rewards is not None and len(turn_rewards) == len(t.turns)
            assert turn_rewards == t.turn_rewards
        assert any(r != 0.0 for rewards in out["rlf_turn_rewards"] for r in rewards)
        assert out["rlf_reward"] == [t.reward for g in call["groups"] for t in g.trajectories]


def test_trl_took_its_grpo_step_on_the_services_rewards(run):
    trainer = run["trainer"]
    assert trainer.state.global_step == 1
    rewards = [t.reward for t in trajectories(run)]
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert logged and logged[0]["reward"] == pytest.approx(sum(rewards) / len(rewards), abs=1e-6)
