// see: tool results come out in the turn's order whatever order they arrive in, and `max_images`
// counts the images already in the context and those earlier in the same turn.
import { Jimp, JimpMime } from "jimp";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolOutcome } from "../gateway-tools.ts";
import type { ToolCallRequest } from "../parsers/types.ts";
import { type ModelTokenizer, qwen3Tokenizer } from "../tokenizer/model-tokenizer.ts";
import { visionSettings } from "../vision/vision-config.ts";
import { scriptedState } from "./__fixtures__/scripted-loop.ts";
import { seePhase } from "./see-phase.ts";

let tokenizer: ModelTokenizer;
let png: Buffer;
beforeAll(async () => {
  tokenizer = await qwen3Tokenizer();
  png = await new Jimp({ width: 30, height: 20, color: 0x336699ff }).getBuffer(JimpMime.png);
});

const result = (index: number, images: number): { call: ToolCallRequest; outcome: ToolOutcome } => ({
  call: { name: "camera__look", arguments: {}, raw: "", index },
  outcome: {
    name: "camera__look",
    isError: false,
    errorCode: "OK",
    text: `result ${index}`,
    structured: null,
    latencyMs: 1,
    ...(images === 0
      ? {}
      : { images: Array.from({ length: images }, () => ({ mimeType: "image/png", data: png })) }),
  },
});

describe("the see phase", () => {
  it("orders the results by the turn's call order and counts max_images across them and the context", async () => {
    const vision = visionSettings({
      processor: {},
      max_images: 3,
      context_policy: "drop",
      downscale_max_pixels: 200_704,
    });
    const { state } = scriptedState({ sampler: [], vision }, tokenizer);
    // one image already in the context at the full budget
    state.contextImages.push({
      shown: "full",
      data: png,
      mimeType: "image/png",
      sha256: "x",
      width: 30,
      height: 20,
      tokens: 4,
      text: "",
    });
    const observed = await seePhase(state, [result(2, 1), result(0, 2), result(1, 0)]);
    expect(
      observed.map((o) => (o.kind === "tool" ? [o.index, (o.images ?? []).map((i) => i.shown)] : [])),
    ).toEqual([
      [0, ["full", "full"]],
      [1, []],
      [2, ["dropped"]],
    ]);
  });

  it("without a vision-language template every image is a text note", async () => {
    const { state } = scriptedState({ sampler: [] }, tokenizer);
    const observed = await seePhase(state, [result(0, 2)]);
    expect(observed[0]?.kind === "tool" && observed[0].images?.map((i) => [i.shown, i.tokens])).toEqual([
      ["text", 0],
      ["text", 0],
    ]);
  });
});
