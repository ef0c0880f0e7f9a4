// MCP result → wire content, with the output cap.
//
// Text is cut at the cap with a visible marker (the model sees that it was cut); binary blocks and
// structured JSON cannot be cut meaningfully, so a result whose non-text part alone exceeds the cap
// fails with OUTPUT_TOO_LARGE. Image blocks pass through unchanged (bytes and mime type), each held to
// `max_image_bytes` as well (OUTPUT_TOO_LARGE naming the image's size, hash and the limit); what the
// logs and spans get of an image is its summary (hash, size, type), never its bytes.
import { createHash } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { USAGE_META_KEY } from "@rlfactory/proto/mcp-meta";
import type { Content } from "@rlfactory/proto/types/Content";
import type { ModelUsage } from "@rlfactory/proto/types/ModelUsage";
import { z } from "zod";
import { GatewayError } from "./errors.ts";

export interface WireOutput {
  content: Content[];
  structuredContentJson: string;
  isError: boolean;
  truncated: boolean;
  /** What the call spent on a model, as the tool reported it (`_meta` USAGE_META_KEY). */
  usage?: ModelUsage;
  /** The result's images, in content order, by hash and size (for spans and logs). */
  images?: ImageSummary[];
}

/** An image block as spans and logs see it: never its bytes. */
export interface ImageSummary {
  /** sha256 of the decoded bytes, hex. */
  sha256: string;
  bytes: number;
  mimeType: string;
}

export interface OutputLimits {
  /** The whole result (text is cut to fit; the rest must fit). */
  maxBytes: number;
  /** Each image block, decoded. */
  maxImageBytes: number;
}

const usageMetaSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().finite().nonnegative().optional(),
  model: z.string(),
});

/** The usage a result reports in `_meta`, or undefined (none, or not of the agreed shape). */
export function usageOf(result: CallToolResult): ModelUsage | undefined {
  const raw = result._meta?.[USAGE_META_KEY];
  // No usage reported, the usual case: answered before zod builds a failure for `undefined`.
  if (raw === undefined) return undefined;
  const parsed = usageMetaSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { cost_usd, ...rest } = parsed.data;
  return { ...rest, ...(cost_usd === undefined ? {} : { cost_usd }) };
}

export const truncationMarker = (shown: number, total: number) =>
  `\n…[output truncated by the rlfactory gateway: ${shown} of ${total} bytes shown]`;

type Block = CallToolResult["content"][number];

export function toWireOutput(result: CallToolResult, limits: OutputLimits, toolName: string): WireOutput {
  const { maxBytes, maxImageBytes } = limits;
  const blocks: Block[] = Array.isArray(result.content) ? result.content : [];
  const structuredContentJson =
    result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);

  let fixedBytes = Buffer.byteLength(structuredContentJson);
  let textBytes = 0;
  for (const b of blocks) {
    if (b.type === "text") textBytes += Buffer.byteLength(b.text);
    else fixedBytes += blockBytes(b);
  }
  if (fixedBytes > maxBytes) {
    throw new GatewayError(
      "OUTPUT_TOO_LARGE",
      `${toolName}: result has ${fixedBytes} bytes of non-text content; the limit is ${maxBytes}`,
    );
  }

  let textBudget = maxBytes - fixedBytes;
  let truncated = false;
  const content: Content[] = [];
  const images: ImageSummary[] = [];
  for (const b of blocks) {
    if (b.type === "image") {
      const data = Buffer.from(b.data, "base64");
      const image = {
        sha256: createHash("sha256").update(data).digest("hex"),
        bytes: data.length,
        mimeType: b.mimeType,
      };
      if (image.bytes > maxImageBytes)
        throw new GatewayError(
          "OUTPUT_TOO_LARGE",
          `${toolName}: image ${images.length + 1} (${image.mimeType}, sha256 ${image.sha256.slice(0, 12)}) has ${image.bytes} bytes; the limit is ${maxImageBytes} (max_image_bytes)`,
        );
      images.push(image);
      content.push({ image: { data, mime_type: b.mimeType } });
      continue;
    }
    if (b.type !== "text") {
      content.push(convertBlock(b));
      continue;
    }
    const size = Buffer.byteLength(b.text);
    if (size <= textBudget) {
      textBudget -= size;
      content.push({ text: { text: b.text } });
      continue;
    }
    truncated = true;
    const cut = cutUtf8(b.text, Math.max(0, textBudget));
    textBudget = 0;
    content.push({ text: { text: cut + truncationMarker(Buffer.byteLength(cut), textBytes) } });
  }
  const usage = usageOf(result);
  return {
    content,
    structuredContentJson,
    isError: result.isError === true,
    truncated,
    ...(usage ? { usage } : {}),
    ...(images.length > 0 ? { images } : {}),
  };
}

function blockBytes(b: Block): number {
  switch (b.type) {
    case "image":
    case "audio":
      return Math.floor((b.data.length * 3) / 4);
    case "resource":
      return "text" in b.resource
        ? Buffer.byteLength(b.resource.text)
        : Math.floor((b.resource.blob.length * 3) / 4);
    default:
      return Buffer.byteLength(JSON.stringify(b));
  }
}

function convertBlock(b: Block): Content {
  switch (b.type) {
    case "text":
      return { text: { text: b.text } };
    case "image":
      return { image: { data: Buffer.from(b.data, "base64"), mime_type: b.mimeType } };
    case "audio":
      return { audio: { data: Buffer.from(b.data, "base64"), mime_type: b.mimeType } };
    case "resource": {
      const r = b.resource;
      return {
        resource: {
          uri: r.uri,
          mime_type: r.mimeType ?? "",
          text: "text" in r ? r.text : "",
          blob: "blob" in r ? Buffer.from(r.blob, "base64") : Buffer.alloc(0),
        },
      };
    }
    case "resource_link":
      return {
        resource_link: {
          uri: b.uri,
          name: b.name,
          description: b.description ?? "",
          mime_type: b.mimeType ?? "",
        },
      };
    default:
      // A block type newer than this gateway: keep it visible as JSON text rather than dropping it.
      return { text: { text: JSON.stringify(b) } };
  }
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8 without splitting a character. */
function cutUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx).
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}
