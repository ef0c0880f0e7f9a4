// Building MalformedCall entries: every message is one line, at most MAX_MESSAGE characters, so it can be
// shown to the model as is and logged without escaping.
import type { MalformedCall, MalformedCode } from "./types.ts";

export const MAX_MESSAGE = 300;

/** Collapses whitespace (newlines included) to single spaces and caps the length with an ellipsis. */
export function oneLine(text: string, max = MAX_MESSAGE): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function malformedCall(
  code: MalformedCode,
  message: string,
  raw: string,
  index: number,
): MalformedCall {
  return { code, message: oneLine(message), raw, index };
}

/** A value's kind in words, for messages ("got an array"). */
export function describeJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
