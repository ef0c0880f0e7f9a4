// Caller gone → AbortSignal: the one place a server learns that nobody waits for its answer any more.
//   - gRPC: the client cancelled the call, or its deadline passed;
//   - HTTP: the client hung up before the response was complete.
// Work started for the caller carries the signal, so it stops when the caller goes.
import type { ServerResponse } from "node:http";
import type { ServerUnaryCall, ServerWritableStream } from "@grpc/grpc-js";

/** setTimeout's largest delay; longer deadlines rely on grpc-js's "cancelled". */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CallerGone {
  /**
   * Aborts when the client cancels (reason: an Error) or the call's deadline passes (reason: a
   * DOMException named "TimeoutError", as `AbortSignal.timeout` gives).
   */
  signal: AbortSignal;
  /** Milliseconds left on the call's deadline when it arrived; undefined without a deadline. */
  remainingMs: number | undefined;
  /** Releases the deadline timer; call it once the call is answered. */
  done(): void;
}

/**
 * A signal that aborts when the client cancels the gRPC call or its deadline passes (grpc-js also
 * reports a passed deadline as "cancelled"; the timer does not depend on that).
 */
export function callerGone(
  call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>,
): CallerGone {
  const controller = new AbortController();
  call.once("cancelled", () => controller.abort(new Error("the client cancelled the call")));
  const deadline = call.getDeadline();
  const ms = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now();
  const timer =
    ms < MAX_TIMER_MS
      ? setTimeout(
          () => controller.abort(new DOMException("the call's deadline passed", "TimeoutError")),
          Math.max(0, ms),
        )
      : undefined;
  return {
    signal: controller.signal,
    remainingMs: Number.isFinite(ms) ? Math.max(0, ms) : undefined,
    done: () => clearTimeout(timer),
  };
}

/** A signal that aborts when the HTTP client hangs up before the response is complete. */
export function httpCallerGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) controller.abort(new Error("the client disconnected"));
  });
  return controller.signal;
}
