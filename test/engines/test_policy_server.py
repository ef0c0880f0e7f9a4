"""The live-policy server's batching (max_batch > 1), which the learning benchmark samples through: requests
that arrive together are sampled in one batch, and each answer is what the request would get alone — its
own length, stops and seed, and the logprobs of the model's distribution over its own tokens."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

torch = pytest.importorskip("torch")

from policy_server import PolicyServer  # noqa: E402
from tiny_policy import load_tokenizer, prompt_ids, tiny_model  # noqa: E402


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{url}/v1/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)


def full_forward_logprobs(model, prompt: list[int], ids: list[int], temperature: float) -> list[float]:
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt + ids])).logits[0].float() / temperature
    logp = torch.log_softmax(logits, dim=-1)
    return [float(logp[len(prompt) + j - 1, token]) for j, token in enumerate(ids)]


@pytest.fixture(scope="module")
def tiny():
    tokenizer = load_tokenizer()
    model = tiny_model(len(tokenizer), seed=3)
    model.eval()
    return model, tokenizer


def test_concurrent_requests_share_a_batch_and_each_gets_its_own_answer(tiny):
    model, tokenizer = tiny
    questions = ["Who wrote Hamlet?", "Is the sky blue on a clear day, most of the time?", "2+2?", "Name a river."]
    prompts = [prompt_ids(tokenizer, q) for q in questions]
    assert len({len(p) for p in prompts}) > 1  # different lengths: the batch is padded
    bodies = [
        {"prompt": prompts[0], "max_tokens": 12, "temperature": 1.0, "seed": 1},
        {"prompt": prompts[1], "max_tokens": 5, "temperature": 0.7, "seed": 2},
        {"prompt": prompts[2], "max_tokens": 12, "temperature": 1.0, "seed": 3, "stop": [" "]},
        {"prompt": prompts[3], "max_tokens": 9, "temperature": 1.3, "seed": 4},
    ]
    server = PolicyServer(model, tokenizer, max_batch=8, batch_wait_s=0.5).start()
    try:
        answers: dict[int, dict] = {}
        threads = [
            threading.Thread(target=lambda i=i: answers.update({i: post(server.url, bodies[i])})) for i in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        batched = [answers[i]["choices"][0] for i in range(4)]
        assert max(server.batch_sizes) > 1, server.batch_sizes  # sampled together, not one by one

        alone = PolicyServer(model, tokenizer).start()  # max_batch 1: the plain one-at-a-time path
        try:
            single = [post(alone.url, body)["choices"][0] for body in bodies]
        finally:
            alone.close()
    finally:
        server.close()

    for body, b, s in zip(bodies, batched, single, strict=True):
        # the same seed gives the same tokens in a batch as alone
        assert b["token_ids"] == s["token_ids"]
        assert len(b["token_ids"]) <= body["max_tokens"]
        if b["finish_reason"] == "length":
            assert len(b["token_ids"]) == body["max_tokens"]
        lps = full_forward_logprobs(model, body["prompt"], b["token_ids"], body["temperature"])
        assert max(abs(x - y) for x, y in zip(lps, b["logprobs"]["token_logprobs"], strict=True)) < 1e-4
    # the stop string ended its request (and is kept in the text), the others ran to their own lengths
    third = batched[2]
    assert third["finish_reason"] in ("stop", "length")
    if third["finish_reason"] == "stop" and third["stop_reason"] is not None:
        assert " " in third["text"]
    assert len(batched[1]["token_ids"]) <= 5


def test_a_bad_request_is_refused_alone(tiny):
    model, tokenizer = tiny
    server = PolicyServer(model, tokenizer, max_batch=4).start()
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(server.url, {"prompt": "text, not ids", "max_tokens": 3})
        assert refused.value.code == 400
        ok = post(server.url, {"prompt": prompt_ids(tokenizer, "Hello?"), "max_tokens": 3, "seed": 0})
        assert len(ok["choices"][0]["token_ids"]) >= 1
    finally:
        server.close()
