// An inference server's base URL as rlfactory configs and rollout requests name it, normalised so that
// one server is always the same text.
import { z } from "zod";

/**
 * Normalises a server's base URL: `http(s)://host:port[/prefix]`, without a trailing slash or a
 * trailing `/v1` (OpenAI-style base URLs end in `/v1`; the clients add `/v1/...` themselves).
 */
export function normaliseServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`inference server URL ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`inference server URL ${JSON.stringify(raw)} must be http:// or https://`);
  }
  if (url.search || url.hash) {
    throw new Error(`inference server URL ${JSON.stringify(raw)} must not have a query or fragment`);
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
  return `${url.origin}${path}`;
}

/** An inference server's base URL, normalised (`http://host:port`, no trailing slash). */
export const serverUrlSchema = z.string().transform((raw, ctx) => {
  try {
    return normaliseServerUrl(raw);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});
