// Rollouts with image observations: the simulated inference server as the policy (`converse`) asks
// `rlf tool image` behind a gateway to rotate a tiny PNG the task carries, and the rollout renders
// with a Qwen2.5-VL style chat template, so the image lands in the context as placeholder tokens.
// test/rollout/rollout-image.e2e.test.ts drives the engine in process; writeImageRolloutRun runs the
// same through a real `rlf rollout --out`, for the console.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { crc32, deflateSync } from "node:zlib";
import type { Task } from "@rlfactory/contracts";
import { type SimulatedLlm, startSimulatedLlm } from "@rlfactory/simulators/llm";
import { type ChildGateway, RLF, ROOT, spawnGateway, tempDir } from "./gateway-harness.ts";

export const ROTATE_TOOL = "image__rotate";

/** A Qwen2.5-VL chat template (the rollout renders image observations with its vision tokens). */
export const VL_TEMPLATE = fileURLToPath(
  new URL(
    "../../../services/rollout/src/vision/__fixtures__/qwen2_5_vl_chat_template.jinja",
    import.meta.url,
  ),
);

/** A width × height RGB PNG (a tiny encoder: filter 0 on every row). */
export function png(width: number, height: number): Buffer {
  const raw = Buffer.alloc(height * (1 + 3 * width));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) raw.set([x * 30, y * 40, 200], y * (1 + 3 * width) + 1 + 3 * x);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A task whose user turns ask for one rotation of an 8 × 6 PNG each (`degrees` in order), then for
 * the answer `6x8`.
 */
export function rotateTask(degrees: readonly number[], id = "rotate"): Task {
  const image = png(8, 6).toString("base64");
  return {
    id,
    data_source: "e2e",
    prompt: [{ role: "user", content: "Hello." }],
    ground_truth: "6x8",
    extra_info: {},
    tools: [],
    turns: [
      ...degrees.map((d) => ({
        content: `Rotate it, call: {"image": "${image}", "degrees": ${d}}`,
        tools: [ROTATE_TOOL],
      })),
      { content: "answer: 6x8", tools: [] },
    ],
  };
}

export interface ImageRolloutRun {
  gateway: ChildGateway;
  /** `${runsDir}/${name}`: trajectories.jsonl, summary.json, images/, report.html. */
  runDir: string;
  stop(): Promise<void>;
}

/**
 * `rlf rollout --out runsDir/name` over one task rotating the PNG by 90° then 180°, with
 * `vision.max_images: 1`: the first result is shown (`full`, placeholder tokens), the second
 * `dropped` (a text note). Both are stored under images/.
 */
export async function writeImageRolloutRun(runsDir: string, name: string): Promise<ImageRolloutRun> {
  let gateway: ChildGateway | undefined;
  let sim: SimulatedLlm | undefined;
  const stop = async () => {
    await sim?.close();
    await gateway?.stop();
  };
  try {
    [gateway, sim] = await Promise.all([
      spawnGateway({
        servers: { image: { command: process.execPath, args: [RLF, "tool", "image", "--stdio"] } },
      }),
      startSimulatedLlm({ policy: "converse", seed: 5, policyOptions: { tool: ROTATE_TOOL } }),
    ]);
    const dir = tempDir("rlf-image-rollout-");
    const dataset = join(dir, "tasks.jsonl");
    writeFileSync(dataset, `${JSON.stringify(rotateTask([90, 180]))}\n`);
    const config = join(dir, "rollout.yaml");
    writeFileSync(
      config,
      [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gateway.grpcAddress}", tools: [${ROTATE_TOOL}], deadline_ms: 30000 }`,
        `tokenizer: { path: qwen3, chat_template: ${JSON.stringify(VL_TEMPLATE)} }`,
        "format: hermes",
        `dataset: { path: ${JSON.stringify(dataset)} }`,
        "rollout: { group_size: 1, max_turns: 8, max_context_tokens: 8192, sampling: { temperature: 0, max_tokens: 256 } }",
        "vision: { max_images: 1, context_policy: drop }",
        "reward: { components: [{ type: exact_match, weight: 1 }] }",
        "seed: 3",
      ].join("\n"),
    );
    const runDir = join(runsDir, name);
    await promisify(execFile)(process.execPath, [RLF, "rollout", "--config", config, "--out", runDir], {
      cwd: ROOT,
      timeout: 90_000,
    });
    return { gateway, runDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
