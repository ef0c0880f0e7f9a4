"""TEST FIXTURE: a live-policy server that answers vLLM-style token-id completions from a torch model's
CURRENT weights, in the test process, so each GRPO step samples from the updated policy.

Speaks the part of vLLM's `POST /v1/completions` our VllmSampler uses: `prompt` as token ids,
`max_tokens`, `temperature`, `top_p`, `stop` (kept in the output), `seed`, `return_token_ids`,
`logprobs: 0` → `choices[0].token_ids`, `choices[0].logprobs.token_logprobs` (the logprob of each
sampled token under the distribution it was sampled from), `finish_reason` (`stop` | `length`),
`stop_reason`. Also `GET /v1/models`. Not a model server for anything but tests.

`max_batch > 1` samples concurrent requests together (left-padded, one forward pass per token for the
whole batch): the learning benchmark's rollouts are many short generations, which one at a time would
leave most of a CPU's arithmetic unused. Each request keeps its own seed, temperature, stops and length.
"""

from __future__ import annotations

import json
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch


class PolicyServer:
    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        *,
        model_name: str = "tiny-policy",
        max_batch: int = 1,
        batch_wait_s: float = 0.02,
    ):
        self.model = model
        self.tokenizer = tokenizer
        self.model_name = model_name
        self.eos_ids = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|endoftext|>")}
        self.lock = threading.Lock()  # one generation at a time: the weights are shared with the trainer
        self.requests: list[dict[str, Any]] = []
        self.batch_sizes: list[int] = []  # how many requests each forward batch held
        self.max_batch = max_batch
        self.batch_wait_s = batch_wait_s
        self._pending: queue.Queue[_Pending | None] = queue.Queue()
        self._batcher = threading.Thread(target=self._batch_loop, daemon=True) if max_batch > 1 else None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> PolicyServer:
        self._thread.start()
        if self._batcher is not None:
            self._batcher.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._batcher is not None:
            self._pending.put(None)
            self._batcher.join(timeout=60)

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        request = _request(body, len(self.requests))
        if self._batcher is None:
            with self.lock:
                self.requests.append(body)
                ids, logprobs, finish, stop_reason = self._sample_batch([request])[0]
        else:
            pending = _Pending(body, request)
            self._pending.put(pending)
            pending.done.wait()
            if pending.error is not None:
                raise pending.error
            ids, logprobs, finish, stop_reason = pending.result
        return self._answer(len(request["prompt"]), ids, logprobs, finish, stop_reason)

    def _answer(self, prompt_tokens: int, ids, logprobs, finish, stop_reason) -> dict[str, Any]:
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
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(ids)},
        }

    def _batch_loop(self) -> None:
        while True:
            first = self._pending.get()
            if first is None:
                return
            batch = [first]
            # the rollout engine sends a group's turns at nearly the same moment: wait briefly for them
            try:
                while len(batch) < self.max_batch:
                    nxt = self._pending.get(timeout=self.batch_wait_s)
                    if nxt is None:
                        self._pending.put(None)
                        break
                    batch.append(nxt)
            except queue.Empty:
                pass
            try:
                with self.lock:
                    self.requests.extend(p.body for p in batch)
                    results = self._sample_batch([p.request for p in batch])
                for p, result in zip(batch, results, strict=True):
                    p.result = result
            except Exception as e:  # noqa: BLE001 - every waiting request gets the failure
                for p in batch:
                    p.error = e
            finally:
                for p in batch:
                    p.done.set()

    @torch.no_grad()
    def _sample_batch(self, rows: list[dict[str, Any]]) -> list[tuple[list[int], list[float], str, str | None]]:
        """Samples every row to its end. Rows are left-padded; each keeps its own positions, so a row's
        logits are those of its tokens alone (up to floating-point summation order)."""
        # Eval mode while sampling: the trainer turns gradient checkpointing on, which disables the
        # KV cache in train mode. The weights are the trainer's own, read between its steps.
        was_training = self.model.training
        self.model.eval()
        try:
            return self._sample_rows(rows)
        finally:
            self.model.train(was_training)

    def _sample_rows(self, rows):
        self.batch_sizes.append(len(rows))
        width = max(len(r["prompt"]) for r in rows)
        pad = next(iter(self.eos_ids - {None}))
        input_ids = torch.tensor([[pad] * (width - len(r["prompt"])) + r["prompt"] for r in rows])
        mask = torch.tensor([[0] * (width - len(r["prompt"])) + [1] * len(r["prompt"]) for r in rows])
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        # logits of the last position only: a long prompt's full logits would be prompt × vocabulary floats
        out = self.model(
            input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=True, logits_to_keep=1
        )
        past, logits, position = out.past_key_values, out.logits[:, -1], positions[:, -1:] + 1
        ids: list[list[int]] = [[] for _ in rows]
        logprobs: list[list[float]] = [[] for _ in rows]
        ends: list[tuple[str, str | None] | None] = [None] * len(rows)
        for _ in range(max(r["max_tokens"] for r in rows)):
            for i, r in enumerate(rows):
                if ends[i] is not None:
                    continue
                logp = torch.log_softmax(logits[i].float() / r["temperature"], dim=-1)
                token = int(torch.multinomial(logp.exp(), 1, generator=r["generator"]))
                ids[i].append(token)
                logprobs[i].append(float(logp[token]))
                if token in self.eos_ids:
                    ends[i] = ("stop", None)
                    continue
                text = self.tokenizer.decode(ids[i])
                hit = next((s for s in r["stops"] if s in text), None)
                if hit is not None:
                    ends[i] = ("stop", hit)
                elif len(ids[i]) >= r["max_tokens"]:
                    ends[i] = ("length", None)
            if all(e is not None for e in ends):
                break
            # every row takes one more token (an ended row repeats its last; its output is not read)
            fresh = torch.tensor([[seq[-1]] for seq in ids])
            mask = torch.cat([mask, torch.ones(len(rows), 1, dtype=mask.dtype)], dim=1)
            out = self.model(
                input_ids=fresh, attention_mask=mask, position_ids=position, past_key_values=past, use_cache=True
            )
            past, logits, position = out.past_key_values, out.logits[:, -1], position + 1
        return [(ids[i], logprobs[i], *(ends[i] or ("length", None))) for i in range(len(rows))]

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


class _Pending:
    def __init__(self, body: dict[str, Any], request: dict[str, Any]):
        self.body = body
        self.request = request
        self.done = threading.Event()
        self.result: tuple[list[int], list[float], str, str | None] | None = None
        self.error: Exception | None = None


def _request(body: dict[str, Any], count: int) -> dict[str, Any]:
    """The sampling request of a `/v1/completions` body; ValueError (answered 400) for what this fixture
    does not do."""
    prompt = body["prompt"]
    if not (isinstance(prompt, list) and all(isinstance(x, int) for x in prompt)):
        raise ValueError("prompt must be a list of token ids")
    temperature = float(body.get("temperature", 1.0))
    if temperature <= 0 or float(body.get("top_p", 1.0)) != 1.0:
        raise ValueError("this fixture samples at temperature > 0 with top_p 1 only")
    seed = body.get("seed")
    return {
        "prompt": prompt,
        "max_tokens": int(body.get("max_tokens") or 16),
        "temperature": temperature,
        "stops": list(body.get("stop") or []),
        "generator": torch.Generator().manual_seed(int(seed) if seed is not None else count),
    }
