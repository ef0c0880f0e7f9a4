// The gateway's call log over HTTP: `GET /v1/calls?trajectory=T` on its admin port (docs/gateway.md,
// "Call log"). The wire form is defined here once; the gateway answers it (gateway/src/call-log.ts) and
// `rlf rollout agent` reads it with `fetchGatewayCalls`, checking the answer with the same schema.
import { z } from "zod";

/** One call the gateway served for a trajectory, in the order it finished. */
export const gatewayLoggedCallSchema = z.object({
  /** 0-based position among the trajectory's calls, counted in the order they finished. */
  seq: z.number().int().min(0),
  /** The tool's gateway name (`server__tool`), as called. */
  name: z.string(),
  /** The server that served it; null for a name the catalog does not know. */
  server: z.string().nullable(),
  call_id: z.string(),
  /**
   * SHA-256 of the canonical JSON of the arguments as the caller sent them (`argumentsSha256` of
   * @rlfactory/kit); empty for arguments nested too deep or too long to hash.
   */
  arguments_sha256: z.string(),
  /** `OK`, or the gateway's typed code (TIMEOUT, UNAVAILABLE, CIRCUIT_OPEN, ...), as a gRPC ToolResult says it. */
  error_code: z.string(),
  error_message: z.string(),
  /** The tool's own failure (`isError: true` from the server); false for a call that failed in the gateway. */
  is_error: z.boolean(),
  /** Time in the gateway, milliseconds. */
  latency_ms: z.number().min(0),
  cache_hit: z.boolean(),
  attempts: z.number().int().min(0),
  /** When the call started (Unix epoch, milliseconds). */
  started_ms: z.number(),
});
export type GatewayLoggedCall = z.infer<typeof gatewayLoggedCallSchema>;

/** The answer of `GET /v1/calls?trajectory=T`. */
export const gatewayCallLogSchema = z.object({
  trajectory: z.string(),
  calls: z.array(gatewayLoggedCallSchema),
  /** Calls past the per-trajectory cap (`call_log.max_calls_per_trajectory`): counted, not kept. */
  dropped: z.number().int().min(0),
});
export type GatewayCallLog = z.infer<typeof gatewayCallLogSchema>;

export interface FetchGatewayCallsOptions {
  /** The gateway's API key, when its auth is on (`authorization: Bearer KEY`). */
  apiKey?: string;
  signal?: AbortSignal;
}

/** The admin base URL of a gateway from its `/mcp` URL (`http://h:p/mcp` → `http://h:p`). */
export function adminBaseFromMcpUrl(mcpUrl: string): string {
  const url = new URL(mcpUrl);
  url.search = "";
  url.hash = "";
  url.pathname = url.pathname.replace(/\/mcp\/?$/, "");
  return url.toString().replace(/\/$/, "");
}

/** `GET {adminBase}/v1/calls?trajectory=T`, checked; throws with the status and the gateway's message otherwise. */
export async function fetchGatewayCalls(
  adminBase: string,
  trajectory: string,
  opts: FetchGatewayCallsOptions = {},
): Promise<GatewayCallLog> {
  const url = `${adminBase}/v1/calls?trajectory=${encodeURIComponent(trajectory)}`;
  const res = await fetch(url, {
    headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {},
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const message = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new Error(
      `GET /v1/calls: HTTP ${res.status}${message ? ` ${message.code}: ${message.message}` : ""}`,
    );
  }
  const parsed = gatewayCallLogSchema.safeParse(body);
  if (!parsed.success) throw new Error(`GET /v1/calls: unexpected answer: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
