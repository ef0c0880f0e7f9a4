// What a model server (`kind: model`) and an agent server (`kind: agent`) share as Upstreams: an
// OpenAI-compatible endpoint behind the repository's OpenAiChatClient (undici request() on a keep-alive
// pool, without HTTP timeouts: the call's deadline ends a request), per-trajectory budgets, the tools
// the config lists, and a life with nothing to connect (the endpoint's health shows per call, and in
// the breaker). Each kind adds how one call runs (model-upstream.ts, agent-upstream.ts).
import { EventEmitter } from "node:events";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { OpenAiChatClient } from "@rlfactory/clients/openai-chat-client";
import type { AgentServer, ModelServer, ServerConfig } from "./config.ts";
import { createPooledFetch } from "./http-fetch.ts";
import { TrajectoryBudgets } from "./trajectory-budget.ts";
import type { Upstream, UpstreamCallOptions, UpstreamState } from "./upstream.ts";

export abstract class EndpointUpstream<S extends ModelServer | AgentServer>
  extends EventEmitter
  implements Upstream
{
  readonly name: string;
  readonly budgets: TrajectoryBudgets;
  protected readonly server: S;
  protected readonly client: OpenAiChatClient;
  protected readonly toolsByName: Map<string, S["tools"][number]>;
  protected current: UpstreamState = "connecting";
  readonly #listed: Tool[];
  readonly #http = createPooledFetch();
  readonly #label: string;

  constructor(config: ServerConfig, server: S, annotations: Tool["annotations"], label: string) {
    super();
    this.name = config.name;
    this.server = server;
    this.#label = label;
    const { endpoint } = server;
    this.client = new OpenAiChatClient({
      baseUrl: endpoint.baseUrl,
      post: async (url, init) => {
        const res = await this.#http.fetch(url, { method: "POST", ...init });
        return { status: res.status, text: await res.text() };
      },
      ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
    });
    this.budgets = new TrajectoryBudgets(config.name, server.budget);
    this.toolsByName = new Map(server.tools.map((t) => [t.name, t]));
    this.#listed = server.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations,
    }));
  }

  get state(): UpstreamState {
    return this.current;
  }
  get detail(): string {
    return `${this.#label} ${this.server.endpoint.model} at ${this.client.url}`;
  }
  tools(): readonly Tool[] {
    return this.#listed;
  }

  async start(): Promise<void> {
    if (this.current === "closed") return;
    this.current = "ready";
    this.emit("tools", this.#listed);
    this.emit("state", this.current);
  }

  async close(): Promise<void> {
    this.current = "closed";
    this.emit("state", this.current);
    await this.#http.close().catch(() => {});
  }

  abstract callTool(
    name: string,
    args: Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<CallToolResult>;
}
