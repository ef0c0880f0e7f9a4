// A small promise-based client of rlfactory.v1.ToolGateway, used by the CLI, the rollout engine and tests.
// Built on the static codec generated from gateway.proto (@rlfactory/proto/static-client), so that a
// command such as `rlf tools list` parses no .proto and loads neither @grpc/proto-loader nor full protobufjs.
import {
  credentials,
  Metadata,
  type ServiceClientConstructor,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { context } from "@opentelemetry/api";
import { ToolGateway } from "@rlfactory/proto/codec/gateway-services";
import { staticClientConstructor } from "@rlfactory/proto/static-client";
import type { CallToolsRequest } from "@rlfactory/proto/types/CallToolsRequest";
import type { ListToolsResponse__Output } from "@rlfactory/proto/types/ListToolsResponse";
import type { Tool__Output } from "@rlfactory/proto/types/Tool";
import type { ToolCall } from "@rlfactory/proto/types/ToolCall";
import type { ToolGatewayClient } from "@rlfactory/proto/types/ToolGateway";
import type { ToolResult__Output } from "@rlfactory/proto/types/ToolResult";
import { injectGrpcMetadata } from "@rlfactory/telemetry/grpc-metadata";
import { CallToolsStreamChannel, serviceError } from "./call-tools-stream.ts";

export interface GatewayClientOptions {
  apiKey?: string;
  /**
   * Default RPC deadline in ms (0: none; per-call deadlines still apply inside the gateway). On the
   * CallToolsStream it bounds each batch: past it the batch rejects DEADLINE_EXCEEDED and is cancelled.
   */
  rpcTimeoutMs?: number;
  /**
   * `callTools` over one long-lived CallToolsStream (default true: a message per batch, a fraction of
   * a unary call's CPU); false: one unary CallTools RPC per batch. A gateway without the stream
   * (UNIMPLEMENTED) gets unary either way.
   */
  callToolsStream?: boolean;
}

export class GatewayClient {
  readonly raw: ToolGatewayClient;
  #apiKey: string | undefined;
  #rpcTimeoutMs: number;
  #stream: CallToolsStreamChannel | undefined;

  constructor(address: string, opts: GatewayClientOptions = {}) {
    const Ctor = toolGatewayClientConstructor();
    this.raw = new Ctor(address, credentials.createInsecure(), {
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
      "grpc.max_send_message_length": 64 * 1024 * 1024,
    }) as unknown as ToolGatewayClient;
    this.#apiKey = opts.apiKey;
    this.#rpcTimeoutMs = opts.rpcTimeoutMs ?? 0;
    if (opts.callToolsStream ?? true) {
      this.#stream = new CallToolsStreamChannel(this.raw, {
        apiKey: this.#apiKey,
        rpcTimeoutMs: this.#rpcTimeoutMs,
        unary: (req, signal) => this.#unaryCallTools(req, signal),
      });
    }
  }

  listTools(server = ""): Promise<Tool__Output[]> {
    return this.#unary<ListToolsResponse__Output>((md, o, cb) =>
      this.raw.ListTools({ server }, md, o, cb),
    ).then((r) => r.tools);
  }

  callTool(call: ToolCall): Promise<ToolResult__Output> {
    return this.#unary((md, o, cb) => this.raw.CallTool(call, md, o, cb));
  }

  /**
   * A batch: results in call order. Rejects with a ServiceError-shaped error (`code`, `details`) when
   * the batch as a whole fails (UNAUTHENTICATED, an empty or oversized batch, the gateway gone, ...).
   * `signal` cancels the batch (the gateway aborts its calls); the promise then rejects CANCELLED.
   */
  callTools(req: CallToolsRequest, opts: { signal?: AbortSignal } = {}): Promise<ToolResult__Output[]> {
    return this.#stream ? this.#stream.callTools(req, opts.signal) : this.#unaryCallTools(req, opts.signal);
  }

  #unaryCallTools(req: CallToolsRequest, signal: AbortSignal | undefined): Promise<ToolResult__Output[]> {
    if (signal?.aborted) return Promise.reject(serviceError(status.CANCELLED, "Cancelled on client"));
    return this.#unary<{ results: ToolResult__Output[] }>((md, o, cb) => {
      const call = this.raw.CallTools(req, md, o, cb);
      if (signal) {
        const onAbort = () => call.cancel();
        signal.addEventListener("abort", onAbort, { once: true });
        call.once("status", () => signal.removeEventListener("abort", onAbort));
      }
    }).then((r) => r.results);
  }

  /** StartEpisode: a new episode on environment server `server`; its id. */
  startEpisode(server: string, config: Record<string, unknown> = {}, ttlMs = 0): Promise<string> {
    return this.#unary<{ episode_id: string }>((md, o, cb) =>
      this.raw.StartEpisode({ server, config_json: JSON.stringify(config), ttl_ms: ttlMs }, md, o, cb),
    ).then((r) => r.episode_id);
  }

  /** ForkEpisode: `count` independent copies of the episode's current state. */
  forkEpisode(episodeId: string, count: number): Promise<string[]> {
    return this.#unary<{ episode_ids: string[] }>((md, o, cb) =>
      this.raw.ForkEpisode({ episode_id: episodeId, count }, md, o, cb),
    ).then((r) => r.episode_ids);
  }

  /** SnapshotEpisode: the episode's current state (parsed JSON). */
  snapshotEpisode(episodeId: string): Promise<unknown> {
    return this.#unary<{ state_json: string }>((md, o, cb) =>
      this.raw.SnapshotEpisode({ episode_id: episodeId }, md, o, cb),
    ).then((r) => JSON.parse(r.state_json) as unknown);
  }

  /** EndEpisode: ends the episode; its final state (parsed JSON). */
  endEpisode(episodeId: string): Promise<unknown> {
    return this.#unary<{ state_json: string }>((md, o, cb) =>
      this.raw.EndEpisode({ episode_id: episodeId }, md, o, cb),
    ).then((r) => JSON.parse(r.state_json) as unknown);
  }

  close(): void {
    this.#stream?.close();
    this.raw.close();
  }

  #unary<T>(
    invoke: (
      md: Metadata,
      opts: { deadline?: number },
      cb: (err: ServiceError | null, res?: T) => void,
    ) => void,
  ): Promise<T> {
    const md = new Metadata();
    if (this.#apiKey) md.set("authorization", `Bearer ${this.#apiKey}`);
    injectGrpcMetadata(md, context.active());
    const opts = this.#rpcTimeoutMs > 0 ? { deadline: Date.now() + this.#rpcTimeoutMs } : {};
    return new Promise<T>((resolve, reject) =>
      invoke(md, opts, (err, res) => (err ? reject(err) : resolve(res as T))),
    );
  }
}

let clientConstructor: ServiceClientConstructor | undefined;

/** The ToolGateway client class over the generated static codec (no .proto parsed at run time). */
function toolGatewayClientConstructor(): ServiceClientConstructor {
  clientConstructor ??= staticClientConstructor(ToolGateway);
  return clientConstructor;
}

/** Plain text of a result's text blocks, joined by newlines (what a model would be shown). */
export function resultText(r: ToolResult__Output): string {
  return r.content
    .map((c) => c.text?.text)
    .filter((t): t is string => t !== undefined)
    .join("\n");
}
