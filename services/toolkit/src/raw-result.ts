// Raw MCP content blocks returned by a handler, for results that are not structured output
// (images, audio, resource links, several blocks...).
import type { ContentBlock } from "@modelcontextprotocol/server";

const RAW = Symbol.for("rlfactory.toolkit.rawResult");

export interface RawToolResult {
  readonly [RAW]: true;
  readonly content: ContentBlock[];
  readonly structuredContent?: Record<string, unknown>;
}

/** Wraps MCP content blocks (and optional structured content) to be sent back unchanged. */
export function rawResult(
  content: ContentBlock[],
  structuredContent?: Record<string, unknown>,
): RawToolResult {
  return structuredContent === undefined
    ? { [RAW]: true, content }
    : { [RAW]: true, content, structuredContent };
}

export function isRawResult(value: unknown): value is RawToolResult {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[RAW] === true;
}
