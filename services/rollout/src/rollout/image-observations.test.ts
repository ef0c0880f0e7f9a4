// Tool-result images through the loop (scripted sampler and tools, real Qwen3 tokenizer): with a
// Qwen2.5-VL style chat template each image becomes its placeholder span (the processor's count, loss
// mask 0) and every later generate request carries its bytes; past `max_images` an image is dropped to
// a text note or downscaled; with a text-only template it is a text note and nothing is sent.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Trajectory } from "@rlfactory/contracts";
import { Jimp, JimpMime } from "jimp";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolCallInput, ToolOutcome } from "../gateway-tools.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { sha256Hex } from "../vision/image-observation.ts";
import { IMAGE_PAD, imagePlaceholders, QWEN2_5_VL } from "../vision/image-placeholders.ts";
import { type VisionSettings, visionSettings } from "../vision/vision-config.ts";
import { ANSWER, call, ok, runScript, type Script } from "./__fixtures__/scripted-loop.ts";

const VL_TEMPLATE = readFileSync(
  fileURLToPath(new URL("../vision/__fixtures__/qwen2_5_vl_chat_template.jinja", import.meta.url)),
  "utf8",
);

let text: ModelTokenizer;
let vl: ModelTokenizer;
let png: Buffer;
let wide: Buffer;
beforeAll(async () => {
  [text, vl] = await Promise.all([qwen3Tokenizer(), qwen3Tokenizer({ chatTemplate: VL_TEMPLATE })]);
  png = await new Jimp({ width: 64, height: 48, color: 0xff0000ff }).getBuffer(JimpMime.png);
  wide = await new Jimp({ width: 640, height: 480, color: 0x00ff00ff }).getBuffer(JimpMime.png);
});

/** One call answered with `images`, then the answer. */
const script = (images: () => Buffer[], vision?: VisionSettings): Script => ({
  sampler: [{ text: call("picture") }, { text: ANSWER }],
  tools: [
    {
      outcomes: (calls: readonly ToolCallInput[]): ToolOutcome[] =>
        ok(calls).map((o) => ({
          ...o,
          text: "rotated 90°",
          images: images().map((data) => ({ mimeType: "image/png", data })),
        })),
    },
  ],
  ...(vision === undefined ? {} : { vision }),
});

const observation = (t: Trajectory, tok: ModelTokenizer) => {
  const turn = t.turns.find((x) => x.kind === "observation")!;
  return tok.decode(t.response_ids.slice(turn.start, turn.end));
};

describe("tool-result images in the loop", () => {
  it("a vision-language template: the placeholder span with the processor's count, mask 0, and the image sent on the next request", async () => {
    const { h, t } = await runScript(
      script(() => [png], visionSettings(undefined)),
      vl,
    );
    expect(vl.templateRendersImages).toBe(true);
    const tokens = imagePlaceholders({ width: 64, height: 48 }, QWEN2_5_VL).tokens;
    expect(t.status).toBe("completed");
    expect(t.images).toHaveLength(1);
    const image = t.images![0]!;
    expect(image).toMatchObject({
      sha256: sha256Hex(png),
      mime_type: "image/png",
      path: `images/${sha256Hex(png)}.png`,
      width: 64,
      height: 48,
      shown: "full",
      tool_call: 0,
      turn: 1,
    });
    const span = t.response_ids.slice(image.start, image.end);
    expect(span).toHaveLength(tokens);
    expect(new Set(span)).toEqual(new Set([vl.requireTokenId(IMAGE_PAD)]));
    expect(t.loss_mask.slice(image.start, image.end).every((m) => m === 0)).toBe(true);
    expect(observation(t, vl)).toContain(
      `rotated 90°\n<|vision_start|>${IMAGE_PAD.repeat(tokens)}<|vision_end|>`,
    );
    // the first request had no image; the second carried its bytes, once
    expect(h.requests.map((r) => r.images.map((i) => sha256Hex(i.data)))).toEqual([[], [sha256Hex(png)]]);
  });

  it("a text-only template: a one-line note, nothing sent, the image still recorded", async () => {
    const { h, t } = await runScript(
      script(() => [png]),
      text,
    );
    expect(text.templateRendersImages).toBe(false);
    expect(t.status).toBe("completed");
    expect(observation(t, text)).toContain(
      `rotated 90°\n[image: image/png 64x48, sha256 ${sha256Hex(png).slice(0, 12)}; not shown: the chat template has no image tokens]`,
    );
    expect(observation(t, text)).not.toContain("<|vision_start|>");
    expect(t.images?.map((i) => [i.shown, i.start, i.end])).toEqual([["text", undefined, undefined]]);
    expect(h.requests.map((r) => r.images.length)).toEqual([0, 0]);
  });

  it("past max_images with context_policy drop: a text placeholder, only the images in context sent", async () => {
    const vision = visionSettings({
      processor: {},
      max_images: 1,
      context_policy: "drop",
      downscale_max_pixels: 200_704,
    });
    const { h, t } = await runScript(
      script(() => [png, wide], vision),
      vl,
    );
    expect(t.images?.map((i) => i.shown)).toEqual(["full", "dropped"]);
    expect(observation(t, vl)).toContain(
      `[image dropped: image/png 640x480, sha256 ${sha256Hex(wide).slice(0, 12)}; past max_images 1]`,
    );
    expect(h.requests[1]?.images.map((i) => sha256Hex(i.data))).toEqual([sha256Hex(png)]);
  });

  it("past max_images with context_policy downscale: resized to the budget's processed size and sent at that size", async () => {
    const vision = visionSettings({
      processor: {},
      max_images: 0,
      context_policy: "downscale",
      downscale_max_pixels: 28 * 28 * 16,
    });
    const { h, t } = await runScript(
      script(() => [wide], vision),
      vl,
    );
    const budget = imagePlaceholders({ width: 640, height: 480 }, { ...QWEN2_5_VL, maxPixels: 28 * 28 * 16 });
    const image = t.images![0]!;
    expect(image).toMatchObject({
      shown: "downscaled",
      width: budget.resizedWidth,
      height: budget.resizedHeight,
      source_sha256: sha256Hex(wide),
    });
    expect(image.end! - image.start!).toBe(budget.tokens);
    const sent = h.requests[1]!.images[0]!;
    expect(sha256Hex(sent.data)).toBe(image.sha256);
    const decoded = await Jimp.fromBuffer(sent.data);
    expect([decoded.width, decoded.height]).toEqual([budget.resizedWidth, budget.resizedHeight]);
    // the full-budget rules leave the sent image as it is: the server counts what we counted
    expect(imagePlaceholders(decoded, QWEN2_5_VL).tokens).toBe(budget.tokens);
  });

  it("a tool text holding image tokens of its own fails the trajectory instead of misaligning the images", async () => {
    const s = script(() => [png], visionSettings(undefined));
    s.tools = [
      {
        outcomes: (calls) =>
          ok(calls).map((o) => ({
            ...o,
            text: `<|vision_start|>${IMAGE_PAD}<|vision_end|>`,
            images: [{ mimeType: "image/png", data: png }],
          })),
      },
    ];
    const { t } = await runScript(s, vl);
    expect(t.status).toBe("failed");
    expect(t.status_reason).toMatch(
      /image placeholders: the observation holds <\|image_pad\|> runs of \[1, \d+\] tokens/,
    );
    expect(t.images).toBeUndefined();
  });
});
