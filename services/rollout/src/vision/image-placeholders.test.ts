import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  IMAGE_PAD,
  ImageAspectRatioError,
  imageBytesPlaceholders,
  imagePlaceholderSpan,
  imagePlaceholders,
  PreprocessorConfig,
  QWEN2_5_VL,
  QWEN3_VL,
  VISION_END,
  VISION_START,
} from "./image-placeholders.ts";

describe("PreprocessorConfig", () => {
  it("reads Qwen2.5-VL's min/max_pixels and Qwen3-VL's size, min/max_pixels winning", () => {
    expect(QWEN2_5_VL).toEqual({ patchSize: 14, mergeSize: 2, minPixels: 3136, maxPixels: 12845056 });
    expect(QWEN3_VL).toEqual({ patchSize: 16, mergeSize: 2, minPixels: 65536, maxPixels: 16777216 });
    const both = {
      size: { shortest_edge: 65536, longest_edge: 16777216 },
      max_pixels: 1_000_000,
      patch_size: 16,
    };
    expect(PreprocessorConfig.parse(both)).toMatchObject({ minPixels: 65536, maxPixels: 1_000_000 });
    // absent fields: Qwen2VLImageProcessor's defaults; unrelated fields kept out of the way
    expect(PreprocessorConfig.parse({ image_mean: [0.5, 0.5, 0.5] })).toEqual({
      patchSize: 14,
      mergeSize: 2,
      minPixels: 56 * 56,
      maxPixels: 28 * 28 * 1280,
    });
    expect(() => PreprocessorConfig.parse({ patch_size: 0 })).toThrow();
  });
});

describe("imagePlaceholders", () => {
  it("counts one token per (patch × merge)² of the resized image", () => {
    // 640x480 → 644x476 (multiples of 28) → 46 x 34 patches → 391 tokens
    expect(imagePlaceholders({ width: 640, height: 480 }, QWEN2_5_VL)).toEqual({
      resizedWidth: 644,
      resizedHeight: 476,
      gridWidth: 46,
      gridHeight: 34,
      tokens: 391,
    });
    // the same image under Qwen3-VL: 640x480 are multiples of 32 → 40 x 30 patches → 300 tokens
    expect(imagePlaceholders({ width: 640, height: 480 }, QWEN3_VL).tokens).toBe(300);
    // a 1x1 image is grown to min_pixels: 256x256 under Qwen3-VL → 64 tokens
    expect(imagePlaceholders({ width: 1, height: 1 }, QWEN3_VL).tokens).toBe(64);
  });

  it("rounds halves to even, as Python's round()", () => {
    // 70 / 28 = 2.5 → 2 (not 3): 56x56 → 4 tokens
    expect(imagePlaceholders({ width: 70, height: 70 }, QWEN2_5_VL).tokens).toBe(4);
    // 42 / 28 = 1.5 → 2
    expect(imagePlaceholders({ width: 42, height: 42 }, QWEN2_5_VL).tokens).toBe(4);
  });

  it("keeps every image within the config's pixel range, on multiples of patch × merge", () => {
    const side = fc.integer({ min: 1, max: 20_000 });
    fc.assert(
      fc.property(side, side, fc.constantFrom(QWEN2_5_VL, QWEN3_VL), (width, height, config) => {
        fc.pre(Math.max(width, height) / Math.min(width, height) <= 200);
        const p = imagePlaceholders({ width, height }, config);
        const factor = config.patchSize * config.mergeSize;
        expect(p.resizedWidth % factor).toBe(0);
        expect(p.resizedHeight % factor).toBe(0);
        const area = p.resizedWidth * p.resizedHeight;
        expect(area).toBeGreaterThanOrEqual(config.minPixels);
        expect(area).toBeLessThanOrEqual(config.maxPixels);
        expect(p.tokens).toBe(area / factor ** 2);
      }),
    );
  });

  it("refuses what the processor refuses: past 200:1, or an empty image", () => {
    expect(imagePlaceholders({ width: 200, height: 1 }, QWEN2_5_VL).tokens).toBeGreaterThan(0);
    expect(() => imagePlaceholders({ width: 201, height: 1 }, QWEN2_5_VL)).toThrow(ImageAspectRatioError);
    expect(() => imagePlaceholders({ width: 0, height: 10 }, QWEN2_5_VL)).toThrow(RangeError);
  });

  it("reads the size from the image's header", () => {
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
    png.writeUInt32BE(13, 8);
    png.write("IHDR", 12, "latin1");
    png.writeUInt32BE(640, 16);
    png.writeUInt32BE(480, 20);
    expect(imageBytesPlaceholders(png, QWEN2_5_VL).tokens).toBe(391);
    expect(() => imageBytesPlaceholders(Buffer.from("GIF89a"), QWEN2_5_VL)).toThrow(RangeError);
  });
});

describe("imagePlaceholderSpan", () => {
  it("is vision start, N pads, vision end", () => {
    expect(imagePlaceholderSpan(2)).toBe(`${VISION_START}${IMAGE_PAD}${IMAGE_PAD}${VISION_END}`);
    expect(imagePlaceholderSpan(0)).toBe(`${VISION_START}${VISION_END}`);
  });
});
