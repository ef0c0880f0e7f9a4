// Canonical JSON: object keys sorted at every depth, no whitespace. Two argument objects that differ
// only in key order produce the same text, so they share a cache key.
import { createHash } from "node:crypto";

/**
 * `normaliseString`, when given, rewrites every string value (not keys) first, so that differences
 * the caller calls invisible (line endings, outer whitespace) give the same text too.
 */
export function canonicalJson(value: unknown, normaliseString?: (text: string) => string): string {
  if (typeof value === "string" && normaliseString) return JSON.stringify(normaliseString(value));
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v, normaliseString))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, normaliseString)}`).join(",")}}`;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The digest of a tool call's arguments: SHA-256 of their canonical JSON. The gateway's call log
 * (`GET /v1/calls`) records it, and `rlf rollout agent` computes it from a trajectory's calls to match
 * the two, so both sides must hash the same way: this function.
 */
export function argumentsSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
