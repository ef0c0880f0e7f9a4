"""A tiny randomly initialised Qwen2.5-VL behind vLLM's token-in API, on CPU, for the rollout's
vision-language path (test/rollout/tiny-vl-model.e2e.test.ts).

Builds the model from a transformers config (2 text layers of width 64, a 1-block vision tower, the
Qwen vocabulary size and its image token ids; torch.manual_seed(0); nothing downloaded, no hub) and
serves, on 127.0.0.1:PORT (argv[1], 0 = any; the chosen port is printed as `{"port": N}`):

  GET  /v1/models       one model, `tiny-qwen2.5-vl`
  POST /v1/completions  vLLM's fields the rollout's client sends: `prompt` (token ids), `max_tokens`,
                        `temperature` (0: greedy, else sampled with `seed`), `multi_modal_data.image`
                        (data URLs); answers `choices[0].token_ids`, `logprobs.token_logprobs` (log
                        softmax of the raw logits), `finish_reason`, `stop_reason`

Each image goes through transformers' Qwen2VLImageProcessorPil (Qwen2.5-VL's released pixel range;
the engines' venv has no torchvision) into pixel_values and image_grid_thw, and the prompt must hold one
<|vision_start|><|image_pad|>...<|vision_end|> span per image with grid.prod() // 4 pads, as vLLM
requires; otherwise 400 naming the counts. The answer carries `rlf_images` (each image's sha256, grid
and pad count) so a test can see what the model was given.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

import torch
from PIL import Image
from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2VLImageProcessorPil

MODEL = "tiny-qwen2.5-vl"
VISION_START, IMAGE_PAD, VISION_END = 151652, 151655, 151653
EOS = {151645, 151643}
MERGE = 2
DATA_URL = re.compile(r"^data:image/[A-Za-z0-9.+-]+;base64,([A-Za-z0-9+/]*={0,2})$")


def build_model() -> Qwen2_5_VLForConditionalGeneration:
    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": 151936,
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "max_position_embeddings": 4096,
            "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
            "tie_word_embeddings": True,
        },
        vision_config={
            "depth": 1,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_heads": 2,
            "out_hidden_size": 64,
            "patch_size": 14,
            "spatial_merge_size": MERGE,
            "temporal_patch_size": 2,
            "window_size": 112,
            "fullatt_block_indexes": [0],
        },
        image_token_id=IMAGE_PAD,
        video_token_id=151656,
        vision_start_token_id=VISION_START,
        vision_end_token_id=VISION_END,
    )
    torch.manual_seed(0)
    return Qwen2_5_VLForConditionalGeneration(config).eval()


class BadRequest(Exception):
    pass


def spans(ids: list[int]) -> list[int]:
    """The pad count of each <|vision_start|> <|image_pad|>* <|vision_end|> span, in order."""
    out, i = [], 0
    while i < len(ids):
        if ids[i] == VISION_START:
            j = i + 1
            while j < len(ids) and ids[j] == IMAGE_PAD:
                j += 1
            if j < len(ids) and ids[j] == VISION_END:
                out.append(j - i - 1)
            i = j
        i += 1
    return out


class Engine:
    def __init__(self) -> None:
        self.model = build_model()
        self.processor = Qwen2VLImageProcessorPil(min_pixels=3136, max_pixels=12845056, patch_size=14, merge_size=MERGE)

    def complete(self, body: dict) -> dict:
        ids = body.get("prompt")
        if not isinstance(ids, list) or not ids or not all(isinstance(x, int) for x in ids):
            raise BadRequest("prompt must be a non-empty list of token ids")
        urls = (body.get("multi_modal_data") or {}).get("image") or []
        images, seen = [], []
        for k, url in enumerate(urls):
            m = DATA_URL.match(url)
            if m is None:
                raise BadRequest(f"multi_modal_data.image[{k}] must be a base64 data: URL")
            data = base64.b64decode(m.group(1))
            images.append(Image.open(io.BytesIO(data)).convert("RGB"))
            seen.append({"sha256": hashlib.sha256(data).hexdigest()})
        found = spans(ids)
        kwargs: dict = {}
        if images:
            processed = self.processor(images=images, return_tensors="pt")
            grids = processed["image_grid_thw"]
            for k, grid in enumerate(grids.tolist()):
                seen[k]["grid_thw"] = grid
                seen[k]["tokens"] = grid[0] * grid[1] * grid[2] // (MERGE * MERGE)
            kwargs = {"pixel_values": processed["pixel_values"], "image_grid_thw": grids}
        want = [s["tokens"] for s in seen]
        if found != want:
            raise BadRequest(f"image placeholders: the prompt has spans of {found} pads, its images need {want}")
        max_tokens = int(body.get("max_tokens") or 16)
        temperature = float(body.get("temperature") if body.get("temperature") is not None else 1.0)
        if body.get("seed") is not None:
            torch.manual_seed(int(body["seed"]))
        x = torch.tensor([ids])
        with torch.no_grad():
            out = self.model.generate(
                input_ids=x,
                attention_mask=torch.ones_like(x),
                max_new_tokens=max_tokens,
                do_sample=temperature > 0,
                temperature=temperature if temperature > 0 else None,
                top_k=None,
                top_p=None,
                eos_token_id=sorted(EOS),
                pad_token_id=151643,
                output_logits=True,
                return_dict_in_generate=True,
                **kwargs,
            )
        new = out.sequences[0, len(ids) :].tolist()
        logprobs = [
            float(torch.log_softmax(logits[0].float(), dim=-1)[token])
            for logits, token in zip(out.logits, new, strict=False)
        ]
        stopped = bool(new) and new[-1] in EOS
        return {
            "id": "cmpl-tiny",
            "object": "text_completion",
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "text": "",
                    "token_ids": new,
                    "logprobs": {"token_logprobs": logprobs},
                    "finish_reason": "stop" if stopped else "length",
                    "stop_reason": None,
                }
            ],
            "rlf_images": seen,
        }


class Handler(BaseHTTPRequestHandler):
    engine: Engine

    def log_message(self, *args) -> None:  # quiet
        pass

    def reply(self, status: int, body: dict) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self.reply(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "max_model_len": 4096}]})
        else:
            self.reply(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if self.path != "/v1/completions":
            self.reply(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            self.reply(200, self.engine.complete(body))
        except BadRequest as e:
            self.reply(400, {"error": {"message": str(e), "type": "BadRequestError", "code": 400}})


def main() -> None:
    Handler.engine = Engine()
    server = HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
