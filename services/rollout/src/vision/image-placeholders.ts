// How many `<|image_pad|>` tokens a Qwen2.5-VL / Qwen3-VL style processor puts in the prompt for an
// image, and the span it renders: transformers' Qwen2VLImageProcessor rules (both families use it),
// computed from the image's size alone. The image is resized to multiples of patch_size × merge_size
// within [min_pixels, max_pixels] (smart_resize), cut into patch_size patches, and every merge_size ×
// merge_size patches become one token. Checked against transformers by
// test/rollout/image-placeholders-parity.test.ts.
import { imageHeaderSize } from "@rlfactory/kit";
import { z } from "zod";

export const VISION_START = "<|vision_start|>";
export const IMAGE_PAD = "<|image_pad|>";
export const VISION_END = "<|vision_end|>";

/** Beyond this long side / short side, the processor refuses the image (smart_resize's ValueError). */
export const MAX_ASPECT_RATIO = 200;

/** The parameters of the rule, in pixels. */
export interface VisionPatchConfig {
  patchSize: number;
  mergeSize: number;
  minPixels: number;
  maxPixels: number;
}

/**
 * The fields of a model's preprocessor_config.json that decide the count: Qwen2.5-VL states
 * `min_pixels` / `max_pixels`, Qwen3-VL `size: {shortest_edge, longest_edge}` (both are pixel counts);
 * `min_pixels` / `max_pixels` win over `size`, as in the processor. Absent fields take
 * Qwen2VLImageProcessor's defaults. Other fields (mean, std, processor class) are kept and ignored.
 */
export const PreprocessorConfig = z
  .looseObject({
    patch_size: z.int().positive().optional(),
    merge_size: z.int().positive().optional(),
    min_pixels: z.int().positive().optional(),
    max_pixels: z.int().positive().optional(),
    size: z
      .looseObject({
        shortest_edge: z.int().positive().optional(),
        longest_edge: z.int().positive().optional(),
      })
      .optional(),
  })
  .transform(
    (c): VisionPatchConfig => ({
      patchSize: c.patch_size ?? 14,
      mergeSize: c.merge_size ?? 2,
      minPixels: c.min_pixels ?? c.size?.shortest_edge ?? 56 * 56,
      maxPixels: c.max_pixels ?? c.size?.longest_edge ?? 28 * 28 * 1280,
    }),
  );
export type PreprocessorConfigInput = z.input<typeof PreprocessorConfig>;

/** Qwen2.5-VL's released preprocessor config (patch 14: one token per 28 × 28 pixels). */
export const QWEN2_5_VL: VisionPatchConfig = PreprocessorConfig.parse({
  min_pixels: 3136,
  max_pixels: 12845056,
  patch_size: 14,
  merge_size: 2,
});
/** Qwen3-VL's released preprocessor config (patch 16: one token per 32 × 32 pixels). */
export const QWEN3_VL: VisionPatchConfig = PreprocessorConfig.parse({
  size: { shortest_edge: 65536, longest_edge: 16777216 },
  patch_size: 16,
  merge_size: 2,
});

export interface ImagePlaceholders {
  /** The size the processor resizes the image to (multiples of patchSize × mergeSize). */
  resizedWidth: number;
  resizedHeight: number;
  /** Patches across and down (image_grid_thw's h and w; t is 1 for an image). */
  gridWidth: number;
  gridHeight: number;
  /** `<|image_pad|>` tokens: gridWidth × gridHeight / mergeSize². */
  tokens: number;
}

export class ImageAspectRatioError extends Error {
  override name = "ImageAspectRatioError";
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** transformers' smart_resize, operation for operation (the same doubles, so the same results). */
export function smartResize(
  height: number,
  width: number,
  factor: number,
  minPixels: number,
  maxPixels: number,
): { height: number; width: number } {
  const ratio = Math.max(height, width) / Math.min(height, width);
  if (!(ratio <= MAX_ASPECT_RATIO))
    throw new ImageAspectRatioError(
      `image ${width}x${height}: aspect ratio ${ratio} is not below ${MAX_ASPECT_RATIO}, which the processor refuses`,
    );
  let hBar = roundHalfEven(height / factor) * factor;
  let wBar = roundHalfEven(width / factor) * factor;
  if (hBar * wBar > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    hBar = Math.max(factor, Math.floor(height / beta / factor) * factor);
    wBar = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (hBar * wBar < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    hBar = Math.ceil((height * beta) / factor) * factor;
    wBar = Math.ceil((width * beta) / factor) * factor;
  }
  return { height: hBar, width: wBar };
}

/** The placeholder count for an image of `width` × `height` pixels under `config`. */
export function imagePlaceholders(
  image: { width: number; height: number },
  config: VisionPatchConfig,
): ImagePlaceholders {
  const { patchSize, mergeSize } = config;
  if (!(image.width >= 1 && image.height >= 1))
    throw new RangeError(`image ${image.width}x${image.height}: width and height must be at least 1`);
  const resized = smartResize(
    image.height,
    image.width,
    patchSize * mergeSize,
    config.minPixels,
    config.maxPixels,
  );
  const gridHeight = Math.floor(resized.height / patchSize);
  const gridWidth = Math.floor(resized.width / patchSize);
  return {
    resizedWidth: resized.width,
    resizedHeight: resized.height,
    gridWidth,
    gridHeight,
    tokens: Math.floor((gridHeight * gridWidth) / (mergeSize * mergeSize)),
  };
}

/** The text the chat template renders for one image: vision start, `tokens` pads, vision end. */
export function imagePlaceholderSpan(tokens: number): string {
  return VISION_START + IMAGE_PAD.repeat(tokens) + VISION_END;
}

/** The placeholder count for a PNG or JPEG, its size read from its header (the image is not decoded). */
export function imageBytesPlaceholders(bytes: Uint8Array, config: VisionPatchConfig): ImagePlaceholders {
  const size = imageHeaderSize(bytes);
  if (size === undefined) throw new RangeError("image is not a PNG or JPEG with a readable header");
  return imagePlaceholders(size, config);
}
