// A client of the gateway's admin HTTP API (gateway/src/admin.ts): the catalog (GET /v1/tools), each
// upstream's health and breaker (GET /readyz) and the metrics text (GET /metrics). Every answer is
// checked with zod at this boundary. With the gateway's auth on, the console sends its key
// (`rlf console --gateway-api-key-env NAME`) as the gateway expects it: `authorization: Bearer KEY`;
// a refusal (HTTP 401) is a GatewayAuthError, whatever the request, never an answer passed on.
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

const liveEpisodes = z.object({
  servers: z.array(
    z.object({
      server: z.string(),
      episodes: z.array(z.object({ episode_id: z.string(), started_ms: z.number(), ttl_ms: z.number() })),
    }),
  ),
});
const episodeStarted = z.object({ episode_id: z.string() });
const episodeState = z.object({ state: z.unknown() });
/** The gateway's HTTP form of a tool result (gateway/src/admin.ts toJsonResult), or its error body. */
const callAnswer = z.looseObject({
  error_code: z.string().optional(),
  latency_ms: z.number().optional(),
  is_error: z.boolean().optional(),
});

export type WireTool = z.infer<typeof wireTool>;
export type LiveEpisodes = z.infer<typeof liveEpisodes>;
/** What the gateway answered a call or an episode operation: its HTTP status and body. */
export interface GatewayAnswer<T> {
  status: number;
  body: T;
}
export type UpstreamHealth = z.infer<typeof upstream>;
export type GatewayReadiness = z.infer<typeof readyBody>;

export class GatewayAdminError extends Error {
  override name = "GatewayAdminError";
}

/** The gateway refused the console's key, or the console sent none to a gateway with auth on. */
export class GatewayAuthError extends GatewayAdminError {
  override name = "GatewayAuthError";
}

export class GatewayAdminClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #keyHint: string;

  /** `keyHint`: where the key comes from, for the refusal's message (`--gateway-api-key-env NAME`). */
  constructor(baseUrl: string, opts: { apiKey?: string; keyHint?: string } = {}) {
    this.#base = baseUrl.replace(/\/+$/, "");
    this.#headers = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
    this.#keyHint = opts.keyHint ?? "rlf console --gateway-api-key-env NAME";
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

  /** Each environment server's live episodes (GET /v1/episodes). */
  async episodes(signal?: AbortSignal): Promise<LiveEpisodes> {
    return liveEpisodes.parse(await this.#json("/v1/episodes", [200], signal));
  }

  /**
   * POST /v1/tools/{name}:call, with `traceparent` so the call's spans join the caller's trace. A
   * tool's failure or a call's failure is an answer (the gateway's status and `{error}` or result body).
   */
  async callTool(
    name: string,
    body: { arguments: Record<string, unknown>; episode_id?: string },
    traceparent: string,
    signal?: AbortSignal,
  ): Promise<GatewayAnswer<z.infer<typeof callAnswer>>> {
    const res = await this.#send("POST", `/v1/tools/${encodeURIComponent(name)}:call`, body, signal, {
      traceparent,
    });
    return { status: res.status, body: callAnswer.parse(await res.json()) };
  }

  async startEpisode(
    server: string,
    config: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<GatewayAnswer<{ episode_id: string } | unknown>> {
    const res = await this.#send("POST", "/v1/episodes", { server, config }, signal);
    const body = await res.json();
    return { status: res.status, body: res.status === 200 ? episodeStarted.parse(body) : body };
  }

  /** DELETE /v1/episodes/{id}: the final state. */
  async endEpisode(id: string, signal?: AbortSignal): Promise<GatewayAnswer<{ state: unknown } | unknown>> {
    const res = await this.#send("DELETE", `/v1/episodes/${encodeURIComponent(id)}`, undefined, signal);
    const body = await res.json();
    return { status: res.status, body: res.status === 200 ? episodeState.parse(body) : body };
  }

  async #send(
    method: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          ...this.#headers,
          ...headers,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw new GatewayAdminError(
        `gateway admin API at ${this.#base} unreachable: ${(err as Error).message}`,
      );
    }
    return this.#refused(method, path, res);
  }

  async #json(path: string, ok: number[], signal?: AbortSignal): Promise<unknown> {
    const res = await this.#get(path, signal);
    if (!ok.includes(res.status)) throw new GatewayAdminError(`GET ${path} answered ${res.status}`);
    return res.json();
  }

  async #get(path: string, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, { headers: this.#headers, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw new GatewayAdminError(
        `gateway admin API at ${this.#base} unreachable: ${(err as Error).message}`,
      );
    }
    return this.#refused("GET", path, res);
  }

  /** The answer, unless it is the gateway's 401. */
  async #refused(method: string, path: string, res: Response): Promise<Response> {
    if (res.status !== 401) return res;
    await res.body?.cancel();
    throw new GatewayAuthError(
      "authorization" in this.#headers
        ? `the gateway at ${this.#base} refused the console's API key (${method} ${path}: HTTP 401); check the key ${this.#keyHint} gives`
        : `the gateway at ${this.#base} has auth on (${method} ${path}: HTTP 401): give the console one of its keys with ${this.#keyHint}`,
    );
  }
}
