// A tiny randomly initialised Qwen2.5-VL (built from a transformers config: no downloaded weights) on
// CPU behind vLLM's token-in API (test/support/python/tiny_vl_server.py), reached through the rollout
// engine's own vLLM client. The server runs transformers' image processor on every image it is sent
// and refuses a prompt whose placeholder spans disagree with it, so an accepted request means our
// count equals the processor's. Checks: a rollout whose tool answers with an image samples its next
// turn from the model with the image; the image reaches the model (another image of the same size
// changes the logprobs, the same image does not); a span one pad short is refused. Runs the engines'
// venv (`npm run setup:engines`); without it the test is skipped with a warning, except under CI.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { enginesPython } from "@rlfactory/kit";
import {
  createRolloutEngine,
  createSampler,
  type GenerateRequest,
  IMAGE_PAD,
  InferenceError,
  imageBytesPlaceholders,
  imagePlaceholderSpan,
  inferenceConfigSchema,
  type ModelTokenizer,
  parseRolloutConfig,
  QWEN2_5_VL,
  qwen3Tokenizer,
  samplingParamsSchema,
  type Task,
  type TokenSampler,
  type ToolCaller,
  type Trajectory,
} from "@rlfactory/rollout";
import { png } from "@rlfactory/test-support/png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PYTHON = enginesPython();
const SERVER = fileURLToPath(new URL("../support/python/tiny_vl_server.py", import.meta.url));
const VL_TEMPLATE = readFileSync(
  fileURLToPath(
    new URL("../../services/rollout/src/vision/__fixtures__/qwen2_5_vl_chat_template.jinja", import.meta.url),
  ),
  "utf8",
);
const HAVE_PYTHON = existsSync(PYTHON);
const UNDER_CI = process.env.CI === "true";
if (!HAVE_PYTHON && !UNDER_CI)
  console.warn(`skipping: no Python environment for the engines at ${PYTHON} (npm run setup:engines)`);

/** A width × height RGB PNG whose colours depend on `seed` (a tiny encoder: filter 0 on every row). */

const TASK: Task = {
  id: "look",
  data_source: "e2e",
  prompt: [{ role: "user", content: "What is in the picture?" }],
  extra_info: {},
};
const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "camera__look",
      description: "Take a picture",
      parameters: { type: "object", properties: {} },
    },
  },
];

let server: ChildProcess | undefined;
let url: string;
let tokenizer: ModelTokenizer;
let vllm: TokenSampler;

beforeAll(async () => {
  if (!HAVE_PYTHON) return;
  tokenizer = await qwen3Tokenizer({ chatTemplate: VL_TEMPLATE });
  const child = spawn(PYTHON, [SERVER, "0"], { stdio: ["ignore", "pipe", "pipe"] });
  server = child;
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`tiny_vl_server.py exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).once("line", (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
  });
  url = `http://127.0.0.1:${port}`;
  vllm = createSampler(
    inferenceConfigSchema.parse({ engine: "vllm", urls: [url], timeout_ms: 120_000 }),
  ) as TokenSampler;
}, 120_000);

afterAll(async () => {
  await vllm?.close();
  if (server?.pid !== undefined) server.kill();
});

/** A prompt whose tool result shows `image` with `pads` placeholder tokens (default: our count). */
function promptWith(image: Buffer, pads = imageBytesPlaceholders(image, QWEN2_5_VL).tokens): number[] {
  const text = tokenizer.renderChat(
    [
      { role: "user", content: "What is in the picture?" },
      { role: "tool", content: `a picture\n${imagePlaceholderSpan(pads)}` },
    ],
    { addGenerationPrompt: true },
  );
  return tokenizer.encode(text);
}

const sampling = samplingParamsSchema.parse({ temperature: 0, max_tokens: 4 });
const generate = (promptIds: number[], images: Buffer[]) =>
  vllm.generate({ promptIds, images: images.map((data) => ({ mimeType: "image/png", data })), sampling });

describe.skipIf(!HAVE_PYTHON && !UNDER_CI)(
  "a tiny random Qwen2.5-VL on CPU through the engine's vLLM client",
  () => {
    it("runs a rollout whose tool answers with an image: the next turn is sampled by the model, given the image", async () => {
      const image = seeded(40, 30, 1);
      const seen: { images: number; promptIds: readonly number[] }[] = [];
      let first = true;
      // the random model never calls a tool: the first turn is scripted, every later one is the model's
      const sampler: TokenSampler = {
        trainable: true,
        kind: "vllm",
        logprobsKind: "raw",
        async generate(request: GenerateRequest) {
          seen.push({ images: request.images?.length ?? 0, promptIds: [...request.promptIds] });
          if (!first) return vllm.generate(request);
          first = false;
          const ids = [
            ...tokenizer.encode('<tool_call>\n{"name": "camera__look", "arguments": {}}\n</tool_call>'),
            tokenizer.requireTokenId("<|im_end|>"),
          ];
          return {
            ids,
            logprobs: ids.map(() => -0.5),
            finishReason: "stop",
            weightVersion: null,
            server: "scripted",
            latencyMs: 0,
          };
        },
        close: async () => {},
      };
      const toolCaller: ToolCaller = {
        callTools: async (calls) =>
          calls.map((c) => ({
            name: c.name,
            isError: false,
            errorCode: "OK",
            text: "a picture",
            structured: null,
            latencyMs: 1,
            images: [{ mimeType: "image/png", data: image }],
          })),
      };
      const engine = await createRolloutEngine(
        parseRolloutConfig({
          inference: { engine: "vllm", urls: [url] },
          gateway: { address: "127.0.0.1:1" },
          rollout: {
            group_size: 1,
            max_turns: 2,
            max_concurrency: 1,
            sampling: { temperature: 0, max_tokens: 6 },
          },
          reward: { components: [{ type: "exact_match", weight: 1 }] },
        }),
        {
          sampler,
          tokenizer,
          toolCaller,
          toolInvoker: {
            call: async () => {
              throw new Error("unused");
            },
          },
          tools: TOOLS,
        },
      );
      let t: Trajectory | undefined;
      try {
        for await (const group of engine.rollout([TASK])) t = group.trajectories[0];
      } finally {
        await engine.close();
      }
      const seenJson = JSON.stringify({ status: t?.status, reason: t?.status_reason });
      expect(t?.status, seenJson).not.toBe("failed");
      expect(t?.turns.map((x) => x.kind)).toEqual(["sampled", "observation", "sampled"]);
      const record = t!.images![0]!;
      expect(record.end! - record.start!).toBe(imageBytesPlaceholders(image, QWEN2_5_VL).tokens);
      expect(new Set(t!.response_ids.slice(record.start, record.end))).toEqual(
        new Set([tokenizer.requireTokenId(IMAGE_PAD)]),
      );
      // the model's turn came with the image, and its ids and logprobs are the server's
      expect(seen.map((s) => s.images)).toEqual([0, 1]);
      const modelTurn = t!.turns[2]!;
      expect(modelTurn.end - modelTurn.start).toBeGreaterThan(0);
      expect(
        t!.rollout_logprobs.slice(modelTurn.start, modelTurn.end).every((lp) => lp <= 0 && lp !== -0.5),
      ).toBe(true);
    }, 120_000);

    it("the image reaches the model: another image of the same size changes the logprobs, the same one does not", async () => {
      const a = seeded(40, 30, 1);
      const b = seeded(40, 30, 2);
      const ids = promptWith(a);
      expect(promptWith(b)).toEqual(ids); // same size: the same placeholder tokens
      const [first, again, other] = [
        await generate(ids, [a]),
        await generate(ids, [a]),
        await generate(ids, [b]),
      ];
      expect(again.logprobs).toEqual(first.logprobs);
      expect(other.logprobs).not.toEqual(first.logprobs);
    }, 120_000);

    it("a span one pad short of the processor's count is refused by the server", async () => {
      const image = seeded(40, 30, 1);
      const ids = promptWith(image, imageBytesPlaceholders(image, QWEN2_5_VL).tokens - 1);
      const error = await generate(ids, [image]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InferenceError);
      expect((error as InferenceError).message).toMatch(
        /image placeholders: the prompt has spans of \[\d+\] pads, its images need \[\d+\]/,
      );
    }, 120_000);
  },
);

/** A PNG whose pixels depend on `seed`: two seeds, two images of the same size. */
function seeded(width: number, height: number, seed: number): Buffer {
  return png(width, height, (x, y) => [
    (x * 37 + seed * 91) % 256,
    (y * 53 + seed * 17) % 256,
    (seed * 201) % 256,
  ]);
}
