// An image observation end to end: the simulated inference server as the policy (`converse`, real
// Qwen3 tokenizer; the rollout renders with a Qwen2.5-VL style chat template) calls `image__rotate` of
// `rlf tool image` behind a real gateway, and answers from what it was sent. Run once over vLLM's
// protocol and once over SGLang's. Checks: the record's image has the processor's placeholder count
// with loss mask 0 over it, the next inference request carried the image (the same bytes' hash; the
// server checks the span against the same rules and refuses a mismatch), the policy's reply quotes the
// image it received, and the bytes are stored by hash in the run directory.
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRolloutEngine,
  IMAGE_PAD,
  imagePlaceholders,
  type ModelTokenizer,
  parseRolloutConfig,
  QWEN2_5_VL,
  qwen3Tokenizer,
  type Task,
  type Trajectory,
} from "@rlfactory/rollout";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type InProcessGateway, RLF, startTestGateway } from "@rlfactory/test-support/gateway-harness";
import { ROTATE_TOOL, rotateTask, VL_TEMPLATE } from "@rlfactory/test-support/image-rollout";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TOOL = ROTATE_TOOL;
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const TASK: Task = rotateTask([90]);

const ENGINES = ["vllm", "sglang"] as const;
let tokenizer: ModelTokenizer;
let gateway: InProcessGateway;
const runs = new Map<
  (typeof ENGINES)[number],
  { policy: SimulatedLlm; trajectory: Trajectory; dir: string }
>();

beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
  gateway = await startTestGateway({
    servers: { image: { command: process.execPath, args: [RLF, "tool", "image", "--stdio"] } },
  });
  for (const engine of ENGINES) {
    const policy = await startSimulatedLlm({ policy: "converse", seed: 5, policyOptions: { tool: TOOL } });
    const dir = await mkdtemp(join(tmpdir(), `rollout-image-${engine}-`));
    const rollout = await createRolloutEngine(
      parseRolloutConfig({
        inference: { engine, urls: [policy.url] },
        gateway: { address: gateway.gateway.grpcAddress, tools: [TOOL], deadline_ms: 30_000 },
        tokenizer: { path: "qwen3", chat_template: VL_TEMPLATE },
        format: "hermes",
        rollout: {
          group_size: 1,
          max_turns: 6,
          max_concurrency: 1,
          max_context_tokens: 8192,
          sampling: { temperature: 0, max_tokens: 256 },
        },
        reward: { components: [{ type: "exact_match", weight: 1 }] },
        output: { dir },
        seed: 3,
      }),
    );
    try {
      const out: Trajectory[] = [];
      for await (const group of rollout.rollout([TASK])) out.push(...group.trajectories);
      expect(out).toHaveLength(1);
      runs.set(engine, { policy, trajectory: out[0]!, dir });
    } finally {
      await rollout.close();
    }
  }
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  for (const { policy, dir } of runs.values()) {
    await policy.close();
    await rm(dir, { recursive: true, force: true });
  }
});

describe.each(ENGINES)("a rollout whose policy rotates an image (%s)", (engine) => {
  const run = () => runs.get(engine)!;

  it("records the call and one image observation with the processor's placeholder count, mask 0 over it", () => {
    const t = run().trajectory;
    const seen = JSON.stringify({ status: t.status_reason, calls: t.tool_calls, images: t.images });
    expect([t.status, t.status_reason, t.reward], seen).toEqual(["completed", "answer", 1]);
    expect(t.tool_calls.map((c) => [c.name, c.error_code])).toEqual([[TOOL, null]]);
    expect(t.tool_calls[0]?.result).toBe("rotated 90°: 6x8 image/png");
    expect(t.images).toHaveLength(1);
    const image = t.images![0]!;
    expect(image).toMatchObject({ mime_type: "image/png", width: 6, height: 8, shown: "full", tool_call: 0 });
    expect(t.turns[image.turn]?.kind).toBe("observation");
    const span = t.response_ids.slice(image.start, image.end);
    expect(span).toHaveLength(imagePlaceholders({ width: 6, height: 8 }, QWEN2_5_VL).tokens);
    expect(new Set(span)).toEqual(new Set([tokenizer.requireTokenId(IMAGE_PAD)]));
    expect(new Set(t.loss_mask.slice(image.start, image.end))).toEqual(new Set([0]));
  });

  it("sent the image with the token ids on every request after the observation: the same bytes", () => {
    const { policy, trajectory } = run();
    const image = trajectory.images![0]!;
    const sent = policy.requests.map((r) => r.images.map((i) => i.sha256));
    expect(policy.requests.map((r) => r.protocol)).toEqual(Array(sent.length).fill(engine));
    // the reply to the prompt and the call: no image yet; the reply to the tool result and the answer
    // turn: the rotated image
    expect(sent).toEqual([[], [], [image.sha256], [image.sha256]]);
    expect(policy.requests[2]?.images[0]).toMatchObject({ mimeType: "image/png", width: 6, height: 8 });
  });

  it("the policy answered from the image it was sent", () => {
    const t = run().trajectory;
    const image = t.images![0]!;
    const sampled = t.turns.filter((x) => x.kind === "sampled");
    const replies = sampled.map((x) => tokenizer.decode(t.response_ids.slice(x.start, x.end)));
    expect(replies[2]).toContain(`[image 6x8 image/png sha256 ${image.sha256.slice(0, 12)}]`);
  });

  it("stored the bytes by content hash in the run directory", async () => {
    const { trajectory, dir } = run();
    const image = trajectory.images![0]!;
    expect(image.path).toBe(`images/${image.sha256}.png`);
    expect(sha256(await readFile(join(dir, image.path)))).toBe(image.sha256);
  });
});
