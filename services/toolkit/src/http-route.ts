// Extra plain-HTTP JSON routes a tool server can serve beside /mcp on the same port (search's
// Search-R1 `/retrieve`, code's SandboxFusion `/run_code`). Bodies are validated by the route.
import type { IncomingMessage } from "node:http";

export interface HttpRouteResponse {
  status: number;
  body: unknown;
}

export interface HttpRoute {
  method: "GET" | "POST";
  /** Exact path, e.g. "/retrieve". */
  path: string;
  /** `body` is the parsed JSON request body (undefined for GET or an empty body). */
  handler(body: unknown, req: IncomingMessage, signal: AbortSignal): Promise<HttpRouteResponse>;
}

/** Request bodies above this are refused with 413 before they are parsed. */
export const MAX_ROUTE_BODY_BYTES = 16 * 1024 * 1024;

/** Reads and parses a JSON body; `undefined` for an empty one. Throws RouteBodyError on bad input. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_ROUTE_BODY_BYTES)
      throw new RouteBodyError(413, `request body over ${MAX_ROUTE_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw new RouteBodyError(400, `request body is not valid JSON (${(err as Error).message})`);
  }
}

export class RouteBodyError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
