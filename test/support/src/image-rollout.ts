// Rollouts with image observations: the simulated inference server as the policy (`converse`) asks
// `rlf tool image` behind a gateway to rotate a tiny PNG the task carries, and the rollout renders
// with a Qwen2.5-VL style chat template, so the image lands in the context as placeholder tokens.
// test/rollout/rollout-image.e2e.test.ts drives the engine in process; writeImageRolloutRun runs the
// same through a real `rlf rollout --out`, for the console.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Task } from "@rlfactory/contracts";
import { RLF } from "./gateway-harness.ts";
import { png } from "./png.ts";
import { type RolloutRun, writeRun } from "./rollout-run.ts";

export { png };

export const ROTATE_TOOL = "image__rotate";

/** A Qwen2.5-VL chat template (the rollout renders image observations with its vision tokens). */
export const VL_TEMPLATE = fileURLToPath(
  new URL(
    "../../../services/rollout/src/vision/__fixtures__/qwen2_5_vl_chat_template.jinja",
    import.meta.url,
  ),
);

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

/** `${runsDir}/${name}`: trajectories.jsonl, summary.json, images/, report.html. */
export type ImageRolloutRun = RolloutRun;

/**
 * `rlf rollout --out runsDir/name` over one task rotating the PNG by 90° then 180°, with
 * `vision.max_images: 1`: the first result is shown (`full`, placeholder tokens), the second
 * `dropped` (a text note). Both are stored under images/.
 */
export function writeImageRolloutRun(runsDir: string, name: string): Promise<ImageRolloutRun> {
  return writeRun(runsDir, name, {
    servers: { image: { command: process.execPath, args: [RLF, "tool", "image", "--stdio"] } },
    llm: { policy: "converse", seed: 5, policyOptions: { tool: ROTATE_TOOL } },
    config: (sim, gateway, dir) => {
      const dataset = join(dir, "tasks.jsonl");
      writeFileSync(dataset, `${JSON.stringify(rotateTask([90, 180]))}\n`);
      return [
        `inference: { engine: vllm, urls: [${sim.url}] }`,
        `gateway: { address: "${gateway.grpcAddress}", tools: [${ROTATE_TOOL}], deadline_ms: 30000 }`,
        `tokenizer: { path: qwen3, chat_template: ${JSON.stringify(VL_TEMPLATE)} }`,
        "format: hermes",
        `dataset: { path: ${JSON.stringify(dataset)} }`,
        "rollout: { group_size: 1, max_turns: 8, max_context_tokens: 8192, sampling: { temperature: 0, max_tokens: 256 } }",
        "vision: { max_images: 1, context_policy: drop }",
        "reward: { components: [{ type: exact_match, weight: 1 }] }",
        "seed: 3",
      ];
    },
  });
}
