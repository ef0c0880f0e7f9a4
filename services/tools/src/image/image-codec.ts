// Images in and out of the image server: a base64 upload decoded within the server's limits, and an
// edited image encoded as PNG or JPEG. The only place that knows the wire form (MCP image content).
import { createHash } from "node:crypto";
import { imageHeaderFormat, imageHeaderSize } from "@rlfactory/kit";
import { ToolError } from "@rlfactory/toolkit";
import { Jimp, type JimpInstance, JimpMime } from "jimp";
import { z } from "zod";

export const IMAGE_FORMATS = ["png", "jpeg"] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
const MIME: Record<ImageFormat, "image/png" | "image/jpeg"> = { png: JimpMime.png, jpeg: JimpMime.jpeg };

export interface ImageLimits {
  /** An upload larger than this (decoded bytes) is refused before it is decoded. */
  maxImageBytes: number;
  /** An image with more pixels than this (width × height) is refused, in and out. */
  maxPixels: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxImageBytes: 8 * 1024 * 1024, maxPixels: 4096 * 4096 };

/** A decoded image and the format it came in. */
export interface DecodedImage {
  image: JimpInstance;
  format: ImageFormat;
}

/** The `image` argument every tool takes: the image's bytes (PNG or JPEG), base64. */
export const ImageArgument = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be base64 (A-Z a-z 0-9 + /, = padding)")
  .describe("The image's bytes (PNG or JPEG), base64; no URLs");

export const FormatArgument = z
  .enum(IMAGE_FORMATS)
  .optional()
  .describe("The output format (png or jpeg); default: the input's");

export async function decodeImage(base64: string, limits: ImageLimits): Promise<DecodedImage> {
  const approxBytes = Math.floor((base64.length * 3) / 4);
  if (approxBytes > limits.maxImageBytes)
    throw new ToolError(`image too large: ${approxBytes} bytes; the limit is ${limits.maxImageBytes}`);
  const bytes = Buffer.from(base64, "base64");
  const format = imageHeaderFormat(bytes);
  if (!format) throw new ToolError("image is neither PNG nor JPEG");
  // The size its header states, checked before decoding: a small file may claim a huge canvas.
  const stated = imageHeaderSize(bytes);
  if (stated) checkPixels(stated, limits);
  let image: JimpInstance;
  try {
    image = (await Jimp.fromBuffer(bytes)) as JimpInstance;
  } catch {
    throw new ToolError(`image is not a readable ${format.toUpperCase()}`);
  }
  checkPixels(image, limits);
  return { image, format };
}

export function checkPixels(image: { width: number; height: number }, limits: ImageLimits): void {
  const pixels = image.width * image.height;
  if (pixels > limits.maxPixels)
    throw new ToolError(
      `image too large: ${image.width}x${image.height} is ${pixels} pixels; the limit is ${limits.maxPixels}`,
    );
}

export interface EncodedImage {
  data: string;
  mimeType: "image/png" | "image/jpeg";
  width: number;
  height: number;
  bytes: number;
  sha256: string;
}

export async function encodeImage(image: JimpInstance, format: ImageFormat): Promise<EncodedImage> {
  const mimeType = MIME[format];
  const bytes =
    format === "jpeg"
      ? await image.getBuffer(JimpMime.jpeg, { quality: 90 })
      : await image.getBuffer(JimpMime.png);
  return {
    data: bytes.toString("base64"),
    mimeType,
    width: image.width,
    height: image.height,
    bytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}
