// An agent server (`kind: agent`) as an Upstream: each of its tools runs a sub-agent — a chat model
// (the repository's OpenAiChatClient, OpenAI `tools` / `tool_calls`) that may call a configured subset
// of the gateway's own tools for up to `max_steps` model calls, within the call's deadline and a token
// budget — and answers with the sub-agent's final text.
//
// One call: reserve the trajectory's budget (trajectory-budget.ts, counting the sub-agent's model
// tokens) → resolve the tools in the catalog (a tool of an agent already running in this chain of calls
// is left out, so agents never recurse into themselves) → render the messages → loop: one completion;
// no tool calls: done; else every call through the gateway's own request path (Invoker.call: schema,
// deadline, cache, retry, breaker, bulkhead all apply), each a child span of this call's span, the
// results appended as `tool` messages.
//
// What the caller gets: the final answer as the only text content (the sub-agent's messages are never
// the policy's tokens), the usage summed over the sub-agent's model calls in `_meta` (USAGE_META_KEY),
// and with `transcript: true` the sub-agent's messages as structured content. Failures: no answer
// within `max_steps` or past `token_budget` → BUDGET_EXCEEDED; the endpoint's failures as for a model
// tool (model-upstream.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { type Context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  isOpenAiChatError,
  type OpenAiChatMessage,
  type OpenAiTool,
  type OpenAiToolCall,
} from "@rlfactory/clients/openai-chat-client";
import { CALLER_META_KEY, USAGE_META_KEY } from "@rlfactory/proto/mcp-meta";
import { extractTraceContext } from "@rlfactory/telemetry";
import type { Logger } from "pino";
import type { AgentServer, AgentTool, ServerConfig } from "./config.ts";
import { EndpointUpstream } from "./endpoint-upstream.ts";
import { GatewayError } from "./errors.ts";
import type { CallOutcome, Invoker } from "./invoker.ts";
import { renderTemplate } from "./prompt-template.ts";
import type { UpstreamCallOptions } from "./upstream.ts";

/** Statuses that say the input was refused, not that the endpoint is broken. */
const INPUT_REFUSED = new Set([400, 413, 422]);

/** The agent servers whose runs enclose the current code (an inner call runs inside its agent's run). */
const runningAgents = new AsyncLocalStorage<readonly string[]>();

const tracer = trace.getTracer("rlfactory-gateway");

/** What a sub-agent needs of the gateway: its catalog (the tools' schemas) and its request path. */
export interface AgentGateway {
  tool(name: string): { server: string; tool: Tool } | undefined;
  call: Invoker["call"];
}

interface Spent {
  prompt: number;
  completion: number;
  model: string;
}

export class AgentUpstream extends EndpointUpstream<AgentServer> {
  readonly #log: Logger;
  #gateway: AgentGateway | undefined;

  constructor(config: ServerConfig, log: Logger) {
    if (config.transport.kind !== "agent") throw new Error(`server "${config.name}" is not an agent server`);
    // A run calls other tools and samples several completions: never cached, never retried.
    super(
      config,
      config.transport,
      { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
      "agent on model",
    );
    this.#log = log.child({ upstream: config.name });
  }

  /** The gateway's catalog and request path (they are built after the upstreams). */
  attach(gateway: AgentGateway): void {
    this.#gateway = gateway;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<CallToolResult> {
    const tool = this.toolsByName.get(name);
    const where = `${this.name}__${name}`;
    if (!tool) throw new GatewayError("UNKNOWN_TOOL", `${where}: no such agent tool`);
    const gateway = this.#gateway;
    if (this.current !== "ready" || !gateway)
      throw new GatewayError("UNAVAILABLE", `agent server "${this.name}" is ${this.current}`);
    const callerMeta = opts.meta?.[CALLER_META_KEY];
    const caller = typeof callerMeta === "string" ? callerMeta : undefined;
    const chain = [...(runningAgents.getStore() ?? []), this.name];
    const offered = this.#offeredTools(tool, gateway, chain, where);
    const ticket = this.budgets.reserve(caller, name);
    const parent = extractTraceContext(opts.meta);
    const spent: Spent = { prompt: 0, completion: 0, model: this.server.endpoint.model };
    const messages: OpenAiChatMessage[] = tool.messages.map((m) => ({
      role: m.role,
      content: renderTemplate(m.content, args),
    }));
    try {
      for (let step = 1; step <= tool.maxSteps; step++) {
        const used = spent.prompt + spent.completion;
        if (tool.tokenBudget !== undefined && used >= tool.tokenBudget)
          throw new GatewayError(
            "BUDGET_EXCEEDED",
            `${where}: the sub-agent used ${used} of its ${tool.tokenBudget} tokens (token_budget) without a final answer`,
          );
        const completion = await this.#complete(tool, messages, offered, step, spent, parent, opts.signal);
        if (completion.toolCalls.length === 0) {
          ticket.commit(spent.prompt + spent.completion);
          return this.#answer(tool, completion.text, messages, step, spent);
        }
        messages.push({ role: "assistant", content: completion.text, tool_calls: completion.toolCalls });
        const results = await Promise.all(
          completion.toolCalls.map((c, i) =>
            this.#innerCall(c, offered, gateway, chain, caller, parent, opts.signal, `${where}:${step}:${i}`),
          ),
        );
        completion.toolCalls.forEach((c, i) => {
          messages.push({ role: "tool", tool_call_id: c.id, content: results[i] ?? "" });
        });
      }
      throw new GatewayError(
        "BUDGET_EXCEEDED",
        `${where}: the sub-agent made ${tool.maxSteps} model calls (max_steps) without a final answer`,
      );
    } catch (err) {
      const tokens = spent.prompt + spent.completion;
      // Tokens spent count against the trajectory whatever became of the run; a run that spent none does not count.
      if (tokens > 0) ticket.commit(tokens);
      else ticket.release();
      if (opts.signal.aborted) throw opts.signal.reason;
      if (!isOpenAiChatError(err)) throw err;
      if (err.kind === "http" && INPUT_REFUSED.has(err.status ?? 0))
        return {
          content: [{ type: "text", text: `the model refused the input: ${err.message}` }],
          isError: true,
        };
      if (err.kind === "unreachable") throw new GatewayError("UNAVAILABLE", `${where}: ${err.message}`);
      throw new GatewayError("UPSTREAM_ERROR", `${where}: ${err.message}`);
    }
  }

  /**
   * The tool's `tools` as the model sees them (OpenAI function tools, the catalog's schemas). A tool of an
   * agent server already running in this chain is left out (no recursion); one not in the catalog is
   * left out and logged. None left: UNAVAILABLE.
   */
  #offeredTools(
    tool: AgentTool,
    gateway: AgentGateway,
    chain: readonly string[],
    where: string,
  ): OpenAiTool[] {
    const offered: OpenAiTool[] = [];
    for (const name of tool.tools) {
      const entry = gateway.tool(name);
      if (!entry) {
        this.#log.warn({ tool: name, agent: where }, "agent tool's tool is not in the catalog");
        continue;
      }
      if (chain.includes(entry.server)) continue;
      offered.push({
        type: "function",
        function: {
          name,
          ...(entry.tool.description ? { description: entry.tool.description } : {}),
          parameters: entry.tool.inputSchema as Record<string, unknown>,
        },
      });
    }
    if (offered.length === 0)
      throw new GatewayError(
        "UNAVAILABLE",
        `${where}: none of its tools (${tool.tools.join(", ")}) is in the gateway's catalog`,
      );
    return offered;
  }

  /** One model call inside a CLIENT span (gen_ai attributes); its usage added to `spent`. */
  async #complete(
    tool: AgentTool,
    messages: readonly OpenAiChatMessage[],
    offered: readonly OpenAiTool[],
    step: number,
    spent: Spent,
    parent: Context,
    signal: AbortSignal,
  ) {
    const { endpoint } = this.server;
    const temperature = tool.temperature ?? endpoint.temperature;
    const maxTokens = tool.maxTokens ?? endpoint.maxTokens;
    const span = tracer.startSpan(
      `chat ${endpoint.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": endpoint.model,
          "rlf.agent.tool": `${this.name}__${tool.name}`,
          "rlf.agent.step": step,
        },
      },
      parent,
    );
    try {
      const completion = await this.client.complete(
        {
          model: endpoint.model,
          messages,
          tools: offered,
          ...(temperature === undefined ? {} : { temperature }),
          ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
        },
        { signal },
      );
      spent.prompt += completion.usage.prompt_tokens;
      spent.completion += completion.usage.completion_tokens;
      spent.model = completion.model;
      span.setAttributes({
        "gen_ai.response.model": completion.model,
        "gen_ai.usage.input_tokens": completion.usage.prompt_tokens,
        "gen_ai.usage.output_tokens": completion.usage.completion_tokens,
        "rlf.agent.tool_calls": completion.toolCalls.length,
      });
      return completion;
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  }

  /**
   * One tool call of the sub-agent through the gateway's request path, as a child span of the agent
   * tool's call; its outcome as the text the sub-agent reads (a failure too: the sub-agent may recover).
   */
  async #innerCall(
    call: OpenAiToolCall,
    offered: readonly OpenAiTool[],
    gateway: AgentGateway,
    chain: readonly string[],
    caller: string | undefined,
    parent: Context,
    signal: AbortSignal,
    callId: string,
  ): Promise<string> {
    const name = call.function.name;
    if (!offered.some((t) => t.function.name === name))
      return `error: ${name} is not one of your tools (${offered.map((t) => t.function.name).join(", ")})`;
    const span = tracer.startSpan(
      `agent call ${name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { "gen_ai.tool.name": name, "rlf.agent.server": this.name },
      },
      parent,
    );
    try {
      const outcome: CallOutcome = await runningAgents.run(chain, () =>
        gateway.call(
          {
            name,
            argumentsJson: call.function.arguments,
            deadlineMs: 0,
            trajectoryId: caller ?? "",
            bypassCache: false,
            callId,
            signal,
          },
          trace.setSpan(parent, span),
          span,
        ),
      );
      if (outcome.output?.usage)
        span.setAttributes({
          "gen_ai.usage.input_tokens": outcome.output.usage.prompt_tokens,
          "gen_ai.usage.output_tokens": outcome.output.usage.completion_tokens,
        });
      if (outcome.error) return `error ${outcome.error.code}: ${outcome.error.message}`;
      const text = (outcome.output?.content ?? [])
        .map((c) => c.text?.text)
        .filter((t): t is string => t !== undefined)
        .join("\n");
      return outcome.output?.isError ? `error: ${text}` : text;
    } finally {
      span.end();
    }
  }

  #answer(
    tool: AgentTool,
    text: string,
    messages: readonly OpenAiChatMessage[],
    steps: number,
    spent: Spent,
  ): CallToolResult {
    const price = this.server.endpoint.price;
    const usage = {
      prompt_tokens: spent.prompt,
      completion_tokens: spent.completion,
      model: spent.model,
      ...(price
        ? { cost_usd: (spent.prompt * price.prompt + spent.completion * price.completion) / 1_000_000 }
        : {}),
    };
    return {
      content: [{ type: "text", text }],
      ...(tool.transcript
        ? { structuredContent: { steps, messages: [...messages, { role: "assistant", content: text }] } }
        : {}),
      _meta: { [USAGE_META_KEY]: usage },
    };
  }
}
