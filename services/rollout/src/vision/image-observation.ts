// What a tool result's image becomes in the model's context (one decision per image, made before the
// observation is rendered):
//   full        a vision-language template, within `max_images`: vision start, N image pads (N from
//               the processor rules, image-placeholders.ts), vision end; the bytes go to the server
//   downscaled  past `max_images` with `context_policy: downscale`: resized (jimp) to the size the
//               processor would give it under `downscale_max_pixels`, and shown like `full` (the server's
//               processor leaves an image of that size as it is, so its count is ours)
//   dropped     past `max_images` with `context_policy: drop`: a one-line text placeholder
//   text        a template without image tokens (or an image the processor refuses): a one-line note,
//               as before images reached the engine
// Every image is recorded (bytes by content hash), whatever the model was shown.
import { createHash } from "node:crypto";
import { imageHeaderSize } from "@rlfactory/kit";
import type { ToolImage } from "../gateway-tools.ts";
import { ImageAspectRatioError, imagePlaceholderSpan, imagePlaceholders } from "./image-placeholders.ts";
import type { VisionSettings } from "./vision-config.ts";

export type ImageShown = "full" | "downscaled" | "dropped" | "text";

/** One tool-result image and what the model is shown of it. */
export interface PlannedImage {
  shown: ImageShown;
  /** The bytes recorded (and, when shown, sent to the server): the downscaled ones for `downscaled`. */
  data: Buffer;
  mimeType: string;
  sha256: string;
  /** Pixels of `data` (0 when its header cannot be read). */
  width: number;
  height: number;
  /** `<|image_pad|>` tokens in the context (0 unless full or downscaled). */
  tokens: number;
  /** The tool's own image's hash, when `data` is a downscaled copy. */
  sourceSha256?: string;
  /** What goes into the observation's text: the placeholder span, or a one-line note. */
  text: string;
}

export const sha256Hex = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

/**
 * Decides each image of one tool result. `vision`: the engine's settings when the chat template is
 * vision-language, else undefined; `shownBefore`: images already in the context at full budget.
 */
export async function planImages(
  images: readonly ToolImage[],
  vision: VisionSettings | undefined,
  shownBefore: number,
): Promise<PlannedImage[]> {
  const out: PlannedImage[] = [];
  let shown = shownBefore;
  for (const image of images) {
    const planned = await planImage(image, vision, shown);
    if (planned.shown === "full") shown += 1;
    out.push(planned);
  }
  return out;
}

async function planImage(
  image: ToolImage,
  vision: VisionSettings | undefined,
  shownBefore: number,
): Promise<PlannedImage> {
  const size = imageHeaderSize(image.data);
  const base = {
    data: image.data,
    mimeType: image.mimeType,
    sha256: sha256Hex(image.data),
    width: size?.width ?? 0,
    height: size?.height ?? 0,
    tokens: 0,
  };
  const label = `${base.mimeType} ${base.width}x${base.height}, sha256 ${base.sha256.slice(0, 12)}`;
  if (vision === undefined || size === undefined)
    return {
      ...base,
      shown: "text",
      text: `[image: ${label}; not shown: ${size === undefined ? "not a PNG or JPEG" : "the chat template has no image tokens"}]`,
    };
  try {
    if (shownBefore < vision.maxImages) {
      const tokens = imagePlaceholders(size, vision.patch).tokens;
      return { ...base, shown: "full", tokens, text: imagePlaceholderSpan(tokens) };
    }
    if (vision.contextPolicy === "drop")
      return {
        ...base,
        shown: "dropped",
        text: `[image dropped: ${label}; past max_images ${vision.maxImages}]`,
      };
    return await downscale(base, size, vision);
  } catch (e) {
    if (!(e instanceof ImageAspectRatioError)) throw e;
    return { ...base, shown: "text", text: `[image: ${label}; not shown: ${e.message}]` };
  }
}

/** The image resized to the size the processor gives it under the downscale budget, re-encoded as PNG. */
async function downscale(
  base: Omit<PlannedImage, "shown" | "text">,
  size: { width: number; height: number },
  vision: VisionSettings,
): Promise<PlannedImage> {
  const patch = { ...vision.patch, maxPixels: Math.min(vision.patch.maxPixels, vision.downscaleMaxPixels) };
  const target = imagePlaceholders(size, patch);
  // loaded on first use: jimp costs about 20 MB of heap, which only a downscaling run needs
  const { Jimp, JimpMime } = await import("jimp");
  const image = await Jimp.fromBuffer(base.data);
  image.resize({ w: target.resizedWidth, h: target.resizedHeight });
  const data = await image.getBuffer(JimpMime.png);
  // at its processed size already: the full-budget rules keep it as it is, so the count is the same
  const tokens = imagePlaceholders(
    { width: target.resizedWidth, height: target.resizedHeight },
    vision.patch,
  ).tokens;
  return {
    shown: "downscaled",
    data,
    mimeType: "image/png",
    sha256: sha256Hex(data),
    width: target.resizedWidth,
    height: target.resizedHeight,
    tokens,
    sourceSha256: base.sha256,
    text: imagePlaceholderSpan(tokens),
  };
}
