"""verl's agent loop built the way verl's AgentLoopWorker builds it, and a verl dataset row."""

from __future__ import annotations

from typing import Any

from .stack import HOTPOT_SYSTEM, QUESTIONS
from .tokenizer import qwen3


def agent_loop(
    verl_classes: Any, tmp_path: Any, server_manager: Any = None, *, rollout: dict | None = None, **entry: Any
) -> Any:
    """The agent loop as verl's AgentLoopWorker builds it: an entry of the agent loop config file, then
    hydra.utils.instantiate with the worker's arguments. `rollout`: keys added to
    `actor_rollout_ref.rollout`."""
    import hydra
    from omegaconf import OmegaConf

    config_file = tmp_path / "agent_loops.yaml"
    config_file.write_text(
        OmegaConf.to_yaml([{"name": "rlfactory", "_target_": "rlfactory_engines.verl.RLFactoryAgentLoop", **entry}])
    )
    [loop_config] = OmegaConf.load(config_file)
    trainer = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "rollout": {
                    "name": "vllm",
                    "prompt_length": 2048,
                    "response_length": 1024,
                    "multi_turn": {"max_assistant_turns": 3},
                    **(rollout or {}),
                }
            },
            "data": {"apply_chat_template_kwargs": {}},
        }
    )
    return hydra.utils.instantiate(
        config=loop_config,
        trainer_config=verl_classes.DictConfigWrap(config=trainer),
        server_manager=server_manager,
        tokenizer=qwen3(),
        processor=None,
        hf_model_type=None,
        dataset_cls=None,
        data_config=verl_classes.DictConfigWrap(trainer.data),
        tools=verl_classes.ToolListWrap([]),
    )


def dataset_row(np: Any) -> dict[str, Any]:
    """One verl dataset row as the agent loop receives it (parquet values: numpy arrays)."""
    _, question, answers = QUESTIONS[0]
    return {
        "raw_prompt": np.array(
            [{"role": "system", "content": HOTPOT_SYSTEM}, {"role": "user", "content": question}], dtype=object
        ),
        "data_source": "hotpotqa",
        "reward_model": {"style": "rule", "ground_truth": {"target": np.array(answers, dtype=object)}},
        "extra_info": {"index": np.int64(0), "split": "train"},
        "index": np.int64(0),
        "agent_name": "rlfactory",
    }


VERL_SAMPLING = {"temperature": 0.8, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}
