// CallTools batches over ONE long-lived CallToolsStream (rlfactory.v1.ToolGateway): each batch is a
// message each way, which costs the caller a fraction of a unary RPC's CPU in grpc-js. Opened lazily
// by the first batch; batches are matched to their answers by batch_id (answers come out of order).
// When the stream fails or ends, every batch in flight on it rejects with the stream's status (tool
// calls are not idempotent: nothing is re-sent) and the next batch opens a new stream. A gateway that
// answers UNIMPLEMENTED (older than the stream) makes this channel hand its batches to unary CallTools,
// for good: the batches sent on that stream never ran, so they go again, over unary.
import { Metadata, type ServiceError, type StatusObject, status } from "@grpc/grpc-js";
import { context } from "@opentelemetry/api";
import type { CallToolsRequest } from "@rlfactory/proto/types/CallToolsRequest";
import type { CallToolsStreamRequest } from "@rlfactory/proto/types/CallToolsStreamRequest";
import type { CallToolsStreamResponse__Output } from "@rlfactory/proto/types/CallToolsStreamResponse";
import type { ToolGatewayClient } from "@rlfactory/proto/types/ToolGateway";
import type { ToolResult__Output } from "@rlfactory/proto/types/ToolResult";
import { injectGrpcMetadata } from "@rlfactory/telemetry/grpc-metadata";

type Duplex = ReturnType<ToolGatewayClient["CallToolsStream"]>;
type Unary = (req: CallToolsRequest, signal: AbortSignal | undefined) => Promise<ToolResult__Output[]>;

interface Pending {
  req: CallToolsRequest;
  signal: AbortSignal | undefined;
  resolve(results: ToolResult__Output[]): void;
  reject(err: ServiceError): void;
  onAbort: (() => void) | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** One open stream and the batches in flight on it. */
interface OpenStream {
  call: Duplex;
  pending: Map<string, Pending>;
}

export class CallToolsStreamChannel {
  readonly #raw: ToolGatewayClient;
  readonly #apiKey: string | undefined;
  readonly #rpcTimeoutMs: number;
  readonly #unary: Unary;
  #open: OpenStream | undefined;
  #nextBatchId = 0;
  #unimplemented = false;

  constructor(
    raw: ToolGatewayClient,
    opts: { apiKey: string | undefined; rpcTimeoutMs: number; unary: Unary },
  ) {
    this.#raw = raw;
    this.#apiKey = opts.apiKey;
    this.#rpcTimeoutMs = opts.rpcTimeoutMs;
    this.#unary = opts.unary;
  }

  /** The batch's results in call order; rejects with a ServiceError-shaped error (`code`, `details`). */
  callTools(req: CallToolsRequest, signal?: AbortSignal): Promise<ToolResult__Output[]> {
    if (this.#unimplemented) return this.#unary(req, signal);
    if (signal?.aborted) return Promise.reject(serviceError(status.CANCELLED, "Cancelled on client"));
    const open = this.#stream();
    const id = ++this.#nextBatchId;
    const key = String(id);
    const trace: { traceparent?: string; tracestate?: string } = {};
    injectGrpcMetadata(
      {
        set: (k, v) => {
          if (k === "traceparent" || k === "tracestate") trace[k] = v;
        },
      },
      context.active(),
    );
    const msg: CallToolsStreamRequest = { batch_id: id, batch: req };
    if (trace.traceparent) msg.traceparent = trace.traceparent;
    if (trace.tracestate) msg.tracestate = trace.tracestate;
    return new Promise<ToolResult__Output[]>((resolve, reject) => {
      const p: Pending = { req, signal, resolve, reject, onAbort: undefined, timer: undefined };
      open.pending.set(key, p);
      if (signal) {
        p.onAbort = () => this.#cancel(open, key, status.CANCELLED, "Cancelled on client");
        signal.addEventListener("abort", p.onAbort, { once: true });
      }
      if (this.#rpcTimeoutMs > 0) {
        p.timer = setTimeout(
          () => this.#cancel(open, key, status.DEADLINE_EXCEEDED, "Deadline exceeded"),
          this.#rpcTimeoutMs,
        );
      }
      open.call.write(msg);
    });
  }

  /** Half-closes the stream: the gateway answers the batches in flight, then ends it. */
  close(): void {
    this.#open?.call.end();
    this.#open = undefined;
  }

  #stream(): OpenStream {
    if (this.#open) return this.#open;
    const md = new Metadata();
    if (this.#apiKey) md.set("authorization", `Bearer ${this.#apiKey}`);
    const call = this.#raw.CallToolsStream(md);
    const open: OpenStream = { call, pending: new Map() };
    call.on("data", (res: CallToolsStreamResponse__Output) => {
      const p = open.pending.get(res.batch_id);
      if (!p) return; // cancelled or timed out meanwhile
      settle(open, res.batch_id, p);
      if (res.status_code === status.OK) p.resolve(res.results);
      else p.reject(serviceError(res.status_code, res.status_details));
    });
    // 'error' precedes 'status' for a non-OK status; 'status' handles both.
    call.on("error", () => {});
    call.on("status", (s: StatusObject) => this.#gone(open, s));
    this.#open = open;
    return open;
  }

  /** The stream ended: its batches in flight reject with its status, or go to unary when UNIMPLEMENTED. */
  #gone(open: OpenStream, s: StatusObject): void {
    if (this.#open === open) this.#open = undefined;
    const batches = [...open.pending];
    open.pending.clear();
    if (s.code === status.UNIMPLEMENTED) this.#unimplemented = true;
    for (const [key, p] of batches) {
      settle(open, key, p);
      if (this.#unimplemented) this.#unary(p.req, p.signal).then(p.resolve, p.reject);
      else if (s.code === status.OK)
        p.reject(serviceError(status.UNAVAILABLE, "the gateway ended the stream"));
      else p.reject(serviceError(s.code, s.details));
    }
  }

  #cancel(open: OpenStream, key: string, code: status, details: string): void {
    const p = open.pending.get(key);
    if (!p) return;
    settle(open, key, p);
    if (this.#open === open) open.call.write({ batch_id: key, cancel: true });
    p.reject(serviceError(code, details));
  }
}

function settle(open: OpenStream, key: string, p: Pending): void {
  open.pending.delete(key);
  if (p.timer) clearTimeout(p.timer);
  if (p.onAbort) p.signal?.removeEventListener("abort", p.onAbort);
}

/** An error shaped as grpc-js's ServiceError (`code`, `details`, `metadata`), as a failed unary call's. */
export function serviceError(code: status, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata: new Metadata(),
  });
}
