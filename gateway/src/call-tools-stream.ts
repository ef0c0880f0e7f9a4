// CallToolsStream: CallTools batches over one long-lived bidirectional stream (a message per batch
// each way), which spares the caller grpc-js's per-call cost. The stream is authenticated once, from
// its metadata; each batch runs through runCallToolsBatch exactly as a unary CallTools does, under its
// own SERVER span continuing the batch's traceparent and its own abort controller, and is answered as
// soon as it is done (out of order). A `cancel` message, or the client cancelling the stream, aborts
// batches still running; a cancelled batch gets no answer. When the client half-closes, the running
// batches finish and are answered, then the stream ends with OK; so too when the gateway closes.
import { type ServerDuplexStream, status } from "@grpc/grpc-js";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { CallToolsStreamRequest__Output } from "@rlfactory/proto/types/CallToolsStreamRequest";
import type { CallToolsStreamResponse } from "@rlfactory/proto/types/CallToolsStreamResponse";
import { contextFromGrpcMetadata } from "@rlfactory/telemetry";
import type { Logger } from "pino";
import type { ApiKeyAuth } from "./auth.ts";
import { runCallToolsBatch } from "./call-tools-batch.ts";
import type { Invoker } from "./invoker.ts";
import { GATEWAY_SERVICE } from "./proto.ts";
import { authorizationOf, UNAUTHENTICATED_DETAILS, wireError } from "./rpc-error.ts";

const tracer = trace.getTracer("rlfactory-gateway");
const METHOD = "CallToolsStream";
// A batch is a CallTools whichever way it came: its span has unary CallTools's name (traces and
// dashboards read the same), and `rpc.method` says it came on the stream.
const SPAN_NAME = `${GATEWAY_SERVICE}/CallTools`;
const SPAN_ATTRIBUTES = { "rpc.system": "grpc", "rpc.service": GATEWAY_SERVICE, "rpc.method": METHOD };

export interface CallToolsStreamDeps {
  invoker: Invoker;
  auth: ApiKeyAuth;
  maxBatchSize: number;
  log?: Logger;
}

/**
 * The open streams of one server. `drain()` (the server is closing) treats each as half-closed: new
 * batches are refused UNAVAILABLE, running ones finish and are answered, then the stream ends OK, so a
 * graceful shutdown does not wait out its grace period on an idle client's stream.
 */
export class CallToolsStreams {
  readonly #drainers = new Set<() => void>();
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  /** Registers an open stream's drain; returns its unregister. */
  add(drain: () => void): () => void {
    this.#drainers.add(drain);
    return () => this.#drainers.delete(drain);
  }

  drain(): void {
    this.#draining = true;
    for (const drain of [...this.#drainers]) drain();
  }
}

export function serveCallToolsStream(
  deps: CallToolsStreamDeps,
  streams: CallToolsStreams,
  call: ServerDuplexStream<CallToolsStreamRequest__Output, CallToolsStreamResponse>,
): void {
  if (!deps.auth.check(authorizationOf(call.metadata))) {
    call.emit("error", { code: status.UNAUTHENTICATED, details: UNAUTHENTICATED_DETAILS });
    return;
  }
  const running = new Map<string, AbortController>();
  const deadline = call.getDeadline();
  const deadlineAt = deadline instanceof Date ? deadline.getTime() : deadline;
  let halfClosed = false;
  let gone = false;

  let ended = false;
  const endIfDone = () => {
    if ((halfClosed || streams.draining) && running.size === 0 && !gone && !ended) {
      ended = true;
      unregister();
      call.end();
    }
  };
  const unregister = streams.add(endIfDone);
  endIfDone(); // a stream opened while the server closes
  const answer = (res: CallToolsStreamResponse) => {
    if (!gone && !ended) call.write(res);
  };

  call.on("data", (msg: CallToolsStreamRequest__Output) => {
    const id = msg.batch_id;
    if (msg.cancel) {
      running.get(id)?.abort(new Error("the client cancelled the batch"));
      return;
    }
    if (!msg.batch) {
      answer({
        batch_id: id,
        status_code: status.INVALID_ARGUMENT,
        status_details: "neither batch nor cancel",
      });
      return;
    }
    if (streams.draining) {
      answer({
        batch_id: id,
        status_code: status.UNAVAILABLE,
        status_details: "the gateway is shutting down",
      });
      return;
    }
    if (running.has(id)) {
      answer({
        batch_id: id,
        status_code: status.INVALID_ARGUMENT,
        status_details: `batch_id ${id} is already in flight on this stream`,
      });
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    const parent = contextFromGrpcMetadata({
      get: (k) => (k === "traceparent" ? [msg.traceparent] : k === "tracestate" ? [msg.tracestate] : []),
    });
    const span = tracer.startSpan(SPAN_NAME, { kind: SpanKind.SERVER, attributes: SPAN_ATTRIBUTES }, parent);
    const ctx = trace.setSpan(parent, span);
    const remainingMs = Number.isFinite(deadlineAt) ? Math.max(0, deadlineAt - Date.now()) : undefined;
    const batch = msg.batch;
    context
      .with(ctx, () => runCallToolsBatch(deps, batch, ctx, { signal: controller.signal, remainingMs }))
      .then(
        (results) => {
          if (!controller.signal.aborted) answer({ batch_id: id, results, status_code: status.OK });
        },
        (err: unknown) => {
          const e = wireError(err, METHOD, deps.log);
          span.setStatus({ code: SpanStatusCode.ERROR, message: e.details });
          if (!controller.signal.aborted)
            answer({ batch_id: id, status_code: e.code, status_details: e.details });
        },
      )
      .finally(() => {
        running.delete(id);
        span.end();
        endIfDone();
      });
  });
  call.on("end", () => {
    halfClosed = true;
    endIfDone();
  });
  call.on("cancelled", () => {
    gone = true;
    unregister();
    for (const controller of running.values()) controller.abort(new Error("the client cancelled the stream"));
  });
}
