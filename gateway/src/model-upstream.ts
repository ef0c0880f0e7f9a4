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
import type { CallToolResult } from "@modelcontextprotocol/client";
import { isOpenAiChatError } from "@rlfactory/clients/openai-chat-client";
import { CALLER_META_KEY, USAGE_META_KEY } from "@rlfactory/proto/mcp-meta";
import type { Logger } from "pino";
import type { ModelServer, ServerConfig } from "./config.ts";
import { EndpointUpstream } from "./endpoint-upstream.ts";
import { GatewayError } from "./errors.ts";
import { renderTemplate } from "./prompt-template.ts";
import type { UpstreamCallOptions } from "./upstream.ts";

/** Statuses that say the input was refused, not that the endpoint is broken. */
const INPUT_REFUSED = new Set([400, 413, 422]);

export class ModelUpstream extends EndpointUpstream<ModelServer> {
  constructor(config: ServerConfig, log: Logger) {
    if (config.transport.kind !== "model") throw new Error(`server "${config.name}" is not a model server`);
    // A completion at a fixed temperature and seed is a pure function of its prompt, as far as the
    // caller can tell: cacheable with `cache: auto`, retried after transient failures.
    super(
      config,
      config.transport,
      { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      "model",
    );
    log.child({ upstream: config.name }).debug({ url: this.client.url }, "model server");
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<CallToolResult> {
    const tool = this.toolsByName.get(name);
    if (!tool) throw new GatewayError("UNKNOWN_TOOL", `${this.name}__${name}: no such model tool`);
    if (this.current !== "ready")
      throw new GatewayError("UNAVAILABLE", `model server "${this.name}" is ${this.current}`);
    const caller = opts.meta?.[CALLER_META_KEY];
    const ticket = this.budgets.reserve(typeof caller === "string" ? caller : undefined, name);
    const { endpoint } = this.server;
    const temperature = tool.temperature ?? endpoint.temperature;
    const maxTokens = tool.maxTokens ?? endpoint.maxTokens;
    try {
      const completion = await this.client.complete(
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
