// A W3C trace-context header value as read from a carrier (gRPC metadata, MCP `_meta`): validated, as
// anything from a peer is. Only extraction needs it, so injecting (a client's only use) does not load zod.
import { z } from "zod";

/** A W3C header value as it may arrive from a peer; anything else is ignored, never trusted. */
const HeaderValue = z.string().min(1).max(512);

/** The first usable string among the values a carrier holds for one key. */
export function carrierValue(raw: unknown): string | undefined {
  const first = Array.isArray(raw) ? raw[0] : raw;
  const text = first instanceof Uint8Array ? Buffer.from(first).toString("utf8") : first;
  // Absent, the usual case: answered before zod, whose failure (an error object with its issues) was a
  // cost on every call without trace context.
  if (text === undefined) return undefined;
  const parsed = HeaderValue.safeParse(text);
  return parsed.success ? parsed.data : undefined;
}
