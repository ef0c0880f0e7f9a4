// A model server (`kind: model`) as an Upstream: each of its tools is a prompt template over an
// OpenAI-compatible chat-completions endpoint (the repository's OpenAiChatClient, one attempt per
// call). It sits where an MCP connection sits, so every call goes through the gateway's request path
// and every policy applies: deadline (the call's signal aborts the HTTP request), cache (model tools are
// annotated read-only + idempotent, so `cache: auto` caches them), retry, circuit breaker, bulkhead.
//
// One call: reserve the trajectory's budget (trajectory-budget.ts) → render the template with the
// arguments → one completion → the answer's text as the result, its usage (tokens, cost with a
// configured price) in `_meta` (USAGE_META_KEY), which the gateway returns as ToolResult.usage.
//
// The endpoint's failures as the policies need them: unreachable → UNAVAILABLE, 5xx / 429 / an answer
// that is no completion / 401-404 → UPSTREAM_ERROR (both retried for idempotent tools, both count
// against the breaker); 400 / 413 / 422 (the model refused this input: too long, say) → a result with
// `isError: true` the model sees, as a tool's own failure.
import { EventEmitter } from "node:events";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { isOpenAiChatError, OpenAiChatClient } from "@rlfactory/clients/openai-chat-client";
import { CALLER_META_KEY, USAGE_META_KEY } from "@rlfactory/proto/mcp-meta";
import type { Logger } from "pino";
import type { ModelServer, ModelTool, ServerConfig } from "./config.ts";
import { GatewayError } from "./errors.ts";
import { createPooledFetch } from "./http-fetch.ts";
import { renderTemplate } from "./prompt-template.ts";
import { TrajectoryBudgets } from "./trajectory-budget.ts";
import type { Upstream, UpstreamCallOptions, UpstreamState } from "./upstream.ts";

/** Statuses that say the input was refused, not that the endpoint is broken. */
const INPUT_REFUSED = new Set([400, 413, 422]);

export class ModelUpstream extends EventEmitter implements Upstream {
  readonly name: string;
  readonly budgets: TrajectoryBudgets;
  readonly #server: ModelServer;
  readonly #client: OpenAiChatClient;
  readonly #tools: Map<string, ModelTool>;
  readonly #listed: Tool[];
  /** undici request() on a keep-alive pool, without HTTP timeouts: the call's deadline ends a request. */
  readonly #http = createPooledFetch();
  #state: UpstreamState = "connecting";

  constructor(config: ServerConfig, log: Logger) {
    super();
    if (config.transport.kind !== "model") throw new Error(`server "${config.name}" is not a model server`);
    this.name = config.name;
    this.#server = config.transport;
    const { endpoint } = this.#server;
    this.#client = new OpenAiChatClient({
      baseUrl: endpoint.baseUrl,
      post: async (url, init) => {
        const res = await this.#http.fetch(url, { method: "POST", ...init });
        return { status: res.status, text: await res.text() };
      },
      ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
    });
    this.budgets = new TrajectoryBudgets(config.name, this.#server.budget);
    this.#tools = new Map(this.#server.tools.map((t) => [t.name, t]));
    this.#listed = this.#server.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      // A completion at a fixed temperature and seed is a pure function of its prompt, as far as the
      // caller can tell: cacheable with `cache: auto`, retried after transient failures.
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    }));
    log.child({ upstream: config.name }).debug({ url: this.#client.url }, "model server");
  }

  get state(): UpstreamState {
    return this.#state;
  }
  get detail(): string {
    return `model ${this.#server.endpoint.model} at ${this.#client.url}`;
  }
  tools(): readonly Tool[] {
    return this.#listed;
  }

  /** Nothing to connect: the endpoint's health shows per call (and in the breaker). */
  async start(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "ready";
    this.emit("tools", this.#listed);
    this.emit("state", this.#state);
  }

  async close(): Promise<void> {
    this.#state = "closed";
    this.emit("state", this.#state);
    await this.#http.close().catch(() => {});
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new GatewayError("UNKNOWN_TOOL", `${this.name}__${name}: no such model tool`);
    if (this.#state !== "ready")
      throw new GatewayError("UNAVAILABLE", `model server "${this.name}" is ${this.#state}`);
    const caller = opts.meta?.[CALLER_META_KEY];
    const ticket = this.budgets.reserve(typeof caller === "string" ? caller : undefined, name);
    const { endpoint } = this.#server;
    const temperature = tool.temperature ?? endpoint.temperature;
    const maxTokens = tool.maxTokens ?? endpoint.maxTokens;
    try {
      const completion = await this.#client.complete(
        {
          model: endpoint.model,
          messages: tool.messages.map((m) => ({ role: m.role, content: renderTemplate(m.content, args) })),
          ...(temperature === undefined ? {} : { temperature }),
          ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
        },
        { signal: opts.signal },
      );
      const { prompt_tokens, completion_tokens } = completion.usage;
      ticket.commit(prompt_tokens + completion_tokens);
      const price = endpoint.price;
      const usage = {
        prompt_tokens,
        completion_tokens,
        model: completion.model,
        ...(price
          ? { cost_usd: (prompt_tokens * price.prompt + completion_tokens * price.completion) / 1_000_000 }
          : {}),
      };
      return { content: [{ type: "text", text: completion.text }], _meta: { [USAGE_META_KEY]: usage } };
    } catch (err) {
      if (opts.signal.aborted) {
        ticket.release();
        throw opts.signal.reason;
      }
      if (!isOpenAiChatError(err)) {
        ticket.release();
        throw err;
      }
      const where = `${this.name}__${name}`;
      if (err.kind === "http" && INPUT_REFUSED.has(err.status ?? 0)) {
        // The endpoint answered (and may have counted the tokens): the call counts, its tokens are unknown.
        ticket.commit(0);
        return {
          content: [{ type: "text", text: `the model refused the input: ${err.message}` }],
          isError: true,
        };
      }
      ticket.release();
      if (err.kind === "unreachable") throw new GatewayError("UNAVAILABLE", `${where}: ${err.message}`);
      throw new GatewayError("UPSTREAM_ERROR", `${where}: ${err.message}`);
    }
  }
}
