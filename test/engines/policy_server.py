"""TEST FIXTURE: a live-policy server that answers vLLM-style token-id completions from a torch model's
CURRENT weights, in the test process, so each GRPO step samples from the updated policy.

Speaks the part of vLLM's `POST /v1/completions` our VllmSampler uses: `prompt` as token ids,
`max_tokens`, `temperature`, `top_p`, `stop` (kept in the output), `seed`, `return_token_ids`,
`logprobs: 0` → `choices[0].token_ids`, `choices[0].logprobs.token_logprobs` (the logprob of each
sampled token under the distribution it was sampled from), `finish_reason` (`stop` | `length`),
`stop_reason`. Also `GET /v1/models`. Not a model server for anything but tests.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch


class PolicyServer:
    def __init__(self, model: torch.nn.Module, tokenizer: Any, *, model_name: str = "tiny-policy"):
        self.model = model
        self.tokenizer = tokenizer
        self.model_name = model_name
        self.eos_ids = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|endoftext|>")}
        self.lock = threading.Lock()  # one generation at a time: the weights are shared with the trainer
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> PolicyServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    @torch.no_grad()
    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["prompt"]
        if not (isinstance(prompt, list) and all(isinstance(x, int) for x in prompt)):
            raise ValueError("prompt must be a list of token ids")
        max_tokens = int(body.get("max_tokens") or 16)
        temperature = float(body.get("temperature", 1.0))
        top_p = float(body.get("top_p", 1.0))
        if temperature <= 0 or top_p != 1.0:
            raise ValueError("this fixture samples at temperature > 0 with top_p 1 only")
        stops = list(body.get("stop") or [])
        seed = body.get("seed")
        generator = torch.Generator().manual_seed(int(seed) if seed is not None else len(self.requests))
        with self.lock:
            self.requests.append(body)
            # Eval mode while sampling: the trainer turns gradient checkpointing on, which disables the
            # KV cache in train mode. The weights are the trainer's own, read between its steps.
            was_training = self.model.training
            self.model.eval()
            try:
                ids, logprobs, finish, stop_reason = self._sample(prompt, max_tokens, temperature, stops, generator)
            finally:
                self.model.train(was_training)
        return {
            "id": f"cmpl-{len(self.requests)}",
            "object": "text_completion",
            "model": self.model_name,
            "choices": [
                {
                    "index": 0,
                    "text": self.tokenizer.decode(ids),
                    "token_ids": ids,
                    "logprobs": {"token_logprobs": logprobs},
                    "finish_reason": finish,
                    "stop_reason": stop_reason,
                }
            ],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(ids)},
        }

    def _sample(self, prompt, max_tokens, temperature, stops, generator):
        ids: list[int] = []
        logprobs: list[float] = []
        finish, stop_reason = "length", None
        past = None
        for _ in range(max_tokens):
            # with a cache, feed only the new token; without one (the model returned none), everything
            fresh = torch.tensor([prompt + ids]) if past is None else torch.tensor([ids[-1:]])
            out = self.model(input_ids=fresh, past_key_values=past, use_cache=True)
            past = out.past_key_values
            logp = torch.log_softmax(out.logits[0, -1].float() / temperature, dim=-1)
            token = int(torch.multinomial(logp.exp(), 1, generator=generator))
            ids.append(token)
            logprobs.append(float(logp[token]))
            if token in self.eos_ids:
                finish = "stop"
                break
            hit = next((s for s in stops if s in self.tokenizer.decode(ids)), None)
            if hit is not None:
                finish, stop_reason = "stop", hit
                break
        return ids, logprobs, finish, stop_reason

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, code: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": server.model_name, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                if self.path != "/v1/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                    self._send(200, server.complete(body))
                except (ValueError, KeyError) as e:
                    self._send(400, {"error": {"message": str(e)}})

        return Handler
