// The `image` tool server: rotate, crop, zoom, grid overlay and draw text over an uploaded image (its
// bytes as a base64 argument; no URLs are ever fetched), answering with the edited image as MCP image
// content (PNG or JPEG) plus one line of text saying what it is. Every tool is read-only and
// idempotent: the same image and arguments give the same bytes, so the gateway may cache the result.
import { createToolServer, defineTool, rawResult, type ToolServer } from "@rlfactory/toolkit";
import type { JimpInstance } from "jimp";
import { z } from "zod";
import {
  checkPixels,
  DEFAULT_IMAGE_LIMITS,
  decodeImage,
  encodeImage,
  FormatArgument,
  ImageArgument,
  type ImageFormat,
  type ImageLimits,
} from "./image-codec.ts";
import { crop, drawText, grid, rotate, zoom } from "./image-ops.ts";

/** Pixel coordinates and sizes (the image itself bounds them further; its pixel limit bounds what an edit makes). */
const pixel = z.number().int().min(0).max(65_535);
const side = z.number().int().min(1).max(65_535);
const HINTS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

export function createImageServer(limits: Partial<ImageLimits> = {}): ToolServer {
  const own: ImageLimits = { ...DEFAULT_IMAGE_LIMITS, ...limits };

  /** Decode → edit → encode, answered as an image block and a line of text. */
  async function edit(
    args: { image: string; format?: ImageFormat | undefined },
    what: string,
    op: (image: JimpInstance) => JimpInstance | Promise<JimpInstance>,
  ) {
    const { image, format } = await decodeImage(args.image, own);
    const edited = await op(image);
    checkPixels(edited, own);
    const out = await encodeImage(edited, args.format ?? format);
    return rawResult(
      [
        { type: "image", data: out.data, mimeType: out.mimeType },
        { type: "text", text: `${what}: ${out.width}x${out.height} ${out.mimeType}` },
      ],
      { width: out.width, height: out.height, mime_type: out.mimeType, bytes: out.bytes, sha256: out.sha256 },
    );
  }

  const tools = [
    defineTool({
      name: "rotate",
      description:
        "Rotates an image counter-clockwise by `degrees` (90, 180, 270 keep every pixel; other angles grow the canvas).",
      input: z.object({
        image: ImageArgument,
        degrees: z.number().finite().min(-360).max(360).describe("counter-clockwise, e.g. 90"),
        format: FormatArgument,
      }),
      annotations: HINTS,
      handler: (a) => edit(a, `rotated ${a.degrees}°`, (img) => rotate(img, a.degrees)),
    }),
    defineTool({
      name: "crop",
      description: "Cuts out the box of width x height pixels whose top-left corner is (x, y).",
      input: z.object({
        image: ImageArgument,
        x: pixel,
        y: pixel,
        width: side,
        height: side,
        format: FormatArgument,
      }),
      annotations: HINTS,
      handler: (a) => edit(a, `cropped`, (img) => crop(img, a)),
    }),
    defineTool({
      name: "zoom",
      description:
        "Magnifies the region around (x, y) (default: the centre) by `factor`; the answer keeps the image's size.",
      input: z.object({
        image: ImageArgument,
        factor: z.number().finite().min(1).max(16).describe("e.g. 2: a region of half the width and height"),
        x: pixel.optional().describe("the region's centre, in pixels"),
        y: pixel.optional(),
        format: FormatArgument,
      }),
      annotations: HINTS,
      handler: (a) => edit(a, `zoomed ${a.factor}x`, (img) => zoom(img, a.factor, a.x, a.y)),
    }),
    defineTool({
      name: "grid",
      description:
        "Draws a grid of rows x columns cells over the image (1-pixel lines), to refer to places by cell.",
      input: z.object({
        image: ImageArgument,
        rows: z.number().int().min(1).max(64),
        columns: z.number().int().min(1).max(64),
        color: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/)
          .default("#ff0000")
          .describe("the lines' colour, #RRGGBB"),
        format: FormatArgument,
      }),
      annotations: HINTS,
      handler: (a) =>
        edit(a, `grid ${a.rows}x${a.columns}`, (img) =>
          grid(img, a.rows, a.columns, ((Number.parseInt(a.color.slice(1), 16) << 8) | 0xff) >>> 0),
        ),
    }),
    defineTool({
      name: "draw_text",
      description: "Writes text on the image with its top-left corner at (x, y) (Open Sans, 16 or 32 px).",
      input: z.object({
        image: ImageArgument,
        text: z.string().min(1).max(200),
        x: pixel,
        y: pixel,
        size: z.union([z.literal(16), z.literal(32)]).default(16),
        color: z.enum(["black", "white"]).default("black"),
        format: FormatArgument,
      }),
      annotations: HINTS,
      handler: (a) => edit(a, "text drawn", (img) => drawText(img, a.text, a.x, a.y, a.size, a.color)),
    }),
  ];
  return createToolServer({ name: "image", version: "0.1.0", tools });
}
