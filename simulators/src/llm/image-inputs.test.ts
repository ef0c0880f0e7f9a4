// The simulated LLM's image inputs over real HTTP: it records the images a vLLM or SGLang request
// carried and refuses, as an engine does, a prompt whose placeholder spans do not match them.
import { imagePlaceholderSpan, type ModelTokenizer, qwen3Tokenizer } from "@rlfactory/rollout";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimulatedLlm, startSimulatedLlm } from "./server.ts";

// a 1 × 1 PNG: Qwen2.5-VL's rules give it 56 × 56 pixels, 4 placeholder tokens
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
  "base64",
);
const URL_ = `data:image/png;base64,${PNG.toString("base64")}`;

let tok: ModelTokenizer;
let llm: SimulatedLlm;
beforeAll(async () => {
  tok = await qwen3Tokenizer();
  llm = await startSimulatedLlm({ policy: "converse", tokenizer: tok });
});
afterAll(() => llm?.close());

const prompt = (pads: number) =>
  tok.encode(
    `<|im_start|>user\n<tool_response>\nlook\n${imagePlaceholderSpan(pads)}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`,
  );

async function post(path: string, body: unknown) {
  const res = await fetch(`${llm.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as { error?: { message: string }; message?: string },
  };
}

describe("image inputs of the simulated LLM", () => {
  it("records a vLLM request's multi_modal_data images and an SGLang request's image_data, decoded", async () => {
    const before = llm.requests.length;
    const vllm = await post("/v1/completions", {
      prompt: prompt(4),
      max_tokens: 32,
      multi_modal_data: { image: [URL_] },
    });
    const sglang = await post("/generate", { input_ids: prompt(4), image_data: [URL_] });
    expect([vllm.status, sglang.status]).toEqual([200, 200]);
    expect(
      llm.requests
        .slice(before)
        .map((r) => r.images.map((i) => [i.mimeType, i.width, i.height, i.data.equals(PNG)])),
    ).toEqual([[["image/png", 1, 1, true]], [["image/png", 1, 1, true]]]);
  });

  it("refuses a span whose pad count is not the processor's, and a span without its image", async () => {
    const wrong = await post("/v1/completions", { prompt: prompt(5), multi_modal_data: { image: [URL_] } });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.json)).toContain(
      "image 0 (1x1) needs 4 <|image_pad|> tokens; the prompt has 5",
    );
    const missing = await post("/generate", { input_ids: prompt(4) });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.json)).toContain(
      "the prompt has 1 image placeholder spans but the request carries 0 images",
    );
  });
});
