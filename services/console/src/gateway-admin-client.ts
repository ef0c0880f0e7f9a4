// A client of the gateway's admin HTTP API (gateway/src/admin.ts): the catalog (GET /v1/tools), each
// upstream's health and breaker (GET /readyz) and the metrics text (GET /metrics). Every answer is
// checked with zod at this boundary.
import { z } from "zod";

const wireTool = z.object({
  name: z.string(),
  server: z.string(),
  title: z.string().optional().default(""),
  description: z.string().optional().default(""),
  input_schema_json: z.string().optional().default("{}"),
  cacheable: z.boolean().optional().default(false),
  idempotent: z.boolean().optional().default(false),
});
const toolsBody = z.object({ tools: z.array(wireTool) });

const upstream = z.object({
  name: z.string(),
  state: z.string(),
  breaker: z.string().optional(),
  in_flight: z.number().optional(),
  queued: z.number().optional(),
  detail: z.string().optional(),
});
const readyBody = z.object({ status: z.string(), upstreams: z.array(upstream) });

export type WireTool = z.infer<typeof wireTool>;
export type UpstreamHealth = z.infer<typeof upstream>;
export type GatewayReadiness = z.infer<typeof readyBody>;

export class GatewayAdminError extends Error {
  override name = "GatewayAdminError";
}

export class GatewayAdminClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;

  constructor(baseUrl: string, opts: { apiKey?: string } = {}) {
    this.#base = baseUrl.replace(/\/+$/, "");
    this.#headers = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
  }

  async tools(signal?: AbortSignal): Promise<WireTool[]> {
    return toolsBody.parse(await this.#json("/v1/tools", [200], signal)).tools;
  }

  /** 503 (not every upstream connected) still carries each upstream's state. */
  async readiness(signal?: AbortSignal): Promise<GatewayReadiness> {
    return readyBody.parse(await this.#json("/readyz", [200, 503], signal));
  }

  async metricsText(signal?: AbortSignal): Promise<string> {
    const res = await this.#get("/metrics", signal);
    if (res.status !== 200) throw new GatewayAdminError(`GET /metrics answered ${res.status}`);
    return res.text();
  }

  async #json(path: string, ok: number[], signal?: AbortSignal): Promise<unknown> {
    const res = await this.#get(path, signal);
    if (!ok.includes(res.status)) throw new GatewayAdminError(`GET ${path} answered ${res.status}`);
    return res.json();
  }

  async #get(path: string, signal?: AbortSignal): Promise<Response> {
    try {
      return await fetch(`${this.#base}${path}`, { headers: this.#headers, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw new GatewayAdminError(
        `gateway admin API at ${this.#base} unreachable: ${(err as Error).message}`,
      );
    }
  }
}
